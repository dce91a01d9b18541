#include "sim/run_control.h"

#include <algorithm>

namespace ws {

void RunControl::reset() {
  cancelled_.store(false, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lk(mu_);
  const std::uint64_t seq = p_.seq;
  p_ = RunProgress{};
  p_.seq = seq;  // snapshots stay ordered across runs
  bar_ = PhasedProgress{};
  planned_ = false;
  phase_ = 0;
  started_ = false;
}

void RunControl::plan(std::vector<Phase> phases) {
  std::lock_guard<std::mutex> lk(mu_);
  bar_ = PhasedProgress(std::move(phases));
  planned_ = true;
  phase_ = 0;
  const std::uint64_t seq = p_.seq;
  p_ = RunProgress{};
  p_.seq = seq;
  started_ = true;
  t0_ = clock::now();
  last_cb_ = t0_ - std::chrono::hours(1);
}

void RunControl::enter(std::size_t i) {
  RunProgress snap;
  bool call = false;
  {
    std::lock_guard<std::mutex> lk(mu_);
    phase_ = i;
    p_.done = p_.total = 0;
    if (planned_ && i < bar_.size()) p_.phase = bar_.phase(i).name;
    update_locked(clock::now(), snap, call);
  }
  notify(snap, call);
}

void RunControl::finish(std::size_t i) {
  RunProgress snap;
  bool call = false;
  {
    std::lock_guard<std::mutex> lk(mu_);
    bar_.finish(i);
    update_locked(clock::now(), snap, call);
  }
  notify(snap, call);
}

void RunControl::start(double total, const std::string& stage) {
  RunProgress snap;
  bool call = false;
  {
    std::lock_guard<std::mutex> lk(mu_);
    const auto now = clock::now();
    if (!planned_) {  // a run of its own: a fresh bar
      bar_ = PhasedProgress{};
      started_ = false;
    }
    if (!started_) {
      started_ = true;
      t0_ = now;
      last_cb_ = now - std::chrono::hours(1);
    }
    p_.done = 0;
    p_.total = total;
    p_.stage = stage;
    update_locked(now, snap, call);
  }
  notify(snap, call);
}

void RunControl::report(double done, double total, const std::string& stage) {
  RunProgress snap;
  bool call = false;
  {
    std::lock_guard<std::mutex> lk(mu_);
    p_.done = done;
    p_.total = total;
    if (p_.stage != stage) p_.stage = stage;
    update_locked(clock::now(), snap, call);
  }
  notify(snap, call);
}

void RunControl::advance(double units, const std::string& stage) {
  RunProgress snap;
  bool call = false;
  {
    std::lock_guard<std::mutex> lk(mu_);
    p_.done += units;
    if (p_.stage != stage) p_.stage = stage;
    update_locked(clock::now(), snap, call);
  }
  notify(snap, call);
}

void RunControl::update_locked(clock::time_point now, RunProgress& snap, bool& call) {
  if (!started_) {
    started_ = true;
    t0_ = now;
    last_cb_ = now - std::chrono::hours(1);
  }
  if (p_.total > 0) bar_.set(planned_ ? phase_ : 0, p_.done / p_.total);
  p_.bar = bar_.fraction();
  p_.elapsed_s = std::chrono::duration<double>(now - t0_).count();
  // Shown only once there is something to go on (a first instant of work says little).
  p_.eta_s = p_.elapsed_s > 0.05 ? bar_.eta_s(p_.elapsed_s) : -1;
  const double since = std::chrono::duration<double>(now - last_cb_).count();
  ++p_.seq;
  if (on_progress && (since >= min_interval_s || (p_.total > 0 && p_.done >= p_.total))) {
    last_cb_ = now;
    call = true;
    snap = p_;
  }
}

void RunControl::notify(const RunProgress& snap, bool call) {
  if (!call) return;
  std::lock_guard<std::mutex> lk(cb_mu_);
  if (snap.seq <= delivered_) return;  // a newer one was delivered while this one waited
  delivered_ = snap.seq;
  on_progress(snap);
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
