// Recorded figures in a lesson's text ({{rec ...}}), `expect: recorded`, the spread check
// of timed goals, and every shipped lesson's figures against every shipped recording.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/lesson/lesson_model.h"
#include "app/lesson/lesson_refs.h"
#include "tests/app/lesson/shipped.h"

using namespace ws;
using namespace ws::lesson;
namespace fs = std::filesystem;

namespace {

Params complete(const std::string& f, const std::string& v, const Params& p) {
  Params out;
  EXPECT_EQ(complete_params(f, v, p, out), "");
  return out;
}

// A recording of two transposes at n=8192 on a named GPU.
Recording small_recording(const std::string& gpu, double copy_ms, double naive_ms) {
  Recording r;
  r.device.name = gpu;
  r.device.peak_gbps = 4000;
  r.date = "2026-11-27T00:00:00Z";
  auto add = [&](const std::string& v, const Params& p, double ms) {
    RecordedRun x;
    x.family = "transpose";
    x.variant = v;
    x.params = complete("transpose", v, p);
    x.verified = true;
    x.timing.median_ms = ms;
    x.timing.min_ms = ms * 0.95;
    x.timing.max_ms = ms * 1.10;
    x.timing.throughput = 512.0 / ms;  // 512 MB moved
    x.timing.unit = "GB/s";
    x.copy_gbps = 512.0 / 0.2;         // a copy of 0.2 ms
    r.runs.push_back(x);
  };
  add("copy", {{"n", 8192}}, copy_ms);
  add("naive", {{"n", 8192}, {"block_rows", 8}}, naive_ms);
  return r;
}

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The text of every paragraph of a parsed lesson, flattened.
void collect(const std::vector<Block>& blocks, std::string& out) {
  for (const auto& b : blocks) {
    for (const auto& s : b.spans) out += s.text;
    out += b.text;
    collect(b.children, out);
  }
}

}  // namespace

TEST(LessonRefs, ParsesAReference) {
  RecordedRef r;
  std::string why;
  ASSERT_TRUE(parse_recorded_ref("transpose/copy n=8192 : ratio copy_bandwidth", r, why)) << why;
  EXPECT_EQ(r.family, "transpose");
  EXPECT_EQ(r.variant, "copy");
  EXPECT_EQ(r.params.at("n"), 8192);
  EXPECT_EQ(r.params.at("tile"), 32);  // completed with the variant's defaults
  EXPECT_EQ(r.quantity.key(), "ratio:copy_bandwidth");
  ASSERT_TRUE(parse_recorded_ref("transpose/copy n=8192 : time_us | µs", r, why)) << why;
  EXPECT_EQ(r.unit, "µs");
  ASSERT_TRUE(parse_recorded_ref("transpose/copy n=8192 : ratio peak %", r, why)) << why;
  EXPECT_TRUE(r.percent);
}

TEST(LessonRefs, RejectsBadReferencesWithOneLine) {
  RecordedRef r;
  std::string why;
  EXPECT_FALSE(parse_recorded_ref("transpose/copy n=8192", r, why));
  EXPECT_NE(why.find("QUANTITY"), std::string::npos) << why;
  EXPECT_FALSE(parse_recorded_ref("transpose/nope : time_us", r, why));
  EXPECT_NE(why.find("nope"), std::string::npos) << why;
  EXPECT_FALSE(parse_recorded_ref("transpose/copy n=8192 : sectors_per_request", r, why));
  EXPECT_NE(why.find("not a timed quantity"), std::string::npos) << why;
  EXPECT_FALSE(parse_recorded_ref("transpose/copy n=banana : time_us", r, why));
}

TEST(LessonRefs, ExpandsFromTheRecordingOfTheGpuAndLabelsIt) {
  const Recording h100 = small_recording("NVIDIA H100 80GB HBM3", 0.25, 1.0);
  std::string why;
  std::string text =
      "copy {{rec transpose/copy n=8192 : ratio copy_bandwidth}}, naive "
      "{{rec transpose/naive n=8192 block_rows=8 : time_us | µs}}, "
      "{{rec transpose/copy n=8192 : ratio over:naive | x}} faster, spread "
      "{{rec transpose/copy n=8192 : spread}}.";
  EXPECT_EQ(expand_recorded_refs(text, &h100, why),
            "copy 0.8 (H100), naive 1000 µs (H100), 4x (H100) faster, spread 15 % (H100).");
  EXPECT_EQ(why, "");
  // Another GPU's recording: other figures, its own label. The prose cannot drift.
  const Recording h200 = small_recording("NVIDIA H200", 0.2, 0.9);
  EXPECT_EQ(expand_recorded_refs("{{rec transpose/copy n=8192 : ratio copy_bandwidth}}", &h200, why),
            "1 (H200)");
  EXPECT_EQ(why, "");
  // Without a recording the figure says so instead of inventing one.
  EXPECT_EQ(expand_recorded_refs("{{rec transpose/copy n=8192 : time_us}}", nullptr, why),
            "(not recorded)");
}

