#pragma once
// A long run's stop switch and progress report, shared by whoever asked for the run (the
// CLI's Ctrl-C handler, the GUI's worker) and whatever runs it (the emulator, a backend).
// The runner polls cancelled() often enough to stop within 100 ms and calls report() as
// it goes; the asker reads progress() or gets on_progress calls. No CUDA, no GUI here.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string>

namespace ws {

struct RunProgress {
  double done = 0;        // units of work done (emulator: lane events + work-loop rounds)
  double total = 0;       // the estimate of all units; 0 when unknown
  double elapsed_s = 0;   // since the first report
  double eta_s = -1;      // estimated seconds left; -1 while unknown
  std::string stage;      // what runs now: "emulating launch 1 of 2", "timing 3 of 10"
  // @post a value in [0, 1]; 0 when total is unknown.
  double fraction() const;
};

class RunControl {
 public:
  // Safe from any thread and from a signal handler (a lock-free atomic store).
  void cancel() noexcept { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const noexcept { return cancelled_.load(std::memory_order_relaxed); }
  // Clears cancel and progress, so one control can serve several runs in turn.
  void reset();

  // Called by the runner. Cheap to call often: on_progress fires at most every
  // `min_interval_s` (and at done == total).
  // @post progress().done == done and progress().stage == stage
  void report(double done, double total, const std::string& stage);
  RunProgress progress() const;

  // Optional; called on the runner's thread, never while a lock of this class is held.
  std::function<void(const RunProgress&)> on_progress;
  double min_interval_s = 0.1;

 private:
  std::atomic<bool> cancelled_{false};
  mutable std::mutex mu_;
  RunProgress p_;
  bool started_ = false;
  std::chrono::steady_clock::time_point t0_{}, last_cb_{};
};

// Convenience for runners that may be given no control.
inline bool cancelled(const RunControl* c) { return c && c->cancelled(); }

// Thrown by code that polls a control it was not handed (sim::work() in a CPU reference)
// when the run is cancelled; the backend catches it and reports the run as cancelled.
struct RunCancelled : std::exception {
  const char* what() const noexcept override { return "cancelled"; }
};

// The control of the runs on this thread, for code that has no other way to see it: a
// CPU reference's work loops, and a backend run given no RunOptions::control (a GUI
// worker sets one around each job, so a lesson's runs stop with it). Scopes nest.
class ThreadControlScope {
 public:
  explicit ThreadControlScope(RunControl* c);
  ~ThreadControlScope();
  ThreadControlScope(const ThreadControlScope&) = delete;
  ThreadControlScope& operator=(const ThreadControlScope&) = delete;

 private:
  RunControl* prev_;
};
RunControl* thread_control();
// Throws RunCancelled when this thread's control was cancelled.
void throw_if_cancelled();

}  // namespace ws
