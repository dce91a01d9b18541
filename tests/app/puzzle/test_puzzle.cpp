// Puzzles: the format (every malformed input is a file:line message), the quantities, and
// every shipped puzzle: its solution meets every target, its starter runs right and
// misses at least one (so every puzzle can be won and lost).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/puzzle/puzzle.h"

#include <nlohmann/json.hpp>

namespace ws::puzzle {
namespace {

namespace fs = std::filesystem;

const char* kGood = R"(# Copy it

Prose.

```puzzle
job: access/offset
params: n=1024 block=256 offset=0
kernel: Copy
fields: in: const float, out: float, offset: int
```

```starter
struct Copy {
  Global<const float> in;
  Global<float> out;
  int offset;
  WS_DEVICE void operator()(Thread& t) const {
    long long i = (long long)t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    out(i) = in(i + offset);
  }
};
```

```targets
ld_sectors_per_request <= 4
metric l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum == 128
time within 10 % of access/offset
```
)";

std::vector<Error> errors_of(const std::string& text) {
  Puzzle p;
  std::vector<Error> e;
  parse_text(text, "p.md", p, e);
  return e;
}

std::string replace(std::string s, const std::string& a, const std::string& b) {
  const auto at = s.find(a);
  EXPECT_NE(at, std::string::npos) << a;
  if (at != std::string::npos) s.replace(at, a.size(), b);
  return s;
}

TEST(PuzzleParse, AWellFormedPuzzle) {
  Puzzle p;
  std::vector<Error> e;
  ASSERT_TRUE(parse_text(kGood, "p.md", p, e)) << (e.empty() ? "" : e[0].text());
  EXPECT_EQ(p.title, "Copy it");
  EXPECT_EQ(p.family, "access");
  EXPECT_EQ(p.variant, "offset");
  EXPECT_EQ(p.params.at("n"), 1024);
  EXPECT_EQ(p.spec.struct_name, "Copy");
  ASSERT_EQ(p.spec.fields.size(), 3u);
  EXPECT_TRUE(p.spec.fields[0].array && p.spec.fields[0].is_const);
  EXPECT_FALSE(p.spec.fields[2].array);  // offset is a parameter
  EXPECT_EQ(p.starter_line, 13);
  EXPECT_EQ(p.starter.substr(0, 11), "struct Copy");
  ASSERT_EQ(p.targets.size(), 3u);
  EXPECT_EQ(p.targets[0].line, 25);
  EXPECT_EQ(p.targets[1].quantity, "metric:l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
  EXPECT_EQ(p.targets[2].quantity, "time");
  EXPECT_EQ(p.targets[2].value, 10);
  EXPECT_EQ(p.targets[2].ref_variant, "offset");
}

struct Bad {
  const char* from;
  const char* to;
  int line;
  const char* message_part;
};

TEST(PuzzleParse, EveryMalformedPieceIsAFileLineMessage) {
  const Bad cases[] = {
      {"job: access/offset", "job: access/nope", 6, "not a variant of the catalogue"},
      {"job: access/offset", "job: accessoffset", 6, "FAMILY/VARIANT"},
      {"params: n=1024 block=256 offset=0", "params: n=ten", 7, "not an integer"},
      {"params: n=1024 block=256 offset=0", "params: n=1000 block=256", 6, "not a multiple"},
      {"kernel: Copy", "kernel: 9Copy", 8, "kernel must name the struct"},
      {"kernel: Copy", "colour: blue", 8, "unknown key 'colour'"},
      {"out: float, offset", "out: float3, offset", 9, "unknown type 'float3'"},
      {"out: float, offset", "out, offset", 9, "has no type"},
      {"out: float, offset", "nope: float, offset", 5, "names no array of the job"},
      {"ld_sectors_per_request <= 4", "sectors_per_lane <= 4", 25, "unknown quantity"},
      {"ld_sectors_per_request <= 4", "ld_sectors_per_request ~ 4", 25, "unknown comparison"},
      {"ld_sectors_per_request <= 4", "ld_sectors_per_request <= four", 25, "is not a number"},
      {"ld_sectors_per_request <= 4", "ld_sectors_per_request", 25, "expected QUANTITY OP NUMBER"},
      {"metric l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "metric l1tex__bogus.sum", 26, "unknown Nsight Compute metric"},
      {"time within 10 % of access/offset", "time within ten % of access/offset", 27, "percentage"},
      {"time within 10 % of access/offset", "time within 10 % of copy", 27, "not a variant"},
      {"# Copy it", "Copy it", 1, "no title"},
  };
  for (const Bad& c : cases) {
    const auto e = errors_of(replace(kGood, c.from, c.to));
    ASSERT_FALSE(e.empty()) << c.to;
    EXPECT_EQ(e[0].line, c.line) << c.to << ": " << e[0].text();
    EXPECT_NE(e[0].message.find(c.message_part), std::string::npos) << e[0].text();
    EXPECT_EQ(e[0].text().rfind("p.md:" + std::to_string(c.line) + ": ", 0), 0u);
  }
}

TEST(PuzzleParse, MissingAndUnclosedBlocks) {
  auto e = errors_of("# T\n\n```puzzle\njob: access/offset\n");
  ASSERT_FALSE(e.empty());
  EXPECT_EQ(e[0].line, 3);
  EXPECT_NE(e[0].message.find("never closed"), std::string::npos);
  e = errors_of("# T\nno blocks at all\n");
  ASSERT_EQ(e.size(), 3u);
  EXPECT_NE(e[0].message.find("no ```puzzle block"), std::string::npos);
  e = errors_of(replace(kGood, "```starter", "```starter\n```\n\n```starter"));
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e[0].message.find("a second starter block"), std::string::npos);
}

TEST(PuzzleParse, HostileInputIsBoundedAndNeverCrashes) {
  EXPECT_FALSE(errors_of(std::string(2 << 20, 'x')).empty());  // over 1 MB
  EXPECT_FALSE(errors_of("").empty());
  EXPECT_FALSE(errors_of(std::string(100000, '`')).empty());
  std::string many = "# T\n```targets\n";
  for (int i = 0; i < 200; ++i) many += "bank_conflicts == 0\n";
  many += "```\n";
  bool capped = false;
  for (const auto& x : errors_of(many)) capped = capped || x.message == "more than 64 targets";
  EXPECT_TRUE(capped);
  std::string nested = "# T\n";
  for (int i = 0; i < 10000; ++i) nested += "```puzzle\n";
  EXPECT_FALSE(errors_of(nested).empty());
}

TEST(PuzzleParse, AFileThatCannotBeReadIsOneErrorAtLineOne) {
  Puzzle p;
  std::vector<Error> e;
  EXPECT_FALSE(parse_file("/nonexistent/puzzle.md", p, e));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].line, 1);
  e.clear();
  EXPECT_FALSE(parse_file(WS_SOURCE_DIR, p, e));
  EXPECT_NE(e[0].message.find("directory"), std::string::npos);
}

