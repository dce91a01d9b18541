#include "app/cli/cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <cerrno>
#include <sys/stat.h>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/cli/demo.h"
#include "app/cli/record.h"
#include "app/cli/latency.h"
#include "app/cli/report.h"
#include "app/cli/util.h"
#include "app/paths.h"
#include "app/puzzle/puzzle.h"
#include "io/atomic_file.h"
#include "io/read_file.h"
#include "kernels/hardware.h"
#include "kernels/sass.h"
#include "sim/model.h"

namespace ws::cli {

namespace {

// Bad input: thrown by the commands, printed by run() as one line.
[[noreturn]] void usage(const std::string& msg) { throw UsageError(msg); }

std::unique_ptr<Backend> backend_or_usage(const std::string& name, std::ostream& err) {
  std::string notice, why;
  auto b = open_backend(name, notice, why);
  if (!b) usage(why);
  if (!notice.empty()) err << "warpscope: " << notice << "\n";
  return b;
}

const VariantInfo& variant_or_usage(const std::string& family, const std::string& variant) {
  std::string why;
  const VariantInfo* v = lookup(family, variant, why);
  if (!v) usage(why);
  return *v;
}

Params sets_or_usage(const std::vector<std::string>& sets) {
  Params p;
  std::string why;
  if (!parse_sets(sets, p, why)) usage(why);
  return p;
}

std::vector<Sweep> sweeps_or_usage(const std::vector<std::string>& items) {
  std::vector<Sweep> out;
  for (const auto& s : items) {
    Sweep sw;
    std::string why;
    if (!parse_sweep(s, sw, why)) usage(why);
    out.push_back(std::move(sw));
  }
  return out;
}

// One variant at one parameter set, validated against the backend's device.
Config single_config(const VariantInfo& v, const Params& given, const Backend& b) {
  std::vector<Config> cs;
  std::string why;
  if (!make_configs({&v}, given, {}, b.device().limits, cs, why)) usage(why);
  return cs.at(0);
}

std::string dims(const Dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// A run that did not finish: interrupted (130), refused as bad input (2, one line), or
// failed (1). -1 when it ran.
int run_failed(const VariantInfo& v, const RunResult& r, std::ostream& err) {
  if (r.cancelled) {
    err << "warpscope: interrupted\n";
    return kExitInterrupted;
  }
  if (r.error.empty()) return -1;
  if (r.rejected) usage(r.error);
  err << "warpscope: " << v.family << "/" << v.name << " failed: " << r.error << "\n";
  return kExitFailed;
}

// ---------------------------------------------------------------- info

struct InfoArgs {
  std::string backend = "auto";
  bool json = false;
};

int cmd_info(const InfoArgs& a, std::ostream& out, std::ostream& err) {
  std::string why_no_cuda;
  std::unique_ptr<Backend> b;
  if (a.backend == "auto" || a.backend == "cuda") {
    b = make_cuda_backend(why_no_cuda);
    if (!b && a.backend == "cuda")
      usage("the cuda backend is not available: " + why_no_cuda +
            " (use --backend emu for the emulator)");
  }
  if (!b) b = backend_or_usage(a.backend == "auto" ? "emu" : a.backend, err);
  const DeviceInfo d = b->device();
  if (a.json) {
    Json j;
    j["backend"] = std::string(to_string(b->kind()));
    j["measured"] = b->kind() == BackendKind::Cuda;
    j["device"] = device_json(d);
    j["cuda_unavailable"] = why_no_cuda.empty() ? Json(nullptr) : Json(why_no_cuda);
    out << pretty(j);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"backend", std::string(to_string(b->kind())) +
                                 (b->kind() == BackendKind::Cuda
                                      ? " (times measured on the GPU)"
                                      : " (SIMT emulator: counts from the model, times modelled)")});
  rows.push_back({"device", d.name});
  if (!d.driver.empty()) rows.push_back({"driver", d.driver});
  if (!d.runtime.empty()) rows.push_back({"runtime", d.runtime});
  if (d.cc_major)
    rows.push_back(
        {"compute capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)});
  if (d.sm_count) rows.push_back({"SMs", std::to_string(d.sm_count)});
  if (d.l2_bytes) rows.push_back({"L2", fmt(double(d.l2_bytes) / (1024.0 * 1024.0)) + " MiB"});
  if (d.mem_clock_mhz > 0) rows.push_back({"memory clock", fmt(d.mem_clock_mhz) + " MHz"});
  if (d.bus_width_bits > 0) rows.push_back({"bus width", fmt(d.bus_width_bits) + " bit"});
  if (d.peak_gbps > 0)
    rows.push_back({"peak bandwidth",
                    fmt(d.peak_gbps) + (b->kind() == BackendKind::Cuda
                                            ? " GB/s (theoretical: 2 x memory clock x bus width / 8)"
                                            : " GB/s (" + sim::long_label(peak_source(d, b->kind())) +
                                                  ": the device the model describes)")});
  if (d.peak_gflops > 0)
    rows.push_back({"FP32 peak", fmt(d.peak_gflops) +
                                     " GFLOP/s (2 x FP32 lanes per SM x SMs x SM clock)"});
  rows.push_back({"block limits", std::to_string(d.limits.max_threads_per_block) +
                                      " threads, " +
                                      std::to_string(d.limits.max_shared_per_block / 1024) +
                                      " KiB shared (" +
                                      std::to_string(d.limits.max_shared_per_block_optin / 1024) +
                                      " KiB with opt-in)"});
  if (!why_no_cuda.empty()) rows.push_back({"CUDA", "unavailable: " + why_no_cuda});
  for (const auto& r : rows) {
    std::string k = r[0] + ":";
    k.resize(std::max<std::size_t>(k.size(), 20), ' ');
    out << k << r[1] << "\n";
  }
  return kExitOk;
}

// ---------------------------------------------------------------- list

int cmd_list(bool json, std::ostream& out) {
  if (json) {
    Json fams = Json::array();
    for (const auto& f : family_names()) {
      Json vs = Json::array();
      for (const auto* v : family_variants(f)) {
        Json jv;
        jv["name"] = v->name;
        jv["title"] = v->title;
        jv["why"] = v->why;
        jv["source_file"] = v->source_file;
        jv["entry"] = v->entry;
        Json ps = Json::array();
        for (const auto& p : v->params) {
          Json jp;
          jp["name"] = p.name;
          jp["default"] = p.def;
          if (p.choices.empty()) {
            jp["min"] = p.min;
            jp["max"] = p.max;
          } else {
            jp["choices"] = p.choices;
          }
          jp["help"] = p.help;
          ps.push_back(jp);
        }
        jv["params"] = ps;
        vs.push_back(jv);
      }
      Json jf;
      jf["family"] = f;
      jf["variants"] = vs;
      fams.push_back(jf);
    }
    Json j;
    j["families"] = fams;
    out << pretty(j, 5);
    return kExitOk;
  }
  for (const auto& f : family_names()) {
    out << f << "\n";
    for (const auto* v : family_variants(f)) {
      out << "  " << v->name << " - " << v->title << "\n";
      if (!v->why.empty()) out << "      " << v->why << "\n";
      out << "      source: " << v->source_file << " (struct " << v->entry << ")\n";
      for (const auto& p : v->params) {
        std::string range;
        if (p.choices.empty()) {
          range = "[" + std::to_string(p.min) + ".." + std::to_string(p.max) + "]";
        } else {
          for (long long c : p.choices) range += (range.empty() ? "{" : ",") + std::to_string(c);
          range += "}";
        }
        out << "      --set " << p.name << "=" << p.def << "  " << range;
        if (!p.help.empty()) out << "  " << p.help;
        out << "\n";
      }
    }
  }
  return kExitOk;
}

// ---------------------------------------------------------------- metrics

struct MetricsArgs {
  std::string kernel, variant, backend = "auto";
  std::vector<std::string> sets;
  bool json = false, fast_only = false, hardware = false, lines = false, by_line = false;
  int runs = 3;
};

// Per-instruction hardware counters summed per source line of the family header, through
// the recorded SASS (pc offsets -> lines): {instance: {line: {metric: value}}}.
std::map<std::string, std::map<int, std::map<std::string, double>>> hardware_lines(
    const VariantInfo& v, const Params& completed, const HardwareCounters& hw, std::string& why) {
  std::map<std::string, std::map<int, std::map<std::string, double>>> out;
  const sass::Loaded sl = sass::load_family(v.family, v.source_file, data_roots());
  if (!sl.error.empty()) {
    why = sl.error;
    return out;
  }
  for (const std::string& inst : kernel_instances(v.family, v.name, completed)) {
    const sass::Function* f = sl.listing.find_instance(inst);
    if (!f) continue;
    std::map<std::uint32_t, int> line_of;
    for (const auto& [line, ins] : sass::by_line(*f, v.source_file))
      for (const sass::Instruction* i : ins) line_of[i->offset] = line;
    for (const PcCounters& pc : hw.per_pc) {
      if (pc.function != f->mangled) continue;
      auto it = line_of.find(pc.pc);
      if (it == line_of.end()) continue;
      for (const auto& [k, val] : pc.values) out[inst][it->second][k] += val;
    }
  }
  if (out.empty()) why = "no per-instruction record matched the recorded SASS of this launch";
  return out;
}

// The hardware column of `metrics --hardware`: model, hardware (median, with the spread
// over the runs), difference and its kind per counter.
Json hardware_json(const RunResult& r) {
  Json h;
  const HardwareCounters& hw = r.hardware;
  h["device"] = hw.device;
  h["runs"] = int(hw.passes.size());
  h["unavailable"] = hw.ok() ? Json(nullptr) : Json(hw.why());
  if (!hw.detail.empty()) h["detail"] = hw.detail;
  Json m = Json::object();
  for (const CounterDiff& d : compare_counters(r.totals.ncu(), hw)) {
    Json e;
    e["model"] = d.modelled ? number(d.model) : Json(nullptr);
    e["hardware"] = number(d.hw_median);
    e["min"] = number(d.hw_min);
    e["max"] = number(d.hw_max);
    e["difference"] = d.modelled ? number(d.diff) : Json(nullptr);
    e["kind"] = std::string(to_string(d.kind));
    e["summary"] = diff_summary(d);
    e["explain"] = d.explain;
    m[d.metric] = e;
  }
  h["metrics"] = m;
  Json passes = Json::array();
  for (const auto& p : hw.passes) {
    Json q = Json::object();
    for (const auto& [k, v] : p) q[k] = number(v);
    passes.push_back(q);
  }
  h["passes"] = passes;
  return h;
}

Json lines_json(const VariantInfo& v, const Params& completed, const HardwareCounters& hw) {
  Json j;
  if (!hw.per_pc_error.empty()) j["unavailable"] = hw.per_pc_error;
  std::string why;
  const auto lines = hardware_lines(v, completed, hw, why);
  Json k = Json::object();
  for (const auto& [inst, ls] : lines) {
    Json l = Json::object();
    for (const auto& [line, m] : ls) {
      Json q = Json::object();
      for (const auto& [name, val] : m) q[name] = number(val);
      l[std::to_string(line)] = q;
    }
    k[inst] = l;
  }
  j["kernels"] = k;
  if (!why.empty() && hw.per_pc_error.empty()) j["unavailable"] = why;
  j["records"] = int(hw.per_pc.size());
  j["sass_metrics_offered"] = hw.sass_metric_names;
  return j;
}

std::string hardware_text(const RunResult& r) {
  const HardwareCounters& hw = r.hardware;
  if (!hw.ok()) return "\nhardware counters: " + hw.why() + "\n";
  std::vector<std::vector<std::string>> rows;
  int equal = 0, differ = 0;
  for (const CounterDiff& d : compare_counters(r.totals.ncu(), hw)) {
    std::string hwv = fmt(d.hw_median, 6);
    if (d.hw_min != d.hw_max) hwv += " (" + fmt(d.hw_min, 6) + ".." + fmt(d.hw_max, 6) + ")";
    std::string diff = "-";
    if (d.modelled) {
      diff = d.diff == 0 && d.kind == DiffKind::Equal ? "0" : (d.diff > 0 ? "+" : "") + fmt(d.diff, 6);
      if (d.model != 0 && d.diff != 0) {
        char b[32];
        std::snprintf(b, sizeof b, " (%+.2f%%)", 100.0 * d.diff / d.model);
        diff += b;
      }
      (d.kind == DiffKind::Equal ? equal : differ)++;
    }
    rows.push_back({d.metric, d.modelled ? fmt(d.model, 6) : "-", hwv, diff,
                    d.kind == DiffKind::Equal ? "equal" : diff_summary(d)});
  }
  std::string out = "\nhardware counters of the fast build (CUPTI range profiler, " +
                    std::to_string(hw.passes.size()) + " run" + (hw.passes.size() == 1 ? "" : "s") +
                    " on " + hw.device + "): " + std::to_string(equal) + " equal, " +
                    std::to_string(differ) + " different\n";
  out += format_table({"metric", "model", "hardware (median, min..max)", "difference", "kind"}, rows,
                      {false, true, true, true, false});
  if (!hw.detail.empty()) out += "note: " + hw.detail + "\n";
  return out;
}

int cmd_metrics(const MetricsArgs& a, std::ostream& out, std::ostream& err) {
  const VariantInfo& v = variant_or_usage(a.kernel, a.variant);
  const Params given = sets_or_usage(a.sets);
  if (a.hardware && a.fast_only) usage("--hardware needs the model totals: drop --fast-only");
  if (a.hardware && a.backend == "emu")
    usage("--hardware reads the GPU's counters: it needs the cuda backend, not the emulator");
  if (a.hardware) {
    std::string why;
    if (!make_cuda_backend(why))
      usage("--hardware reads the GPU's counters, and the cuda backend is not available: " + why);
  }
  auto b = backend_or_usage(a.backend, err);
  if (a.fast_only && b->kind() != BackendKind::Cuda)
    usage("--fast-only needs the cuda backend: the emulator has no untraced build");
  if (a.fast_only && a.by_line)
    usage("--by-line needs the model's counters, which --fast-only leaves out");
  const Config c = single_config(v, given, *b);

  RunOptions ro;
  ro.totals = !a.fast_only;
  ro.keep_blocks = {};
  ro.timing = false;
  ro.hardware_runs = a.hardware ? a.runs : 0;
  ro.hardware_lines = a.hardware && a.lines;
  const RunResult r = b->run(v.family, v.name, c.completed, ro);
  if (int code = run_failed(v, r, err); code >= 0) return code;
  const Plan& plan = r.plan.launches.empty() ? c.plan : r.plan;
  const Params& params = r.params.empty() ? c.completed : r.params;
  // What the model makes of these counts (the emulator's time), summed over launches, so
  // a traced GPU run can be held against its own measured time.
  std::vector<LaunchTotals> launches = r.launches;  // a GPU run's come without them
  attach_loads_in_flight(launches, v.family, v.name, params);
  const ModelledRun mr = modelled_run(plan, launches, r.regs_per_thread);
  // The model times each launch from its own counts: a recording that keeps only the
  // run's totals of a plan of several launches gives it nothing to time.
  const bool modelled = launches.size() == plan.launches.size() && r.counts != CountsSource::NotRecorded;
  const sim::TimeParts& parts = mr.parts;
  const double modelled_us = mr.us;

  if (a.json) {
    Json j;
    j["kernel"] = v.family;
    j["variant"] = v.name;
    j["params"] = params_json(params);
    j["backend"] = std::string(to_string(b->kind()));
    // Who counted: this run, or the recording (the GPU's traced build when the time was
    // recorded), or no one (an older recording, at a size too large to emulate).
    if (r.counts != CountsSource::Run) {
      j["counts"] = std::string(to_string(r.counts));
      j["counts_source"] = r.counts_label;
    }
    if (r.timing.source.is(sim::Source::Recorded)) {
      Json rt;
      rt["median_ms"] = number(r.timing.median_ms);
      rt["throughput"] = number(r.timing.throughput);
      rt["unit"] = r.timing.unit;
      rt["source"] = sim::long_label(r.timing.source);
      j["recorded_time"] = rt;
    }
    Json ls = Json::array();
    for (std::size_t i = 0; i < plan.launches.size(); ++i) {
      const LaunchCfg& cfg = i < r.launches.size() ? r.launches[i].cfg : plan.launches[i];
      Json l;
      l["name"] = cfg.kernel;
      l["grid"] = dim_json(cfg.grid);
      l["block"] = dim_json(cfg.block);
      Json m = Json::object();
      if (i < r.launches.size() && !a.fast_only)
        for (const auto& [k, val] : r.launches[i].totals.ncu()) m[k] = number(val);
      l["metrics"] = m;
      if (a.by_line && i < r.launches.size()) {
        Json lines = Json::array();
        for (const auto& [line, t] : sim::by_line(r.launches[i].sites)) {
          Json lj;
          lj["line"] = line;
          Json lm = Json::object();
          for (const auto& [k, val] : t.ncu()) lm[k] = number(val);
          lj["metrics"] = lm;
          lines.push_back(lj);
        }
        l["lines"] = lines;
      }
      ls.push_back(l);
    }
    j["launches"] = ls;
    Json t = Json::object();
    if (!a.fast_only)
      for (const auto& [k, val] : r.totals.ncu()) t[k] = number(val);
    j["totals"] = t;
    if (a.hardware) {
      j["hardware"] = hardware_json(r);
      if (a.lines) j["hardware"]["lines"] = lines_json(v, params, r.hardware);
    }
    if (!a.fast_only && modelled) {
      Json mj;
      mj["time_us"] = number(modelled_us);
      mj["bound"] = parts.bound();
      mj["source"] = source_json(sim::Provenance::modelled(parts.bound()));
      mj["dram_us"] = number(parts.dram_us);
      mj["dram_bytes"] = number(double(mr.dram_bytes));
      mj["in_flight_us"] = number(parts.in_flight_us);
      mj["loads_in_flight"] = number(double(mr.loads_in_flight));
      mj["l1_us"] = number(parts.l1_us);
      mj["issue_us"] = number(parts.issue_us);
      mj["l2_us"] = number(parts.l2_us);
      mj["latency_us"] = number(parts.latency_us);
      mj["atomic_us"] = number(parts.atomic_us);
      if (!parts.outside_reach.empty()) mj["outside_reach"] = parts.outside_reach;
      mj["compute_us"] = number(parts.compute_us);
      mj["launch_us"] = number(parts.launch_us);
      mj["warp_instructions"] = number(double(r.totals.warp_instructions));
      mj["simd_efficiency"] = number(r.totals.simd_efficiency());
      j["modelled"] = mj;
    }
    j["verified"] = r.verified;
    j["device"] = device_json(b->device());
    out << pretty(j, 4);
  } else {
    const DeviceInfo d = b->device();
    out << v.family << "/" << v.name << "  " << params_text(params) << "\n";
    out << "backend " << to_string(b->kind()) << " on " << d.name
        << (r.counts == CountsSource::Recorded
                ? " (" + r.counts_label + ": the GPU's traced build, not counted here)"
            : r.counts == CountsSource::NotRecorded ? std::string()
            : b->kind() == BackendKind::Emu ? " (counts from the emulated trace and the model)"
                                            : std::string())
        << "\n";
    if (r.timing.source.is(sim::Source::Recorded))
      out << "time " << fmt(r.timing.median_ms) << " ms, " << fmt(r.timing.throughput) << " "
          << r.timing.unit << " (" << sim::long_label(r.timing.source) << ")\n";
    if (r.counts == CountsSource::NotRecorded) out << r.counts_label << "\n";
    for (std::size_t i = 0; i < plan.launches.size(); ++i) {
      const LaunchCfg& cfg = i < r.launches.size() ? r.launches[i].cfg : plan.launches[i];
      out << "\nlaunch " << cfg.kernel << "  grid " << dims(cfg.grid) << "  block "
          << dims(cfg.block) << "  shared " << cfg.shared_bytes << " B\n";
      if (i < r.launches.size() && !a.fast_only) {
        std::vector<std::vector<std::string>> rows;
        for (const auto& [k, val] : r.launches[i].totals.ncu()) rows.push_back({k, fmt(val, 6)});
        out << format_table({"metric (Nsight Compute name)", "value"}, rows, {false, true});
        if (a.by_line && r.launches[i].sites.empty() && r.counts == CountsSource::Recorded) {
          out << "\nby source line: not recorded (the recording keeps each launch's totals)\n";
        } else if (a.by_line) {
          // The same counters per source line of the family header (lines with none left
          // out), so the line that causes the sectors or conflicts is named.
          std::vector<std::vector<std::string>> lrows;
          for (const auto& [line, t] : sim::by_line(r.launches[i].sites))
            for (const auto& [k, val] : t.ncu())
              if (val != 0) lrows.push_back({std::to_string(line), k, fmt(val, 6)});
          out << "\nby source line (" << v.source_file << ")\n"
              << format_table({"line", "metric (Nsight Compute name)", "value"}, lrows,
                              {true, false, true});
        }
      }
    }
    if (!a.fast_only && r.counts == CountsSource::NotRecorded) {
      // Nothing counted: no totals and no modelled time to show, only the recorded time.
    } else if (!a.fast_only) {
      std::vector<std::vector<std::string>> rows;
      for (const auto& [k, val] : r.totals.plain()) rows.push_back({k, fmt(val, 4)});
      out << "\ntotals over " << plan.launches.size() << " launch"
          << (plan.launches.size() == 1 ? "" : "es") << "\n"
          << format_table({"measure", "value"}, rows, {false, true});
      if (!modelled) {
        out << "\nmodelled time: none (the recording keeps these counts for the whole run, "
               "not per launch)\n";
      } else {
        out << "\nmodelled time (from these counts): " << fmt(modelled_us, 4) << " us, bound by "
          << parts.bound() << " (dram " << fmt(parts.dram_us, 4)
          << (parts.in_flight_us > 0
                  ? " [reads with " + std::to_string(mr.loads_in_flight) + " load" +
                        (mr.loads_in_flight == 1 ? "" : "s") + " a warp in flight: " +
                        fmt(parts.in_flight_us, 4) + "]"
                  : std::string())
          << ", l1 "
          << fmt(parts.l1_us, 4) << ", issue " << fmt(parts.issue_us, 4) << ", l2 "
          << fmt(parts.l2_us, 4) << ", latency " << fmt(parts.latency_us, 4)
          << (parts.atomic_us > 0 ? ", atomic " + fmt(parts.atomic_us, 4) : std::string())
          << ", compute " << fmt(parts.compute_us, 4) << ", launch " << fmt(parts.launch_us, 4)
          << " us)\n";
      if (!parts.outside_reach.empty()) out << "  (" << parts.outside_reach << ")\n";
      }
    } else {
      out << "\n--fast-only: the untraced build ran once; no model totals\n";
    }
    if (a.hardware) out << hardware_text(r);
    if (a.hardware && a.lines) {
      std::string why = r.hardware.per_pc_error;
      const auto lines = why.empty() ? hardware_lines(v, params, r.hardware, why)
                                     : decltype(hardware_lines(v, params, r.hardware, why)){};
      if (!why.empty()) out << "\nper-line hardware counters: " << why << "\n";
      for (const auto& [inst, ls] : lines) {
        out << "\nper-line hardware counters of " << inst << " (CUPTI SASS metrics)\n";
        for (const auto& [line, m] : ls) {
          out << "  line " << line << ":";
          for (const auto& [name, val] : m) out << "  " << name << "=" << fmt(val, 8);
          out << "\n";
        }
      }
    }
    // Answered from the recording: the output was checked on the GPU when it was recorded.
    const bool from_recording = r.counts != CountsSource::Run;
    out << "\nresult: "
        << (r.verified && from_recording ? std::string("verified on the GPU when it was recorded")
            : r.verified                 ? std::string("verified against the CPU reference")
                       : "WRONG: " + (r.verify_message.empty() ? std::string("output differs")
                                                               : r.verify_message))
        << "\n";
  }
  for (const auto& p : r.problems)
    err << "warpscope: " << to_string(p.kind) << " at line " << p.line << ": " << p.message
        << "\n";
  if (!r.verified)
    err << "warpscope: " << v.family << "/" << v.name << " gave a WRONG result"
        << (r.verify_message.empty() ? "" : ": " + r.verify_message) << "\n";
  if (a.hardware && !r.hardware.ok()) {
    err << "warpscope: " << r.hardware.why() << "\n";
    return kExitFailed;
  }
  return r.ok() ? kExitOk : kExitFailed;
}

// ---------------------------------------------------------------- sass

struct SassArgs {
  std::string kernel, variant;
  std::vector<std::string> sets;
  bool all = false;  // every instruction, not only memory and barriers
};

int cmd_sass(const SassArgs& a, std::ostream& out, std::ostream& err) {
  const VariantInfo& v = variant_or_usage(a.kernel, a.variant);
  const Params given = sets_or_usage(a.sets);
  Params completed;
  if (std::string why = validate(v, given, DeviceLimits{}, completed); !why.empty()) usage(why);
  const std::vector<std::string> roots = data_roots();
  const sass::Loaded sl = sass::load_family(v.family, v.source_file, roots);
  if (!sl.error.empty()) {
    err << "warpscope: " << sl.error << "\n";
    return kExitFailed;
  }
  std::string why;
  const std::string src_text = sass::read_from_roots(v.source_file, roots, why);
  std::vector<std::string> src;
  {
    std::istringstream s(src_text);
    for (std::string l; std::getline(s, l);) src.push_back(l);
  }
  // What the model sees per line: the emulator's trace of block 0.
  auto emu = make_emu_backend();
  RunOptions ro;
  ro.totals = false;
  ro.keep_blocks = {0};
  const RunResult r = emu->run(v.family, v.name, completed, ro);
  std::vector<WarpEvent> events;
  for (const KeptLaunch& k : r.kept) events.insert(events.end(), k.events.begin(), k.events.end());
  const auto model = sass::model_accesses(events);

  out << v.family << "/" << v.name << "  " << params_text(completed) << "\n";
  out << "SASS of the fast build, recorded with nvcc " << sl.listing.compiler << " for "
      << sl.listing.arch << " (assets/sass/" << v.family << ".sass)\n";
  if (sl.stale)
    out << "STALE: " << v.source_file << " or the dialect changed since this SASS was recorded; "
        << "line numbers may be off (re-record with scripts/device_run.sh sass_record)\n";
  int status = kExitOk;
  for (const std::string& inst : kernel_instances(v.family, v.name, completed)) {
    const sass::Function* f = sl.listing.find_instance(inst);
    if (!f) {
      err << "warpscope: no recorded SASS for kernel " << inst << "\n";
      status = kExitFailed;
      continue;
    }
    out << "\nkernel " << inst << ": " << f->code.size() << " instructions, " << f->registers
        << " registers, " << f->spill_stores() << " spill stores, " << f->spill_loads()
        << " spill loads, stack " << f->stack << " B\n";
    const auto lines = sass::by_line(*f, v.source_file);
    const auto diffs = sass::differences(lines, model);
    for (const auto& [line, ins] : lines) {
      std::vector<const sass::Instruction*> shown;
      for (const sass::Instruction* i : ins)
        if (a.all || i->mem() != sass::MemKind::None) shown.push_back(i);
      auto d = diffs.find(line);
      if (shown.empty() && d == diffs.end()) continue;
      const std::string text = line >= 1 && line <= int(src.size()) ? src[line - 1] : "";
      out << "\n" << (d != diffs.end() ? "! " : "  ") << line << " | " << text << "\n";
      for (const sass::Instruction* i : shown) {
        char off[16];
        std::snprintf(off, sizeof off, "%04x", i->offset);
        out << "        " << off << "  " << i->text() << "\n";
      }
      if (d != diffs.end()) out << "        ^ " << d->second << "\n";
    }
  }
  return status;
}

// ---------------------------------------------------------------- bench / export

struct BenchArgs {
  std::string kernel, variant, backend = "auto";
  bool all = false, peers = false, force = false;
  std::vector<std::string> sets, sweeps;
  int repeats = 10;
  std::string csv, json;
  std::string out, format;  // export
  std::string lesson, step;  // export --lesson ID --step N
};

// The configurations of a bench/export command line.
std::vector<Config> bench_configs(const BenchArgs& a, const Backend& b, Params& sets,
                                  std::vector<Sweep>& sweeps) {
  std::vector<const VariantInfo*> vs;
  if (!a.variant.empty()) {
    vs = {&variant_or_usage(a.kernel, a.variant)};
  } else {
    vs = family_variants(a.kernel);
    if (vs.empty()) {
      std::string why;
      lookup(a.kernel, "", why);
      usage(why);
    }
  }
  sets = sets_or_usage(a.sets);
  sweeps = sweeps_or_usage(a.sweeps);
  // One parameter swept and set: the --set would be dropped without a word.
  for (std::size_t i = 0; i < sweeps.size(); ++i) {
    if (sets.count(sweeps[i].key))
      usage("--sweep " + sweeps[i].key + "=... and --set " + sweeps[i].key + "=" +
            std::to_string(sets.at(sweeps[i].key)) + " both give " + sweeps[i].key + ": keep one");
    for (std::size_t j = 0; j < i; ++j)
      if (sweeps[j].key == sweeps[i].key) usage("--sweep " + sweeps[i].key + " is given twice: keep one");
  }
  std::vector<Config> cs;
  std::string why;
  if (!make_configs(vs, sets, sweeps, b.device().limits, cs, why)) usage(why);
  return cs;
}

// A file the command writes at the end: refused before anything runs when it could not
// be written (missing folder, an existing file without --force, a link, a directory), so
// a long sweep does not end in "cannot write".
void writable_or_usage(const std::string& path, const std::string& option, bool force) {
  if (path.empty() || path == "-") return;
  if (std::string why = io::check_writable(path, force); !why.empty())
    usage(option + " " + path + ": " + why +
          (why.find("already exists") != std::string::npos ? "; pass --force to overwrite it"
                                                           : ""));
}

// What bench and export share: the configurations, the runs, the text table on `out`.
BenchReport bench_and_print(const BenchArgs& a, std::ostream& out, std::ostream& err) {
  auto b = backend_or_usage(a.backend, err);
  Params sets;
  std::vector<Sweep> sweeps;
  auto cs = bench_configs(a, *b, sets, sweeps);
  BenchOptions bo;
  bo.repeats = a.repeats;
  bo.peers = a.peers;
  // Refused before the first run: what the emulator cannot run and no recording answers.
  const RunOptions ro = bench_run_options(*b, bo);
  for (const Config& c : cs)
    if (std::string why = b->refusal(c.variant->family, c.variant->name, c.completed, ro);
        !why.empty())
      usage(why);
  bo.progress = &err;
  BenchReport r = run_bench(*b, a.kernel, std::move(cs), bo);
  r.sets = sets;
  r.sweeps = sweeps;
  out << bench_text(r);
  return r;
}

int cmd_bench(const BenchArgs& a, std::ostream& out, std::ostream& err) {
  writable_or_usage(a.csv, "--csv", a.force);
  writable_or_usage(a.json, "--json", a.force);
  if (!a.csv.empty() && a.csv != "-" && a.csv == a.json)
    usage("--csv and --json name the same file " + a.csv);
  const BenchReport r = bench_and_print(a, out, err);
  if (r.cancelled) return kExitInterrupted;
  std::string why;
  if (!a.csv.empty() && !write_text(a.csv, bench_csv(r), out, why, a.force)) usage(why);
  if (!a.json.empty() && !write_text(a.json, pretty(bench_json(r), 4), out, why, a.force))
    usage(why);
  if (!a.csv.empty() && a.csv != "-") err << "wrote " << a.csv << "\n";
  if (!a.json.empty() && a.json != "-") err << "wrote " << a.json << "\n";
  return r.any_bad() ? kExitFailed : kExitOk;
}

std::string lesson_or_usage(const std::string& arg);
int step_or_usage(const std::string& lesson, const std::string& step, const Hooks& h);

// `export --lesson ID --step N`: the chart of that step as the window shows it (the GUI's
// own state and panels, run without a display).
int export_lesson(const BenchArgs& a, const std::vector<std::string>& formats, bool explicit_format,
                  std::ostream& out, std::ostream& err, const Hooks& h) {
  for (const char* o : {"--variant", "--set", "--sweep", "--peers"})
    if ((std::string(o) == "--variant" && !a.variant.empty()) || (std::string(o) == "--set" && !a.sets.empty()) ||
        (std::string(o) == "--sweep" && !a.sweeps.empty()) || (std::string(o) == "--peers" && a.peers))
      usage(std::string(o) + " does not go with --lesson: the step's lab says what runs");
  if (!h.gui_lesson_chart)
    usage("this warpscope was built without the GUI, which draws a lesson's chart (it needs libimgui-dev "
          "and libmd4c-dev: run scripts/setup and rebuild)");
  gui::GuiOptions o;
  if (a.backend != "auto" && a.backend != "emu" && a.backend != "cuda")
    usage("unknown backend '" + a.backend + "' (choose auto, emu or cuda)");
  o.backend = a.backend;
  o.lesson = lesson_or_usage(a.lesson);
  o.step = step_or_usage(o.lesson, a.step, h);
  o.width = 1280;
  o.height = 720;
  viz::ChartSpec chart;
  std::string message;
  if (int rc = h.gui_lesson_chart(o, chart, message); rc != 0) {
    err << "warpscope: " << message << "\n";
    return kExitFailed;
  }
  if (!message.empty()) err << "warpscope: " << message << "\n";
  std::string why;
  std::vector<std::string> written;
  if (!write_chart(chart, a.out, formats, a.force, !explicit_format, written, why, err)) usage(why);
  for (const auto& p : written) out << "wrote " << p << "\n";
  return kExitOk;
}

int cmd_export(const BenchArgs& a, std::ostream& out, std::ostream& err, const Hooks& h) {
  const bool explicit_format = !a.format.empty();
  const auto formats = split(explicit_format ? a.format : "svg,png,csv", ',');
  for (const auto& f : formats)
    if (f != "svg" && f != "png" && f != "csv" && f != "json")
      usage("unknown --format '" + f + "' (choose from svg, png, csv, json)");
  if (formats.empty()) usage("--format is empty (choose from svg, png, csv, json)");
  for (std::size_t i = 0; i < formats.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (formats[i] == formats[j]) usage("--format names " + formats[i] + " twice");
  if (a.lesson.empty() == a.kernel.empty()) usage("export needs --kernel or --lesson (one of them)");
  if (!a.step.empty() && a.lesson.empty()) usage("--step needs --lesson");
  const std::string name = std::filesystem::path(a.out).filename().string();
  if (name.empty() || name == "." || name == "..")
    usage("--out '" + a.out + "' has no file name (example: --out charts/transpose)");
  // Refuse before running anything: a long sweep should not end in "file exists".
  for (const auto& f : formats) writable_or_usage(a.out + "." + f, "--out", a.force);
  if (!a.lesson.empty()) return export_lesson(a, formats, explicit_format, out, err, h);

  const BenchReport r = bench_and_print(a, out, err);
  if (r.cancelled) return kExitInterrupted;
  const viz::ChartSpec chart = bench_chart(r);
  std::string why;
  std::vector<std::string> written;
  // A path that became unwritable during the run is bad input, as it is before it.
  if (!write_chart(chart, a.out, formats, a.force, !explicit_format, written, why, err))
    usage(why);
  for (const auto& p : written) out << "wrote " << p << "\n";
  return r.any_bad() ? kExitFailed : kExitOk;
}

// ---------------------------------------------------------------- trace

struct TraceArgs {
  std::string kernel, variant, backend = "auto";
  std::vector<std::string> sets;
  std::uint32_t block = 0;
};

int cmd_trace(const TraceArgs& a, std::ostream& out, std::ostream& err) {
  const VariantInfo& v = variant_or_usage(a.kernel, a.variant);
  const Params given = sets_or_usage(a.sets);
  auto b = backend_or_usage(a.backend, err);
  const Config c = single_config(v, given, *b);
  unsigned long long most = 0;
  for (const auto& l : c.plan.launches) most = std::max(most, l.grid.count());
  if (a.block >= most)
    usage("--block " + std::to_string(a.block) + " is outside the grid (" + std::to_string(most) +
          " block" + (most == 1 ? "" : "s") + ", numbered from 0)");

  RunOptions ro;
  ro.totals = false;
  ro.keep_blocks = {a.block};
  const RunResult r = b->run(v.family, v.name, c.completed, ro);
  if (int code = run_failed(v, r, err); code >= 0) return code;
  Json j;
  j["kernel"] = v.family;
  j["variant"] = v.name;
  j["params"] = params_json(r.params.empty() ? c.completed : r.params);
  j["backend"] = std::string(to_string(b->kind()));
  j["block"] = a.block;
  Json ls = Json::array();
  for (const auto& k : r.kept) {
    Json l;
    l["name"] = k.info.kernel;
    l["source_file"] = k.info.source_file;
    l["grid"] = dim_json(k.info.grid);
    l["block"] = dim_json(k.info.block);
    l["shared_bytes"] = k.info.shared_bytes;
    Json arrays = Json::array();
    for (const auto& ad : k.info.arrays) {
      Json ja;
      ja["id"] = ad.id;
      ja["space"] = std::string(to_string(ad.space));
      ja["name"] = ad.name;
      ja["elem_bytes"] = ad.elem_bytes;
      ja["count"] = ad.count;
      if (ad.space == Space::Shared) ja["base_offset"] = ad.base_offset;
      arrays.push_back(ja);
    }
    l["arrays"] = arrays;
    Json evs = Json::array();
    for (const auto& e : k.events) {
      Json je;
      je["block"] = e.block;
      je["warp"] = e.warp;
      je["kind"] = std::string(to_string(e.kind));
      je["line"] = e.line;
      je["array"] = e.array == kNoArray ? Json(nullptr) : Json(e.array);
      je["mask"] = hex32(e.mask);
      je["active"] = e.active_lanes();
      if (e.kind == EventKind::Branch || e.kind == EventKind::Vote) je["ballot"] = hex32(e.ballot);
      if (e.kind == EventKind::Work) je["instructions"] = sim::event_warp_instructions(e);
      if (is_memory(e.kind)) {
        je["bytes"] = e.bytes;
        Json offs = Json::array();
        for (int lane = 0; lane < 32; ++lane)
          offs.push_back((e.mask >> lane) & 1u ? Json(e.offset[lane]) : Json(nullptr));
        je["offsets"] = offs;
      }
      evs.push_back(je);
    }
    l["events"] = evs;
    ls.push_back(l);
  }
  j["launches"] = ls;
  out << pretty(j, 4);
  for (const auto& p : r.problems)
    err << "warpscope: " << to_string(p.kind) << " at line " << p.line << ": " << p.message
        << "\n";
  return kExitOk;
}

// ---------------------------------------------------------------- lesson, gui

void lesson_file_or_usage(const std::string& f) {
  std::error_code ec;
  if (std::filesystem::is_directory(f, ec))
    usage("lesson file " + f + " is a directory; give a lesson's .md file (e.g. " + f +
          "/01-warps.md)");
  // The one reader's checks: a FIFO, device or directory named, never opened for long.
  if (std::string why = io::check_readable(f, io::kDefaultReadCap, "lesson file"); !why.empty()) usage(why);
}

// A file the user names for reading (--kernel, --edit, --hardware-from, a puzzle): one
// line naming it when it is not a readable regular file. `may_be_missing`: --edit's file
// is created from the puzzle's starter.
void readable_or_usage(const std::string& path, const std::string& what, bool may_be_missing = false) {
  const std::string why = io::check_readable(path, io::kDefaultReadCap, what);
  if (why.empty()) return;
  struct stat st {};
  if (may_be_missing && ::lstat(path.c_str(), &st) != 0 && errno == ENOENT) return;
  usage(why);
}

struct LessonArgs {
  std::vector<std::string> validate;
  std::string check, backend = "auto";
  bool list = false;
};

// The title in a lesson's front matter ("" when it has none).
std::string lesson_title(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  if (!std::getline(in, line) || line != "---") return "";
  while (std::getline(in, line) && line != "---")
    if (line.rfind("title:", 0) == 0) {
      std::string t = line.substr(6);
      t.erase(0, t.find_first_not_of(" \t\"'"));
      while (!t.empty() && (t.back() == '"' || t.back() == '\'' || t.back() == ' ')) t.pop_back();
      return t;
    }
  return "";
}

// The lessons this binary finds (app/paths.h: next to it first, then its source tree).
int cmd_lesson_list(std::ostream& out, std::ostream& err) {
  const std::string dir = paths::lessons_dir();
  if (dir.empty()) {
    std::string where;
    for (const std::string& r : paths::data_roots())
      where += (where.empty() ? "" : ", ") + (std::filesystem::path(r) / "lessons").string();
    err << "warpscope: no lessons found (looked in " << where << ")\n";
    return kExitFailed;
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".md" && e.path().filename() != "README.md") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  out << "lessons in " << dir << "\n";
  for (const auto& f : files) {
    const std::string id = f.stem().string();
    out << "  " << id << std::string(id.size() < 24 ? 24 - id.size() : 1, ' ') << lesson_title(f) << "\n";
  }
  return kExitOk;
}

int cmd_lesson(const LessonArgs& a, std::ostream& out, std::ostream& err, const Hooks& h) {
  if (a.list) {
    if (!a.validate.empty() || !a.check.empty()) usage("lesson --list takes no other option");
    return cmd_lesson_list(out, err);
  }
  if (a.validate.empty() == a.check.empty())
    usage("lesson needs --list, --validate FILE... or --check FILE");
  if (!h.lesson_validate || !h.lesson_check)
    usage("this warpscope was built without lessons (they need libmd4c-dev: run scripts/setup "
          "and rebuild)");
  // --validate reports each unreadable file on its own line and goes on with the rest.
  if (!a.validate.empty()) return h.lesson_validate(a.validate, out);
  lesson_file_or_usage(a.check);
  auto b = backend_or_usage(a.backend, err);
  return h.lesson_check(a.check, *b, out);
}

// ---------------------------------------------------------------- puzzle

struct PuzzleArgs {
  bool list = false;
  std::string dir, check, kernel, backend = "emu";
  double time_limit = 10;
};

int cmd_puzzle(const PuzzleArgs& a, std::ostream& out, std::ostream& err) {
  if (a.list == !a.check.empty()) usage("puzzle needs either --list [--dir DIR] or --check FILE");
  if (a.list) return puzzle::list_command(a.dir, out, err);
  if (!(a.time_limit > 0 && a.time_limit <= 3600))
    usage("--time-limit " + std::to_string(a.time_limit) + " is outside 0..3600 seconds");
  readable_or_usage(a.check, "puzzle file");
  if (!a.kernel.empty()) readable_or_usage(a.kernel, "kernel file");
  auto b = backend_or_usage(a.backend, err);
  return puzzle::check_command(a.check, a.kernel, *b, a.time_limit, out, err);
}

// ---------------------------------------------------------------- record

struct RecordArgs {
  std::string out, backend = "cuda", lessons = "lessons";
  int repeats = 20;
  bool force = false;
};

// The lesson files of a folder, in name order (README.md describes the format).
std::vector<std::string> lesson_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(dir, ec))
    if (f.path().extension() == ".md" && f.path().filename() != "README.md")
      out.push_back(f.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

int cmd_record(const RecordArgs& a, std::ostream& out, std::ostream& err, const Hooks& h) {
  RecordOptions o;
  o.out = a.out;
  o.repeats = a.repeats;
  o.force = a.force;
  o.lesson_timed = h.lesson_timed;
  if (!a.lessons.empty() && a.lessons != "none") {
    if (!std::filesystem::is_directory(a.lessons))
      usage("--lessons " + a.lessons + " is not a folder of lesson files (or say --lessons none)");
    // A build without md4c cannot read them: say so rather than record without them.
    if (!h.lesson_timed)
      usage("this warpscope was built without lessons (they need libmd4c-dev): record with "
            "--lessons none, or rebuild");
    o.lessons = lesson_files(a.lessons);
  }
  if (!a.out.empty() && std::filesystem::is_directory(a.out))
    usage("--out " + a.out + " is a directory; give the recording's file name");
  auto b = backend_or_usage(a.backend, err);
  if (b->kind() != BackendKind::Cuda)
    usage("record needs a GPU: it measures, and the emulator only models (--backend cuda)");
  return record(*b, o, out, err);
}

struct GuiArgs {
  std::string screenshot, view = "window", kernel, variant, backend = "auto", lesson, font,
                                  size, puzzle, edit, step;
  std::vector<std::string> sets;
  bool presenter = false, hardware = false, sass = false, force = false;
  std::string hardware_from;
};

// `--lesson ID|FILE`: an existing file as given, else the id as `lesson --list` prints it.
std::string lesson_or_usage(const std::string& arg) {
  std::error_code ec;
  const bool md = arg.size() > 3 && arg.compare(arg.size() - 3, 3, ".md") == 0;
  if (arg.find('/') != std::string::npos || md || std::filesystem::exists(arg, ec)) {
    lesson_file_or_usage(arg);
    return arg;
  }
  const std::string dir = paths::lessons_dir();
  const auto file = std::filesystem::path(dir) / (arg + ".md");
  if (dir.empty() || arg == "README" || !std::filesystem::is_regular_file(file, ec))
    usage("no lesson '" + arg + "' (lesson --list prints the ids; a lesson file's path works too)");
  return file.string();
}

// `--step N` of a lesson: its `##` sections counted from 1. 0 when not given.
int step_or_usage(const std::string& lesson, const std::string& step, const Hooks& h) {
  if (step.empty()) return 0;
  if (lesson.empty()) usage("--step needs --lesson");
  const bool digits = step.size() < 6 && std::all_of(step.begin(), step.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) usage("--step '" + step + "' is not a step number (1, 2, ...)");
  const int n = std::stoi(step);
  if (!h.lesson_steps) usage("this warpscope was built without lessons (they need libmd4c-dev)");
  std::string why;
  const int steps = h.lesson_steps(lesson, why);
  if (steps < 0) usage("lesson " + lesson + ": " + why);
  if (n < 1 || n > steps)
    usage("--step " + step + " is outside lesson " + std::filesystem::path(lesson).stem().string() + " (steps 1.." +
          std::to_string(steps) + ")");
  return n;
}

int cmd_gui(const GuiArgs& a, const Hooks& h) {
  if (!h.gui_run)
    usage("this warpscope was built without the GUI (it needs libimgui-dev, libglfw3-dev, "
          "libgl-dev and libmd4c-dev: run scripts/setup and rebuild)");
  gui::GuiOptions o;
  if (a.backend != "auto" && a.backend != "emu" && a.backend != "cuda")
    usage("unknown backend '" + a.backend + "' (choose auto, emu or cuda)");
  o.backend = a.backend;
  if (!a.variant.empty() && a.kernel.empty()) usage("--variant needs --kernel");
  if (!a.kernel.empty()) {
    if (a.variant.empty()) {
      if (family_variants(a.kernel).empty()) {
        std::string why;
        lookup(a.kernel, "", why);
        usage(why);
      }
    } else {
      const VariantInfo& v = variant_or_usage(a.kernel, a.variant);
      Params done;
      const std::string why = validate(v, sets_or_usage(a.sets), DeviceLimits{}, done);
      if (!why.empty()) usage(v.family + "/" + v.name + ": " + why);
    }
  }
  o.family = a.kernel;
  o.variant = a.variant;
  o.params = sets_or_usage(a.sets);
  o.presenter = a.presenter;
  o.hardware = a.hardware;
  o.hardware_from = a.hardware_from;
  o.sass = a.sass;
  if (!a.hardware_from.empty()) readable_or_usage(a.hardware_from, "--hardware-from file");
  o.lesson = a.lesson.empty() ? "" : lesson_or_usage(a.lesson);
  o.step = step_or_usage(o.lesson, a.step, h);
  if (!a.puzzle.empty()) readable_or_usage(a.puzzle, "puzzle file");
  if (!a.edit.empty() && a.puzzle.empty()) usage("--edit needs --puzzle");
  if (!a.edit.empty()) readable_or_usage(a.edit, "--edit file", true);
  o.puzzle = a.puzzle;
  o.edit = a.edit;
  if (!a.screenshot.empty()) {
    const auto parent = std::filesystem::path(a.screenshot).parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
      usage("directory " + parent.string() + " does not exist");
    // Neither the picture nor the text beside it replaces a file without --force.
    writable_or_usage(a.screenshot, "--screenshot", a.force);
    // FILE.txt beside it, as gui::screenshot_text_path names it.
    writable_or_usage(std::filesystem::path(a.screenshot).replace_extension(".txt").string(), "--screenshot",
                      a.force);
  }
  o.force = a.force;
  o.screenshot = a.screenshot;
  o.view = a.view;
  if (!a.font.empty())
    if (std::string why = paths::font_problem(a.font); !why.empty()) usage("--font: " + why);
  o.font = a.font;
  if (!a.size.empty()) {
    std::string why;
    if (!parse_size(a.size, o.width, o.height, why)) usage(why);
  }
  return h.gui_run(o);
}

// ---------------------------------------------------------------- dispatch

void add_backend(CLI::App* s, std::string& target) {
  s->add_option("--backend", target, "auto (CUDA when usable, else the emulator), emu or cuda")
      ->capture_default_str();
}

// An empty value (`--csv ''`, `--kernel=`) was taken as "not given": refused by name.
void empty_values_or_usage(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& s = args[i];
    if (s.size() > 3 && s.rfind("--", 0) == 0 && s.back() == '=' && s.find('=') == s.size() - 1)
      usage(s.substr(0, s.size() - 1) + " is given an empty value");
    if (s.empty())
      usage(i > 0 && args[i - 1].rfind("-", 0) == 0 ? args[i - 1] + " is given an empty value"
                                                    : std::string("an empty argument is not a name or an option"));
  }
}

int dispatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
             const Hooks& hooks) {
  CLI::App app{"warpscope: GPU performance, warp by warp. Without arguments: the desktop app "
               "when a display is available, else a headless demo.",
               "warpscope"};
  app.set_version_flag("--version", "warpscope 0.1");
  app.footer("Exit status: 0 success, 1 a run failed or a result was WRONG, 2 bad input.");
  app.require_subcommand(0, 1);
  empty_values_or_usage(args);

  InfoArgs ia;
  auto* info = app.add_subcommand("info", "Backend, device and why CUDA is unavailable if it is");
  add_backend(info, ia.backend);
  info->add_flag("--json", ia.json, "JSON output");

  bool list_json = false;
  auto* list = app.add_subcommand("list", "Kernel families, variants and their parameters");
  list->add_flag("--json", list_json, "JSON output");

  MetricsArgs ma;
  auto* metrics =
      app.add_subcommand("metrics", "Run one launch and print the model's totals (ncu names)");
  metrics->add_option("--kernel", ma.kernel, "kernel family (see list)")->required();
  metrics->add_option("--variant", ma.variant, "variant of the family")->required();
  metrics->add_option("--set", ma.sets, "parameter key=value (repeatable)");
  add_backend(metrics, ma.backend);
  metrics->add_flag("--json", ma.json, "JSON output");
  metrics->add_flag("--fast-only", ma.fast_only,
                    "cuda: run only the untraced build (for profiling with ncu); no totals");
  metrics->add_flag("--hardware", ma.hardware,
                    "cuda: also read the GPU's counters of the fast build through CUPTI, beside "
                    "the model's");
  metrics->add_flag("--lines", ma.lines,
                    "with --hardware: per-source-line counters through CUPTI's SASS metrics");
  metrics->add_option("--runs", ma.runs, "profiled runs for --hardware (the spread shows noise)")
      ->check(CLI::Range(1, 50))
      ->capture_default_str();

  SassArgs sa;
  auto* sassc = app.add_subcommand(
      "sass", "The fast build's recorded SASS of one launch, grouped by source line");
  sassc->add_option("--kernel", sa.kernel, "kernel family (see list)")->required();
  sassc->add_option("--variant", sa.variant, "variant of the family")->required();
  sassc->add_option("--set", sa.sets, "parameter key=value (repeatable)");
  sassc->add_flag("--all", sa.all, "every instruction (default: memory and barriers)");
  metrics->add_flag("--by-line", ma.by_line,
                    "also the model's counters of each source line (JSON: lines per launch)");

  LatencyArgs lta;
  auto* latency = app.add_subcommand(
      "latency", "How long each stage of a result takes after a change (the GUI's worker, no window)");
  add_backend(latency, lta.backend);
  latency->add_flag("--json", lta.json, "JSON output");
  latency->add_option("--runs", lta.runs, "changes per case (p50/p95 over them)")->capture_default_str();

  BenchArgs ba;
  auto* bench = app.add_subcommand("bench", "Time variants and sweeps, with peers and speedups");
  BenchArgs ea;
  auto* exp = app.add_subcommand("export", "Run like bench and write the chart (SVG, PNG, CSV)");
  for (auto [s, a] : {std::pair{bench, &ba}, std::pair{exp, &ea}}) {
    auto* k = s->add_option("--kernel", a->kernel, "kernel family (see list)");
    if (s == bench) k->required();
    auto* v = s->add_option("--variant", a->variant, "one variant (default: all)");
    auto* all = s->add_flag("--all", a->all, "every variant of the family (the default)");
    v->excludes(all);
    s->add_option("--set", a->sets, "parameter key=value (repeatable)");
    s->add_option("--sweep", a->sweeps,
                  "key=v1,v2,... (repeatable: the cartesian product is run)");
    add_backend(s, a->backend);
    // A number first (so "abc" is "not a number"), then its range.
    s->add_option("--repeats", a->repeats, "timed runs per point (median, min, max)")
        ->check(CLI::Validator(
            [](std::string& v) {
              const bool digits = !v.empty() && v.size() < 10 &&
                                  std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
              return digits ? std::string() : "'" + v + "' is not a whole number";
            },
            "N", "N"))
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    s->add_flag("--peers", a->peers,
                "also time the library peers that fit (cuBLAS SGEMM, CUB reduce)");
  }
  bench->add_option("--csv", ba.csv, "write the rows as CSV to FILE ('-': stdout)");
  bench->add_option("--json", ba.json, "write the rows as JSON to FILE ('-': stdout)");
  bench->add_flag("--force", ba.force, "overwrite existing --csv/--json files");
  exp->add_option("--out", ea.out, "output prefix: PREFIX.svg, PREFIX.png, PREFIX.csv")
      ->required();
  exp->add_option("--format", ea.format, "comma-separated: svg,png,csv,json (default: svg,png,csv)");
  exp->add_option("--lesson", ea.lesson, "instead of --kernel: a lesson (its id or file) whose step's chart to write");
  exp->add_option("--step", ea.step, "with --lesson: the step, from 1 (its ## sections)");
  exp->add_flag("--force", ea.force, "overwrite existing files");

  TraceArgs ta;
  auto* trace = app.add_subcommand("trace", "The recorded warp events of one block, as JSON");
  trace->add_option("--kernel", ta.kernel, "kernel family (see list)")->required();
  trace->add_option("--variant", ta.variant, "variant of the family")->required();
  trace->add_option("--set", ta.sets, "parameter key=value (repeatable)");
  trace->add_option("--block", ta.block, "linear block index")->capture_default_str();
  add_backend(trace, ta.backend);

  LessonArgs la;
  auto* lesson = app.add_subcommand("lesson", "List lessons, validate lesson files or check their labs");
  lesson->add_flag("--list", la.list, "print the lessons found and the folder they are in");
  lesson->add_option("--validate", la.validate, "lesson files to validate against the catalogue");
  lesson->add_option("--check", la.check, "run every lab of one lesson file");
  add_backend(lesson, la.backend);

  PuzzleArgs pa;
  auto* puz = app.add_subcommand("puzzle", "Write the kernel: list the puzzles, check a kernel against one");
  puz->add_flag("--list", pa.list, "list the puzzles (of --dir, default ./puzzles or the installed ones)");
  puz->add_option("--dir", pa.dir, "puzzles directory for --list");
  puz->add_option("--check", pa.check, "check a puzzle: the starter, or --kernel FILE");
  puz->add_option("--kernel", pa.kernel, "your kernel (.cuh) for --check");
  puz->add_option("--backend", pa.backend, "emu (default), cuda or auto")->capture_default_str();
  puz->add_option("--time-limit", pa.time_limit, "seconds the kernel may run (emulator)")
      ->capture_default_str();
  RecordArgs ra;
  auto* rec = app.add_subcommand(
      "record", "Measure the lessons' timed configurations, the variant bars and the standard "
                "sweeps on the GPU and write a recording for machines without one");
  rec->add_option("--out", ra.out, "the recording's file (default assets/recordings/<gpu>.json)");
  rec->add_option("--lessons", ra.lessons, "folder of lessons whose timed steps to record ('none': skip)")
      ->capture_default_str();
  rec->add_option("--repeats", ra.repeats, "timed runs per configuration (median, min, max)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  rec->add_flag("--force", ra.force, "replace an existing recording file");
  add_backend(rec, ra.backend);

  GuiArgs ga;
  auto* guic = app.add_subcommand("gui", "The desktop app (or a screenshot of one view)");
  guic->add_option("--screenshot", ga.screenshot, "render one view to FILE.png and quit");
  guic->add_option("--view", ga.view, "view for --screenshot")->capture_default_str();
  guic->add_option("--kernel", ga.kernel, "initial kernel family");
  guic->add_option("--variant", ga.variant, "initial variant");
  guic->add_option("--set", ga.sets, "parameter key=value (repeatable)");
  add_backend(guic, ga.backend);
  guic->add_flag("--presenter", ga.presenter, "projector mode: large fonts, high contrast");
  guic->add_option("--lesson", ga.lesson, "open a lesson (its id, as `lesson --list` prints it, or its file)");
  guic->add_option("--step", ga.step, "with --lesson: open this step, from 1 (its ## sections)");
  guic->add_option("--puzzle", ga.puzzle, "open a puzzle in the kernel editor");
  guic->add_option("--edit", ga.edit, "your kernel file for --puzzle (default: one kept per puzzle)");
  guic->add_option("--font", ga.font, "TTF font file");
  guic->add_option("--size", ga.size, "window size WxH (default 1600x1000)");
  guic->add_flag("--hardware", ga.hardware, "read the GPU's counters (CUPTI) with every run");
  guic->add_option("--hardware-from", ga.hardware_from,
                   "show counters recorded by `metrics --hardware --json` for the same launch");
  guic->add_flag("--sass", ga.sass, "start with the SASS unfolded under every source line");
  guic->add_flag("--force", ga.force, "let --screenshot replace an existing FILE.png and FILE.txt");

  try {
    std::vector<std::string> rev(args.rbegin(), args.rend());
    app.parse(rev);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      app.exit(e, out, err);
      return kExitOk;
    }
    std::string where = "warpscope";
    for (const auto* s : app.get_subcommands()) where += " " + s->get_name();
    err << where << ": " << e.what() << " (see " << where << " --help)\n";
    return kExitUsage;
  }

  if (info->parsed()) return cmd_info(ia, out, err);
  if (list->parsed()) return cmd_list(list_json, out);
  if (metrics->parsed()) return cmd_metrics(ma, out, err);
  if (sassc->parsed()) return cmd_sass(sa, out, err);
  if (latency->parsed()) return cmd_latency(lta, out, err);
  if (bench->parsed()) return cmd_bench(ba, out, err);
  if (exp->parsed()) return cmd_export(ea, out, err, hooks);
  if (trace->parsed()) return cmd_trace(ta, out, err);
  if (lesson->parsed()) return cmd_lesson(la, out, err, hooks);
  if (puz->parsed()) return cmd_puzzle(pa, out, err);
  if (guic->parsed()) return cmd_gui(ga, hooks);
  if (rec->parsed()) return cmd_record(ra, out, err, hooks);

  if (hooks.gui_run && hooks.gui_display_available && hooks.gui_display_available())
    return hooks.gui_run(gui::GuiOptions{});
  return run_demo(DemoOptions{}, out, err);
}

}  // namespace

namespace {
// A stream buffer that holds its text until flushed (sync) or dropped.
class HeldStream : public std::streambuf {
 public:
  explicit HeldStream(std::ostream& to) : to_(to) {}
  void drop() { held_.clear(); }

