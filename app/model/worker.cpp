// The worker thread.
//
// Index (search for "[SECTION] <name>"):
//   Names and the backend factory
//   The worker: submit, take, state
//   The loop: one job at a time, newest first
//   Caches: runs and peers by key
//   Staged runs: measured, block, counters, bars, peers, sweep
#include "app/model/worker.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernels/hardware/recording.h"

#include <chrono>

namespace ws::gui {

// [SECTION] Names and the backend factory
double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string_view to_string(Stage s) {
  switch (s) {
    case Stage::Measured: return "measured time";
    case Stage::Block: return "selected block";
    case Stage::Counters: return "whole-grid counters";
  }
  return "stage";
}

std::string_view to_string(JobKind k) {
  switch (k) {
    case JobKind::Main: return "run";
    case JobKind::Editor: return "kernel check";
    case JobKind::Compare: return "comparison run";
    case JobKind::Lesson: return "lesson reference run";
    case JobKind::Peers: return "peer measurement";
    case JobKind::Bars: return "variant bars";
    case JobKind::Sweep: return "sweep";
  }
  return "job";
}

BackendFactory backend_factory(const std::string& which) {
  return [which](std::string& notice, std::string& error) -> std::unique_ptr<Backend> {
    const std::string name = which.empty() ? "auto" : which;
    std::string why;
    auto b = make_backend(name, why, error);
    const Recording* rec = default_recording();
    std::string except = rec ? ", except at the configurations " + sim::long_label(rec->source()) : std::string();
    if (rec && !rec->stale_families().empty())
      except += " (not for " + rec->stale_families() + ": its source changed since it was recorded)";
    if (b && b->kind() == BackendKind::Emu)
      notice = name == "emu" ? "emulated: times are modelled, not measured" + except +
                                   " (the emulator backend was chosen)"
                             : "emulated: times are modelled, not measured" + except +
                                   (why.empty() ? std::string() : " (" + why + ")");
    if (b) return b;
    // The window opens anyway, on the emulator, and says why the name was refused.
    notice = "emulated: times are modelled, not measured" + except + " (" + error + ")";
    return make_recorded_backend(make_emu_backend(), rec);
  };
}

// [SECTION] The worker: submit, take, state
Worker::Worker(BackendFactory make) : make_(std::move(make)) {
  thread_ = std::thread([this] { loop(); });
}

Worker::~Worker() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  control_.cancel();  // the run under way stops within 100 ms, so closing never waits
  cv_.notify_all();
  thread_.join();
}

void Worker::set_wake(std::function<void()> wake) {
  std::lock_guard<std::mutex> lk(mu_);
  wake_ = std::move(wake);
}

void Worker::submit(Job j) {
  j.submitted = now_seconds();
  {
    std::lock_guard<std::mutex> lk(mu_);
    // The latest parameters win: a run of the same kind under way is stopped (its result
    // is dropped by generation anyway). Lesson and editor tasks run to the end.
    if (running_ == j.kind && j.kind != JobKind::Lesson && j.kind != JobKind::Editor) control_.cancel();
    slots_[int(j.kind)] = std::move(j);
  }
  cv_.notify_all();
}

std::vector<JobResult> Worker::take() {
  std::lock_guard<std::mutex> lk(mu_);
  std::vector<JobResult> out;
  out.swap(results_);
  return out;
}

bool Worker::wait_result(double seconds) {
  std::unique_lock<std::mutex> lk(mu_);
  return done_cv_.wait_for(lk, std::chrono::duration<double>(seconds),
                           [&] { return !results_.empty(); });
}

bool Worker::idle() const {
  std::lock_guard<std::mutex> lk(mu_);
  if (running_ || !ready_.load()) return false;
  for (const auto& s : slots_)
    if (s) return false;
  return true;
}

std::optional<JobKind> Worker::running() const {
  std::lock_guard<std::mutex> lk(mu_);
  return running_;
}

double Worker::running_seconds() const {
  std::lock_guard<std::mutex> lk(mu_);
  return running_ ? now_seconds() - running_since_ : 0;
}