TEST(LessonRefs, AConfigurationTheRecordingLacksIsAnError) {
  const Recording h100 = small_recording("NVIDIA H100 80GB HBM3", 0.25, 1.0);
  std::string why;
  expand_recorded_refs("{{rec transpose/copy n=4096 : time_us}}", &h100, why);
  EXPECT_NE(why.find("has no transpose/copy"), std::string::npos) << why;
  why.clear();
  expand_recorded_refs("{{rec transpose/copy n=8192 : time_us", &h100, why);
  EXPECT_NE(why.find("not closed"), std::string::npos) << why;
}

// A variant the recording holds no run of at all was added after it: the text says so and
// the lesson still validates, until the GPU records it. A recorded variant at parameters
// the recording lacks stays an error (above).
TEST(LessonRefs, AVariantNewerThanTheRecordingIsSaidNotAnError) {
  const Recording h100 = small_recording("NVIDIA H100 80GB HBM3", 0.25, 1.0);
  std::string why;
  EXPECT_EQ(expand_recorded_refs("reaches {{rec transpose/vec4 n=8192 : ratio copy_bandwidth}}",
                                 &h100, why),
            "reaches (not yet recorded on H100)");
  EXPECT_EQ(why, "");
  EXPECT_FALSE(recorded_variant(h100, "transpose", "vec4"));
  EXPECT_TRUE(recorded_variant(h100, "transpose", "naive"));
  expand_recorded_refs("{{rec transpose/naive n=4096 : time_us}}", &h100, why);
  EXPECT_NE(why.find("has no transpose/naive"), std::string::npos) << why;
}

// Likewise a knob newer than the recording: every recorded run of the family has it at its
// default (it was added since: async_copy's extra_kb), so a figure that sets it is said to
// come, not an error. Once any run sets that knob, a missing value is an error again.
TEST(LessonRefs, AKnobNewerThanTheRecordingIsSaidNotAnError) {
  Recording h100 = small_recording("NVIDIA H100 80GB HBM3", 0.25, 1.0);
  std::string why;
  const std::string text = "{{rec transpose/naive n=8192 block_rows=8 tile=16 : time_us | µs}}";
  EXPECT_EQ(expand_recorded_refs(text, &h100, why), "(not yet recorded on H100)");
  EXPECT_EQ(why, "");
  RecordedRef ref;
  ASSERT_TRUE(parse_recorded_ref("transpose/naive n=8192 block_rows=8 tile=16 : time_us", ref, why)) << why;
  EXPECT_TRUE(newer_knob(h100, ref));
  EXPECT_TRUE(not_yet_recorded(h100, ref));
  // At the defaults it is not new: that configuration is simply missing.
  ASSERT_TRUE(parse_recorded_ref("transpose/naive n=4096 block_rows=8 : time_us", ref, why)) << why;
  EXPECT_FALSE(newer_knob(h100, ref));
  // Another variant of the family recorded at tile=16: the knob is known, the gap an error.
  RecordedRun other = h100.runs[0];
  other.params["tile"] = 16;
  h100.runs.push_back(other);
  expand_recorded_refs(text, &h100, why);
  EXPECT_NE(why.find("has no transpose/naive"), std::string::npos) << why;
}

TEST(LessonRefs, ParserReportsABadReferenceAtItsLine) {
  const Recording h100 = small_recording("NVIDIA H100 80GB HBM3", 0.25, 1.0);
  set_quoted_recording(&h100);
  const std::string text =
      "---\ntitle: t\nlevel: beginner\nminutes: 5\n---\n\n## Step\n\nfine "
      "{{rec transpose/copy n=8192 : time_us | µs}}\n\nbad {{rec transpose/copy n=2048 : time_us}}\n";
  ParseResult r = parse_lesson_text(text, "t.md");
  set_quoted_recording(nullptr);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].line, 11);
  EXPECT_NE(r.errors[0].message.find("n=2048"), std::string::npos) << r.errors[0].message;
}

