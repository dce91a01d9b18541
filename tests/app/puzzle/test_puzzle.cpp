// Puzzles: the format (every malformed input is a file:line message), the quantities, and
// every shipped puzzle: its solution meets every target, its starter runs right and
// misses at least one (so every puzzle can be won and lost).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

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
      // No kernel can meet these (the review of 2026-11-28: accepted, then "missed").
      {"ld_sectors_per_request <= 4", "ld_sectors_per_request <= -1", 25, "can never be met"},
      {"ld_sectors_per_request <= 4", "ld_sectors_per_request < 0", 25, "never below 0"},
      {"ld_sectors_per_request <= 4", "ld_sectors_per_request == -2", 25, "can never be met"},
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

// Time targets are measured on a GPU at the family's timing sizes, or at the puzzle's
// own `timing:`, validated against the job like its params.
TEST(PuzzleParse, TimingSizesDefaultToTheFamilysAndAreValidated) {
  Puzzle p;
  std::vector<Error> e;
  ASSERT_TRUE(parse_text(kGood, "p.md", p, e)) << e[0].text();
  EXPECT_TRUE(p.timing.empty());
  const FamilyInfo* f = find_family("access");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(timing_params(p).at("n"), f->timing.at("n"));
  EXPECT_EQ(timing_params(p).at("block"), 256) << "the puzzle's other params stay";
  ASSERT_TRUE(parse_text(replace(kGood, "params: n=1024", "timing: n=4194304\nparams: n=1024"), "p.md", p, e));
  EXPECT_EQ(timing_params(p).at("n"), 4194304);
  EXPECT_EQ(p.params.at("n"), 1024) << "the check itself stays at the puzzle's size";
  const auto bad = errors_of(replace(kGood, "params: n=1024", "timing: n=1000\nparams: n=1024"));
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].message.find("the sizes a GPU times at"), std::string::npos) << bad[0].text();
  EXPECT_NE(bad[0].message.find("not a multiple of block"), std::string::npos) << bad[0].text();
}

// ---------------------------------------------------------------- hints

TEST(PuzzleHints, ParsedInOrderAndEveryMalformedOneIsAFileLineMessage) {
  const std::string two = std::string(kGood) + "\n```hint\nFirst: look at lane 0.\n```\n\n```hint\nSecond.\nTwo lines.\n```\n";
  Puzzle p;
  std::vector<Error> e;
  ASSERT_TRUE(parse_text(two, "p.md", p, e)) << e[0].text();
  ASSERT_EQ(p.hints.size(), 2u);
  EXPECT_EQ(p.hints[0].text, "First: look at lane 0.");
  EXPECT_EQ(p.hints[1].text, "Second.\nTwo lines.");
  EXPECT_EQ(p.task.find("First"), std::string::npos) << "a hint is not part of the task";
  auto one_error = [](const std::string& text, const std::string& words) {
    const auto es = errors_of(text);
    ASSERT_EQ(es.size(), 1u) << text;
    EXPECT_NE(es[0].message.find(words), std::string::npos) << es[0].text();
    EXPECT_GT(es[0].line, 1);
  };
  one_error(std::string(kGood) + "\n```hint\n   \n```\n", "an empty hint");
  std::string four = kGood;
  for (int i = 0; i < 4; ++i) four += "\n```hint\nh" + std::to_string(i) + "\n```\n";
  one_error(four, "a fourth hint: a puzzle has at most 3");
  one_error(std::string(kGood) + "\n```hint\n" + std::string(2001, 'x') + "\n```\n", "a hint of 2001 bytes");
  one_error(std::string(kGood) + "\n```hints\nh\n```\n", "unknown block 'hints'");
  one_error(std::string(kGood) + "\n```hint\nnever closed\n", "never closed");
}

