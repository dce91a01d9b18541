// The hardware's side of a run for the GUI: recorded SASS per source line, per-line
// hardware counters, the metrics table's hardware rows and the occupancy figures.
#include "app/model/sass_view.h"

#include "io/read_file.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/json_whole.h"
#include "kernels/hardware/sass.h"
#include "viz/metrics_table.h"

namespace ws::gui {

namespace {

// Recorded listings by family, read once (UI thread only).
const sass::Loaded& listing(const VariantInfo& v, const std::vector<std::string>& roots) {
  static std::map<std::string, sass::Loaded> cache;
  auto it = cache.find(v.family);
  if (it == cache.end()) it = cache.emplace(v.family, sass::load_family(v.family, v.source_file, roots)).first;
  return it->second;
}

viz::SassMem mem_of(sass::MemKind k) {
  switch (k) {
    case sass::MemKind::GlobalLoad:
    case sass::MemKind::GlobalStore:
    case sass::MemKind::GlobalAtomic: return viz::SassMem::Global;
    case sass::MemKind::SharedLoad:
    case sass::MemKind::SharedStore:
    case sass::MemKind::SharedAtomic: return viz::SassMem::Shared;
    case sass::MemKind::LocalLoad:
    case sass::MemKind::LocalStore: return viz::SassMem::Local;
    case sass::MemKind::Barrier: return viz::SassMem::Barrier;
    case sass::MemKind::None: break;
  }
  return viz::SassMem::None;
}

std::string words(const std::map<std::string, double>& m) {
  // The per-instruction metrics CUPTI offers, in the model's words.
  const std::pair<const char*, const char*> names[] = {
      {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", "shared wavefronts"},
      {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal", "ideal"},
      {"smsp__sass_sectors_mem_global", "global sectors"},
      {"smsp__sass_sectors_mem_global_ideal", "ideal"},
  };
  std::string out;
  for (const auto& [key, label] : names) {
    auto it = m.find(key);
    if (it == m.end() || it->second == 0) continue;
    const bool ideal = std::string(label) == "ideal";
    out += (out.empty() ? "" : ideal ? " (" : ", ") + std::string(ideal ? "ideal " : "") +
           (ideal ? "" : std::string(label) + " ") + viz::format_value(it->second) + (ideal ? ")" : "");
  }
  return out;
}

}  // namespace

std::shared_ptr<const SassForRun> sass_for(const VariantInfo& v, const Params& completed,
                                           std::size_t launch, const std::vector<WarpEvent>& events,
                                           const HardwareCounters* hw,
                                           const std::vector<std::string>& roots) {
  auto out = std::make_shared<SassForRun>();
  const sass::Loaded& l = listing(v, roots);
  if (!l.error.empty()) {
    out->note = l.error;
    return out;
  }
  const auto instances = kernel_instances(v.family, v.name, completed);
  if (launch >= instances.size()) {
    out->note = "no kernel for launch " + std::to_string(launch);
    return out;
  }
  const sass::Function* f = l.listing.find_instance(instances[launch]);
  if (!f) {
    out->note = "no recorded SASS for " + instances[launch];
    return out;
  }
  out->found = true;
  out->registers = f->registers;
  out->spill_stores = f->spill_stores();
  out->spill_loads = f->spill_loads();
  char b[256];
  std::snprintf(b, sizeof b, "SASS of %s: %zu instructions, %d registers, %s (recorded: nvcc %s, %s)%s",
                instances[launch].c_str(), f->code.size(), f->registers,
                out->spill_stores + out->spill_loads
                    ? (std::to_string(out->spill_stores) + " spill stores, " + std::to_string(out->spill_loads) + " spill loads").c_str()
                    : "no spills",
                l.listing.compiler.c_str(), l.listing.arch.c_str(),
                l.stale ? "; STALE: the source changed since it was recorded" : "");
  out->note = b;
  const auto lines = sass::by_line(*f, v.source_file);
  std::map<std::uint32_t, int> line_of;
  for (const auto& [line, ins] : lines) {
    auto& rows = out->rows[line];
    for (const sass::Instruction* i : ins) {
      line_of[i->offset] = line;
      viz::SassRow r;
      char off[16];
      std::snprintf(off, sizeof off, "%04x  ", i->offset);
      r.text = off + i->text();
      r.mem = mem_of(i->mem());
      r.wide = i->width_bits() > 32;
      r.predicated = !i->predicate.empty() && r.mem != viz::SassMem::None;
      rows.push_back(std::move(r));
    }
  }
  out->diffs = sass::differences(lines, sass::model_accesses(events));
  if (hw) {
    std::map<int, std::map<std::string, double>> per_line;
    for (const PcCounters& pc : hw->per_pc) {
      if (pc.function != f->mangled) continue;
      auto it = line_of.find(pc.pc);
      if (it == line_of.end()) continue;
      for (const auto& [k, val] : pc.values) per_line[it->second][k] += val;
    }
    for (const auto& [line, m] : per_line)
      if (std::string w = words(m); !w.empty()) out->hw_lines[line] = "hardware: " + w;
  }
  return out;
}

std::vector<viz::HardwareRow> hardware_rows(const sim::Totals& model, const HardwareCounters& hw,
                                            const CompiledSurplus& surplus) {
  std::vector<viz::HardwareRow> rows;
  if (!hw.ok()) return rows;
  for (const CounterDiff& d : compare_counters(model.ncu(), hw, surplus)) {
    viz::HardwareRow h;
    h.metric = d.metric;
    h.modelled = d.modelled;
    h.model = d.model;
    h.hardware = d.hw_median;
    h.hw_min = d.hw_min;
    h.hw_max = d.hw_max;
    h.diff = d.diff;
    switch (d.kind) {
      case DiffKind::Equal: h.colour = viz::DiffColour::Equal; break;
      case DiffKind::Arbitration: h.colour = viz::DiffColour::Noise; break;
      case DiffKind::NotExplained: h.colour = viz::DiffColour::Differs; break;
      case DiffKind::HardwareOnly: h.colour = viz::DiffColour::HardwareOnly; break;
      case DiffKind::MmaPipeMoves: h.colour = viz::DiffColour::Noise; break;
      case DiffKind::CompiledLoop: h.colour = viz::DiffColour::Noise; break;
    }
    h.summary = diff_summary(d);
    h.explain = d.explain;
    rows.push_back(std::move(h));
  }
  return rows;
}

std::string hardware_note(const HardwareCounters& hw, bool asked) {
  if (hw.ok()) return hw.detail;
  if (!asked) return "";
  if (hw.unavailable == HardwareUnavailable::NotAsked)
    return "collecting the hardware counters (the kernel is replayed under CUPTI)...";
  return hw.why();
}

bool load_recorded_hardware(const std::string& path, const std::string& family,
                            const std::string& variant, const Params& params,
                            HardwareCounters& out, std::string& err) {
  const io::ReadResult f = io::read_file(path, io::kDefaultReadCap, "--hardware-from file");
  if (!f.ok) {
    err = f.error;
    return false;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(f.text);
    if (j.value("kernel", "") != family || j.value("variant", "") != variant) {
      err = "--hardware-from: " + path + " holds " + j.value("kernel", "?") + "/" + j.value("variant", "?") +
            ", not " + family + "/" + variant;
      return false;
    }
    Params p;
    for (const auto& [k, v] : j.at("params").items()) p[k] = io::whole<long long>(v, "parameter " + k);
    if (p != params) {
      err = "--hardware-from: " + path + " was recorded with " + to_string(p) + ", this run has " + to_string(params);
      return false;
    }
    const auto& h = j.at("hardware");
    out = HardwareCounters{};
    for (const auto& pass : h.at("passes")) {
      std::map<std::string, double> m;
      for (const auto& [k, v] : pass.items()) m[k] = v.get<double>();
      out.passes.push_back(std::move(m));
    }
    if (out.passes.empty()) {
      err = "--hardware-from: " + path + " holds no counters (" + h.value("unavailable", std::string("none")) + ")";
      return false;
    }
    out.unavailable = HardwareUnavailable::None;
    out.device = h.value("device", std::string("a GPU")) + ", recorded in " +
                 std::filesystem::path(path).filename().string();
  } catch (const std::exception& e) {
    err = "--hardware-from: " + path + " is not the JSON of `warpscope metrics --hardware --json` (" + e.what() + ")";
    return false;
  }
  return true;
}

std::vector<std::pair<std::string, std::string>> occupancy_rows(const RunResult& r,
                                                                const HardwareCounters& hw,
                                                                const SassForRun* sass,
                                                                std::size_t launch) {
  std::vector<std::pair<std::string, std::string>> rows;
  if (!sass || !sass->found || sass->registers <= 0 || launch >= r.plan.launches.size()) return rows;
  const LaunchCfg& c = r.plan.launches[launch];
  const int threads = int(c.block.x * c.block.y * c.block.z);
  const Occupancy o = theoretical_occupancy(threads, sass->registers, c.shared_bytes);
  char b[200];
  std::snprintf(b, sizeof b, "%.0f%% (%d warps/SM, %d blocks), limited by %s", 100 * o.fraction,
                o.warps_per_sm, o.blocks_per_sm, o.limiter.c_str());
  rows.emplace_back("theoretical occupancy (" + std::to_string(sass->registers) + " registers/thread, " +
                        std::to_string(threads) + " threads, " + std::to_string(c.shared_bytes) + " B shared)",
                    b);
  if (sass->spill_stores + sass->spill_loads)
    rows.emplace_back("register spills (SASS)", std::to_string(sass->spill_stores) + " STL, " +
                                                    std::to_string(sass->spill_loads) + " LDL");
  if (hw.ok() && hw.has(kAchievedOccupancy)) {
    std::snprintf(b, sizeof b, "%.1f%% (hardware: sm__warps_active, median of %zu runs)",
                  hw.median(kAchievedOccupancy), hw.passes.size());
    rows.emplace_back("achieved occupancy", b);
  }
  return rows;
}

}  // namespace ws::gui
