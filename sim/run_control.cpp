#include "sim/run_control.h"

#include <algorithm>

namespace ws {

double RunProgress::fraction() const {
  if (!(total > 0)) return 0;
  return std::clamp(done / total, 0.0, 1.0);
}

void RunControl::reset() {
  cancelled_.store(false, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lk(mu_);
  p_ = RunProgress{};
  started_ = false;
}

void RunControl::report(double done, double total, const std::string& stage) {
  using clock = std::chrono::steady_clock;
  const auto now = clock::now();
  RunProgress snap;
  bool call = false;
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (!started_) {
      started_ = true;
      t0_ = now;
      last_cb_ = now - std::chrono::hours(1);
    }
    p_.done = done;
    p_.total = total;
    if (p_.stage != stage) p_.stage = stage;
    p_.elapsed_s = std::chrono::duration<double>(now - t0_).count();
    // The rate so far: a linear estimate, shown only once there is something to go on.
    p_.eta_s = (total > 0 && done > 0 && p_.elapsed_s > 0.05)
                   ? std::max(0.0, (total - done) * p_.elapsed_s / done)
                   : -1;
    const double since = std::chrono::duration<double>(now - last_cb_).count();
    if (on_progress && (since >= min_interval_s || (total > 0 && done >= total))) {
      last_cb_ = now;
      call = true;
      snap = p_;
    }
  }
  if (call) on_progress(snap);
}

namespace {
thread_local RunControl* tl_control = nullptr;
}

ThreadControlScope::ThreadControlScope(RunControl* c) : prev_(tl_control) { tl_control = c; }
ThreadControlScope::~ThreadControlScope() { tl_control = prev_; }
RunControl* thread_control() { return tl_control; }
void throw_if_cancelled() {
  if (tl_control && tl_control->cancelled()) throw RunCancelled{};
}

RunProgress RunControl::progress() const {
  std::lock_guard<std::mutex> lk(mu_);
  return p_;
}

}  // namespace ws