TEST(PuzzleQuantities, ComputedFromTheTotals) {
  RunResult r;
  r.totals.global_ld_requests = 10;
  r.totals.global_ld_sectors = 45;
  r.totals.shared_ld_wavefronts = 40;
  r.totals.shared_ld_ideal = 8;
  r.totals.barriers = 6;
  r.plan.launches = {LaunchCfg{"k", {2, 1, 1}, {64, 1, 1}, 0}};
  double v = 0;
  ASSERT_TRUE(quantity_value("ld_sectors_per_request", r, v));
  EXPECT_DOUBLE_EQ(v, 4.5);
  ASSERT_TRUE(quantity_value("bank_conflicts", r, v));
  EXPECT_DOUBLE_EQ(v, 32);
  ASSERT_TRUE(quantity_value("barriers_per_warp", r, v));
  EXPECT_DOUBLE_EQ(v, 1.5);
  ASSERT_TRUE(quantity_value("metric:l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", r, v));
  EXPECT_DOUBLE_EQ(v, 10);
  EXPECT_FALSE(quantity_value("bogus", r, v));
  for (const auto& q : quantities()) EXPECT_TRUE(quantity_value(q.name, r, v)) << q.name;
}

// ---------------------------------------------------------------- the shipped puzzles

std::vector<std::string> shipped() { return list_files(std::string(WS_SOURCE_DIR) + "/puzzles"); }

