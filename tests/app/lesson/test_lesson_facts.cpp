// Facts of a run, answer checking, goal status and explanation templates, on runs built
// by hand (no backend needed).
#include <gtest/gtest.h>

#include <cmath>

#include "app/lesson/lesson_model.h"

using namespace ws::lesson;

namespace {

ws::RunResult run_with(const ws::sim::Totals& t, ws::Dim3 grid, ws::Dim3 block,
                       std::uint32_t smem = 0) {
  ws::RunResult r;
  r.verified = true;
  r.totals = t;
  ws::LaunchCfg c;
  c.kernel = "k";
  c.grid = grid;
  c.block = block;
  c.shared_bytes = smem;
  r.plan.launches = {c};
  r.plan.logical_bytes = 1 << 20;
  return r;
}

Predict predict(const std::string& answer, double tol, bool relative, const std::string& explain) {
  ParseResult r = parse_lesson_text(
      "---\ntitle: T\nlevel: beginner\nminutes: 5\n---\n## S\n```lab\nfamily: f\nvariant: v\n```\n"
      "```predict\nquestion: q\nanswer: " + answer + "\nexpect: 0\ntolerance: " +
          (relative ? std::to_string(int(tol)) + "%" : std::to_string(tol)) +
          "\nexplain: " + explain + "\n```\n",
      "t.md");
  EXPECT_TRUE(r.ok()) << r.message();
  return r.ok() ? r.lesson->steps[0].predicts[0] : Predict{};
}

}  // namespace

TEST(LessonFacts, MetricsAreTheModelsNcuValues) {
  ws::sim::Totals t;
  t.global_ld_requests = 10;
  t.global_ld_sectors = 40;
  t.global_st_requests = 10;
  t.global_st_sectors = 320;
  t.shared_ld_requests = 8;
  t.shared_ld_wavefronts = 256;
  t.shared_ld_ideal = 8;
  Facts f = facts_from_run(run_with(t, {4, 4, 1}, {32, 8, 1}), {});
  const auto ncu = t.ncu();
  ASSERT_FALSE(ncu.empty());
  for (const auto& [k, v] : ncu) EXPECT_EQ(f.get(k), v) << k;
}

// The review of 2026-11-28: lesson 11 said "each of the 1 blocks" of a 1056-block grid,
// the one-block launch that zeroes the histogram being first. The grid figures describe
// the launch with the most threads.
TEST(LessonFacts, GridFiguresDescribeTheMainLaunchNotAHelperBeforeIt) {
  ws::sim::Totals t;
  ws::RunResult r = run_with(t, {1056, 1, 1}, {256, 1, 1}, 1024);
  ws::LaunchCfg zero;
  zero.kernel = "hist_zero";
  zero.grid = {1, 1, 1};
  zero.block = {256, 1, 1};
  r.plan.launches.insert(r.plan.launches.begin(), zero);
  Facts f = facts_from_run(r, {});
  EXPECT_DOUBLE_EQ(f.get("blocks"), 1056.0);
  EXPECT_DOUBLE_EQ(f.get("warps"), 1056.0 * 8);
  EXPECT_DOUBLE_EQ(f.get("shared_bytes"), 1024.0);
}

TEST(LessonFacts, PlainQuantitiesFollowTheirDefinitions) {
  ws::sim::Totals t;
  t.global_ld_requests = 10;
  t.global_ld_sectors = 40;
  t.global_st_requests = 10;
  t.global_st_sectors = 320;
  t.shared_ld_requests = 8;
  t.shared_ld_wavefronts = 256;
  t.shared_ld_ideal = 8;
  t.branches = 10;
  t.divergent_branches = 1;
  // 100 threads per block: 4 warps, 28 idle lanes in the last one.
  Facts f = facts_from_run(run_with(t, {7, 7, 1}, {100, 1, 1}, 4096), {});
  EXPECT_DOUBLE_EQ(f.get("sectors_per_request"), 18.0);
  EXPECT_DOUBLE_EQ(f.get("ld_sectors_per_request"), 4.0);
  EXPECT_DOUBLE_EQ(f.get("st_sectors_per_request"), 32.0);
  EXPECT_DOUBLE_EQ(f.get("ld_wavefronts_per_request"), 32.0);
  EXPECT_DOUBLE_EQ(f.get("bank_conflicts"), 248.0);
  EXPECT_DOUBLE_EQ(f.get("divergent_fraction"), 0.1);
  EXPECT_DOUBLE_EQ(f.get("blocks"), 49.0);
  EXPECT_DOUBLE_EQ(f.get("warps_per_block"), 4.0);
  EXPECT_DOUBLE_EQ(f.get("warps"), 196.0);
  EXPECT_DOUBLE_EQ(f.get("idle_lanes_per_block"), 28.0);
  // 64 warps per SM / 4 = 16 blocks; 228 KiB / (4 KiB + 1 KiB reserved) = 45 blocks.
  EXPECT_DOUBLE_EQ(f.get("blocks_per_sm"), 16.0);
  EXPECT_DOUBLE_EQ(f.get("occupancy"), 1.0);
  EXPECT_DOUBLE_EQ(f.get("verified"), 1.0);
  // No shared stores: the per-request ratio is undefined and left out, not zero.
  EXPECT_FALSE(f.has("st_wavefronts_per_request"));
}

