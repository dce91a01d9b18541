// `warpscope metrics`: one launch, the model's totals (ncu names), beside the GPU's counters
// with --hardware.
#include "app/cli/command.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>
#include <memory>
#include <ostream>

#include "kernels/hardware/compiled.h"
#include "kernels/hardware/hardware.h"
#include "kernels/hardware/sass.h"
#include "sim/model.h"

namespace ws::cli {

namespace {

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
Json hardware_json(const RunResult& r, const CompiledSurplus& surplus) {
  Json h;
  const HardwareCounters& hw = r.hardware;
  h["device"] = hw.device;
  h["runs"] = int(hw.passes.size());
  h["unavailable"] = hw.ok() ? Json(nullptr) : Json(hw.why());
  if (!hw.detail.empty()) h["detail"] = hw.detail;
  Json m = Json::object();
  for (const CounterDiff& d : compare_counters(r.totals.ncu(), hw, surplus)) {
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

std::string hardware_text(const RunResult& r, const CompiledSurplus& surplus) {
  const HardwareCounters& hw = r.hardware;
  if (!hw.ok()) return "\nhardware counters: " + hw.why() + "\n";
  std::vector<std::vector<std::string>> rows;
  int equal = 0, differ = 0;
  for (const CounterDiff& d : compare_counters(r.totals.ncu(), hw, surplus)) {
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

// What one metrics run gives both outputs: the run, its plan and parameters as completed,
// and the model's time from its counts (when it has counts per launch).
struct MetricsRun {
  const VariantInfo& v;
  const Backend& b;
  const RunResult& r;
  const Plan& plan;
  const Params& params;
  const ModelledRun& mr;
  bool modelled = false;
};

// `metrics --json`.
void metrics_json(const MetricsArgs& a, const MetricsRun& m, std::ostream& out) {
  const auto& [v, b, r, plan, params, mr, modelled] = m;
  const sim::TimeParts& parts = mr.parts;
  const double modelled_us = mr.us;
  Json j;
  j["kernel"] = v.family;
  j["variant"] = v.name;
  j["params"] = params_json(params);
  j["backend"] = std::string(to_string(b.kind()));
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
    j["hardware"] = hardware_json(r, compiled_surplus(v.family, v.name, r.params));
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
  j["device"] = device_json(b.device());
  out << pretty(j, 4);
}

// `metrics`' text: the launches' counters (by line with --by-line), the totals, the
// modelled time, the hardware's counters, the result.
void metrics_text(const MetricsArgs& a, const MetricsRun& m, std::ostream& out) {
  const auto& [v, b, r, plan, params, mr, modelled] = m;
  const sim::TimeParts& parts = mr.parts;
  const double modelled_us = mr.us;
  const DeviceInfo d = b.device();
  out << v.family << "/" << v.name << "  " << params_text(params) << "\n";
  out << "backend " << to_string(b.kind()) << " on " << d.name
      << (r.counts == CountsSource::Recorded
              ? " (" + r.counts_label + ": the GPU's traced build, not counted here)"
          : r.counts == CountsSource::NotRecorded ? std::string()
          : b.kind() == BackendKind::Emu ? " (counts from the emulated trace and the model)"
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
  if (a.hardware) out << hardware_text(r, compiled_surplus(v.family, v.name, r.params));
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
  const MetricsRun m{v, *b, r, plan, params, mr, modelled};
  if (a.json)
    metrics_json(a, m, out);
  else
    metrics_text(a, m, out);
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

}  // namespace

Action declare_metrics(CLI::App& sub) {
  auto a = std::make_shared<MetricsArgs>();
  CLI::App* s = &sub;
  s->add_option("--kernel", a->kernel, "kernel family (see list)")->required();
  s->add_option("--variant", a->variant, "variant of the family")->required();
  s->add_option("--set", a->sets, "parameter key=value (repeatable)");
  add_backend(s, a->backend);
  s->add_flag("--json", a->json, "JSON output");
  s->add_flag("--fast-only", a->fast_only,
                    "cuda: run only the untraced build (for profiling with ncu); no totals");
  s->add_flag("--hardware", a->hardware,
                    "cuda: also read the GPU's counters of the fast build through CUPTI, beside "
                    "the model's");
  s->add_flag("--lines", a->lines,
                    "with --hardware: per-source-line counters through CUPTI's SASS metrics");
  s->add_option("--runs", a->runs, "profiled runs for --hardware (the spread shows noise)")
      ->check(CLI::Range(1, 50))
      ->capture_default_str();
  s->add_flag("--by-line", a->by_line,
                    "also the model's counters of each source line (JSON: lines per launch)");
  return [a](std::ostream& out, std::ostream& err, const Hooks&) { return cmd_metrics(*a, out, err); };
}

}  // namespace ws::cli