DeviceInfo Worker::device() const {
  std::lock_guard<std::mutex> lk(mu_);
  return device_;
}
BackendKind Worker::backend_kind() const {
  std::lock_guard<std::mutex> lk(mu_);
  return kind_;
}
std::string Worker::notice() const {
  std::lock_guard<std::mutex> lk(mu_);
  return notice_;
}
std::size_t Worker::cached() const { return cache_size_.load(); }

std::string Worker::error() const {
  std::lock_guard<std::mutex> lk(mu_);
  return error_;
}

void Worker::notify_ui() {
  std::function<void()> w;
  {
    std::lock_guard<std::mutex> lk(mu_);
    w = wake_;
  }
  if (w) w();
}

bool Worker::superseded(JobKind k) const {
  std::lock_guard<std::mutex> lk(mu_);
  return stop_ || slots_[int(k)].has_value();
}

// [SECTION] The loop: one job at a time, newest first
void Worker::loop() {
  {
    std::string notice, error;
    auto b = make_ ? make_(notice, error) : make_emu_backend();
    if (!b) {
      error += (error.empty() ? "" : "; ") + std::string("no backend could be made: using the emulator");
      b = make_emu_backend();
    }
    const DeviceInfo d = b->device();
    std::lock_guard<std::mutex> lk(mu_);
    backend_ = std::move(b);
    device_ = d;
    kind_ = backend_->kind();
    notice_ = notice;
    error_ = error;
    ready_ = true;
  }
  // The emulator's times are modelled, not clocked, so its thread can yield the CPU to the
  // window: on a small machine the UI keeps its frame rate while a kernel is emulated.
  // A GPU run keeps normal priority: its launches are timed.
  if (backend_kind() == BackendKind::Emu)
    (void)::setpriority(PRIO_PROCESS, id_t(::syscall(SYS_gettid)), 10);
  done_cv_.notify_all();
  notify_ui();
  for (;;) {
    Job j;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] {
        if (stop_) return true;
        for (const auto& s : slots_)
          if (s) return true;
        return false;
      });
      if (stop_) return;
      for (auto& s : slots_)
        if (s) {
          j = std::move(*s);
          s.reset();
          break;
        }
      running_ = j.kind;
      running_since_ = now_seconds();
      control_.reset();
    }
    JobResult r;
    if (forget_.exchange(false)) {
      cache_.clear();
      peer_cache_.clear();
      cache_size_ = 0;
    }
    {
      ThreadControlScope scope(&control_);
      r = execute(j);
    }
    if (control_.cancelled()) r.cancelled = true;
    {
      std::lock_guard<std::mutex> lk(mu_);
      running_.reset();
    }
    post(std::move(r));
  }
}

void Worker::post(JobResult r) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    results_.push_back(std::move(r));
  }
  done_cv_.notify_all();
  notify_ui();
}

namespace {

// [SECTION] Caches: runs and peers by key
// Everything that makes two runs the same run on one backend.
std::string run_key(const std::string& family, const std::string& variant, const Params& p,
                    const RunOptions& o) {
  std::string k = family + "/" + variant + " " + ws::to_string(p) + " seed=" + std::to_string(o.seed);
  k += o.timing ? " t" + std::to_string(o.warmup) + "x" + std::to_string(o.repeats) : " -";
  k += o.verify ? " v" : " -";
  k += o.totals ? " c" : " -";
  if (o.recorded_only) k += " rec";
  if (o.keep_all_blocks) k += " all";
  for (std::uint32_t b : o.keep_blocks) k += " b" + std::to_string(b);
  return k;
}

constexpr std::size_t kCacheMax = 512;

}  // namespace

