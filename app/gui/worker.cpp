// The worker thread.
#include "app/gui/worker.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernels/recording.h"

#include <chrono>

namespace ws::gui {

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string_view to_string(JobKind k) {
  switch (k) {
    case JobKind::Main: return "run";
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
    const std::string except =
        rec ? ", except at the configurations " + rec->label() : std::string();
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
  {
    std::lock_guard<std::mutex> lk(mu_);
    // The latest parameters win: a run of the same kind under way is stopped (its result
    // is dropped by generation anyway). Lesson tasks run to the end.
    if (running_ == j.kind && j.kind != JobKind::Lesson) control_.cancel();
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
    {
      ThreadControlScope scope(&control_);
      r = execute(j);
    }
    if (control_.cancelled()) r.cancelled = true;
    {
      std::lock_guard<std::mutex> lk(mu_);
      running_.reset();
      results_.push_back(std::move(r));
    }
    done_cv_.notify_all();
    notify_ui();
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
      r.run = std::make_shared<RunResult>(backend_->run(j.family, j.variant, j.params, j.opt));
      break;
    case JobKind::Lesson:
      if (j.task) j.task(*backend_);
      break;
    case JobKind::Peers: {
      // The peers that put this kernel's number in context, as its family declares them,
      // sized from this run's own plan (peer_params), not guessed by the backend.
      Params full;
      const VariantInfo* v = find_variant(j.family, j.variant);
      const FamilyInfo* f = find_family(j.family);
      const bool planned = v && validate(*v, j.params, backend_->device().limits, full).empty();
      const Plan plan = planned ? v->plan(full) : Plan{};
      // A run that cannot be planned has no size to give its peers: none are timed.
      const std::vector<Peer> peers =
          f && planned ? peers_for(*f, plan.gflops()) : std::vector<Peer>{};
      total_ = int(peers.size());
      for (Peer p : peers) {
        r.peers.push_back(backend_->run_peer(p, peer_params(p, plan, full), j.opt));
        ++done_;
      }
      break;
    }
    case JobKind::Bars: {
      std::vector<const VariantInfo*> vs;
      for (const VariantInfo& v : catalogue())
        if (v.family == j.family) vs.push_back(&v);
      total_ = int(vs.size());
      const DeviceLimits limits = backend_->device().limits;
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
          if (auto it = j.params.find(ps.name); it != j.params.end()) given[ps.name] = it->second;
        Params full;
        b.skipped = validate(*v, given, limits, full);
        if (b.skipped.empty()) b.result = backend_->run(j.family, v->name, full, j.opt);
        r.bars.push_back(std::move(b));
        ++done_;
      }
      break;
    }
    case JobKind::Sweep: {
      const VariantInfo* v = find_variant(j.family, j.variant);
      std::vector<long long> ss = j.sweep_series.empty() ? std::vector<long long>{0} : j.ss;
      total_ = int(j.xs.size() * ss.size());
      const DeviceLimits limits = backend_->device().limits;
      for (long long s : ss) {
        for (long long x : j.xs) {
          if (superseded(j.kind)) {
            r.cancelled = true;
            break;
          }
          SweepPoint p;
          p.x = x;
          p.s = s;
          Params given = j.params;
          given[j.sweep_x] = x;
          if (!j.sweep_series.empty()) given[j.sweep_series] = s;
          Params full;
          p.skipped = v ? validate(*v, given, limits, full) : "unknown variant";
          if (p.skipped.empty()) {
            const RunResult rr = backend_->run(j.family, j.variant, full, j.opt);
            p.verified = rr.ok();
            p.error = rr.error;
            p.measured = rr.timing.measured;
            p.throughput = rr.timing.throughput;
            p.unit = rr.timing.unit;
            p.plain = rr.totals.plain();
          }
          r.sweep.push_back(std::move(p));
          ++done_;
        }
        if (r.cancelled) break;
      }
      break;
    }
  }
  r.seconds = now_seconds() - t0;
  r.job = std::move(j);
  return r;
}

}  // namespace ws::gui
