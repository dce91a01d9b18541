// The GUI's worker thread without a window: a run under way stops within 100 ms when the
// worker shuts down (closing the window) or a newer job of its kind arrives, and its
// progress is visible while it runs. Built on its own (no GL), so it also runs under
// ThreadSanitizer (scripts/test_sanitizers).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "app/model/worker.h"

namespace ws::gui {
namespace {

using clock_type = std::chrono::steady_clock;
double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}
// Bounds on how fast a cancel lands, scaled where everything runs slower: ThreadSanitizer
// (scripts/test_hardening sets WS_TEST_TIME_SCALE=5) on a loaded 2-core machine took 1.35 s
// for the 1 s bound. Without the cancel the run takes 10 s, times the same slowdown.
double bound_ms(double ms) {
  const char* s = std::getenv("WS_TEST_TIME_SCALE");
  const double k = s ? std::atof(s) : 1.0;
  return ms * (k >= 1.0 ? k : 1.0);
}

// About 10 s of emulation (issue 10, finding 5: a run this long kept the window's
// process alive after it was closed).
Job long_job(JobKind kind = JobKind::Main, std::uint64_t gen = 1) {
  Job j;
  j.kind = kind;
  j.gen = gen;
  j.family = "divergence";
  j.variant = "odd_even";
  j.params = {{"n", 1 << 20}, {"work", 1024}};
  j.opt.timing = true;
  return j;
}

void wait_running(Worker& w) {
  const auto t0 = clock_type::now();
  while (!w.running() && ms_since(t0) < 20000) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(w.running().has_value());
}

TEST(Worker, ShutdownStopsTheRunUnderWayWithin100ms) {
  auto w = std::make_unique<Worker>(backend_factory("emu"));
  w->submit(long_job());
  wait_running(*w);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto t0 = clock_type::now();
  w.reset();  // what closing the window does
  const double ms = ms_since(t0);
  RecordProperty("shutdown_ms", std::to_string(ms));
  // The promise is 100 ms; the bound is the window's one second, because the emulating
  // thread runs at nice 10 and a loaded CI machine starves it. Without the cancel the
  // destructor waited the whole run (about 10 s).
  EXPECT_LT(ms, bound_ms(1000)) << "the destructor waited for the run";
}

TEST(Worker, ProgressOfTheRunUnderWayHasAnEstimate) {
  Worker w(backend_factory("emu"));
  w.submit(long_job());
  wait_running(w);
  RunProgress p;
  const auto t0 = clock_type::now();
  while (ms_since(t0) < 5000) {
    p = w.run_progress();
    if (p.done > 0 && p.eta_s >= 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_GT(p.total, 0);
  EXPECT_GT(p.done, 0);
  EXPECT_GE(p.eta_s, 0);
  EXPECT_FALSE(p.stage.empty());
}

// One bar per job (issue 21, item 7): the variant bars are five runs, each reporting its
// blocks from zero; the job's bar spans them and, sampled as the window samples it, never
// goes back, and moves from one variant's phase to the next.
TEST(Worker, AJobsProgressIsOneBarThatNeverGoesBack) {
  Worker w(backend_factory("emu"));
  Job j;
  j.kind = JobKind::Bars;
  j.family = "transpose";
  j.params = {{"n", 768}};  // recorded at no size: every variant is emulated
  j.opt.timing = true;
  w.submit(j);
  std::vector<double> bar;
  std::vector<std::string> phases;
  const auto t0 = clock_type::now();
  while (ms_since(t0) < bound_ms(60000)) {
    const bool running = w.running().has_value();
    const RunProgress p = w.run_progress();  // read after: the job's own, or its end
    if (running) {
      bar.push_back(p.fraction());
      if (phases.empty() || phases.back() != p.phase) phases.push_back(p.phase);
    }
    if (!running && !bar.empty() && w.idle()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_GE(bar.size(), 2u);
  EXPECT_TRUE(std::is_sorted(bar.begin(), bar.end()));
  EXPECT_GT(bar.back(), 0.0);
  EXPECT_GE(phases.size(), 2u) << "the bar moved through the variants' phases";
  EXPECT_EQ(w.run_progress().fraction(), 1.0);
}

TEST(Worker, ANewerJobOfTheSameKindStopsTheOldOne) {
  Worker w(backend_factory("emu"));
  w.submit(long_job(JobKind::Main, 1));
  wait_running(w);
  Job quick;
  quick.kind = JobKind::Main;
  quick.gen = 2;
  quick.family = "divergence";
  quick.variant = "odd_even";
  quick.params = {{"n", 2048}, {"work", 8}};
  const auto t0 = clock_type::now();
  w.submit(quick);
  // The old job's last result, then the new one's final result (earlier stages of both
  // are posted too: the old job's one-block stage may finish before the new job comes,
  // since that stage makes only the arrays its block touches).
  std::vector<JobResult> got;
  while ((got.empty() || !got.back().final || got.back().gen != 2) && ms_since(t0) < 10000) {
    w.wait_result(0.1);
    for (auto& r : w.take())
      if (r.gen == 1 || r.final) got.push_back(std::move(r));
  }
  ASSERT_GE(got.size(), 2u);
  got.erase(got.begin(), got.end() - 2);
  EXPECT_EQ(got[0].gen, 1u);
  EXPECT_TRUE(got[0].cancelled);
  ASSERT_TRUE(got[0].run);
  // `run` is the last stage that landed: the stopped one, or one before it (then not
  // every stage is there).
  EXPECT_TRUE(got[0].run->cancelled || got[0].stages.size() < 3) << got[0].stages.size();
  EXPECT_EQ(got[1].gen, 2u);
  EXPECT_FALSE(got[1].cancelled);
  ASSERT_TRUE(got[1].run);
  EXPECT_TRUE(got[1].run->ok()) << got[1].run->error;
  EXPECT_LT(ms_since(t0), bound_ms(2000));
}

TEST(Worker, CancelRunningStopsALessonTaskToo) {
  // A lesson task's runs get no control of their own: they see the worker's.
  Worker w(backend_factory("emu"));
  Job j;
  j.kind = JobKind::Lesson;
  bool cancelled = false;
  j.task = [&](Backend& b) {
    RunOptions o;
    cancelled = b.run("divergence", "odd_even", {{"n", 1 << 20}, {"work", 1024}}, o).cancelled;
  };
  w.submit(j);
  wait_running(w);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto t0 = clock_type::now();
  w.cancel_running();
  while (w.running() && ms_since(t0) < 5000) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_LT(ms_since(t0), bound_ms(1000));  // (nice 10 under load, as above; 10 s without the cancel)
  auto rs = w.take();
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_TRUE(rs[0].cancelled);
  EXPECT_TRUE(cancelled);
}

}  // namespace
}  // namespace ws::gui