std::shared_ptr<const RunResult> Worker::run_cached(const std::string& family,
                                                    const std::string& variant, const Params& p,
                                                    const RunOptions& o) {
  // Keyed by the completed parameters, so {n=256} and the same with its defaults spelled
  // out (what the bars pass) are one run.
  Params full = p;
  if (const VariantInfo* v = find_variant(family, variant)) {
    Params c;
    if (validate(*v, p, device_.limits, c).empty()) full = std::move(c);
  }
  const std::string key = run_key(family, variant, full, o);
  if (auto it = cache_.find(key); it != cache_.end()) {
    ++hits_;
    return it->second;
  }
  auto r = std::make_shared<const RunResult>(backend_->run(family, variant, p, o));
  // A failed run is not kept: the next try may succeed (a GPU out of memory, say).
  if (r->error.empty()) {
    if (cache_.size() >= kCacheMax) cache_.clear();
    cache_[key] = r;
    cache_size_ = cache_.size();
  }
  return r;
}

PeerResult Worker::peer_cached(Peer p, const Params& pp, const RunOptions& o) {
  const std::string key = std::string(to_string(p)) + " " + ws::to_string(pp) + " " +
                          std::to_string(o.warmup) + "x" + std::to_string(o.repeats);
  if (auto it = peer_cache_.find(key); it != peer_cache_.end()) {
    ++hits_;
    return it->second;
  }
  PeerResult r = backend_->run_peer(p, pp, o);
  if (r.error.empty()) peer_cache_[key] = r;
  return r;
}

// The worker's backend seen through its caches (a lesson task's runs).
class CachingBackend : public Backend {
 public:
  explicit CachingBackend(Worker& w) : w_(w) {}
  BackendKind kind() const override { return w_.backend_->kind(); }
  DeviceInfo device() const override { return w_.backend_->device(); }
  RunResult run(const std::string& family, const std::string& variant, const Params& params,
                const RunOptions& opt) override {
    // A recorded-only run is cached under the same key as a bar: on the emulator both are
    // the recording's time; on a GPU the flag is ignored.
    return *w_.run_cached(family, variant, params, opt);
  }
  PeerResult run_peer(Peer p, const Params& params, const RunOptions& opt) override {
    return w_.peer_cached(p, params, opt);
  }

 private:
  Worker& w_;
};

// [SECTION] Staged runs: measured, block, counters, bars, peers, sweep
void Worker::plan_phases(const Job& j,
                         const std::vector<std::pair<std::string, const RunOptions*>>& runs,
                         const std::vector<Params>& params) {
  std::vector<Phase> phases;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Params& p = params.empty() ? j.params : params[i];
    phases.push_back({runs[i].first, runs[i].second
                                          ? backend_->expected_work(j.family, j.variant, p, *runs[i].second)
                                          : 1});
  }
  control_.plan(std::move(phases));
}

