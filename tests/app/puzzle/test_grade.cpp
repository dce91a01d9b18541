// Grading a class (app/puzzle/grade.h): tests/fixtures/grade holds 35 kernels for puzzle
// 01, correct, wrong, slow and hostile; each gets the row its name announces, the hostile
// ones fail their own row, and the grader (this process) keeps running.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/puzzle/grade.h"
#include "kernels/user/sandbox.h"

namespace ws::puzzle {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = std::string(WS_SOURCE_DIR) + "/tests/fixtures/grade";
const std::string kPuzzle = std::string(WS_SOURCE_DIR) + "/puzzles/01-strided-copy.md";

bool starts(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

TEST(Grade, AClassOfThirtyFiveKernelsEachGetsItsRow) {
  if (!sandbox::have_filter()) GTEST_SKIP() << "built without libseccomp: the hostile kernels would run";
  ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  for (const char* f : {"/tmp/warpscope-grade-pwned", "/tmp/warpscope-grade-escape"}) fs::remove(f);
  Puzzle p;
  std::vector<Error> es;
  ASSERT_TRUE(parse_file(kPuzzle, p, es));
  std::string why;
  const std::vector<std::string> files = student_files(kFixtures, why);
  ASSERT_TRUE(why.empty()) << why;
  ASSERT_GE(files.size(), 30u);
  GradeOptions o;
  o.limits.time_s = 2;
  o.compile.time_s = 15;
  o.jobs = 2;
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<GradeRow> rows = grade(p, files, o);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(rows.size(), files.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const GradeRow& r = rows[i];
    SCOPED_TRACE(r.file + ": " + std::string(to_string(r.verdict)) + ": " + r.failure);
    EXPECT_EQ(r.file, fs::path(files[i]).filename().string());
    ASSERT_EQ(r.figures.size(), p.targets.size());
    EXPECT_EQ(r.failure.find('\n'), std::string::npos);
    if (starts(r.file, "pass_") || starts(r.file, "hostile_09") || starts(r.file, "hostile_11")) {
      EXPECT_EQ(r.verdict, Verdict::Pass);
      EXPECT_EQ(r.figures[0], "4");
    } else if (starts(r.file, "missed_")) {
      EXPECT_EQ(r.verdict, Verdict::Missed);
      EXPECT_FALSE(r.figures[0].empty());
    } else if (starts(r.file, "wrong_")) {
      EXPECT_TRUE(r.verdict == Verdict::Wrong || r.verdict == Verdict::RunError);
    } else if (starts(r.file, "compile_") || starts(r.file, "hostile_14")) {
      EXPECT_EQ(r.verdict, Verdict::CompileError);
    } else if (starts(r.file, "slow_")) {
      EXPECT_EQ(r.verdict, Verdict::RunError);
      EXPECT_NE(r.failure.find("did not finish in 2 s"), std::string::npos);
    } else {
      EXPECT_TRUE(starts(r.file, "hostile_"));
      EXPECT_EQ(r.verdict, Verdict::RunError);
    }
    EXPECT_LT(r.failure.size(), 500u);
  }
  EXPECT_FALSE(fs::exists("/tmp/warpscope-grade-pwned"));  // system() never ran
  if (sandbox::landlock_abi() > 0) EXPECT_FALSE(fs::exists("/tmp/warpscope-grade-escape"));
  EXPECT_LT(took, 240.0);

  const std::string csv = grade_csv(p, rows);
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "file,verdict,ld_sectors_per_request <= 4,st_sectors_per_request <= 4,failure,seconds");
  std::size_t n = 0;
  while (std::getline(in, line)) {
    EXPECT_TRUE(starts(line, rows[n].file + ",")) << line;
    ++n;
  }
  EXPECT_EQ(n, rows.size());
}

TEST(Grade, CsvFieldsAreQuotedAndNeverFormulas) {
  Puzzle p;
  std::vector<Error> es;
  ASSERT_TRUE(parse_file(kPuzzle, p, es));
  GradeRow r;
  r.file = "=cmd.cuh";
  r.verdict = Verdict::RunError;
  r.figures = {"", ""};
  r.failure = "a, \"quoted\" failure";
  const std::string csv = grade_csv(p, {r});
  EXPECT_NE(csv.find("\n'=cmd.cuh,run error,,,\"a, \"\"quoted\"\" failure\",0\n"), std::string::npos) << csv;
}

TEST(Grade, BadInputIsOneLineAndExitTwo) {
  std::ostringstream out, err;
  EXPECT_EQ(grade_command(kPuzzle, "/nonexistent-dir", "/tmp/x.csv", false, 2, 1, out, err), 2);
  EXPECT_EQ(err.str(), "warpscope: /nonexistent-dir is not a directory\n");
  const fs::path empty = fs::path(WS_BINARY_DIR) / "test-grade-empty";
  fs::create_directories(empty);
  err.str("");
  EXPECT_EQ(grade_command(kPuzzle, empty.string(), "/tmp/x.csv", false, 2, 1, out, err), 2);
  EXPECT_NE(err.str().find("holds no kernel files"), std::string::npos);
  const fs::path existing = fs::path(WS_BINARY_DIR) / "test-grade-existing.csv";
  std::ofstream(existing) << "keep";
  err.str("");
  EXPECT_EQ(grade_command(kPuzzle, kFixtures, existing.string(), false, 2, 1, out, err), 2);
  const std::string e = err.str();
  EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 1) << e;
  std::ifstream kept(existing);
  std::string s;
  kept >> s;
  EXPECT_EQ(s, "keep");
}

}  // namespace
}  // namespace ws::puzzle
