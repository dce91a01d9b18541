#pragma once
// The worker thread: the only thread that touches the backend, so the UI never blocks on
// a run. Jobs wait in one slot per kind; submitting a job replaces the one waiting in its
// slot (the latest parameters win), and a newer job stops the running one of its kind at
// its next stage. A run lands in stages, each posted as soon as it is ready (Stage).
// Results are cached by backend, variant, parameters and stage, so switching back, the
// variant bars and the sweeps reuse points already measured. Finished results are
// collected by the UI each frame.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "kernels/backends/backend.h"

namespace ws::gui {

// In priority order: what the student is looking at runs first. Editor: the editor's check
// of a student's kernel on a GPU (a task given the worker's own backend: the only thread that
// touches it). Lesson: the extra runs a lesson step's ratios need (another variant, a timed
// copy), given as a task.
enum class JobKind { Main = 0, Editor, Compare, Lesson, Peers, Bars, Sweep };
constexpr int kJobKinds = 7;
std::string_view to_string(JobKind k);

// What a run's result holds so far, in the order the stages land after a change. On a GPU:
// the measured time (fast build, verified on the device), then the selected block's
// events (traced build, that block only), then the whole-grid counters (traced build,
// counted on the device). On the emulator: the selected block first (only that block is
// emulated), then the whole grid (counters, modelled time, verification).
enum class Stage { Measured = 0, Block = 1, Counters = 2 };
std::string_view to_string(Stage s);

// Seconds from a job's submission to each stage's result (-1: not reached).
struct StageTimes {
  double measured = -1, block = -1, counters = -1;
};

struct Job {
  JobKind kind = JobKind::Main;
  std::uint64_t gen = 0;  // the UI's counter: results of older generations are dropped
  std::string family, variant;
  Params params;
  RunOptions opt;
  // Sweep: parameter `sweep_x` over `xs`, one series per value of `sweep_series` over `ss`
  // (`sweep_series` empty: one series).
  std::string sweep_x, sweep_series;
  std::vector<long long> xs, ss;
  // Bars and peers at a timing size (a lesson's `timing`, a family's timing size): `params`
  // are the timed parameters and these the counting ones. On the emulator the bars come
  // from the recording only; when it lacks one, all of them are modelled at these instead.
  Params counting;
  // Lesson, Editor: run on the worker thread with its backend (Lesson: through the worker's
  // caches; Editor: the backend itself, so a time target is measured, not remembered); it
  // writes its own results, so the UI only learns from the JobResult that it has finished.
  std::function<void(Backend&)> task;
  double submitted = 0;  // now_seconds() at submit()
};

struct BarPoint {
  std::string variant;
  std::string skipped;  // why this variant was not run with these parameters ("" = ran)
  RunResult result;
};

struct SweepPoint {
  long long x = 0, s = 0;
  std::string skipped;  // why this point was not run ("" = ran)
  bool verified = false;
  sim::Provenance source;  // the time's (Timing::source)
  double throughput = 0;
  std::string unit, error;
  std::vector<std::pair<std::string, double>> plain;  // the run's totals in plain words
};

struct JobResult {
  JobKind kind = JobKind::Main;
  std::uint64_t gen = 0;
  double seconds = 0;
  bool cancelled = false;  // superseded midway by a newer job of its kind, or shut down
  // Main, Compare: the stages `run` holds (the last one landed), and whether more follow.
  // Bars and sweeps post a partial result (final = false) when their measured points are
  // in, before the counters of each point.
  std::set<Stage> stages;
  bool final = true;
  StageTimes times;
  std::shared_ptr<const RunResult> run;  // Main, Compare
  std::vector<BarPoint> bars;
  Params bars_at;        // Bars: the parameters the bars ran at (job.params or job.counting)
  std::string bars_why;  // Bars: why they are not at job.params ("" when they are)
  std::vector<SweepPoint> sweep;
  std::vector<PeerResult> peers;
  Job job;  // what was asked
};

using BackendFactory = std::function<std::unique_ptr<Backend>(std::string& notice, std::string& error)>;
// "auto": CUDA when usable, else the emulator (notice says why); "emu"; "cuda" (falls back
// to the emulator with an error the window shows when there is no usable GPU).
BackendFactory backend_factory(const std::string& which);

class Worker {
 public:
  explicit Worker(BackendFactory make);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Called on the worker thread whenever a result is ready (the window wakes its event
  // loop with it, so the UI can sleep while a kernel runs instead of spinning).
  void set_wake(std::function<void()> wake);
  // @post the slot of j.kind holds j (a waiting job of that kind is dropped).
  void submit(Job j);
  // Results finished since the last call, oldest first.
  std::vector<JobResult> take();
  // Waits (without spinning) until a result is ready or `seconds` pass.
  bool wait_result(double seconds);

  bool ready() const { return ready_.load(); }  // the backend exists
  bool idle() const;                            // nothing running or waiting
  std::optional<JobKind> running() const;
  double running_seconds() const;
  // Progress of the running bars/sweep job: points done of total.
  std::pair<int, int> progress() const { return {done_.load(), total_.load()}; }
  // Progress of the job under way: one bar over its runs (its fraction never goes down)
  // and the time left from the work done, with the run's own done/total and stage.
  RunProgress run_progress() const { return control_.progress(); }
  // Stops the job under way within 100 ms (its result comes back marked cancelled).
  void cancel_running() { control_.cancel(); }
  DeviceInfo device() const;
  BackendKind backend_kind() const;
  // Results kept for reuse, and how many runs were answered from them.
  std::size_t cached() const;
  std::uint64_t cache_hits() const { return hits_.load(); }
  // The next job measures afresh: the cache is emptied before it starts.
  void forget_results() { forget_ = true; }
  std::string notice() const;  // why the emulator is used, or "" on a GPU
  std::string error() const;   // a backend that could not be made as asked

 private:
  void loop();
  JobResult execute(Job& j);
  // execute()'s job kinds other than the staged main run and the lesson's task.
  void run_peers(Job& j, JobResult& r);
  void run_bars(Job& j, JobResult& r);
  void run_sweep(Job& j, JobResult& r, double t0);
  bool superseded(JobKind k) const;
  void notify_ui();
  void post(JobResult r);
  // The backend's run, answered from the cache when the same run was done before.
  std::shared_ptr<const RunResult> run_cached(const std::string& family,
                                              const std::string& variant, const Params& p,
                                              const RunOptions& o);
  // A peer's time, answered from the cache when the same peer ran before.
  PeerResult peer_cached(Peer p, const Params& pp, const RunOptions& o);
  friend class CachingBackend;
  // Plans the job's runs as the phases of its one progress bar (run_progress()), each
  // weighted by Backend::expected_work with its options (null: weight 1) at `params[i]`
  // (empty: the job's parameters).
  void plan_phases(const Job& j, const std::vector<std::pair<std::string, const RunOptions*>>& runs,
                   const std::vector<Params>& params = {});
  // A Main/Compare job in stages; posts a result after each. False when superseded.
  bool staged(Job& j, JobResult& r, double t0);

  BackendFactory make_;
  std::function<void()> wake_;
  std::unique_ptr<Backend> backend_;
  mutable std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::optional<Job> slots_[kJobKinds];
  std::vector<JobResult> results_;
  std::optional<JobKind> running_;
  double running_since_ = 0;
  bool stop_ = false;
  // The running job's control: every backend run on the worker thread polls it (set
  // as the thread's control), so shutdown and a superseding submit stop it.
  RunControl control_;
  std::atomic<bool> ready_{false};
  std::atomic<int> done_{0}, total_{0};
  std::map<std::string, std::shared_ptr<const RunResult>> cache_;  // worker thread only
  std::map<std::string, PeerResult> peer_cache_;
  std::atomic<std::size_t> cache_size_{0};
  std::atomic<std::uint64_t> hits_{0};
  std::atomic<bool> forget_{false};
  DeviceInfo device_;
  BackendKind kind_ = BackendKind::Emu;
  std::string notice_, error_;
  std::thread thread_;
};

// Seconds on a monotonic clock.
double now_seconds();

}  // namespace ws::gui