bool Worker::staged(Job& j, JobResult& r, double t0) {
  const RunOptions base = j.opt;
  const bool gpu = backend_->kind() == BackendKind::Cuda;
  const bool want_block = base.keep_all_blocks || !base.keep_blocks.empty();
  auto acc = std::make_shared<RunResult>();
  // The options of each stage's run, planned as the phases of the job's one bar.
  RunOptions measured_o = base, block_o = base, counters_o = base, whole_o = base;
  measured_o.totals = false;
  measured_o.keep_blocks.clear();
  measured_o.keep_all_blocks = false;
  measured_o.verify = true;
  block_o.timing = false;
  block_o.verify = false;
  block_o.totals = false;
  counters_o.timing = false;
  counters_o.verify = false;
  counters_o.keep_blocks.clear();
  counters_o.keep_all_blocks = false;
  whole_o.keep_blocks.clear();
  {
    std::vector<std::pair<std::string, const RunOptions*>> runs;
    if (gpu) {
      runs.push_back({"measuring", &measured_o});
      if (want_block) runs.push_back({"tracing the block", &block_o});
      if (base.totals) runs.push_back({"counting the grid", &counters_o});
    } else if (want_block && !base.keep_all_blocks) {
      runs.push_back({"emulating the block", &block_o});
      if (base.totals || base.timing) runs.push_back({"emulating the grid", &whole_o});
    } else {
      runs.push_back({"emulating the grid", &base});
    }
    plan_phases(j, runs);
  }
  std::size_t phase = 0;  // the phase of the next run
  auto cached = [&](const RunOptions& o) {
    control_.enter(phase);
    auto res = run_cached(j.family, j.variant, j.params, o);
    control_.finish(phase++);
    return res;
  };
  auto send = [&](Stage s, bool final) {
    r.stages.insert(s);
    const double at = now_seconds() - j.submitted;
    (s == Stage::Measured ? r.times.measured : s == Stage::Block ? r.times.block : r.times.counters) = at;
    r.run = std::make_shared<const RunResult>(*acc);
    r.final = final;
    r.seconds = now_seconds() - t0;
    if (!final) {
      JobResult partial = r;
      partial.job = j;
      post(std::move(partial));
    }
  };
  if (gpu) {
    // 1. The measured point: the fast build timed and verified on the device.
    *acc = *cached(measured_o);
    const bool more = acc->error.empty() && (want_block || base.totals);
    send(Stage::Measured, !more);
    if (!more) return true;
    if (superseded(j.kind)) return false;
    // 2. The selected block's events: the traced build for that block only.
    if (want_block) {
      const auto b = cached(block_o);
      acc->kept = b->kept;
      acc->problems = b->problems;
      if (!b->error.empty()) acc->error = b->error;
      const bool rest = acc->error.empty() && b->problems.empty() && base.totals;
      send(Stage::Block, !rest);
      if (!rest) return true;
      if (superseded(j.kind)) return false;
    }
    // 3. The whole-grid counters, accumulated on the device.
    const auto c = cached(counters_o);
    acc->launches = c->launches;
    acc->totals = c->totals;
    if (!c->error.empty()) acc->error = c->error;
    if (acc->problems.empty()) acc->problems = c->problems;
    send(Stage::Counters, true);
    return true;
  }
  // The emulator: the selected block alone first (milliseconds at any size), then the
  // whole grid for counters, modelled time and verification.
  if (want_block && !base.keep_all_blocks) {
    RunOptions o = base;
    o.timing = false;
    o.totals = false;
    *acc = *cached(o);
    acc->verify_message.clear();  // not checked yet: the whole grid has not run
    acc->totals = {};             // one block's counters are not the grid's
    acc->launches.clear();
    const bool more = acc->error.empty() && acc->problems.empty() && (base.totals || base.timing);
    send(Stage::Block, !more);
    if (!more) return true;
    if (superseded(j.kind)) return false;
    const auto whole = cached(whole_o);
    std::vector<KeptLaunch> kept = std::move(acc->kept);
    *acc = *whole;
    acc->kept = std::move(kept);
  } else {
    *acc = *cached(base);
  }
  r.stages.insert(Stage::Measured);
  r.times.measured = now_seconds() - j.submitted;
  if (want_block) r.stages.insert(Stage::Block);
  send(Stage::Counters, true);
  return true;
}

// The peers that put this kernel's number in context, as its family declares them,
// sized from this run's own plan (peer_params), not guessed by the backend.
void Worker::run_peers(Job& j, JobResult& r) {
  Params full;
  const VariantInfo* v = find_variant(j.family, j.variant);
  const FamilyInfo* f = find_family(j.family);
  const bool planned = v && validate(*v, j.params, backend_->device().limits, full).empty();
  const Plan plan = planned ? v->plan(full) : Plan{};
  // A run that cannot be planned has no size to give its peers: none are timed.
  const std::vector<Peer> peers =
      f && planned ? peers_for(*f, plan.gflops()) : std::vector<Peer>{};
  total_ = int(peers.size());
  plan_phases(j, std::vector<std::pair<std::string, const RunOptions*>>(
                     peers.size(), {"timing a peer", nullptr}));
  for (Peer p : peers) {
    control_.enter(std::size_t(done_.load()));
    const Params pp = peer_params(p, plan, full);
    r.peers.push_back(peer_cached(p, pp, j.opt));
    control_.finish(std::size_t(done_.load()));
    ++done_;
  }
}

