// Every lesson shipped in lessons/ validates, and (slower) checks on the emulator: each
// predict's expected answer is what the model gives and each goal is reachable.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "app/lesson/lesson.h"
#include "app/lesson/lesson_model.h"
#include "app/lesson/lesson_refs.h"
#include "sim/event_at.h"
#include "tests/app/lesson/shipped.h"

using namespace ws::lesson;
namespace fs = std::filesystem;

using shipped::lesson_files;

TEST(Lessons, TheCourseIsThere) {
  auto files = lesson_files();
  EXPECT_GE(files.size(), 12u);
  for (const char* id : {"01-warps", "02-coalescing", "03-shared-banks", "04-transpose",
                         "05-reduction", "06-tiled-matmul", "07-boundary-divergence",
                         "08-latency-occupancy", "09-roofline", "10-instruction-throughput",
                         "11-atomics", "12-dram-bursts"}) {
    EXPECT_TRUE(fs::exists(fs::path(WS_SOURCE_DIR) / "lessons" / (std::string(id) + ".md"))) << id;
  }
}

TEST(Lessons, AllValidate) {
  auto files = lesson_files();
  ASSERT_FALSE(files.empty());
  std::ostringstream out;
  EXPECT_EQ(validate_files(files, out), 0) << out.str();
  for (const auto& f : files) {
    ParseResult r = parse_lesson(f);
    ASSERT_TRUE(r.ok()) << r.message();
    int blocks = 0;
    for (const auto& s : r.lesson->steps) blocks += int(s.predicts.size() + s.goals.size());
    EXPECT_GE(blocks, 2) << f << ": a lesson asks the student something";
  }
}

class LessonCheck : public ::testing::TestWithParam<std::string> {};

TEST_P(LessonCheck, ChecksOnTheEmulator) {
  // With the shipped recording, as on a student's machine without a GPU: the timed steps
  // are judged on the H100's measurements, the counts on the emulator.
  const ws::Recording* rec = ws::default_recording();
  ASSERT_NE(rec, nullptr) << "no recording in assets/recordings/: record one with "
                             "`warpscope record` on a GPU";
  auto emu = ws::make_recorded_backend(ws::make_emu_backend(), rec);
  std::ostringstream out;
  EXPECT_EQ(check_file(GetParam(), *emu, out), 0) << out.str();
  EXPECT_EQ(out.str().find("FAILED"), std::string::npos) << out.str();
}

// The same against every shipped recording (the H100's and the H200's), as
// `WARPSCOPE_RECORDING=FILE lesson --check` does: the lesson quotes and expects the figures
// of that GPU, and its goals (the trade-offs) hold on each, outside the recorded spread.
// Every lesson must be checked against at least one recording (shipped.h leaves out those
// older than its families).
TEST_P(LessonCheck, ChecksAgainstEveryRecording) {
  const ParseResult parsed = parse_lesson(GetParam());
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  const int checked =
      shipped::for_each_recording(*parsed.lesson, shipped::recordings(), [&](const ws::Recording& rec) {
        set_quoted_recording(&rec);
        auto emu = ws::make_recorded_backend(ws::make_emu_backend(), &rec);
        std::ostringstream out;
        EXPECT_EQ(validate_files({GetParam()}, out), 0) << rec.device.name << "\n" << out.str();
        EXPECT_EQ(check_file(GetParam(), *emu, out), 0) << rec.device.name << "\n" << out.str();
        EXPECT_EQ(out.str().find("FAILED"), std::string::npos) << rec.device.name << "\n" << out.str();
        // A goal the step's own lab already reaches congratulates the student for nothing
        // (fresh reading: 05's CUB goal on the H100).
        EXPECT_EQ(out.str().find("already reached before the change"), std::string::npos)
            << rec.device.name << "\n" << out.str();
        set_quoted_recording(nullptr);
      });
  EXPECT_GE(checked, 1) << "no recording holds this lesson's families";
}

