// Validation against the catalogue and checking on the emulator: every semantic error at
// its line, and --check confirming (or refusing) predicts and goals by running them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/lesson/lesson.h"
#include "app/lesson/lesson_model.h"
#include "app/lesson/lesson_refs.h"
#include "kernels/hardware/recording.h"

using namespace ws::lesson;
namespace fs = std::filesystem;

namespace {

const char* kHead = "---\ntitle: T\nlevel: beginner\nminutes: 5\n---\n## S\n";  // step at 6

// Parses `body` after the head (its first line is line 7) and validates it.
std::vector<std::string> validate_text(const std::string& body) {
  ParseResult r = parse_lesson_text(kHead + body, "x.md");
  if (!r.ok()) return {"parse: " + r.message()};
  std::vector<std::string> out;
  for (const auto& d : validate_lesson(*r.lesson)) out.push_back(d.str());
  return out;
}

std::string lab(const std::string& family, const std::string& variant, const std::string& params) {
  return "```lab\nfamily: " + family + "\nvariant: " + variant + "\nparams: " + params + "\n```\n";
}

struct TempFile {
  fs::path path;
  explicit TempFile(const std::string& text, const std::string& name = "lesson.md") {
    fs::path dir = fs::temp_directory_path() / ("ws_lesson_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    path = dir / name;
    std::ofstream(path) << text;
  }
  ~TempFile() { fs::remove(path); }
};

}  // namespace

TEST(LessonValidate, GoodLabIsClean) {
  EXPECT_EQ(validate_text(lab("transpose", "tiled", "n=64 tile=32 block_rows=8 pad=0")),
            std::vector<std::string>{});
}

TEST(LessonValidate, UnknownFamily) {
  auto e = validate_text(lab("transpos", "tiled", "n=64"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("x.md:8: lab block: unknown kernel family 'transpos' (families: ", 0), 0u)
      << e[0];
  EXPECT_NE(e[0].find("transpose"), std::string::npos);
}

TEST(LessonValidate, UnknownVariant) {
  auto e = validate_text(lab("transpose", "tiledd", "n=64"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("x.md:9: lab block: unknown variant 'tiledd' of transpose (variants: ", 0), 0u)
      << e[0];
  EXPECT_NE(e[0].find("naive"), std::string::npos);
}

TEST(LessonValidate, BadParams) {
  auto e = validate_text(lab("transpose", "tiled", "n=100 tile=32"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("x.md:10: lab block: ", 0), 0u) << e[0];
  EXPECT_NE(e[0].find("tile"), std::string::npos) << e[0];
  e = validate_text(lab("transpose", "tiled", "n=64 colour=3"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("x.md:10: lab block: ", 0), 0u) << e[0];
  EXPECT_NE(e[0].find("colour"), std::string::npos) << e[0];
}

TEST(LessonValidate, UnknownMetric) {
  auto e = validate_text(lab("transpose", "naive", "n=64") +
                         "```predict\nquestion: q\nanswer: metric l1tex__nothing.sum\nexpect: 1\n"
                         "explain: {answer}\n```\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("x.md:14: predict block: answer: unknown metric 'l1tex__nothing.sum' "
                       "(the model gives: ", 0), 0u) << e[0];
  e = validate_text(lab("transpose", "naive", "n=64") +
                    "```predict\nquestion: q\nanswer: blocks\nexpect: 1\n"
                    "explain: {answer} {smsp__foo.sum}\n```\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("x.md:16: predict block: explain: unknown metric 'smsp__foo.sum'", 0), 0u)
      << e[0];
}

TEST(LessonValidate, GoalReachMustBeValid) {
  auto e = validate_text(lab("transpose", "tiled", "n=64") +
                         "```goal\ntask: t\ntarget: bank_conflicts == 0\nreach: pad=9\n```\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("x.md:15: goal block: reach: transpose/tiled ", 0), 0u) << e[0];
  EXPECT_NE(e[0].find("pad"), std::string::npos) << e[0];
  e = validate_text(lab("transpose", "tiled", "n=64") +
                    "```goal\ntask: t\ntarget: bank_conflicts == 0\nreach: variant=padded\n```\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("x.md:15: goal block: reach: unknown variant 'padded' of transpose", 0), 0u)
      << e[0];
}

TEST(LessonValidate, RatioOverUnknownVariant) {
  auto e = validate_text(lab("transpose", "tiled", "n=64") +
                         "```predict\nquestion: q\nanswer: ratio over:fast\nexpect: 1\n"
                         "explain: {answer}\n```\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], "x.md:14: predict block: answer: ratio over 'fast': transpose has no variant 'fast'");
}

TEST(LessonValidate, MissingPrerequisite) {
  TempFile f(std::string("---\ntitle: T\nlevel: beginner\nminutes: 5\nprerequisites: 00-nothing\n---\n## S\n") +
             lab("transpose", "naive", "n=64"));
  std::ostringstream out;
  EXPECT_EQ(validate_files({f.path.string()}, out), 2);  // an invalid lesson is bad input
  EXPECT_NE(out.str().find(f.path.string() + ":5: front matter: prerequisite '00-nothing' has no lesson file"),
            std::string::npos) << out.str();
}

TEST(LessonValidate, FilesPrintPerBlockLinesAndSummary) {
  TempFile good(std::string(kHead) + lab("transpose", "naive", "n=64"), "good.md");
  TempFile bad(std::string(kHead) + lab("transpose", "naif", "n=64"), "bad.md");
  std::ostringstream out;
  EXPECT_EQ(validate_files({good.path.string()}, out), 0);
  EXPECT_NE(out.str().find(good.path.string() + ":7: ok lab transpose/naive n=64"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("validate: 1 file(s), 1 block(s) ok, 0 error(s) in 0 file(s)"),
            std::string::npos) << out.str();
  std::ostringstream out2;
  EXPECT_EQ(validate_files({good.path.string(), bad.path.string()}, out2), 2);
  EXPECT_NE(out2.str().find(bad.path.string() + ":9: lab block: unknown variant 'naif'"),
            std::string::npos) << out2.str();
  EXPECT_NE(out2.str().find("1 error(s) in 1 file(s)"), std::string::npos) << out2.str();
  std::ostringstream out3;
  EXPECT_EQ(validate_files({}, out3), 2);
}

TEST(LessonCheck, ConfirmsPredictsAndGoalsOnTheEmulator) {
  // The naive transpose's store: each lane of a warp writes its own row, 32 sectors.
  TempFile f(std::string(kHead) + lab("transpose", "naive", "n=64 tile=32 block_rows=8") +
             "```predict\nquestion: q\nanswer: st_sectors_per_request\nexpect: 32\n"
             "explain: {answer}\n```\n"
             "```predict\nquestion: q\nanswer: st_sectors_per_request\nexpect: 4\n"
             "explain: {answer}\n```\n"
             "```goal\ntask: t\ntarget: st_sectors_per_request == 4\nreach: variant=tiled pad=1\n```\n"
             "```goal\ntask: t\ntarget: st_sectors_per_request == 4\nreach: block_rows=4\n```\n");
  auto emu = ws::make_emu_backend();
  std::ostringstream out;
  EXPECT_EQ(check_file(f.path.string(), *emu, out), 1);  // failed checks: a run result, exit 1
  const std::string s = out.str();
  const std::string p = f.path.string();
  EXPECT_NE(s.find(p + ":7: ok lab transpose/naive"), std::string::npos) << s;
  EXPECT_NE(s.find(p + ":12: ok predict st_sectors_per_request: run gives 32, lesson expects 32"),
            std::string::npos) << s;
  EXPECT_NE(s.find(p + ":18: FAILED predict st_sectors_per_request: run gives 32, lesson expects 4"),
            std::string::npos) << s;
  EXPECT_NE(s.find(p + ":24: ok goal st_sectors_per_request == 4: with transpose/tiled"),
            std::string::npos) << s;
  EXPECT_NE(s.find(p + ":29: FAILED goal st_sectors_per_request == 4"), std::string::npos) << s;
  EXPECT_NE(s.find(": 3 ok, 2 failed on emu"), std::string::npos) << s;
}

// `expect: recorded` at a knob newer than the recording (every recorded run of the family
// has it at its default) is said, not failed, until the GPU records it; a configuration
// the recording simply lacks still fails.
TEST(LessonCheck, ARecordedPredictAtANewerKnobIsNotYetRecorded) {
  ws::Recording rec;
  rec.device.name = "NVIDIA H100 80GB HBM3";
  rec.date = "2026-11-27T00:00:00Z";
  ws::RecordedRun run;
  run.family = "transpose";
  run.variant = "naive";
  ASSERT_EQ(complete_params("transpose", "naive", {{"n", 64}, {"block_rows", 8}}, run.params), "");
  run.verified = true;
  run.timing.median_ms = run.timing.min_ms = run.timing.max_ms = 0.01;
  run.timing.unit = "GB/s";
  run.timing.throughput = 3.2;
  rec.runs.push_back(run);
  auto predict = [](const std::string& params) {
    return std::string(kHead) + "```lab\nfamily: transpose\nvariant: naive\nparams: " + params +
           "\nview: charts\n```\n```predict\nquestion: q\nanswer: time_us\nexpect: recorded\n"
           "tolerance: 1\nunit: us\nexplain: {answer}\n```\n";
  };
  set_quoted_recording(&rec);
  auto emu = ws::make_recorded_backend(ws::make_emu_backend(), &rec);
  TempFile newer(predict("n=64 tile=16 block_rows=8"), "newer.md");
  std::ostringstream out;
  EXPECT_EQ(check_file(newer.path.string(), *emu, out), 0) << out.str();
  EXPECT_NE(out.str().find(":13: not yet recorded on H100: predict time_us at block_rows=8 n=64 tile=16"),
            std::string::npos) << out.str();
  EXPECT_NE(out.str().find("1 ok, 0 failed, 1 not yet recorded on emu"), std::string::npos) << out.str();
  TempFile missing(predict("n=128 block_rows=8"), "missing.md");
  std::ostringstream out2;
  EXPECT_EQ(check_file(missing.path.string(), *emu, out2), 1) << out2.str();
  EXPECT_NE(out2.str().find("FAILED predict time_us"), std::string::npos) << out2.str();
  set_quoted_recording(nullptr);
}

TEST(LessonCheck, NamesTheOneChangeThatReachesAGoal) {
  // A goal is a trade-off when no single change of its reach gets there. The naive
  // transpose's stores are coalesced by the tiled variant alone (pad only removes bank
  // conflicts); 16 sectors a load request need both float4 and stride 1 (alone: 4 and 32).
  TempFile f(std::string(kHead) + lab("transpose", "naive", "n=64 tile=32 block_rows=8") +
             "```goal\ntask: t\ntarget: st_sectors_per_request == 4\nreach: variant=tiled pad=1\n```\n"
             "## S2\n" + lab("access", "stride", "n=4096 stride=2 elem=4") +
             "```goal\ntask: t\ntarget: ld_sectors_per_request == 16\nreach: stride=1 elem=16\n```\n");
  auto emu = ws::make_emu_backend();
  std::ostringstream out;
  EXPECT_EQ(check_file(f.path.string(), *emu, out), 0);
  const std::string s = out.str();
  const std::string p = f.path.string();
  EXPECT_NE(s.find(p + ":12: ok goal st_sectors_per_request == 4: with transpose/tiled"),
            std::string::npos) << s;
  EXPECT_NE(s.find("note: one change reaches it: variant=tiled (not a trade-off)"),
            std::string::npos) << s;
  EXPECT_NE(s.find(p + ":23: ok goal ld_sectors_per_request == 16"), std::string::npos) << s;
  EXPECT_EQ(s.find("one change reaches it: stride"), std::string::npos) << s;
  EXPECT_EQ(s.find("one change reaches it: elem"), std::string::npos) << s;
}

TEST(LessonCheck, InvalidLessonIsNotRun) {
  TempFile f(std::string(kHead) + lab("nosuch", "x", "n=1"));
  auto emu = ws::make_emu_backend();
  std::ostringstream out;
  EXPECT_EQ(check_file(f.path.string(), *emu, out), 2);
  EXPECT_NE(out.str().find("not checked, 1 validation error(s)"), std::string::npos) << out.str();
}

TEST(LessonValidate, ReadmeIsSkipped) {
  TempFile f("# not a lesson\n", "README.md");
  std::ostringstream out;
  EXPECT_EQ(validate_files({f.path.string()}, out), 0);
  EXPECT_NE(out.str().find("skipped"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("validate: 0 file(s)"), std::string::npos) << out.str();
}

TEST(LessonFactsRun, ParamsForKeepsOnlyTheVariantsParameters) {
  ws::Params p{{"n", 64}, {"tile", 32}, {"block_rows", 8}, {"pad", 1}};
  EXPECT_EQ(params_for("transpose", "naive", p),
            (ws::Params{{"n", 64}, {"tile", 32}, {"block_rows", 8}}));
  EXPECT_EQ(params_for("transpose", "tiled", p), p);
  EXPECT_EQ(params_for("nosuch", "x", p), p);
}

TEST(LessonFactsRun, RatiosWithoutABackendComeFromTheModel) {
  auto emu = ws::make_emu_backend();
  Lab lab;
  lab.family = "transpose";
  lab.variant = "naive";
  lab.params = {{"n", 64}};
  ws::RunResult r = emu->run(lab.family, lab.variant, lab.params, {});
  ASSERT_EQ(r.error, "");
  Facts f = facts_from_run(r, emu->device());
  const Facts before = f;
  std::vector<Quantity> want = {{QuantityKind::Ratio, "peak"},
                                {QuantityKind::Ratio, "copy_bandwidth"},
                                {QuantityKind::Ratio, "over:tiled"}};
  add_ratio_facts(f, lab, r, emu->device(), want, nullptr);
  EXPECT_TRUE(f.has("ratio:peak"));
  EXPECT_TRUE(f.has("ratio:copy_bandwidth"));
  EXPECT_LT(f.get("ratio:copy_bandwidth"), 1.0);  // the naive store moves 8x its bytes
  EXPECT_FALSE(f.has("ratio:over:tiled"));         // needs a backend to run tiled
  EXPECT_EQ(f.values.size(), before.values.size() + 2);
  for (const auto& [k, v] : before.values) EXPECT_EQ(f.get(k), v) << k;
  add_ratio_facts(f, lab, r, emu->device(), want, emu.get());
  EXPECT_GT(f.get("ratio:over:tiled"), 0.0);
}

// ---------------------------------------------------------------- timing size, recordings

namespace {

// A recording of one configuration made in memory: the naive transpose at n=128 measured
// at 0.05 ms, the copy of its bytes at 0.01 ms, and registers per thread.
ws::Recording one_recording() {
  ws::Recording rec;
  rec.device.name = "Test GPU";
  rec.date = "2026-11-23T00:00:00Z";
  rec.path = "test.json";
  ws::Params done;
  const ws::VariantInfo* v = ws::find_variant("transpose", "naive");
  EXPECT_EQ(ws::validate(*v, {{"n", 128}}, ws::DeviceLimits{}, done), "");
  ws::RecordedRun run;
  run.family = "transpose";
  run.variant = "naive";
  run.params = done;
  run.verified = true;
  run.timing.source = rec.source();
  run.timing.median_ms = 0.05;
  run.timing.throughput = v->plan(done).logical_bytes / (0.05 * 1e6);
  run.timing.unit = "GB/s";
  run.regs_per_thread = 200;  // more than a 32-warp block can have
  rec.runs.push_back(run);
  ws::RecordedPeer copy;
  copy.peer = ws::Peer::MemcpyD2D;
  copy.params = ws::peer_params(ws::Peer::MemcpyD2D, v->plan(done), done);
  copy.timing = run.timing;
  copy.timing.median_ms = 0.01;
  copy.timing.throughput = run.timing.throughput * 5;
  rec.peers.push_back(copy);
  return rec;
}

}  // namespace

TEST(LessonTiming, TheTimingKeyParsesAndValidates) {
  ParseResult r = parse_lesson_text(
      std::string(kHead) + "```lab\nfamily: transpose\nvariant: naive\nparams: n=64\ntiming: n=128\n```\n"
                           "```predict\nquestion: q\nanswer: ratio copy_bandwidth\nexpect: 0.2\n"
                           "tolerance: 0.01\nexplain: {answer}\n```\n",
      "x.md");
  ASSERT_TRUE(r.ok()) << r.message();
  const Lab& lab = *r.lesson->steps[0].lab;
  EXPECT_EQ(lab.timing, (ws::Params{{"n", 128}}));
  EXPECT_EQ(timing_params(lab, {}), (ws::Params{{"n", 128}}));
  EXPECT_EQ(timing_params(lab, {{"n", 256}, {"pad", 1}}), (ws::Params{{"n", 256}}));
  // An invalid timing size is reported at its line.
  auto v = validate_text("```lab\nfamily: transpose\nvariant: naive\nparams: n=64\ntiming: n=100000\n```\n");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("x.md:11: lab block: timing: "), std::string::npos) << v[0];
  EXPECT_FALSE(parse_lesson_text(std::string(kHead) + "```lab\nfamily: transpose\nvariant: naive\n"
                                                     "timing:\n```\n", "x.md").ok());
}

TEST(LessonTiming, CountsAtTheCountingSizeTimesFromTheRecording) {
  const ws::Recording rec = one_recording();
  auto b = ws::make_recorded_backend(ws::make_emu_backend(), &rec);
  Lab lab;
  lab.family = "transpose";
  lab.variant = "naive";
  lab.params = {{"n", 64}};
  lab.timing = {{"n", 128}};
  Facts f = run_lab(lab, {}, *b, {{QuantityKind::Ratio, "copy_bandwidth"},
                                  {QuantityKind::Plain, "time_us"},
                                  {QuantityKind::Plain, "blocks"}});
  ASSERT_EQ(f.error, "");
  EXPECT_EQ(f.get("blocks"), 4);  // n=64 with 32 x 32 tiles: counted at the counting size
  EXPECT_TRUE(f.measured);
  EXPECT_DOUBLE_EQ(f.get("time_us"), 50);
  EXPECT_NEAR(f.get("ratio:copy_bandwidth"), 0.2, 1e-9);
  EXPECT_EQ(timed_label(f), "recorded on Test GPU, 2026-11-23, at block_rows=32 n=128 tile=32");
  // No recording of the timing size: modelled at the counting size, and said so.
  lab.timing = {{"n", 256}};
  Facts m = run_lab(lab, {}, *b, {{QuantityKind::Plain, "time_us"}});
  ASSERT_EQ(m.error, "");
  EXPECT_FALSE(m.measured);
  EXPECT_NE(m.timed_source.find("modelled at block_rows=32 n=64 tile=32 (no recording at"),
            std::string::npos) << m.timed_source;
  EXPECT_GT(m.get("time_us"), 0);
}

TEST(LessonTiming, RegistersFromTheRecordingLimitOccupancy) {
  const ws::Recording rec = one_recording();
  auto b = ws::make_recorded_backend(ws::make_emu_backend(), &rec);
  Lab lab;
  lab.family = "transpose";
  lab.variant = "naive";
  lab.params = {{"n", 128}};
  Facts f = run_lab(lab, {}, *b, {{QuantityKind::Plain, "occupancy"}});
  ASSERT_EQ(f.error, "");
  EXPECT_EQ(f.get("regs_per_thread"), 200);
  // 200 registers: 6400 per warp (a multiple of 256), 65536 / 6400 = 10 warps per SM,
  // fewer than the 32 warps of the naive transpose's 32 x 32 block: none fits.
  EXPECT_EQ(f.get("blocks_per_sm"), 0);
  EXPECT_EQ(f.get("occupancy"), 0);
  // Without a recording the registers are unknown and the limit is threads only.
  auto emu = ws::make_emu_backend();
  Facts g = run_lab(lab, {}, *emu, {{QuantityKind::Plain, "occupancy"}});
  EXPECT_FALSE(g.has("regs_per_thread"));
  EXPECT_EQ(g.get("occupancy"), 1);
}

TEST(LessonTiming, TimedConfigsListWhatALessonTimes) {
  TempFile f(std::string(kHead) +
             "```lab\nfamily: transpose\nvariant: tiled\nparams: n=64 pad=1\ntiming: n=8192\n```\n"
             "```predict\nquestion: q\nanswer: ratio over:copy\nexpect: 1\ntolerance: 1\n"
             "explain: {answer}\n```\n"
             "```goal\ntask: t\ntarget: ratio copy_bandwidth >= 0.9\nreach: block_rows=4\n"
             "needs: gpu: time\n```\n"
             "## Counting only\n```predict\nquestion: q\nanswer: blocks\nexpect: 4\nexplain: {answer}\n```\n");
  std::vector<ws::RecordTarget> t;
  std::string why;
  ASSERT_TRUE(timed_configs(f.path.string(), t, why)) << why;
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].variant, "tiled");
  EXPECT_EQ(t[0].params, (ws::Params{{"n", 8192}, {"pad", 1}}));
  EXPECT_EQ(t[1].variant, "copy");  // the over: reference, without the pad it lacks
  EXPECT_EQ(t[1].params, (ws::Params{{"n", 8192}}));
  EXPECT_EQ(t[2].params, (ws::Params{{"block_rows", 4}, {"n", 8192}, {"pad", 1}}));
  EXPECT_NE(t[0].source.find(":7"), std::string::npos) << t[0].source;
  // A several-change reach: each change alone is recorded too (the trade-off is judged on
  // measurements); a parameter the lab's variant lacks (pad for naive) is not.
  TempFile multi(std::string(kHead) +
                     "```lab\nfamily: transpose\nvariant: naive\nparams: n=64\ntiming: n=8192\n```\n"
                     "```goal\ntask: t\ntarget: ratio copy_bandwidth >= 0.8\n"
                     "reach: variant=tiled pad=1 block_rows=4\nneeds: gpu: time\n```\n",
                 "multi.md");
  std::vector<ws::RecordTarget> m;
  ASSERT_TRUE(timed_configs(multi.path.string(), m, why)) << why;
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].variant, "naive");  // the lab itself: its step times the goal's quantity
  EXPECT_EQ(m[0].params, (ws::Params{{"n", 8192}}));
  EXPECT_EQ(m[1].variant, "tiled");
  EXPECT_EQ(m[1].params, (ws::Params{{"block_rows", 4}, {"n", 8192}, {"pad", 1}}));
  EXPECT_EQ(m[2].variant, "tiled");
  EXPECT_EQ(m[2].params, (ws::Params{{"n", 8192}}));
  EXPECT_EQ(m[3].variant, "naive");
  EXPECT_EQ(m[3].params, (ws::Params{{"block_rows", 4}, {"n", 8192}}));
  TempFile bad(std::string(kHead) + lab("nosuch", "x", "n=1"), "bad.md");
  EXPECT_FALSE(timed_configs(bad.path.string(), t, why));
  EXPECT_NE(why.find("unknown kernel family"), std::string::npos) << why;
}
