// The worker's stages and cache without a window (emulator): the selected block lands
// first, the whole grid after; the same run asked again is answered from the cache.
#include <gtest/gtest.h>

#include "app/model/worker.h"

namespace ws::gui {
namespace {

Job main_job(std::uint64_t gen, std::uint64_t seed = 1) {
  Job j;
  j.kind = JobKind::Main;
  j.gen = gen;
  j.family = "transpose";
  j.variant = "tiled";
  j.params = {{"n", 256}};
  j.opt.timing = true;
  j.opt.totals = true;
  j.opt.seed = seed;
  j.opt.keep_blocks = {3};
  return j;
}

std::vector<JobResult> until_final(Worker& w, JobKind k, std::uint64_t gen) {
  std::vector<JobResult> got;
  for (int i = 0; i < 600; ++i) {
    w.wait_result(0.1);
    for (JobResult& r : w.take())
      if (r.kind == k && r.gen == gen) got.push_back(std::move(r));
    if (!got.empty() && got.back().final) break;
  }
  return got;
}

TEST(WorkerStages, TheEmulatorPostsTheSelectedBlockFirst) {
  Worker w(backend_factory("emu"));
  w.submit(main_job(1));
  const auto got = until_final(w, JobKind::Main, 1);
  ASSERT_EQ(got.size(), 2u);
  // 1: block 3's events only, not verified yet, no counters.
  EXPECT_FALSE(got[0].final);
  EXPECT_EQ(got[0].stages, std::set<Stage>{Stage::Block});
  ASSERT_TRUE(got[0].run);
  ASSERT_EQ(got[0].run->kept.size(), 1u);
  for (const WarpEvent& e : got[0].run->kept[0].events) EXPECT_EQ(e.block, 3u);
  EXPECT_EQ(got[0].run->totals.events, 0u);
  EXPECT_GE(got[0].times.block, 0);
  // 2: the whole grid: counters, modelled time, verified, and block 3's events kept.
  EXPECT_TRUE(got[1].final);
  EXPECT_EQ(got[1].stages, (std::set<Stage>{Stage::Measured, Stage::Block, Stage::Counters}));
  EXPECT_TRUE(got[1].run->ok()) << got[1].run->verify_message;
  EXPECT_GT(got[1].run->totals.events, 0u);
  EXPECT_GT(got[1].run->timing.throughput, 0);
  EXPECT_EQ(got[1].run->kept.at(0).events.size(), got[0].run->kept[0].events.size());
  EXPECT_FALSE(got[1].run->launches.at(0).sites.empty());
  EXPECT_GE(got[1].times.counters, got[0].times.block);
}

TEST(WorkerStages, SwitchingBackIsAnsweredFromTheCache) {
  Worker w(backend_factory("emu"));
  w.submit(main_job(1));
  const auto first = until_final(w, JobKind::Main, 1);
  ASSERT_FALSE(first.empty());
  const std::uint64_t hits = w.cache_hits();
  w.submit(main_job(2));
  const auto again = until_final(w, JobKind::Main, 2);
  ASSERT_FALSE(again.empty());
  EXPECT_EQ(w.cache_hits(), hits + 2);  // both stages
  EXPECT_EQ(again.back().run->totals.events, first.back().run->totals.events);
  // Another seed is another run: nothing from the cache.
  w.submit(main_job(3, 2));
  until_final(w, JobKind::Main, 3);
  EXPECT_EQ(w.cache_hits(), hits + 2);
  // The variant bars reuse the main variant's whole-grid point.
  Job b = main_job(4);
  b.kind = JobKind::Bars;
  b.opt.keep_blocks.clear();
  w.submit(b);
  const auto bars = until_final(w, JobKind::Bars, 4);
  ASSERT_FALSE(bars.empty());
  EXPECT_GE(w.cache_hits(), hits + 3);
  EXPECT_GT(w.cached(), 0u);
  // Forgotten results are measured again.
  w.forget_results();
  const std::uint64_t before = w.cache_hits();
  w.submit(main_job(5));
  until_final(w, JobKind::Main, 5);
  EXPECT_EQ(w.cache_hits(), before);
}

TEST(WorkerStages, StagesHaveNames) {
  EXPECT_EQ(to_string(Stage::Measured), "measured time");
  EXPECT_EQ(to_string(Stage::Block), "selected block");
  EXPECT_EQ(to_string(Stage::Counters), "whole-grid counters");
}

}  // namespace
}  // namespace ws::gui