TEST(LessonFacts, SharedMemoryLimitsOccupancy) {
  Facts f = facts_from_run(run_with({}, {1, 1, 1}, {256, 1, 1}, 48 * 1024), {});
  // 228 KiB / 49 KiB = 4 blocks of 8 warps: 32 of 64 warps.
  EXPECT_DOUBLE_EQ(f.get("blocks_per_sm"), 4.0);
  EXPECT_DOUBLE_EQ(f.get("occupancy"), 0.5);
}

TEST(LessonFacts, CheckPredictAbsoluteAndRelative) {
  Facts f;
  f.values["st_sectors_per_request"] = 32;
  Predict p = predict("st_sectors_per_request", 0, false, "Each store touches {answer} sectors.");
  PredictResult r = check_predict(p, 32, f);
  EXPECT_TRUE(r.correct);
  EXPECT_EQ(r.answer, 32);
  EXPECT_EQ(r.explanation, "Right: 32. Each store touches 32 sectors.");
  r = check_predict(p, 4, f);
  EXPECT_FALSE(r.correct);
  EXPECT_EQ(r.explanation, "Not quite: you said 4, the trace gives 32. Each store touches 32 sectors.");

  Predict q = predict("st_sectors_per_request", 10, true, "{answer} vs {guess}");
  EXPECT_TRUE(check_predict(q, 35.2, f).correct);
  EXPECT_FALSE(check_predict(q, 35.3, f).correct);
  EXPECT_EQ(check_predict(q, 30, f).explanation, "Right: 32. 32 vs 30");
}

TEST(LessonFacts, CheckPredictWithoutTheValue) {
  Facts f;
  f.error = "the emulator found a race";
  Predict p = predict("blocks", 0, false, "{answer}");
  PredictResult r = check_predict(p, 1, f);
  EXPECT_FALSE(r.correct);
  EXPECT_EQ(r.explanation, "The run gave no value for blocks (the emulator found a race).");
}

TEST(LessonFacts, TimedAnswersSayModelledOrMeasured) {
  Facts f;
  f.values["ratio:copy_bandwidth"] = 0.25;
  Predict p = predict("ratio copy_bandwidth", 0.05, false, "{ratio:copy_bandwidth}");
  PredictResult r = check_predict(p, 0.5, f);
  EXPECT_EQ(r.explanation,
            "Not quite: you said 0.5, the model gives 0.25. (modelled: the emulator does not "
            "time) 0.25");
  f.measured = true;
  EXPECT_NE(check_predict(p, 0.26, f).explanation.find("(measured on the GPU)"), std::string::npos);
}

TEST(LessonFacts, GoalStatus) {
  ParseResult pr = parse_lesson_text(
      "---\ntitle: T\nlevel: beginner\nminutes: 5\n---\n## S\n```lab\nfamily: f\nvariant: v\n```\n"
      "```goal\ntask: t\ntarget: metric l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum == 0\nreach: pad=1\n```\n"
      "```goal\ntask: t\ntarget: ratio copy_bandwidth >= 0.8\nreach: pad=1\nneeds: gpu: measured time\n```\n",
      "t.md");
  ASSERT_TRUE(pr.ok()) << pr.message();
  const Goal& g = pr.lesson->steps[0].goals[0];
  const Goal& g2 = pr.lesson->steps[0].goals[1];
  Facts f;
  GoalStatus s = goal_reached(g, f);
  EXPECT_FALSE(s.known);
  EXPECT_FALSE(s.reached);
  f.values[g.quantity.key()] = 31;
  s = goal_reached(g, f);
  EXPECT_TRUE(s.known);
  EXPECT_FALSE(s.reached);
  EXPECT_EQ(s.label, "not yet: 31 (needs == 0)");
  f.values[g.quantity.key()] = 0;
  EXPECT_TRUE(goal_reached(g, f).reached);
  EXPECT_EQ(goal_reached(g, f).label, "reached: 0");

  f.values["ratio:copy_bandwidth"] = 0.85;
  s = goal_reached(g2, f);
  EXPECT_TRUE(s.reached);
  EXPECT_TRUE(s.modelled);
  EXPECT_EQ(s.label, "reached: 0.85 (modelled; needs a GPU to measure: measured time)");
  f.measured = true;
  EXPECT_FALSE(goal_reached(g2, f).modelled);
}