// Every variant of the family as a bar: at the counting size, or at the timing size (a time
// and a verdict only) with the counting size as the emulator's fallback.
void Worker::run_bars(Job& j, JobResult& r) {
  std::vector<const VariantInfo*> vs;
  for (const VariantInfo& v : catalogue())
    if (v.family == j.family) vs.push_back(&v);
  total_ = int(vs.size());
  const DeviceLimits limits = backend_->device().limits;
  // A bar is a measured time and a verdict: on a GPU no traced build is needed (the
  // emulator's time is modelled from its counters, so it runs whole).
  RunOptions bar_opt = j.opt;
  bar_opt.keep_blocks.clear();
  bar_opt.keep_all_blocks = false;
  if (backend_->kind() == BackendKind::Cuda) bar_opt.totals = false;
  const bool emu = backend_->kind() == BackendKind::Emu;
  const bool timed = !j.counting.empty() && j.counting != j.params;
  auto bars_at = [&](const Params& at, const RunOptions& o) {
    r.bars.clear();
    r.bars_at = at;
    done_ = 0;
    {
      // One phase per variant, weighted by its run (a variant it cannot run weighs 1).
      std::vector<Phase> phases;
      for (const VariantInfo* v : vs) {
        Params given, full;
        for (const ParamSpec& ps : v->params)
          if (auto it = at.find(ps.name); it != at.end()) given[ps.name] = it->second;
        phases.push_back({v->name, validate(*v, given, limits, full).empty()
                                       ? backend_->expected_work(j.family, v->name, full, o)
                                       : 1});
      }
      control_.plan(std::move(phases));
    }
    for (const VariantInfo* v : vs) {
      if (superseded(j.kind)) {
        r.cancelled = true;
        break;
      }
      BarPoint b;
      b.variant = v->name;
      // Each variant gets the parameters it knows; the rest take its defaults.
      Params given;
      for (const ParamSpec& ps : v->params)
        if (auto it = at.find(ps.name); it != at.end()) given[ps.name] = it->second;
      Params full;
      b.skipped = validate(*v, given, limits, full);
      control_.enter(std::size_t(done_.load()));
      if (b.skipped.empty()) b.result = *run_cached(j.family, v->name, full, o);
      control_.finish(std::size_t(done_.load()));
      r.bars.push_back(std::move(b));
      ++done_;
    }
  };
  if (!timed) {
    bars_at(j.params, bar_opt);
    return;
  }
  // At the timing size: a time and a verdict only (the emulator: from the recording).
  RunOptions t_opt = bar_opt;
  t_opt.totals = false;
  t_opt.recorded_only = true;
  bars_at(j.params, t_opt);
  // The emulator without the selected variant's recording at that size: every bar
  // modelled at the counting size (one size per chart). Other variants the recording
  // lacks stand as "(n/a)" with the reason.
  const bool mine = std::any_of(r.bars.begin(), r.bars.end(), [&](const BarPoint& b) {
    return b.variant == j.variant && b.skipped.empty() && b.result.error.empty();
  });
  if (emu && !mine && !r.cancelled) {
    r.bars_why = "modelled: no recording at " + ws::to_string(j.params);
    bars_at(j.counting, bar_opt);
    return;
  }
  if (emu)
    for (BarPoint& b : r.bars)
      if (b.skipped.empty() && !b.result.error.empty()) b.skipped = "not recorded at this size";
}