TEST(PuzzleHints, RevealedOneAtATimeAndRemembered) {
  const std::string dir = testing::TempDir() + "/ws-hints-" + std::to_string(::getpid());
  fs::remove_all(dir);
  const std::string file = std::string(WS_SOURCE_DIR) + "/puzzles/04-transpose-shared.md";
  Puzzle p;
  std::vector<Error> e;
  ASSERT_TRUE(parse_file(file, p, e));
  ASSERT_EQ(p.hints.size(), 3u);
  auto next = [&](int n, std::string* text = nullptr) {
    std::ostringstream out, err;
    const int rc = hint_command(file, n, dir, out, err);
    if (text) *text = out.str();
    EXPECT_EQ(err.str(), "");
    return rc;
  };
  std::string t;
  EXPECT_EQ(hints_seen(dir, p.slug), 0);
  ASSERT_EQ(next(0, &t), 0);
  EXPECT_NE(t.find("hint 1 of 3"), std::string::npos) << t;
  EXPECT_NE(t.find(p.hints[0].text), std::string::npos);
  EXPECT_EQ(hints_seen(dir, p.slug), 1) << "kept in " << dir;
  ASSERT_EQ(next(0, &t), 0);
  EXPECT_NE(t.find(p.hints[1].text), std::string::npos) << t;
  // Hint N on demand: an earlier one leaves the count alone, a later one raises it.
  ASSERT_EQ(next(1, &t), 0);
  EXPECT_NE(t.find(p.hints[0].text), std::string::npos);
  EXPECT_EQ(hints_seen(dir, p.slug), 2);
  ASSERT_EQ(next(0, &t), 0);
  EXPECT_NE(t.find("hint 3 of 3"), std::string::npos);
  EXPECT_EQ(t.find("the next"), std::string::npos) << "no next after the last";
  ASSERT_EQ(next(0, &t), 0);
  EXPECT_NE(t.find("hint 3 of 3 (you have seen them all)"), std::string::npos) << t;
  EXPECT_EQ(hints_seen(dir, p.slug), 3);
  // Other puzzles' counts are kept beside it.
  std::string why;
  ASSERT_TRUE(record_hints_seen(dir, "01-strided-copy", 1, why)) << why;
  EXPECT_EQ(hints_seen(dir, p.slug), 3);
  EXPECT_EQ(hints_seen(dir, "01-strided-copy"), 1);
  // Out of range: one line, exit 2.
  std::ostringstream out, err;
  EXPECT_EQ(hint_command(file, 4, dir, out, err), 2);
  EXPECT_EQ(err.str(), "warpscope: 04-transpose-shared has 3 hints; there is no hint 4\n");
  // A damaged file is said once and started again, never a crash.
  {
    std::ofstream f(dir + "/hints.json");
    f << "{\"04-transpose-shared\": 1e300, [";
  }
  EXPECT_EQ(hints_seen(dir, p.slug), 0);
  std::ostringstream o2, e2;
  EXPECT_EQ(hint_command(file, 0, dir, o2, e2), 0);
  EXPECT_NE(o2.str().find("hint 1 of 3"), std::string::npos);
  EXPECT_NE(e2.str().find("is not a JSON object"), std::string::npos) << e2.str();
  EXPECT_EQ(hints_seen(dir, p.slug), 1);
  fs::remove_all(dir);
}

// ---------------------------------------------------------------- the shipped puzzles

std::vector<std::string> shipped() { return list_files(std::string(WS_SOURCE_DIR) + "/puzzles"); }

class Shipped : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  }
};

TEST(ShippedPuzzles, AtLeastFourteenEachWithASolution) {
  const auto files = shipped();
  EXPECT_GE(files.size(), 14u);
  for (const auto& f : files) EXPECT_TRUE(fs::exists(solution_path(f))) << f;
}

// Every shipped puzzle has two or three hints, and none of them gives the solution away:
// no line of the solution that the starter lacks appears in a hint.
TEST(ShippedPuzzles, TwoOrThreeHintsNoneOfThemTheSolution) {
  for (const auto& f : shipped()) {
    Puzzle p;
    std::vector<Error> e;
    ASSERT_TRUE(parse_file(f, p, e)) << e[0].text();
    EXPECT_GE(p.hints.size(), 2u) << f;
    EXPECT_LE(p.hints.size(), 3u) << f;
    std::ifstream in(solution_path(f));
    std::string l;
    while (std::getline(in, l)) {
      const auto b = l.find_first_not_of(" \t");
      if (b == std::string::npos) continue;
      l = l.substr(b);
      if (l.size() < 12 || l.rfind("//", 0) == 0 || p.starter.find(l) != std::string::npos) continue;
      for (const auto& h : p.hints) EXPECT_EQ(h.text.find(l), std::string::npos) << f << ": a hint holds the solution's line '" << l << "'";
    }
  }
}

// Every shipped puzzle reads or writes global memory, so each judges how: a target on
// sectors per request (a tiled kernel that reads its tile by columns must lose).
TEST(ShippedPuzzles, EveryOneHasASectorsPerRequestTarget) {
  for (const auto& f : shipped()) {
    Puzzle p;
    std::vector<Error> e;
    ASSERT_TRUE(parse_file(f, p, e)) << e[0].text();
    bool has = false;
    for (const auto& t : p.targets) has = has || t.quantity.find("sectors_per_request") != std::string::npos;
    EXPECT_TRUE(has) << f << " has no sectors-per-request target";
  }
}

// The line of `file` that holds `needle` (1-based), 0 when none does.
int line_of(const std::string& file, const std::string& needle) {
  std::ifstream in(file);
  std::string l;
  int at = 0;
  while (std::getline(in, l)) {
    ++at;
    if (l.find(needle) != std::string::npos) return at;
  }
  return 0;
}