class Shipped : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  }
};

TEST(ShippedPuzzles, AtLeastTenEachWithASolution) {
  const auto files = shipped();
  EXPECT_GE(files.size(), 10u);
  for (const auto& f : files) EXPECT_TRUE(fs::exists(solution_path(f))) << f;
}

TEST_P(Shipped, SolutionMeetsEveryTargetAndTheStarterMissesOne) {
  Puzzle p;
  std::vector<Error> e;
  ASSERT_TRUE(parse_file(GetParam(), p, e)) << e[0].text();
  auto emu = make_emu_backend();
  CheckOptions o;
  o.limits.time_s = 120;
  o.kernel_file = solution_path(GetParam());
  const CheckResult won = check(p, *emu, o);
  ASSERT_TRUE(won.failure.empty()) << won.failure;
  for (const auto& t : won.targets)
    EXPECT_TRUE(t.met) << "solution misses " << t.target.text << ": got " << t.got << " " << t.note;
  EXPECT_TRUE(won.all_met());

  o.kernel_file.clear();
  const CheckResult lost = check(p, *emu, o);
  ASSERT_TRUE(lost.failure.empty()) << "the starter must run and verify: " << lost.failure;
  EXPECT_FALSE(lost.all_met()) << "the starter meets every target";
}

// `--check --json`: the verdict, each target with what it wanted and got, the totals under
// Nsight Compute's names, and for a missed target the kept block's costliest line: the
// starter of 03-pad-a-tile misses bank_conflicts at its column read.
TEST(PuzzleJson, AMissedTargetNamesItsWorstLineAndASolutionExitsZero) {
  ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  const std::string file = std::string(WS_SOURCE_DIR) + "/puzzles/03-pad-a-tile.md";
  Puzzle p;
  std::vector<Error> e;
  ASSERT_TRUE(parse_file(file, p, e));
  auto emu = make_emu_backend();
  CheckOptions o;
  o.limits.time_s = 120;
  const CheckResult lost = check(p, *emu, o);
  const nlohmann::json j = check_json(p, lost, "", "emu");
  EXPECT_EQ(j["verdict"], "targets missed");
  EXPECT_EQ(j["exit_code"], 1);
  ASSERT_EQ(j["targets"].size(), 3u);
  const auto& t = j["targets"][0];
  EXPECT_EQ(t["name"], "bank_conflicts");
  EXPECT_EQ(t["wanted"], "== 0");
  EXPECT_EQ(t["got"], 63488);
  EXPECT_EQ(t["met"], false);
  // The line of the column read in the puzzle file (the starter's lines are the file's).
  std::ifstream in(file);
  std::string l;
  int at = 0, read_line = 0;
  while (std::getline(in, l)) {
    ++at;
    if (l.find("= tile[threadIdx.x][threadIdx.y + j]") != std::string::npos) read_line = at;
  }
  ASSERT_GT(read_line, 0);
  EXPECT_EQ(t["worst_line"], read_line);
  EXPECT_TRUE(j["targets"][1]["met"]);
  EXPECT_FALSE(j["targets"][1].contains("worst_line"));
  EXPECT_EQ(j["totals"]["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"], 63488.0);
  EXPECT_TRUE(j.contains("divergent_branches"));
  EXPECT_GT(j["simd_efficiency"].get<double>(), 0.9);

  o.kernel_file = solution_path(file);
  const CheckResult won = check(p, *emu, o);
  const nlohmann::json w = check_json(p, won, o.kernel_file, "emu");
  EXPECT_EQ(w["verdict"], "all targets met");
  EXPECT_EQ(w["exit_code"], 0);

  o.kernel_file = std::string(WS_BINARY_DIR) + "/no-such-kernel.cu";
  const nlohmann::json b = check_json(p, check(p, *emu, o), o.kernel_file, "emu");
  EXPECT_EQ(b["verdict"], "bad input");
  EXPECT_EQ(b["exit_code"], 2);
}

INSTANTIATE_TEST_SUITE_P(Puzzles, Shipped, ::testing::ValuesIn(shipped()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n = fs::path(i.param).stem().string();
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return "p" + n;
                         });

}  // namespace
}  // namespace ws::puzzle
