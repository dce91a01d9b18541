// `warpscope latency`: the GUI's worker driven without a window. Each run is a change
// (a new seed, so nothing is answered from the worker's cache): the main run's stages,
// then the variant bars with their peers, then the sweep its family declares. The cases
// are the families' own (FamilyInfo::latency).
#include "app/cli/latency.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "app/cli/cli.h"
#include "app/cli/command.h"
#include "app/cli/util.h"
#include "app/model/worker.h"
#include "app/puzzle/puzzle.h"
#include "io/atomic_file.h"
#include "io/read_file.h"
#include "kernels/user/cuda_front.h"

#include <unistd.h>

#include <filesystem>
#include <future>
#include <memory>

namespace ws::cli {
namespace fs = std::filesystem;

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

namespace {

// Waits until the worker's backend has started; false, with its message on `err`, when it
// could not (no GPU for --backend cuda, say).
bool backend_started(Worker& w, std::ostream& err) {
  while (!w.ready()) w.wait_result(0.05);
  w.take();
  if (const std::string e = w.error(); !e.empty()) {
    err << "warpscope: " << e << "\n";
    return false;
  }
  return true;
}

void print_report(const LatencyReport& rep, const LatencyArgs& a, const std::string& what, std::ostream& out);
}  // namespace

int cmd_latency(const LatencyArgs& a, std::ostream& out, std::ostream& err) {
  if (a.runs < 1 || a.runs > 1000) throw UsageError("--runs must be between 1 and 1000");
  if (a.backend != "auto" && a.backend != "emu" && a.backend != "cuda")
    throw UsageError("unknown backend '" + a.backend + "' (use auto, emu or cuda)");
  if (!a.editor.empty()) {
    if (!a.kernel.empty() || !a.sets.empty()) throw UsageError("--editor times a puzzle's check: no --kernel or --set");
    return editor_latency(a, out, err);
  }
  if (!a.sets.empty() && a.kernel.empty()) throw UsageError("--set needs --kernel (the case it changes)");
  Worker w(gui::backend_factory(a.backend));
  if (!backend_started(w, err)) return kExitUsage;
  const bool gpu = w.backend_kind() == BackendKind::Cuda;
  std::vector<CaseSpec> specs = declared_cases();
  if (!a.kernel.empty()) {
    // One family's case, at the sizes given over its own (the window's slow corner).
    std::erase_if(specs, [&](const CaseSpec& c) { return c.kernel != a.kernel; });
    if (specs.empty()) throw UsageError("unknown kernel '" + a.kernel + "' (see `warpscope list`)");
    for (const auto& [k, v] : sets_or_usage(a.sets)) {
      specs[0].gpu[k] = v;
      specs[0].emu_first[k] = v;
      specs[0].emu_rest[k] = v;
    }
  }
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
  print_report(rep, a, "latency after a change", out);
  return status;
}

namespace {

void print_report(const LatencyReport& rep, const LatencyArgs& a, const std::string& what, std::ostream& out) {
  if (a.json) {
    out << pretty(latency_json(rep), 5);
    return;
  }
  out << what << ", backend " << rep.backend << " on " << rep.device << " ("
      << a.runs << " run" << (a.runs == 1 ? "" : "s") << " per case)\n";
  std::vector<std::vector<std::string>> rows;
  for (const LatencyCase& c : rep.cases)
    for (const auto& [name, s] : c.stages)
      rows.push_back({c.kernel + "/" + c.variant + " " + params_text(c.params), name,
                      fmt(s.percentile(0.5), 3) + " s", fmt(s.percentile(0.95), 3) + " s",
                      std::to_string(s.seconds.size())});
  out << format_table({"case", "stage", "p50", "p95", "runs"}, rows, {false, false, true, true, true});
}

}  // namespace

// [SECTION] The editor's check: edit, save, compile, run, verdict
int editor_latency(const LatencyArgs& a, std::ostream& out, std::ostream& err) {
  puzzle::Puzzle p;
  std::vector<puzzle::Error> es;
  if (!puzzle::parse_file(a.editor, p, es)) throw UsageError(es.empty() ? a.editor + ": not a puzzle" : es[0].text());
  // The solution when it ships (every check should be "all met"), else the starter.
  std::string base = p.starter;
  const std::string sol = puzzle::solution_path(a.editor);
  const bool solution = fs::is_regular_file(sol);
  if (solution) {
    const io::ReadResult r = io::read_file(sol, io::kDefaultReadCap, "solution");
    if (!r.ok) throw UsageError(r.error);
    base = r.text;
  }
  const bool cu = cuda::is_cuda_source(base);
  const fs::path dir = fs::temp_directory_path() / ("warpscope-latency-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string file = (dir / (p.slug + (cu ? ".cu" : ".cuh"))).string();

  Worker w(gui::backend_factory(a.backend));
  if (!backend_started(w, err)) return kExitUsage;
  LatencyReport rep;
  rep.backend = std::string(to_string(w.backend_kind()));
  rep.device = w.device().name;
  LatencyCase lc;
  lc.kernel = "editor";
  lc.variant = p.slug;
  lc.params = p.params;
  StageStats first, save, compile, cxx, trace, gpu_build, run, wait, targets, verdict;
  std::string on;
  int status = kExitOk;
  std::uint64_t gen = 1;
  for (int i = 0; i <= a.runs && status == kExitOk; ++i) {
    // The edit: the number in a last comment line, one character apart from the last run's.
    const std::string text = base + (base.empty() || base.back() == '\n' ? "" : "\n") + "// edit " +
                             std::to_string(i % 10) + std::string(std::size_t(i / 10), '.') + "\n";
    const double t0 = gui::now_seconds();
    io::WriteOptions wo;
    wo.overwrite = true;
    wo.keep_previous = true;  // as the editor saves (FILE.bak kept)
    if (const io::WriteResult wr = io::write_file(file, text, wo); !wr.ok) {
      err << "warpscope: cannot save " << file << ": " << wr.error << "\n";
      status = kExitUsage;
      break;
    }
    const double saved = gui::now_seconds() - t0;
    auto done = std::make_shared<std::promise<puzzle::CheckResult>>();
    std::future<puzzle::CheckResult> got = done->get_future();
    Job j;
    j.kind = JobKind::Editor;
    j.gen = gen++;
    puzzle::CheckOptions o;
    o.kernel_file = file;
    j.task = [done, &p, o, &on](Backend& b) { done->set_value(puzzle::check_in_window(p, b, o, on)); };
    w.submit(std::move(j));
    const puzzle::CheckResult r = got.get();
    const double total = gui::now_seconds() - t0;
    w.take();
    if (!r.failure.empty() || r.bad_input || (solution && !r.all_met())) {
      std::string f = r.failure.empty() ? "targets missed" : r.failure;
      err << "warpscope: " << p.slug << ": the check failed: " << f.substr(0, f.find('\n')) << "\n";
      status = r.bad_input ? kExitUsage : kExitFailed;
      break;
    }
    if (i == 0) {  // the warm-up: the window's first check
      first.seconds.push_back(total);
      continue;
    }
    save.seconds.push_back(saved);
    compile.seconds.push_back(r.steps.compile);
    cxx.seconds.push_back(r.compiled.seconds);  // the system compiler's part (the rest: the front end)
    trace.seconds.push_back(r.steps.trace);
    if (w.backend_kind() == BackendKind::Cuda) {
      gpu_build.seconds.push_back(r.steps.gpu_build);
      run.seconds.push_back(r.steps.run);
      wait.seconds.push_back(r.steps.wait);
    }
    targets.seconds.push_back(r.targets_s);
    verdict.seconds.push_back(total);
  }
  fs::remove_all(dir, ec);
  for (auto& [name, st] : std::vector<std::pair<std::string, StageStats*>>{
           {"first", &first}, {"save", &save}, {"compile", &compile}, {"c++", &cxx}, {"trace", &trace},
           {"nvrtc", &gpu_build}, {"run", &run}, {"wait", &wait}, {"targets", &targets},
           {"verdict", &verdict}})
    if (!st->seconds.empty()) lc.stages.push_back({name, *st});
  rep.cases.push_back(std::move(lc));
  err << "warpscope: " << on << "\n";
  print_report(rep, a, "edit to verdict in the editor (" + std::string(solution ? "solution" : "starter") + ")", out);
  if (!run.seconds.empty() && !a.json)
    out << "nvrtc and run (the GPU) ran beside compile and trace (the emulator); wait: the check's wait for "
           "the GPU (NVRTC's end before the trace, the runner's after it)\n";
  return status;
}

}  // namespace ws::cli
