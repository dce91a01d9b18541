// One bar per command: PhasedProgress (weights, a share per phase that never goes down,
// the time left from the work done) and RunControl's plan across several runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include "sim/progress.h"
#include "sim/run_control.h"

using namespace ws;

TEST(PhasedProgress, WeightsSayWhatShareOfTheWorkAPhaseIs) {
  PhasedProgress p({{"emulate", 9}, {"peers", 1}});
  EXPECT_EQ(p.fraction(), 0);
  p.finish(1);
  EXPECT_DOUBLE_EQ(p.fraction(), 0.1);
  p.set(0, 0.5);
  EXPECT_DOUBLE_EQ(p.fraction(), 0.55);
  p.finish(0);
  EXPECT_EQ(p.fraction(), 1.0);
}

TEST(PhasedProgress, ASmallerShareThanBeforeIsIgnored) {
  PhasedProgress p({{"a", 1}, {"b", 1}});
  p.set(0, 0.8);
  p.set(0, 0.1);  // a second run in the same phase starting at 0
  EXPECT_DOUBLE_EQ(p.share(0), 0.8);
  p.set(0, 7);  // out of range: clamped
  EXPECT_DOUBLE_EQ(p.share(0), 1.0);
  p.set(0, std::nan(""));
  p.set(5, 1);  // no such phase
  EXPECT_DOUBLE_EQ(p.fraction(), 0.5);
}

// The property the command line and the window rely on: whatever order the phases run
// in and whatever their runs report (a new run starting at 0, parts out of order), the
// bar never moves backwards, and it ends at 1.
TEST(PhasedProgress, NeverMovesBackwardsUnderAnyPhaseOrder) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + int(rng() % 6);
    std::vector<Phase> phases;
    for (int i = 0; i < n; ++i)
      phases.push_back({"p" + std::to_string(i), double(rng() % 4) * std::pow(10.0, rng() % 8)});
    PhasedProgress p(phases);
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    double last = p.fraction();
    for (int i : order) {
      for (int k = 0; k < 5; ++k) {
        const double f = std::uniform_real_distribution<double>(-0.2, 1.2)(rng);
        p.set(std::size_t(order[rng() % n]), f);  // any phase, any value
        p.set(std::size_t(i), f);
        ASSERT_GE(p.fraction(), last) << "trial " << trial;
        ASSERT_LE(p.fraction(), 1.0);
        last = p.fraction();
      }
      p.finish(std::size_t(i));
      ASSERT_GE(p.fraction(), last);
      last = p.fraction();
    }
    EXPECT_EQ(p.fraction(), 1.0) << "trial " << trial;
  }
}

TEST(PhasedProgress, NotDoneUntilEveryWeightedPhaseIs) {
  // A phase of a billionth of the work left: rounding must not show 100 % yet.
  PhasedProgress p({{"big", 1e9}, {"tiny", 1}});
  p.finish(0);
  EXPECT_LT(p.fraction(), 1.0);
  p.finish(1);
  EXPECT_EQ(p.fraction(), 1.0);
  // No weights at all: every phase counts alike.
  PhasedProgress q({{"a", 0}, {"b", -3}});
  q.finish(0);
  EXPECT_DOUBLE_EQ(q.fraction(), 0.5);
}

// The time left comes from the work done: elapsed time over the fraction done, nothing
// else (not the phases still to come, not a guess made before any work).
TEST(PhasedProgress, TheTimeLeftComesOnlyFromTheWorkDone) {
  PhasedProgress p({{"a", 3}, {"b", 1}});
  EXPECT_EQ(p.eta_s(10), -1);  // nothing done: nothing to go on
  p.set(0, 0.5);               // 3/8 of the work
  EXPECT_EQ(p.eta_s(0), -1);
  EXPECT_DOUBLE_EQ(p.eta_s(3), 3 * (1 - 0.375) / 0.375);
  // Another plan at the same fraction done gives the same estimate.
  PhasedProgress q({{"x", 5}, {"y", 3}});
  q.finish(1);
  EXPECT_DOUBLE_EQ(q.fraction(), p.fraction());
  EXPECT_DOUBLE_EQ(q.eta_s(3), p.eta_s(3));
  p.finish(0);
  p.finish(1);
  EXPECT_EQ(p.eta_s(3), 0);
}

// A bench of three configurations: each run reports 0..its total; the planned bar spans
// them. Without the plan each run's report restarted the percentage (50 %, 55 %, 12 %).
TEST(RunControl, APlannedCommandHasOneBarAcrossItsRuns) {
  RunControl ctl;
  std::vector<double> bars;
  ctl.min_interval_s = 0;
  ctl.on_progress = [&](const RunProgress& p) { bars.push_back(p.fraction()); };
  ctl.plan({{"first", 2}, {"second", 1}, {"third", 1}});
  for (std::size_t i = 0; i < 3; ++i) {
    ctl.enter(i);
    ctl.start(10, "emulating");
    for (int d = 1; d <= 10; ++d) ctl.report(d, 10, "emulating");
    ctl.report(10, 10, "checking the result on the CPU");
    ctl.finish(i);
  }
  ASSERT_FALSE(bars.empty());
  EXPECT_TRUE(std::is_sorted(bars.begin(), bars.end()));
  EXPECT_EQ(bars.back(), 1.0);
  EXPECT_EQ(ctl.progress().phase, "third");
  // Half of the first (heavier) phase is a quarter of the command.
  RunControl c2;
  c2.plan({{"first", 2}, {"second", 1}, {"third", 1}});
  c2.enter(0);
  c2.start(10, "x");
  c2.report(5, 10, "x");
  EXPECT_DOUBLE_EQ(c2.progress().fraction(), 0.25);
  // A phase answered at once (from a recording) is finished without reports.
  c2.finish(2);
  EXPECT_DOUBLE_EQ(c2.progress().fraction(), 0.5);
}

TEST(RunControl, WithoutAPlanEachRunHasABarOfItsOwn) {
  RunControl ctl;
  ctl.start(4, "a");
  ctl.report(4, 4, "a");
  EXPECT_EQ(ctl.progress().fraction(), 1.0);
  ctl.start(8, "b");
  EXPECT_EQ(ctl.progress().fraction(), 0);
  ctl.report(2, 8, "b");
  EXPECT_DOUBLE_EQ(ctl.progress().fraction(), 0.25);
}

// Parts of one run on several cores add what they finish: the count only grows, and it
// ends at the run's total.
TEST(RunControl, PartsThatAdvanceTogetherOnlyMoveItForward) {
  RunControl ctl;
  std::vector<double> seen;
  std::mutex mu;
  ctl.min_interval_s = 0;
  ctl.on_progress = [&](const RunProgress& p) {
    std::lock_guard<std::mutex> lk(mu);
    seen.push_back(p.fraction());
  };
  ctl.start(4 * 1000, "emulating");
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) ctl.advance(1, "emulating");
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(ctl.progress().done, 4000);
  EXPECT_EQ(ctl.progress().fraction(), 1.0);
  // The callbacks see the bar in the order it was taken: never backwards.
  ASSERT_FALSE(seen.empty());
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(seen.back(), 1.0);
}