// A tiled product that stages A by columns (16 rows of A per half-warp, a sector each)
// meets puzzle 09's load count and its bank conflicts (a swizzled tile), and loses only on
// sectors per request, named at its A load with that line's own figure: 16 sectors a load
// request there (B's load, 4, brings the whole kernel's figure down to 10).
TEST(ShippedPuzzles, ATileReadByColumnsLosesPuzzle09AtItsLine) {
  ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  const std::string file = std::string(WS_SOURCE_DIR) + "/puzzles/09-tiled-matmul.md";
  const std::string kernel = std::string(WS_SOURCE_DIR) + "/tests/fixtures/puzzles/09-a-by-columns.cu";
  Puzzle p;
  std::vector<Error> e;
  ASSERT_TRUE(parse_file(file, p, e));
  auto emu = make_emu_backend();
  CheckOptions o;
  o.limits.time_s = 120;
  o.kernel_file = kernel;
  const CheckResult r = check(p, *emu, o);
  ASSERT_TRUE(r.failure.empty()) << r.failure;
  const int a_load = line_of(kernel, "= A[(blockIdx.y * 16 + tx) * n");
  ASSERT_GT(a_load, 0);
  int missed = 0;
  for (const auto& t : r.targets) {
    if (t.target.quantity == "ld_sectors_per_request") {
      EXPECT_FALSE(t.met);
      EXPECT_DOUBLE_EQ(t.got, 10.0);
      EXPECT_EQ(t.worst.line, a_load);
      EXPECT_DOUBLE_EQ(t.worst.value, 16.0);
      EXPECT_EQ(t.worst.text, "line " + std::to_string(a_load) + ": 16 sectors a load request");
    } else {
      EXPECT_TRUE(t.met) << t.target.text << ": got " << t.got;
      EXPECT_EQ(t.worst.line, 0) << "a met target names no line";
    }
    missed += !t.met;
  }
  EXPECT_EQ(missed, 1);
  // The command says the same, under the missed target.
  std::ostringstream out, err;
  EXPECT_EQ(check_command(file, kernel, *emu, 120, out, err), 1);
  EXPECT_NE(out.str().find("[missed] ld_sectors_per_request <= 4"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("line " + std::to_string(a_load) + ": 16 sectors a load request\n"),
            std::string::npos)
      << out.str();
}

// The worst line of each kind of quantity, over every launch's per-line counters.
TEST(PuzzleWorstLine, EachQuantityNamesItsCostliestLineAndItsFigure) {
  RunResult r;
  LaunchCfg cfg;
  cfg.grid = {2, 1, 1};
  cfg.block = {64, 1, 1};  // 4 warps in all
  r.plan.launches = {cfg};
  LaunchTotals lt;
  sim::SiteTotals a, b, c;
  a.line = 10;
  a.totals.global_ld_requests = 8;
  a.totals.global_ld_sectors = 32;   // 4 a request
  a.totals.shared_ld_wavefronts = 40;
  a.totals.shared_ld_ideal = 8;      // 32 conflicts
  b.line = 17;
  b.totals.global_ld_requests = 2;
  b.totals.global_ld_sectors = 64;   // 32 a request
  b.totals.global_st_requests = 6;
  b.totals.global_st_sectors = 6;
  b.totals.barriers = 12;            // 3 a warp
  c.line = 21;
  c.kind = EventKind::Branch;
  c.totals.divergent_branches = 5;
  c.totals.warp_instructions = 10;
  c.totals.lane_instructions = 80;   // SIMD 0.25, 240 idle lane slots
  lt.sites = {a, b, c};
  r.launches = {lt};
  auto w = worst_line("ld_sectors_per_request", r);
  EXPECT_EQ(w.line, 17);
  EXPECT_EQ(w.text, "line 17: 32 sectors a load request");
  // Loads and stores together: line 17 has 70 sectors over 8 requests.
  EXPECT_EQ(worst_line("sectors_per_request", r).text, "line 17: 8.75 sectors a request");
  EXPECT_EQ(worst_line("st_sectors_per_request", r).text, "line 17: 1 sector a store request");
  EXPECT_EQ(worst_line("ld_requests", r).text, "line 10: 8 load requests");
  EXPECT_EQ(worst_line("bank_conflicts", r).text, "line 10: 32 bank conflicts");
  EXPECT_EQ(worst_line("st_bank_conflicts", r).line, 0) << "no line has a store conflict";
  EXPECT_EQ(worst_line("divergent_branches", r).text, "line 21: 5 divergent branches");
  EXPECT_EQ(worst_line("simd_efficiency", r).text, "line 21: SIMD efficiency 0.25");
  EXPECT_EQ(worst_line("barriers_per_warp", r).text, "line 17: 3 barriers a warp");
  EXPECT_EQ(worst_line("time", r).line, 0);
  EXPECT_EQ(worst_line("metric:l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", r).line, 0);
  // A second launch adds to the same lines.
  r.launches.push_back(lt);
  r.launches[1].sites[0].totals.global_ld_requests = 100;
  EXPECT_EQ(worst_line("ld_requests", r).text, "line 10: 108 load requests");
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
  // The line of the column read in the puzzle file (the starter's lines are the file's),
  // with that line's own figure: every one of the 63,488 conflicts is there.
  const int read_line = line_of(file, "= tile[threadIdx.x][threadIdx.y + j]");
  ASSERT_GT(read_line, 0);
  EXPECT_EQ(t["worst_line"], read_line);
  EXPECT_EQ(t["worst_value"], 63488.0);
  EXPECT_EQ(t["worst"], "line " + std::to_string(read_line) + ": 63488 bank conflicts");
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