INSTANTIATE_TEST_SUITE_P(All, LessonCheck, ::testing::ValuesIn(lesson_files()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n = fs::path(i.param).stem().string();
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// A lab that names its event (`at:`) names one the run has: the views open there, on the
// warp the window shows first (warp 0 of the lab's first kept block). The event has the
// property its name says (sim::find_at's contract), and the test says which one it is.
TEST(Lessons, EveryLabEventExistsInItsRun) {
  auto emu = ws::make_emu_backend();
  int labs = 0;
  for (const auto& f : lesson_files()) {
    ParseResult r = parse_lesson(f);
    ASSERT_TRUE(r.ok()) << r.message();
    for (const auto& st : r.lesson->steps) {
      if (!st.lab || st.lab->at.empty()) continue;
      ++labs;
      const Lab& lab = *st.lab;
      SCOPED_TRACE(f + ":" + std::to_string(lab.line) + ": at: " + lab.at);
      ws::RunOptions opt;
      opt.totals = false;
      opt.keep_blocks = lab.keep_blocks;
      const ws::RunResult run =
          emu->run(lab.family, lab.variant, params_for(lab.family, lab.variant, lab.params), opt);
      ASSERT_TRUE(run.error.empty()) << run.error;
      ASSERT_FALSE(run.kept.empty());
      // The first launch that has it (the window switches to it, AppState::seek_to).
      std::optional<std::size_t> pos;
      std::vector<std::size_t> order;
      const std::vector<ws::WarpEvent>* evp = nullptr;
      for (const auto& k : run.kept) {
        order.clear();
        for (std::size_t i = 0; i < k.events.size(); ++i)
          if (k.events[i].block == lab.keep_blocks.at(0) && k.events[i].warp == 0) order.push_back(i);
        evp = &k.events;
        if ((pos = ws::sim::find_at(lab.at, k.events, order))) break;
      }
      ASSERT_TRUE(pos.has_value()) << "no event of warp 0 is '" << lab.at << "'";
      const ws::WarpEvent& e = (*evp)[order[*pos]];
      if (lab.at == "first-conflict" && ws::is_shared(e.kind))
        EXPECT_GT(ws::sim::analyze_shared(e).conflicts, 0u);
      if (lab.at.rfind("line ", 0) == 0) EXPECT_EQ(e.line, std::stoi(lab.at.substr(5)));
      if (lab.at == "divergent-branch") EXPECT_TRUE(ws::diverged(e));
      if (lab.at == "shared-atomic") EXPECT_EQ(e.kind, ws::EventKind::SharedAtomic);
      if (lab.at == "global-atomic") EXPECT_EQ(e.kind, ws::EventKind::GlobalAtomic);
      if (lab.at == "shared-load") EXPECT_EQ(e.kind, ws::EventKind::SharedLoad);
    }
  }
  EXPECT_GE(labs, 10) << "the lessons name the events their text is about";
}

using ws::Params;
// Issue 22: a goal whose reach makes two or more changes is a trade-off. For each such
// goal of every lesson, on every shipped recording that holds the lesson's families (the
// H100's and the H200's), as a student's machine without a GPU judges it:
//  - the whole reach reaches the target; a timed target from the recording (not the
//    model), by a margin (median against target) wider than the reach's recorded spread;
//  - no single change from the step's lab reaches it: each change of the reach alone (a
//    timed one judged on the recording, which `record` fills with these configurations),
//    and for a target on counts only, also every other variant of the family that does
//    the same job (kOtherJobs) and every listed value of each parameter the reach changes.
namespace {

struct Single {
  std::string variant;  // "" keeps the lab's
  Params params;
  bool of_reach;        // a change the reach makes (timed goals judge only these)
};

// Variants that do another job than the rest of their family: a copy has no bank
// conflicts and coalesced stores, but it is not the transpose a goal asks for (and a
// transpose is no answer to a goal on a copy).
const std::set<std::string> kOtherJobs = {"transpose/copy", "transpose/tiled_copy"};

std::vector<Single> single_changes(const Lab& lab, const Goal& g) {
  std::vector<Single> out;
  if (!g.reach_variant.empty()) out.push_back({g.reach_variant, {}, true});
  for (const auto& [k, v] : g.reach) out.push_back({"", Params{{k, v}}, true});
  for (const auto& v : ws::catalogue())
    if (v.family == lab.family && v.name != lab.variant && v.name != g.reach_variant &&
        kOtherJobs.count(v.family + "/" + v.name) == kOtherJobs.count(lab.family + "/" + lab.variant))
      out.push_back({v.name, {}, false});
  if (const ws::VariantInfo* vi = ws::find_variant(lab.family, lab.variant))
    for (const auto& [k, v] : g.reach)
      if (const ws::ParamSpec* ps = ws::find_param(*vi, k))
        for (long long c : ps->choices)
          if (c != v && (!lab.params.count(k) || lab.params.at(k) != c))
            out.push_back({"", Params{{k, c}}, false});
  return out;
}

// Goals whose reach names a second change that is not a trade-off (file, target), and why
// (issue 22). 05's CUB goal: block=512 is there because the H200's recorded spread of
// vector_load is narrowest at that block size (0.958 to 1.047 of CUB; at 256 it straddles
// 0.95), not because the block size matters once the kernel waits on DRAM: the task asks
// exactly that. 04's first goal: `diagonal` is tiled with pad=1 in another block order,
// so switching to it alone reaches the target (04's ladder is being extended: left to it).
const std::set<std::string> kNotTradeOffs = {
    "05-reduction.md: ratio:library >= 0.95",
    "04-transpose.md: st_sectors_per_request == 4 and ld_bank_conflicts == 0"};

// Single changes of a timed reach that no shipped recording holds yet ("lesson: target:
// change"). The model's time at the counting size is no verdict on a DRAM-bound kernel
// (the arrays fit in L2 there), so while the recordings lack one it is said, not judged;
// `record` times it (timed_configs adds each change of a reach alone), and once recorded
// it is judged like the rest and its entry must go (checked at the end of the test).
// 08's ILP goal: transpose/copy n=8192 block_rows=1, the plain copy at half the warps.
const std::set<std::string> kAwaitingRecording = {};

bool timed_goal(const Goal& g) {
  for (const auto& q : goal_quantities(g))
    if (q.timed()) return true;
  return g.gpu_only;
}

// The margin of the reach's recorded median over the target, against the recorded
// spread of the reach's value: "" when wider, else why not.
std::string margin_problem(const ws::Recording& rec, const Lab& lab, const Goal& g, double value) {
  if (!g.quantity.timed()) return "";
  RecordedRef ref;
  ref.family = lab.family;
  ref.variant = g.reach_variant.empty() ? lab.variant : g.reach_variant;
  ref.quantity = g.quantity;
  Lab at = lab;
  at.variant = ref.variant;
  std::string why = complete_params(at.family, at.variant, timing_params(at, g.reach), ref.params);
  double lo = 0, hi = 0;
  if (!why.empty() || !recorded_band(rec, ref, lo, hi, why)) return "no recorded band: " + why;
  const double margin = std::fabs(value - g.value);
  if (margin > hi - lo) return "";
  return "margin " + format_number(margin) + " over the target is not wider than the spread " +
         format_number(lo) + " to " + format_number(hi);
}

}  // namespace

TEST(Lessons, TradeOffGoalsNeedEveryChangeOfTheirReach) {
  std::set<std::string> goals, trade_offs, awaiting;
  const std::vector<ws::Recording> recs = shipped::recordings();
  ASSERT_FALSE(recs.empty());
  for (const auto& f : lesson_files()) {
    ParseResult r = parse_lesson(f);
    ASSERT_TRUE(r.ok()) << r.message();
    const Lesson& l = *r.lesson;
    shipped::for_each_recording(l, recs, [&](const ws::Recording& rec) {
      auto emu = ws::make_recorded_backend(ws::make_emu_backend(), &rec);
      for (std::size_t s = 0; s < l.steps.size(); ++s)
        for (const Goal& g : l.steps[s].goals) {
          const Lab* lab = l.lab_at(s);
          if (!lab) continue;
          const std::string at = f + ":" + std::to_string(g.line);
          goals.insert(at);
          if (g.reach.size() + (g.reach_variant.empty() ? 0 : 1) < 2) continue;
          if (kNotTradeOffs.count(fs::path(f).filename().string() + ": " + goal_target_text(g)))
            continue;
          trade_offs.insert(at);
          SCOPED_TRACE(f + ":" + std::to_string(g.line) + " on " + rec.device.name + ": " +
                       goal_target_text(g));
          const bool timed = timed_goal(g);
          Lab reach = *lab;
          if (!g.reach_variant.empty()) reach.variant = g.reach_variant;
          const Facts all = run_lab(reach, g.reach, *emu, goal_quantities(g));
          const GoalStatus st = goal_reached(g, all);
          EXPECT_TRUE(st.reached) << "the reach does not reach it: " << st.label;
          if (timed) {
            EXPECT_FALSE(st.modelled) << "the reach's time is not recorded: " << st.label;
            EXPECT_EQ(margin_problem(rec, *lab, g, st.value), "");
          }
          for (const Single& one : single_changes(*lab, g)) {
            if (timed && !one.of_reach) continue;
            Lab at = *lab;
            if (!one.variant.empty()) at.variant = one.variant;
            const Facts fs1 = run_lab(at, one.params, *emu, goal_quantities(g));
            const std::string change =
                one.variant.empty() ? ws::to_string(one.params) : "variant=" + one.variant;
            if (!fs1.error.empty()) continue;  // a change that cannot run alone
            const GoalStatus s1 = goal_reached(g, fs1);
            const std::string pending =
                fs::path(f).filename().string() + ": " + goal_target_text(g) + ": " + change;
            if (timed && s1.modelled && kAwaitingRecording.count(pending)) {
              awaiting.insert(pending);
              std::printf("%s:%d: %s alone awaits its recording on %s (not judged)\n", f.c_str(),
                          g.line, change.c_str(), rec.device.name.c_str());
              continue;
            }
            EXPECT_FALSE(s1.reached) << "one change reaches it: " << change << " (" << s1.label << ")";
            // A single change the recording lacks is judged on the model: said, not failed,
            // until `record` (which times every single change of a reach) is run again.
            if (timed && s1.modelled)
              std::printf("%s:%d: %s alone is not recorded on %s yet (record again)\n", f.c_str(),
                          g.line, change.c_str(), rec.device.name.c_str());
          }
        }
    });
  }
  for (const auto& k : kAwaitingRecording)
    EXPECT_TRUE(awaiting.count(k)) << k << ": every recording holds it now (or the goal is gone): "
                                   << "remove it from kAwaitingRecording";
  std::printf("%zu of %zu goals need two or more changes\n", trade_offs.size(), goals.size());
  EXPECT_GE(2 * trade_offs.size(), goals.size()) << "issue 22: at least half of the goals are trade-offs";
  // Lessons with goals but no trade-off among them: said, not failed (08's and 10's timed
  // goals have one knob in the recording; see the note).
  std::set<std::string> with, without;
  for (const auto& at : goals) with.insert(at.substr(0, at.rfind(':')));
  for (const auto& at : trade_offs) without.insert(at.substr(0, at.rfind(':')));
  for (const auto& l : with)
    if (!without.count(l)) std::printf("%s: no goal of this lesson is a trade-off yet\n", l.c_str());
}
