#pragma once
// The worker thread: the only thread that touches the backend, so the UI never blocks on
// a run. Jobs wait in one slot per kind; submitting a job replaces the one waiting in its
// slot (the latest parameters win). Finished results are collected by the UI each frame.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kernels/backend.h"

namespace ws::gui {

// In priority order: what the student is looking at runs first. Lesson: the extra runs a
// lesson step's ratios need (another variant, a timed copy), given as a task.
enum class JobKind { Main = 0, Compare, Lesson, Peers, Bars, Sweep };
constexpr int kJobKinds = 6;
std::string_view to_string(JobKind k);

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
  // Lesson: run on the worker thread with its backend; it writes its own results (what it
  // captured), so the UI only learns from the JobResult that it has finished.
  std::function<void(Backend&)> task;
};

struct BarPoint {
  std::string variant;
  std::string skipped;  // why this variant was not run with these parameters ("" = ran)
  RunResult result;
};

struct SweepPoint {
  long long x = 0, s = 0;
  std::string skipped;  // why this point was not run ("" = ran)
  bool verified = false, measured = false;
  double throughput = 0;
  std::string unit, error;
  std::vector<std::pair<std::string, double>> plain;  // the run's totals in plain words
};

struct JobResult {
  JobKind kind = JobKind::Main;
  std::uint64_t gen = 0;
  double seconds = 0;
  bool cancelled = false;  // superseded midway by a newer job of its kind, or shut down
  std::shared_ptr<const RunResult> run;  // Main, Compare
  std::vector<BarPoint> bars;
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
  // Progress of the backend run under way (done, total, estimate of the time left).
  RunProgress run_progress() const { return control_.progress(); }
  // Stops the job under way within 100 ms (its result comes back marked cancelled).
  void cancel_running() { control_.cancel(); }
  DeviceInfo device() const;
  BackendKind backend_kind() const;
  std::string notice() const;  // why the emulator is used, or "" on a GPU
  std::string error() const;   // a backend that could not be made as asked

 private:
  void loop();
  JobResult execute(Job& j);
  bool superseded(JobKind k) const;
  void notify_ui();

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
  DeviceInfo device_;
  BackendKind kind_ = BackendKind::Emu;
  std::string notice_, error_;
  std::thread thread_;
};

// Seconds on a monotonic clock.
double now_seconds();

}  // namespace ws::gui