// The sweep's points (measured first, then on a GPU each point's counters in a second pass,
// posted between as a partial result).
void Worker::run_sweep(Job& j, JobResult& r, double t0) {
  const VariantInfo* v = find_variant(j.family, j.variant);
  std::vector<long long> ss = j.sweep_series.empty() ? std::vector<long long>{0} : j.ss;
  total_ = int(j.xs.size() * ss.size());
  const DeviceLimits limits = backend_->device().limits;
  const bool gpu = backend_->kind() == BackendKind::Cuda;
  RunOptions o = j.opt;
  o.keep_blocks.clear();
  o.keep_all_blocks = false;
  // On a GPU the measured points land first (posted as a partial result), then each
  // point's counters; the emulator's modelled times need the counters in one pass.
  RunOptions measured = o;
  if (gpu) measured.totals = false;
  RunOptions counters = o;
  counters.timing = false;
  counters.verify = false;
  const bool count_after = gpu && o.totals;  // a second pass for each point's counters
  {
    // Every point's run, then (on a GPU) every point's counters: one bar over them.
    std::vector<std::pair<std::string, const RunOptions*>> runs;
    std::vector<Params> at;
    for (int pass = 0; pass < (count_after ? 2 : 1); ++pass)
      for (long long s2 : ss)
        for (long long x : j.xs) {
          Params given = j.params, full;
          given[j.sweep_x] = x;
          if (!j.sweep_series.empty()) given[j.sweep_series] = s2;
          const bool ok = v && validate(*v, given, limits, full).empty();
          runs.push_back({pass ? "counting " + j.sweep_x + "=" + std::to_string(x)
                               : j.sweep_x + "=" + std::to_string(x),
                          ok ? (pass ? &counters : &measured) : nullptr});
          at.push_back(ok ? full : given);
        }
    plan_phases(j, runs, at);
  }
  std::size_t phase = 0;
  std::vector<Params> fulls;
  for (long long s2 : ss) {
    for (long long x : j.xs) {
      if (superseded(j.kind)) {
        r.cancelled = true;
        break;
      }
      SweepPoint p;
      p.x = x;
      p.s = s2;
      Params given = j.params;
      given[j.sweep_x] = x;
      if (!j.sweep_series.empty()) given[j.sweep_series] = s2;
      Params full;
      p.skipped = v ? validate(*v, given, limits, full) : "unknown variant";
      control_.enter(phase);
      if (p.skipped.empty()) {
        const auto rr = run_cached(j.family, j.variant, full, measured);
        p.verified = rr->ok();
        p.error = rr->error;
        p.source = rr->timing.source;
        p.throughput = rr->timing.throughput;
        p.unit = rr->timing.unit;
        if (!gpu) p.plain = rr->totals.plain();
      }
      fulls.push_back(p.skipped.empty() ? full : Params{});
      r.sweep.push_back(std::move(p));
      control_.finish(phase++);
      ++done_;
    }
    if (r.cancelled) break;
  }
  if (count_after && !r.cancelled) {
    JobResult partial = r;
    partial.final = false;
    partial.seconds = now_seconds() - t0;
    partial.job = j;
    post(std::move(partial));
    done_ = 0;
    phase = j.xs.size() * ss.size();
    for (std::size_t i = 0; i < r.sweep.size(); ++i) {
      if (superseded(j.kind)) {
        r.cancelled = true;
        break;
      }
      SweepPoint& p = r.sweep[i];
      control_.enter(phase);
      if (p.skipped.empty() && p.error.empty()) {
        const auto rr = run_cached(j.family, j.variant, fulls[i], counters);
        if (rr->error.empty()) p.plain = rr->totals.plain();
      }
      control_.finish(phase++);
      ++done_;
    }
  }
}

JobResult Worker::execute(Job& j) {
  JobResult r;
  r.kind = j.kind;
  r.gen = j.gen;
  const double t0 = now_seconds();
  done_ = 0;
  total_ = 0;
  switch (j.kind) {
    case JobKind::Main:
    case JobKind::Compare:
      r.cancelled = !staged(j, r, t0);
      break;
    case JobKind::Lesson:
      // Through the worker's caches: a lesson's timed values and the bars and peers beside
      // them are one run on a GPU, not two measurements that differ by noise.
      if (j.task) {
        CachingBackend cb(*this);
        j.task(cb);
      }
      break;
    case JobKind::Editor:
      if (j.task) j.task(*backend_);
      break;
    case JobKind::Peers:
      run_peers(j, r);
      break;
    case JobKind::Bars:
      run_bars(j, r);
      break;
    case JobKind::Sweep:
      run_sweep(j, r, t0);
      break;
  }
  r.seconds = now_seconds() - t0;
  r.final = true;  // what the loop posts is the job's last result, stopped early or not
  r.job = std::move(j);
  return r;
}

}  // namespace ws::gui
