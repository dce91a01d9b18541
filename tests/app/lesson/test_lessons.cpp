// Every lesson shipped in lessons/ validates, and (slower) checks on the emulator: each
// predict's expected answer is what the model gives and each goal is reachable.
#include <gtest/gtest.h>

#include <cstdio>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "app/lesson/lesson.h"
#include "app/lesson/lesson_model.h"
#include "app/lesson/lesson_refs.h"
#include "sim/event_at.h"

using namespace ws::lesson;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> lesson_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(fs::path(WS_SOURCE_DIR) / "lessons"))
    if (e.path().extension() == ".md" && e.path().filename() != "README.md")
      out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

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
// A recording made before a family existed cannot answer a lesson about it (the H200's
// predates the tensor and async_copy families): such a pair is left out, said so, and every
// lesson must still be checked against at least one recording.
inline bool holds_families(const ws::Recording& rec, const ws::lesson::Lesson& l) {
  for (const auto& s : l.steps) {
    if (!s.lab) continue;
    bool any = false;
    for (const auto& r : rec.runs) any = any || r.family == s.lab->family;
    if (!any) return false;
  }
  return true;
}

TEST_P(LessonCheck, ChecksAgainstEveryRecording) {
  const ParseResult parsed = parse_lesson(GetParam());
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  int checked = 0;
  for (const auto& e : fs::directory_iterator(fs::path(WS_SOURCE_DIR) / "assets" / "recordings")) {
    if (e.path().extension() != ".json") continue;
    ws::Recording rec;
    std::string why;
    ASSERT_TRUE(ws::load_recording(e.path().string(), rec, why)) << why;
    if (!holds_families(rec, *parsed.lesson)) {
      std::printf("%s: not checked against %s, which holds none of its families' runs\n", GetParam().c_str(),
                  rec.device.name.c_str());
      continue;
    }
    ++checked;
    set_quoted_recording(&rec);
    auto emu = ws::make_recorded_backend(ws::make_emu_backend(), &rec);
    std::ostringstream out;
    EXPECT_EQ(validate_files({GetParam()}, out), 0) << rec.device.name << "\n" << out.str();
    EXPECT_EQ(check_file(GetParam(), *emu, out), 0) << rec.device.name << "\n" << out.str();
    EXPECT_EQ(out.str().find("FAILED"), std::string::npos) << rec.device.name << "\n" << out.str();
    set_quoted_recording(nullptr);
  }
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