TEST(LessonRefs, GoalInsideTheRecordedSpreadIsFlagged) {
  const Recording h100 = small_recording("NVIDIA H100 80GB HBM3", 0.25, 1.0);
  Lab lab;
  lab.family = "transpose";
  lab.variant = "naive";
  lab.params = {{"n", 1024}};
  lab.timing = {{"n", 8192}};
  Goal g;
  g.quantity.kind = QuantityKind::Ratio;
  g.quantity.name = "copy_bandwidth";
  g.op = Op::Ge;
  g.reach_variant = "copy";
  // copy: 0.8 of the copy at its median, 0.727 to 0.842 over its slowest and fastest run.
  g.value = 0.78;
  EXPECT_NE(goal_spread_problem(h100, lab, g).find("inside the spread"), std::string::npos);
  g.value = 0.7;
  EXPECT_EQ(goal_spread_problem(h100, lab, g), "");
  g.value = 0.85;
  EXPECT_EQ(goal_spread_problem(h100, lab, g), "");
}

// Every shipped lesson's figures resolve in every shipped recording (H100 and H200), the
// labels name the GPU, and the figures are the recording's: change a recorded time and
// the lesson's text changes with it.
// A recording older than the lesson's families cannot answer it (shipped.h leaves the pair
// out, said so); every lesson is still checked against at least one recording.
TEST(LessonRefs, EveryLessonFigureResolvesInEveryRecording) {
  const std::vector<Recording> recs = shipped::recordings();
  ASSERT_GE(recs.size(), 2u);
  int refs = 0;
  for (const auto& f : shipped::lesson_files()) {
    const ParseResult plain = parse_lesson(f);  // quoting the default recording
    ASSERT_TRUE(plain.lesson) << plain.message();
    const bool quotes = read(f).find("{{rec") != std::string::npos;
    const int checked = shipped::for_each_recording(*plain.lesson, recs, [&](const Recording& rec) {
      ParseResult r = parse_lesson(f);
      for (const auto& e : r.errors) ADD_FAILURE() << rec.device.name << ": " << e.str();
      if (!quotes) return;
      ASSERT_TRUE(r.lesson);
      ++refs;
      std::string all;
      collect(r.lesson->intro, all);
      for (const auto& s : r.lesson->steps) {
        collect(s.body, all);
        for (const auto& p : s.predicts) all += p.question + p.explain;
      }
      EXPECT_EQ(all.find("{{rec"), std::string::npos) << f;
      EXPECT_NE(all.find("(" + short_gpu_name(rec.device.name) + ")"), std::string::npos) << f;
    });
    EXPECT_GE(checked, 1) << f << ": no recording holds this lesson's families";
  }
  EXPECT_GE(refs, 2 * 5);  // lessons 04, 05, 08, 10 and 11 quote recorded figures
}

TEST(LessonRefs, LessonProseFollowsTheRecording) {
  const std::string f = (fs::path(WS_SOURCE_DIR) / "lessons" / "05-reduction.md").string();
  Recording rec;
  std::string why;
  ASSERT_TRUE(load_recording(shipped::recording_files().front(), rec, why)) << why;
  auto prose = [&] {
    set_quoted_recording(&rec);
    ParseResult r = parse_lesson(f);
    set_quoted_recording(nullptr);
    std::string all;
    if (r.lesson)
      for (const auto& s : r.lesson->steps) collect(s.body, all);
    return all;
  };
  const std::string before = prose();
  for (auto& run : rec.runs)
    if (run.family == "reduce" && run.variant == "two_pass") run.timing.median_ms *= 2;
  EXPECT_NE(prose(), before);
}

TEST(LessonRefs, ShortGpuNames) {
  EXPECT_EQ(short_gpu_name("NVIDIA H100 80GB HBM3"), "H100");
  EXPECT_EQ(short_gpu_name("NVIDIA H200"), "H200");
  EXPECT_EQ(short_gpu_name("emulator"), "emulator");
}

TEST(LessonRefs, RecordingsAreFoundByDeviceName) {
  // Both shipped GPUs are found by the name their driver reports; the H100 is the default.
  if (std::getenv("WARPSCOPE_RECORDING")) GTEST_SKIP() << "WARPSCOPE_RECORDING names one file";
  ASSERT_NE(recording_for_device("NVIDIA H200"), nullptr);
  ASSERT_NE(recording_for_device("NVIDIA H100 80GB HBM3"), nullptr);
  EXPECT_EQ(recording_for_device("NVIDIA A100"), nullptr);
  ASSERT_NE(default_recording(), nullptr);
  EXPECT_EQ(default_recording()->device.name, "NVIDIA H100 80GB HBM3");
}
