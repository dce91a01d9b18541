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
#include <vector>

#include "sim/progress.h"

namespace ws {

struct RunProgress {
  double done = 0;        // the run under way: units done (emulator: blocks finished)
  double total = 0;       // ... of its estimated units; 0 when unknown
  double bar = 0;         // the whole command's or job's share done: never goes down
  double elapsed_s = 0;   // since the bar started
  double eta_s = -1;      // from the bar's rate so far (sim/progress.h); -1 while unknown
  std::string stage;      // what runs now: "emulating launch 1 of 2", "checking the result"
  std::string phase;      // the planned phase under way ("transpose/tiled n=8192"), or ""
  std::uint64_t seq = 0;  // the order the snapshots were taken in
  // @post bar, a value in [0, 1] that never goes down while one bar lasts.
  double fraction() const { return bar; }
};

class RunControl {
 public:
  // Safe from any thread and from a signal handler (a lock-free atomic store).
  void cancel() noexcept { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const noexcept { return cancelled_.load(std::memory_order_relaxed); }
  // Clears cancel, progress and the plan, so one control can serve several runs in turn.
  void reset();

  // A command or job of several runs plans its phases first (weighted by the work each
  // is expected to take), so that one bar spans them; then enters each before its run.
  // Without a plan, each run that start()s has a bar of its own.
  // @post progress().fraction() == 0; the bar's clock starts now
  void plan(std::vector<Phase> phases);
  // The runs that follow count toward phase i (of the plan).
  void enter(std::size_t i);
  // Phase i is done (a run answered from a recording reports nothing of its own).
  // @post the bar's share of phase i is 1
  void finish(std::size_t i);

  // Called by the runner. Cheap to call often: on_progress fires at most every
  // `min_interval_s` (and at done == total). A run starts, then reports where it is, or
  // advances (parallel parts of one run each add what they finished).
  void start(double total, const std::string& stage);
  // @post progress().done == done and progress().stage == stage
  void report(double done, double total, const std::string& stage);
  // @post progress().done == done before + units
  void advance(double units, const std::string& stage);
  RunProgress progress() const;

  // Optional; called on a runner's thread, never while the progress lock is held, one
  // call at a time and in the order the snapshots were taken (an older one is dropped).
  std::function<void(const RunProgress&)> on_progress;
  double min_interval_s = 0.1;

 private:
  using clock = std::chrono::steady_clock;
  // The bar's share of the phase under way from done/total, the snapshot, the callback.
  void update_locked(clock::time_point now, RunProgress& snap, bool& call);
  void notify(const RunProgress& snap, bool call);

  std::atomic<bool> cancelled_{false};
  mutable std::mutex mu_;
  std::mutex cb_mu_;            // serialises on_progress
  std::uint64_t delivered_ = 0; // the seq of the last snapshot delivered (under cb_mu_)
  RunProgress p_;
  PhasedProgress bar_;
  bool planned_ = false;
  std::size_t phase_ = 0;
  bool started_ = false;
  clock::time_point t0_{}, last_cb_{};
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