 protected:
  int overflow(int c) override {
    if (c != traits_type::eof()) held_.push_back(char(c));
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* p, std::streamsize n) override {
    held_.append(p, std::size_t(n));
    return n;
  }
  int sync() override {
    to_ << held_;
    held_.clear();
    to_.flush();
    return 0;
  }

 private:
  std::ostream& to_;
  std::string held_;
};
}  // namespace

RunControl& cli_control() {
  static RunControl c;
  return c;
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        const Hooks& hooks) {
  // Every backend run below polls this control (Ctrl-C) and reports progress to it; a
  // run longer than a few seconds says how far it is and how long it has left.
  RunControl& ctl = cli_control();
  ctl.reset();
  ctl.min_interval_s = 3;
  // One bar for the command (a bench plans its runs and peers as phases of it): the
  // percentage never goes down, and the time left comes from the work done so far.
  // What a command says on stderr before it runs (the emulator's notice) is held until it
  // flushes (a progress line) or ends: bad input found after it is then the one line.
  HeldStream held(err);
  std::ostream herr(&held);
  ctl.on_progress = [&err = herr, last = std::string()](const RunProgress& p) mutable {
    if (p.elapsed_s < 2) return;
    std::string line = "warpscope: " + std::to_string(int(100 * p.fraction())) + "%";
    if (!p.phase.empty()) line += ", " + p.phase;
    if (!p.stage.empty()) line += (p.phase.empty() ? ", " : ": ") + p.stage;
    if (line == last) return;  // a run's end reported twice says nothing new
    last = line;
    if (p.eta_s > 0) line += ", about " + std::to_string(int(p.eta_s + 0.5)) + " s left";
    err << line << " (Ctrl-C stops it)\n" << std::flush;
  };
  struct ForgetProgress {  // the callback writes to `held`, which ends with this call
    RunControl& c;
    ~ForgetProgress() { c.on_progress = nullptr; }
  } forget{ctl};
  ThreadControlScope scope(&ctl);
  try {
    const int rc = dispatch(args, out, herr, hooks);
    held.pubsync();
    return rc;
  } catch (const UsageError& e) {
    held.drop();
    err << "warpscope: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    held.pubsync();
    err << "warpscope: internal error: " << e.what() << "\n";
    return kExitFailed;
  }
}

namespace {
extern "C" void on_sigint(int) {
  cli_control().cancel();       // the run stops within 100 ms and the command exits 130
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}
}  // namespace

int main(int argc, char** argv, const Hooks& hooks) {
  // The GUI handles its own window closing; the commands stop their runs on Ctrl-C.
  std::signal(SIGINT, on_sigint);
  std::vector<std::string> args(argv + 1, argv + argc);
  return run(args, std::cout, std::cerr, hooks);
}

}  // namespace ws::cli