TEST(LessonFacts, GoalWithFurtherConditions) {
  // `target: A and B`: a constraint beside the target; reached only when every one holds,
  // and the label names the one that fails.
  ParseResult pr = parse_lesson_text(
      "---\ntitle: T\nlevel: beginner\nminutes: 5\n---\n## S\n```lab\nfamily: f\nvariant: v\n```\n"
      "```goal\ntask: t\ntarget: bank_conflicts == 0 and shared_bytes <= 2048\nreach: pad=1\n```\n"
      "```goal\ntask: t\ntarget: blocks > 1 and ratio peak >= 0.5\nreach: pad=1\n```\n",
      "t.md");
  ASSERT_FALSE(pr.ok());  // the second goal's timed condition needs `needs: gpu`
  EXPECT_NE(pr.message().find("'ratio:peak' is a timed quantity"), std::string::npos) << pr.message();
  pr = parse_lesson_text(
      "---\ntitle: T\nlevel: beginner\nminutes: 5\n---\n## S\n```lab\nfamily: f\nvariant: v\n```\n"
      "```goal\ntask: t\ntarget: bank_conflicts == 0 and shared_bytes <= 2048\nreach: pad=1\n```\n",
      "t.md");
  ASSERT_TRUE(pr.ok()) << pr.message();
  const Goal& g = pr.lesson->steps[0].goals[0];
  ASSERT_EQ(g.also.size(), 1u);
  EXPECT_EQ(goal_target_text(g), "bank_conflicts == 0 and shared_bytes <= 2048");
  EXPECT_EQ(goal_quantities(g).size(), 2u);
  EXPECT_EQ(wanted_quantities(pr.lesson->steps[0]).size(), 2u);
  Facts f;
  f.values["bank_conflicts"] = 0;
  GoalStatus s = goal_reached(g, f);
  EXPECT_FALSE(s.reached);
  EXPECT_EQ(s.label, "not measured yet: shared_bytes");
  f.values["shared_bytes"] = 4224;
  s = goal_reached(g, f);
  EXPECT_FALSE(s.reached);
  EXPECT_EQ(s.label, "not yet: 0, but shared_bytes 4224 (needs <= 2048)");
  f.values["shared_bytes"] = 1088;
  s = goal_reached(g, f);
  EXPECT_TRUE(s.reached);
  EXPECT_EQ(s.label, "reached: 0, shared_bytes 1088");
  f.values["bank_conflicts"] = 3;
  EXPECT_FALSE(goal_reached(g, f).reached);
}

TEST(LessonFacts, TemplatesAndNumbers) {
  Facts f;
  f.values["blocks"] = 49;
  f.values["divergent_fraction"] = 350.0 / 2744.0;
  EXPECT_EQ(fill_template("{blocks} blocks, {divergent_fraction} diverge, {guess}", f, {{"guess", 3}}),
            "49 blocks, 0.128 diverge, 3");
  EXPECT_EQ(fill_template("{missing} {", f), "n/a {");
  EXPECT_EQ(format_number(2720.4), "2720");
  EXPECT_EQ(format_number(17.26), "17.3");  // one decimal from 10 to 100
  EXPECT_EQ(format_number(1.5), "1.5");
  EXPECT_EQ(format_number(-0.0), "0");
  EXPECT_EQ(format_number(std::nan("")), "n/a");
}

TEST(LessonFacts, WantedQuantitiesOfAStep) {
  ParseResult pr = parse_lesson_text(
      "---\ntitle: T\nlevel: beginner\nminutes: 5\n---\n## S\n```lab\nfamily: f\nvariant: v\n```\n"
      "```predict\nquestion: q\nanswer: blocks\nexpect: 1\nexplain: {answer} {ratio:peak} {blocks}\n```\n"
      "```goal\ntask: t\ntarget: bank_conflicts == 0\nreach: pad=1\n```\n",
      "t.md");
  ASSERT_TRUE(pr.ok()) << pr.message();
  std::vector<std::string> keys;
  for (const auto& q : wanted_quantities(pr.lesson->steps[0])) keys.push_back(q.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"blocks", "ratio:peak", "bank_conflicts"}));
}
