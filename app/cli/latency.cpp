// `warpscope latency`: the GUI's worker driven without a window. Each run is a change
// (a new seed, so nothing is answered from the worker's cache): the main run's stages,
// then the variant bars with their peers, then the sweep its family declares. The cases
// are the families' own (FamilyInfo::latency).
#include "app/cli/latency.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "app/cli/cli.h"
#include "app/cli/util.h"
#include "app/model/worker.h"

namespace ws::cli {

double StageStats::percentile(double q) const {
  if (seconds.empty()) return 0;
  std::vector<double> s = seconds;
  std::sort(s.begin(), s.end());
  const std::size_t rank = std::size_t(std::ceil(q * double(s.size())));
  return s[std::min(s.size() - 1, rank == 0 ? 0 : rank - 1)];
}

Json latency_json(const LatencyReport& r) {
  Json j;
  j["backend"] = r.backend;
  j["device"] = r.device;
  Json cases = Json::array();
  for (const LatencyCase& c : r.cases) {
    Json cj;
    cj["kernel"] = c.kernel;
    cj["variant"] = c.variant;
    cj["params"] = params_json(c.params);
    Json st = Json::object();
    for (const auto& [name, s] : c.stages) {
      Json sj;
      sj["p50_s"] = number(s.percentile(0.5));
      sj["p95_s"] = number(s.percentile(0.95));
      sj["runs"] = s.seconds.size();
      st[name] = sj;
    }
    cj["stages"] = st;
    cases.push_back(cj);
  }
  j["cases"] = cases;
  return j;
}

namespace {

using gui::Job;
using gui::JobKind;
using gui::JobResult;
using gui::Worker;

// Waits for the final results of `kinds` of generation >= gen; returns them by kind.
std::vector<JobResult> wait_for(Worker& w, const std::vector<JobKind>& kinds, std::uint64_t gen) {
  std::vector<JobResult> out;
  std::vector<JobKind> left = kinds;
  while (!left.empty()) {
    w.wait_result(1.0);
    for (JobResult& r : w.take()) {
      if (r.gen < gen || !r.final) continue;
      auto it = std::find(left.begin(), left.end(), r.kind);
      if (it == left.end()) continue;
      left.erase(it);
      out.push_back(std::move(r));
    }
  }
  return out;
}

Job job(JobKind k, const std::string& family, const std::string& variant, const Params& p,
        std::uint64_t seed, std::uint64_t gen) {
  Job j;
  j.kind = k;
  j.family = family;
  j.variant = variant;
  j.params = p;
  j.gen = gen;
  j.opt.seed = seed;
  j.opt.timing = true;
  j.opt.totals = true;
  j.opt.keep_blocks = (k == JobKind::Main) ? std::vector<std::uint32_t>{0} : std::vector<std::uint32_t>{};
  return j;
}

struct CaseSpec {
  std::string kernel, variant;
  Params gpu, emu_first, emu_rest;  // the emulator's first stage may use a larger size
  std::string sweep_x, sweep_series;
  std::vector<long long> xs, ss;
};

// The cases the families declare (FamilyInfo::latency), in teaching order; a family that
// declares none is timed too, with its last variant (the top of its ladder) at its timing
// size, so no family's window is left slow unseen.
std::vector<CaseSpec> declared_cases() {
  std::vector<CaseSpec> out;
  for (const FamilyInfo& f : families()) {
    const LatencySpec& l = f.latency;
    std::string variant = l.variant;
    if (variant.empty())
      for (const VariantInfo& v : catalogue())
        if (v.family == f.name) variant = v.name;
    if (variant.empty()) continue;
    CaseSpec c{f.name, variant, f.timing, l.block_at_timing ? f.timing : Params{}, {}, "", "", {}, {}};
    if (!l.sweep_xs.empty() && !f.sweeps.empty()) {
      c.sweep_x = f.sweeps[0].x;
      c.sweep_series = f.sweeps[0].series;
      c.xs = l.sweep_xs;
      c.ss = l.sweep_ss;
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

int cmd_latency(const LatencyArgs& a, std::ostream& out, std::ostream& err) {
  if (a.runs < 1 || a.runs > 1000) throw UsageError("--runs must be between 1 and 1000");
  if (a.backend != "auto" && a.backend != "emu" && a.backend != "cuda")
    throw UsageError("unknown backend '" + a.backend + "' (use auto, emu or cuda)");
  Worker w(gui::backend_factory(a.backend));
  while (!w.ready()) w.wait_result(0.05);
  w.take();
  if (const std::string e = w.error(); !e.empty()) {
    err << "warpscope: " << e << "\n";
    return kExitUsage;
  }
  const bool gpu = w.backend_kind() == BackendKind::Cuda;
  const std::vector<CaseSpec> specs = declared_cases();
  LatencyReport rep;
  rep.backend = std::string(to_string(w.backend_kind()));
  rep.device = w.device().name;
  std::uint64_t gen = 1;
  int status = kExitOk;
  for (const CaseSpec& cs : specs) {
    const VariantInfo* v = find_variant(cs.kernel, cs.variant);
    if (!v) continue;
    Params full, rest;
    const DeviceLimits lim = w.device().limits;
    if (const std::string why = validate(*v, gpu ? cs.gpu : cs.emu_first, lim, full); !why.empty())
      throw UsageError(cs.kernel + "/" + cs.variant + ": " + why);
    if (const std::string why = validate(*v, gpu ? cs.gpu : cs.emu_rest, lim, rest); !why.empty())
      throw UsageError(cs.kernel + "/" + cs.variant + ": " + why);
    LatencyCase lc;
    lc.kernel = cs.kernel;
    lc.variant = cs.variant;
    lc.params = full;
    StageStats measured, block, counters, bars, sweep;
    for (int run = 0; run < a.runs; ++run) {
      const std::uint64_t seed = 1000 + std::uint64_t(run);
      if (gpu) {
        Job m = job(JobKind::Main, cs.kernel, cs.variant, full, seed, gen++);
        w.submit(m);
        const JobResult r = wait_for(w, {JobKind::Main}, m.gen).at(0);
        if (r.run && !r.run->error.empty()) {
          err << "warpscope: " << cs.kernel << "/" << cs.variant << ": " << r.run->error << "\n";
          status = kExitFailed;
          break;
        }
        if (r.times.measured >= 0) measured.seconds.push_back(r.times.measured);
        if (r.times.block >= 0) block.seconds.push_back(r.times.block);
        if (r.times.counters >= 0) counters.seconds.push_back(r.times.counters);
      } else {
        // The emulator: the selected block of the large size, then the rest at defaults.
        Job b = job(JobKind::Main, cs.kernel, cs.variant, full, seed, gen++);
        b.opt.timing = false;
        b.opt.totals = false;
        w.submit(b);
        const JobResult rb = wait_for(w, {JobKind::Main}, b.gen).at(0);
        if (rb.times.block >= 0) block.seconds.push_back(rb.times.block);
        Job m = job(JobKind::Main, cs.kernel, cs.variant, rest, seed, gen++);
        m.opt.keep_blocks.clear();
        w.submit(m);
        const JobResult r = wait_for(w, {JobKind::Main}, m.gen).at(0);
        if (r.run && !r.run->error.empty()) {
          err << "warpscope: " << cs.kernel << "/" << cs.variant << ": " << r.run->error << "\n";
          status = kExitFailed;
          break;
        }
        // The modelled time comes with the whole grid's counters.
        if (r.times.counters >= 0) {
          measured.seconds.push_back(r.times.counters);
          counters.seconds.push_back(r.times.counters);
        }
      }
      // The variant bars with their peers, as the window asks for them after a change.
      const Params& bp = gpu ? full : rest;
      Job bj = job(JobKind::Bars, cs.kernel, cs.variant, bp, seed, gen++);
      Job pj = job(JobKind::Peers, cs.kernel, cs.variant, bp, seed, gen++);
      const double t0 = gui::now_seconds();
      w.submit(bj);
      if (gpu) w.submit(pj);
      wait_for(w, gpu ? std::vector<JobKind>{JobKind::Bars, JobKind::Peers}
                      : std::vector<JobKind>{JobKind::Bars},
               bj.gen);
      bars.seconds.push_back(gui::now_seconds() - t0);
      if (!cs.xs.empty()) {
        Job sj = job(JobKind::Sweep, cs.kernel, cs.variant, bp, seed, gen++);
        sj.sweep_x = cs.sweep_x;
        sj.sweep_series = cs.sweep_series;
        sj.xs = cs.xs;
        sj.ss = cs.ss.empty() ? std::vector<long long>{} : cs.ss;
        const double s0 = gui::now_seconds();
        w.submit(sj);
        // The sweep's points: its measured pass (the counters per point come after).
        bool points = false, finished = false;
        while (!finished) {
          w.wait_result(1.0);
          for (JobResult& r : w.take()) {
            if (r.kind != JobKind::Sweep || r.gen != sj.gen) continue;
            if (!points) sweep.seconds.push_back(gui::now_seconds() - s0);
            points = true;
            finished = finished || r.final;  // let it finish before the next change
          }
        }
      }
    }
    if (!measured.seconds.empty()) lc.stages.push_back({"measured", measured});
    if (!block.seconds.empty()) lc.stages.push_back({"block", block});
    if (!counters.seconds.empty()) lc.stages.push_back({"counters", counters});
    if (!bars.seconds.empty()) lc.stages.push_back({"bars", bars});
    if (!sweep.seconds.empty()) lc.stages.push_back({"sweep", sweep});
    err << "warpscope: " << cs.kernel << "/" << cs.variant << " done (" << a.runs << " runs)\n";
    rep.cases.push_back(std::move(lc));
  }
  if (a.json) {
    out << pretty(latency_json(rep), 5);
    return status;
  }
  out << "latency after a change, backend " << rep.backend << " on " << rep.device << " ("
      << a.runs << " run" << (a.runs == 1 ? "" : "s") << " per case)\n";
  std::vector<std::vector<std::string>> rows;
  for (const LatencyCase& c : rep.cases)
    for (const auto& [name, s] : c.stages)
      rows.push_back({c.kernel + "/" + c.variant + " " + params_text(c.params), name,
                      fmt(s.percentile(0.5), 3) + " s", fmt(s.percentile(0.95), 3) + " s",
                      std::to_string(s.seconds.size())});
  out << format_table({"case", "stage", "p50", "p95", "runs"}, rows, {false, false, true, true, true});
  return status;
}

}  // namespace ws::cli
