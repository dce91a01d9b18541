// The numbers a lesson can ask about: Nsight Compute metrics from the model's totals,
// plain quantities derived from them and from the launch shape, and throughput ratios
// that need reference runs. Answers and goals are judged against these.
// Index (search for "[SECTION] <name>"):
//   Plain quantities
//   Facts of a run
//   Timing parameters
//   Predictions and goals
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

#include "app/lesson/lesson_internal.h"
#include "app/lesson/lesson_model.h"

namespace ws::lesson {

namespace {

// Hopper's residency limits live in the model (sim::DeviceModel, sim::resident_blocks).
constexpr int kMaxWarpsPerSm = sim::h100::kMaxThreadsPerSm / 32;

double ratio(double a, double b) { return b == 0 ? std::numeric_limits<double>::quiet_NaN() : a / b; }

struct PlainDef {
  PlainQuantity q;
  std::function<double(const RunResult&, const DeviceInfo&)> f;
};

// The launch a lesson's grid figures describe: the one with the most threads, so a helper
// launch before the kernel (a histogram's one-block zeroing of its bins) is not it (lesson
// 11 said "each of the 1 blocks" of a 1056-block grid). Ties: the first.
const LaunchCfg* main_launch(const RunResult& r) {
  const LaunchCfg* best = nullptr;
  auto consider = [&](const LaunchCfg& c) {
    if (!best || c.grid.count() * c.block.count() > best->grid.count() * best->block.count()) best = &c;
  };
  for (const LaunchCfg& c : r.plan.launches) consider(c);
  if (!best)
    for (const auto& l : r.launches) consider(l.cfg);
  return best;
}

// [SECTION] Plain quantities
double threads_per_block(const RunResult& r) {
  const LaunchCfg* c = main_launch(r);
  return c ? double(c->block.count()) : std::nan("");
}
double warps_per_block(const RunResult& r) {
  const LaunchCfg* c = main_launch(r);
  return c ? double((c->block.count() + 31) / 32) : std::nan("");
}
// Registers count when the run knows the fast build's registers per thread (a GPU run,
// or a recording of one); otherwise the limit is from threads, blocks and shared memory.
double blocks_per_sm(const RunResult& r) {
  const LaunchCfg* c = main_launch(r);
  if (!c) return std::nan("");
  return double(sim::resident_blocks(launch_shape(r.plan, *c, r.regs_per_thread)));
}

// The model's time of a run, launch by launch when it kept them.
double modelled_us(const RunResult& r) {
  if (r.launches.empty()) return sim::modelled_time_us(r.totals, r.plan.flops);
  return modelled_run(r.plan, r.launches, r.regs_per_thread).us;
}

// Throughput of a run: the backend's when it gave one, else the model's estimate.
double throughput_of(const RunResult& r) {
  if (r.timing.throughput > 0) return r.timing.throughput;
  double us = modelled_us(r);
  if (!(us > 0)) return std::nan("");
  return r.plan.work() / (us * 1e3);
}
double time_us_of(const RunResult& r) {
  if (r.timing.median_ms > 0) return r.timing.median_ms * 1e3;
  return modelled_us(r);
}

const std::vector<PlainDef>& plain_defs() {
  using R = const RunResult&;
  using D = const DeviceInfo&;
  static const std::vector<PlainDef> defs = {
      {{"sectors_per_request", "global sectors per request, loads and stores together"},
       [](R r, D) {
         const auto& t = r.totals;
         return ratio(double(t.global_ld_sectors + t.global_st_sectors),
                      double(t.global_ld_requests + t.global_st_requests));
       }},
      {{"ld_sectors_per_request", "global sectors per load request"},
       [](R r, D) { return ratio(double(r.totals.global_ld_sectors), double(r.totals.global_ld_requests)); }},
      {{"st_sectors_per_request", "global sectors per store request"},
       [](R r, D) { return ratio(double(r.totals.global_st_sectors), double(r.totals.global_st_requests)); }},
      {{"ideal_sectors_per_request", "sectors per request if every access were perfectly coalesced"},
       [](R r, D) {
         const auto& t = r.totals;
         return ratio(double(t.global_ld_ideal_sectors + t.global_st_ideal_sectors),
                      double(t.global_ld_requests + t.global_st_requests));
       }},
      {{"global_efficiency", "bytes the warps asked for / bytes the sectors moved (1 = no waste)"},
       [](R r, D) { return ratio(double(r.totals.global_bytes_requested), double(r.totals.global_bytes_moved)); }},
      {{"bytes_moved", "global bytes moved in whole sectors"},
       [](R r, D) { return double(r.totals.global_bytes_moved); }},
      {{"bytes_requested", "global bytes the active lanes asked for"},
       [](R r, D) { return double(r.totals.global_bytes_requested); }},
      {{"global_requests", "global load and store requests (warp instructions)"},
       [](R r, D) { return double(r.totals.global_ld_requests + r.totals.global_st_requests); }},
      {{"wavefronts_per_request", "shared-memory wavefronts per request, loads and stores"},
       [](R r, D) {
         const auto& t = r.totals;
         return ratio(double(t.shared_ld_wavefronts + t.shared_st_wavefronts),
                      double(t.shared_ld_requests + t.shared_st_requests));
       }},
      {{"ld_wavefronts_per_request", "shared-memory wavefronts per load request"},
       [](R r, D) { return ratio(double(r.totals.shared_ld_wavefronts), double(r.totals.shared_ld_requests)); }},
      {{"st_wavefronts_per_request", "shared-memory wavefronts per store request"},
       [](R r, D) { return ratio(double(r.totals.shared_st_wavefronts), double(r.totals.shared_st_requests)); }},
      {{"bank_conflicts", "shared wavefronts beyond the ideal, loads and stores"},
       [](R r, D) { return double(r.totals.shared_ld_conflicts() + r.totals.shared_st_conflicts()); }},
      {{"ld_bank_conflicts", "shared load wavefronts beyond the ideal"},
       [](R r, D) { return double(r.totals.shared_ld_conflicts()); }},
      {{"st_bank_conflicts", "shared store wavefronts beyond the ideal"},
       [](R r, D) { return double(r.totals.shared_st_conflicts()); }},
      {{"shared_requests", "shared load and store requests (warp instructions)"},
       [](R r, D) { return double(r.totals.shared_ld_requests + r.totals.shared_st_requests); }},
      {{"simd_efficiency", "mean fraction of a warp's 32 lanes active per instruction"},
       [](R r, D) { return r.totals.simd_efficiency(); }},
      {{"active_lanes", "mean active lanes per warp instruction"},
       [](R r, D) { return ratio(double(r.totals.active_lane_sum), double(r.totals.events)); }},
      {{"warp_instructions", "warp-level events in the trace (accesses, branches, barriers, ...)"},
       [](R r, D) { return double(r.totals.events); }},
      {{"branches", "marked branches executed, counted per warp"},
       [](R r, D) { return double(r.totals.branches); }},
      {{"divergent_branches", "marked branches where a warp's lanes went both ways"},
       [](R r, D) { return double(r.totals.divergent_branches); }},
      {{"divergent_fraction", "divergent branches / branches"},
       [](R r, D) { return ratio(double(r.totals.divergent_branches), double(r.totals.branches)); }},
      {{"barriers", "__syncthreads executed, one per warp that passes one (a grid total, not per warp)"},
       [](R r, D) { return double(r.totals.barriers); }},
      {{"launches", "kernel launches"}, [](R r, D) { return double(r.plan.launches.size()); }},
      {{"blocks", "blocks in the main launch's grid (the launch with the most threads)"},
       [](R r, D) {
         const LaunchCfg* c = main_launch(r);
         return c ? double(c->grid.count()) : std::nan("");
       }},
      {{"threads_per_block", "threads per block"}, [](R r, D) { return threads_per_block(r); }},
      {{"warps_per_block", "warps per block: threads rounded up to whole warps"},
       [](R r, D) { return warps_per_block(r); }},
      {{"warps", "warps in the main launch: blocks x warps per block"},
       [](R r, D) {
         const LaunchCfg* c = main_launch(r);
         return c ? double(c->grid.count()) * warps_per_block(r) : std::nan("");
       }},
      {{"idle_lanes_per_block", "lanes of a block's last warp that no thread fills"},
       [](R r, D) { return warps_per_block(r) * 32 - threads_per_block(r); }},
      {{"shared_bytes", "shared memory per block in bytes"},
       [](R r, D) {
         const LaunchCfg* c = main_launch(r);
         return c ? double(c->shared_bytes) : std::nan("");
       }},
      {{"blocks_per_sm", "blocks resident per SM, limited by warps, blocks, shared memory and, "
                         "when known, registers (Hopper limits)"},
       [](R r, D) { return blocks_per_sm(r); }},
      {{"regs_per_thread", "registers per thread of the fast build (from the GPU or its "
                           "recording; absent on the emulator otherwise)"},
       [](R r, D) { return r.regs_per_thread > 0 ? double(r.regs_per_thread) : std::nan(""); }},
      {{"occupancy", "resident warps per SM / 64 (Hopper; registers count when known)"},
       [](R r, D) { return blocks_per_sm(r) * warps_per_block(r) / kMaxWarpsPerSm; }},
      {{"waves", "blocks / (blocks per SM x SMs): how many rounds the grid takes"},
       [](R r, D d) {
         const LaunchCfg* c = main_launch(r);
         double slots = blocks_per_sm(r) * (d.sm_count > 0 ? d.sm_count : d.limits.sm_count);
         return c ? ratio(double(c->grid.count()), slots) : std::nan("");
       }},
      {{"flops", "floating-point operations of the run (an FMA counts two)"},
       [](R r, D) { return r.plan.flops > 0 ? r.plan.flops : std::nan(""); }},
      {{"flops_per_byte", "FLOP per byte of global traffic the warps' requests move (the "
                          "arithmetic intensity the roofline puts on its x axis)"},
       [](R r, D) {
         return r.plan.flops > 0 ? ratio(r.plan.flops, double(r.totals.global_bytes_moved))
                                 : std::nan("");
       }},
      {{"shared_loads_per_fma", "shared-memory load requests per warp-wide FMA"},
       [](R r, D) {
         return r.plan.flops > 0
                    ? ratio(double(r.totals.shared_ld_requests), r.plan.flops / 2.0 / 32.0)
                    : std::nan("");
       }},
      {{"logical_bytes", "bytes a perfect kernel must read and write"},
       [](R r, D) { return r.plan.logical_bytes; }},
      {{"verified", "1 when the output equals the CPU reference"},
       [](R r, D) { return r.verified ? 1.0 : 0.0; }},
      {{"throughput", "GB/s of logical bytes (GFLOP/s for matmul, Gop/s for instr): measured on a GPU, "
                      "modelled on the emulator", true},
       [](R r, D) { return throughput_of(r); }},
      {{"time_us", "kernel time in microseconds: measured on a GPU, modelled on the emulator", true},
       [](R r, D) { return time_us_of(r); }},
  };
  return defs;
}

std::string timed_source_of(const Timing& t) {
  return t.source.is(sim::Source::Modelled) ? "modelled" : sim::long_label(t.source);
}

}  // namespace

std::string timed_label(const Facts& f) {
  std::string s = !f.measured ? (f.timed_source == "modelled" ? "modelled: the emulator does not time"
                                                              : f.timed_source)
                 : f.timed_source == "modelled" ? "measured on the GPU"
                                                : f.timed_source;
  if (!f.timed_params.empty()) s += ", at " + ws::to_string(f.timed_params);
  return s;
}

const std::vector<PlainQuantity>& plain_quantities() {
  static const std::vector<PlainQuantity> v = [] {
    std::vector<PlainQuantity> out;
    for (const auto& d : plain_defs()) out.push_back(d.q);
    return out;
  }();
  return v;
}

// [SECTION] Facts of a run
double Facts::get(const std::string& key) const {
  auto it = values.find(key);
  return it == values.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
}

Facts facts_from_run(const RunResult& r, const DeviceInfo& dev) {
  Facts f;
  f.measured = r.timing.source.on_gpu();
  f.timed = r.timing.source;
  f.timed_source = timed_source_of(r.timing);
  f.timed_params = r.params;
  f.error = r.error;
  for (const auto& [k, v] : r.totals.ncu()) f.values[k] = v;
  for (const auto& d : plain_defs()) {
    double v = d.f(r, dev);
    if (std::isfinite(v)) f.values[d.q.name] = v;
  }
  return f;
}

Params params_for(const std::string& family, const std::string& variant, const Params& p) {
  const VariantInfo* vi = find_variant(family, variant);
  if (!vi) return p;
  Params out;
  for (const auto& ps : vi->params)
    if (p.count(ps.name)) out[ps.name] = p.at(ps.name);
  return out;
}

std::vector<Quantity> wanted_quantities(const Step& s) {
  std::vector<Quantity> out;
  auto add = [&](const Quantity& q) {
    for (const auto& o : out)
      if (o.key() == q.key()) return;
    out.push_back(q);
  };
  for (const auto& p : s.predicts) {
    add(p.answer);
    for (const auto& n : detail::placeholders(p.explain)) {
      Quantity q;
      if (detail::quantity_from_key(n, q)) add(q);
    }
  }
  for (const auto& g : s.goals)
    for (const auto& q : goal_quantities(g)) add(q);
  return out;
}

void add_ratio_facts(Facts& f, const Lab& lab, const RunResult& r, const DeviceInfo& dev,
                     const std::vector<Quantity>& wanted, Backend* backend, RunOptions opt) {
  if (!r.error.empty()) return;
  const double mine = throughput_of(r);
  for (const auto& q : wanted) {
    if (q.kind != QuantityKind::Ratio) continue;
    double v = std::nan("");
    if (q.name == "copy_bandwidth") {
      if (r.plan.unit() != "GB/s") continue;  // a copy moves bytes: no FLOPs or ops to compare with
      double copy = 0;
      if (backend) {
        PeerResult pr =
            backend->run_peer(Peer::MemcpyD2D, peer_params(Peer::MemcpyD2D, r.plan, r.params), opt);
        if (pr.error.empty()) copy = pr.timing.throughput;
      }
      if (!(copy > 0) && r.timing.source.on_gpu()) continue;  // a GPU run needs a measured copy
      if (!(copy > 0)) {
        // No measured copy (the emulator): the model's time for moving the same logical
        // bytes with no waste, the same estimate the kernel's own time comes from (whole
        // sectors, which sim::dram_bytes streams as they are).
        sim::Totals ideal;
        ideal.global_st_sectors = (std::uint64_t(r.plan.logical_bytes) + 31) / 32;
        double us = sim::modelled_time_us(ideal, 0);
        copy = us > 0 ? r.plan.logical_bytes / (us * 1e3) : 0;
      }
      v = ratio(mine, copy);
    } else if (q.name == "peak") {
      if (r.plan.ops > 0 && !r.plan.gflops()) continue;  // no peak of a family's own operations
      sim::DeviceModel m;
      double peak = r.plan.gflops() ? m.fp32_gflops
                                    : (r.timing.source.on_gpu() && dev.peak_gbps > 0 ? dev.peak_gbps
                                                                              : m.dram_gbps);
      v = ratio(mine, peak);
    } else if (q.name == "library") {
      // The library routine for the same job at the same size, timed in the same session
      // (or recorded beside it): a ratio of times, so both count the same work.
      if (!backend || !(r.timing.median_ms > 0)) continue;
      const Peer peer = library_peer(lab.family, r.plan.gflops());
      PeerResult pr = backend->run_peer(peer, peer_params(peer, r.plan, r.params), opt);
      if (pr.error.empty() && pr.timing.median_ms > 0)
        v = pr.timing.median_ms / r.timing.median_ms;
    } else if (q.name.rfind("over:", 0) == 0) {
      const std::string other = q.name.substr(5);
      if (!backend || !find_variant(lab.family, other)) continue;
      Params op = params_for(lab.family, other, r.params);
      RunOptions o2 = opt;
      o2.keep_blocks.clear();
      RunResult rr = backend->run(lab.family, other, op, o2);
      if (rr.error.empty()) v = ratio(mine, throughput_of(rr));
    }
    if (std::isfinite(v)) f.values[q.key()] = v;
  }
}

// [SECTION] Timing parameters
Params timing_params(const Lab& lab, const Params& overrides) {
  Params p = lab.params;
  for (const auto& [k, v] : lab.timing) p[k] = v;
  for (const auto& [k, v] : overrides) p[k] = v;
  return params_for(lab.family, lab.variant, p);
}

Facts run_lab(const Lab& lab, const Params& overrides, Backend& backend,
              const std::vector<Quantity>& wanted) {
  Params p = lab.params;
  for (const auto& [k, v] : overrides) p[k] = v;
  p = params_for(lab.family, lab.variant, p);
  const bool timed =
      std::any_of(wanted.begin(), wanted.end(), [](const Quantity& q) { return q.timed(); });
  const bool emu = backend.kind() == BackendKind::Emu;
  // With a timing size, the counting run is timed only where that costs nothing (the
  // emulator's model), as the fallback when no recording holds the timing size.
  const bool split = timed && !lab.timing.empty();
  RunOptions opt;
  opt.keep_blocks = lab.keep_blocks;
  opt.timing = timed && (!split || emu);
  const DeviceInfo dev = backend.device();
  RunResult r = backend.run(lab.family, lab.variant, p, opt);
  Facts f = facts_from_run(r, dev);
  f.backend = std::string(to_string(backend.kind()));
  if (!r.error.empty()) return f;
  if (!r.verified && f.error.empty())
    f.error = "the output is wrong: " + r.verify_message;
  if (!split) {
    if (timed) add_ratio_facts(f, lab, r, dev, wanted, &backend, opt);
    return f;
  }

  // The timed run at the timing size: live on a GPU, from a recording on the emulator.
  RunOptions to;
  to.keep_blocks.clear();
  to.totals = false;
  to.timing = true;
  to.recorded_only = true;
  const Params tp = timing_params(lab, overrides);
  RunResult tr = backend.run(lab.family, lab.variant, tp, to);
  if (!tr.error.empty() || (!emu && !tr.verified)) {
    if (!emu) {
      f.error = "the timed run at " + ws::to_string(tp) + " failed: " +
                (tr.error.empty() ? "the output is wrong: " + tr.verify_message : tr.error);
      return f;
    }
    // No recording of the timing size: the model's time at the counting size.
    add_ratio_facts(f, lab, r, dev, wanted, &backend, opt);
    f.timed_source = "modelled at " + ws::to_string(r.params) + " (no recording at " +
                     ws::to_string(tp) + ")";
    return f;
  }
  const Facts tf = facts_from_run(tr, dev);
  for (const auto& q : plain_quantities())
    if (q.timed) {
      if (tf.has(q.name)) f.values[q.name] = tf.get(q.name);
      else f.values.erase(q.name);
    }
  if (tr.regs_per_thread > 0 && !f.has("regs_per_thread"))
    f.values["regs_per_thread"] = tr.regs_per_thread;
  f.measured = tf.measured;
  f.timed = tf.timed;
  f.timed_source = tf.timed_source;
  f.timed_params = tr.params;
  add_ratio_facts(f, lab, tr, dev, wanted, &backend, to);
  return f;
}

// [SECTION] Predictions and goals
std::string format_number(double v) {
  if (std::isnan(v)) return "n/a";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", std::round(v) == 0 ? 0.0 : std::round(v));
    return buf;
  }
  double a = std::fabs(v);
  int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  if (a < 0.01) {
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string fill_template(const std::string& tmpl, const Facts& f,
                          const std::map<std::string, double>& extra) {
  std::string out;
  std::size_t i = 0;
  while (i < tmpl.size()) {
    std::size_t a = tmpl.find('{', i);
    std::size_t b = a == std::string::npos ? a : tmpl.find('}', a);
    if (b == std::string::npos) {
      out += tmpl.substr(i);
      break;
    }
    out += tmpl.substr(i, a - i);
    std::string name = detail::trim(std::string_view(tmpl).substr(a + 1, b - a - 1));
    auto e = extra.find(name);
    out += format_number(e != extra.end() ? e->second : f.get(name));
    i = b + 1;
  }
  return out;
}

std::string answer_text(const Predict& p, double v) {
  if (p.unit.empty()) return format_number(v);
  // Units are plural nouns in lesson files ("wavefronts"): say "1 wavefront".
  std::string u = p.unit;
  if (v == 1.0 && u.size() > 1 && u.back() == 's' && u.find('/') == std::string::npos) u.pop_back();
  return format_number(v) + " " + u;
}

PredictResult check_predict(const Predict& p, double guess, const Facts& f) {
  PredictResult r;
  r.answer = f.get(p.answer.key());
  if (std::isnan(r.answer)) {
    r.correct = false;
    r.explanation = "The run gave no value for " + p.answer.key() +
                    (f.error.empty() ? "" : " (" + f.error + ")") + ".";
    return r;
  }
  const double tol = p.relative ? p.tolerance * std::fabs(r.answer) : p.tolerance;
  r.correct = std::fabs(guess - r.answer) <= tol + 1e-9 * std::max(1.0, std::fabs(r.answer));
  std::string verdict =
      r.correct ? "Right: " + answer_text(p, r.answer) + "."
                : "Not quite: you said " + answer_text(p, guess) + ", the " +
                      (p.answer.timed() && !f.measured ? "model" : "trace") + " gives " +
                      answer_text(p, r.answer) + ".";
  if (p.answer.timed()) verdict += " (" + timed_label(f) + ")";
  r.explanation = verdict + " " + fill_template(p.explain, f, {{"answer", r.answer}, {"guess", guess}});
  return r;
}

namespace {
bool compare(double v, Op op, double target) {
  const double eps = 1e-9 * std::max(1.0, std::fabs(target));
  switch (op) {
    case Op::Eq: return std::fabs(v - target) <= eps;
    case Op::Ne: return std::fabs(v - target) > eps;
    case Op::Lt: return v < target - eps;
    case Op::Le: return v <= target + eps;
    case Op::Gt: return v > target + eps;
    case Op::Ge: return v >= target - eps;
  }
  return false;
}
}  // namespace

std::string goal_target_text(const Goal& g) {
  std::string s = g.quantity.key() + " " + std::string(to_string(g.op)) + " " + format_number(g.value);
  for (const auto& c : g.also)
    s += " and " + c.quantity.key() + " " + std::string(to_string(c.op)) + " " + format_number(c.value);
  return s;
}

std::vector<Quantity> goal_quantities(const Goal& g) {
  std::vector<Quantity> out = {g.quantity};
  for (const auto& c : g.also) out.push_back(c.quantity);
  return out;
}

GoalStatus goal_reached(const Goal& g, const Facts& f) {
  GoalStatus s;
  s.value = f.get(g.quantity.key());
  s.known = !std::isnan(s.value) && f.error.empty();
  bool timed = g.quantity.timed();
  for (const auto& c : g.also) timed = timed || c.quantity.timed();
  s.modelled = (g.gpu_only || timed) && !f.measured;
  const std::string target = std::string(to_string(g.op)) + " " + format_number(g.value);
  if (!s.known) {
    s.label = f.error.empty() ? "not measured yet" : "the run failed: " + f.error;
  } else {
    s.reached = compare(s.value, g.op, g.value);
    s.label = s.reached ? "reached: " + format_number(s.value)
                        : "not yet: " + format_number(s.value) + " (needs " + target + ")";
    // The further conditions: the first that fails (or is unknown) says what is missing.
    for (const auto& c : g.also) {
      if (!s.reached) break;
      const double v = f.get(c.quantity.key());
      const std::string need = std::string(to_string(c.op)) + " " + format_number(c.value);
      if (std::isnan(v)) {
        s.known = false;
        s.reached = false;
        s.label = "not measured yet: " + c.quantity.key();
      } else if (!compare(v, c.op, c.value)) {
        s.reached = false;
        s.label = "not yet: " + format_number(s.value) + ", but " + c.quantity.key() + " " +
                  format_number(v) + " (needs " + need + ")";
      } else {
        s.label += ", " + c.quantity.key() + " " + format_number(v);
      }
    }
  }
  if (s.modelled) s.label += " (modelled; needs a GPU to measure: " + g.needs + ")";
  else if ((g.gpu_only || g.quantity.timed()) && s.known) s.label += " (" + timed_label(f) + ")";
  return s;
}

}  // namespace ws::lesson
