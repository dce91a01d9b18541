// Plain CUDA kernels, written the way students write them (tests/kernels/students/), run
// on the emulator through the front end: their counts equal those of the same kernel in
// the dialect with the same branches marked (so the front end found every branch the
// dialect marks by hand), their events, races and deadlocks are on the student's lines.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "kernels/user/cuda_kernel.h"
#include "kernels/user/user_kernel.h"

namespace ws::user {
namespace {

namespace fs = std::filesystem;

std::string student(const std::string& name) {
  return std::string(WS_SOURCE_DIR) + "/tests/kernels/students/" + name;
}

class CudaKernel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  }
  std::string write(const std::string& name, const std::string& body) {
    const fs::path dir = fs::path(WS_BINARY_DIR) / "test-cuda-kernels";
    fs::create_directories(dir);
    const std::string f = (dir / name).string();
    std::ofstream(f) << body;
    return f;
  }
  RunResult run(const KernelSpec& s, const char* family, const char* variant, const Params& p) {
    const Compiled c = compile_emu(s);
    EXPECT_TRUE(c.ok) << c.message() << c.log;
    if (!c.ok) return {};
    Limits lim;
    lim.time_s = 30;
    RunOptions o;
    return run_emu(c, s, *find_variant(family, variant), p, o, lim);
  }
  RunResult run_cuda(const std::string& path, const char* family, const char* variant, const Params& p) {
    KernelSpec s;
    s.source_path = path;
    return run(s, family, variant, p);
  }
  RunResult run_dialect(const std::string& name, const std::string& body, std::vector<Field> fields,
                        const char* family, const char* variant, const Params& p) {
    KernelSpec s;
    s.source_path = write(name + ".cuh", body);
    s.struct_name = "K";
    s.fields = std::move(fields);
    return run(s, family, variant, p);
  }
  static void expect_same_counts(const RunResult& cuda, const RunResult& dialect) {
    EXPECT_EQ(cuda.totals.ncu(), dialect.totals.ncu());
    EXPECT_EQ(cuda.totals.branches, dialect.totals.branches);
    EXPECT_EQ(cuda.totals.divergent_branches, dialect.totals.divergent_branches);
    EXPECT_EQ(cuda.totals.barriers, dialect.totals.barriers);
    EXPECT_EQ(cuda.totals.warp_instructions, dialect.totals.warp_instructions);
    EXPECT_EQ(cuda.totals.lane_instructions, dialect.totals.lane_instructions);
  }
  static std::set<int> lines(const RunResult& r) {
    std::set<int> s;
    for (const auto& k : r.kept)
      for (const auto& e : k.events) s.insert(e.line);
    return s;
  }
};

const Params kTranspose = {{"n", 256}, {"tile", 32}, {"block_rows", 32}};

TEST_F(CudaKernel, ANaiveTransposeCountsAsTheDialectsAndTracesTheStudentsLines) {
  const RunResult c = run_cuda(student("transpose_naive.cu"), "transpose", "naive", kTranspose);
  ASSERT_TRUE(c.error.empty()) << c.error;
  EXPECT_TRUE(c.verified) << c.verify_message;
  EXPECT_TRUE(c.problems.empty());
  const RunResult d = run_dialect("naive",
                                  "struct K {\n  Global<const float> in;\n  Global<float> out;\n  int n;\n"
                                  "  WS_DEVICE void operator()(Thread& t) const {\n"
                                  "    int x = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;\n"
                                  "    int y = t.blockIdx.y * t.blockDim.x + t.threadIdx.y;\n"
                                  "    for (int j = 0; t.branch(j < int(t.blockDim.x)); j += t.blockDim.y)\n"
                                  "      out(x * n + (y + j)) = in((y + j) * n + x);\n  }\n};\n",
                                  {{"in", "float", true, true, ""}, {"out", "float", false, true, ""},
                                   {"n", "int", false, false, ""}},
                                  "transpose", "naive", kTranspose);
  ASSERT_TRUE(d.error.empty()) << d.error;
  expect_same_counts(c, d);
  // The store is 32 sectors a request (a column), the load 4.
  EXPECT_EQ(c.totals.global_st_sectors, 32 * c.totals.global_st_requests);
  EXPECT_EQ(c.totals.global_ld_sectors, 4 * c.totals.global_ld_requests);
  EXPECT_EQ(lines(c), (std::set<int>{8, 9}));  // the loop's condition and its body
  ASSERT_FALSE(c.kept.empty());
  EXPECT_EQ(c.kept[0].info.source_file, student("transpose_naive.cu"));
}

TEST_F(CudaKernel, ASharedTileTransposeBindsByNameAndCountsBanksAsTheDialect) {
  const Params p = {{"n", 256}, {"tile", 32}, {"block_rows", 8}, {"pad", 1}};
  // The student's parameters are (out, in, n): bound by name, not by position.
  const RunResult c = run_cuda(student("transpose_shared.cu"), "transpose", "tiled", p);
  ASSERT_TRUE(c.error.empty()) << c.error;
  EXPECT_TRUE(c.verified) << c.verify_message;
  EXPECT_TRUE(c.problems.empty()) << c.problems[0].message;
  const std::string body =
      "struct K {\n  Global<float> out;\n  Global<const float> in;\n  int n;\n"
      "  WS_DEVICE void operator()(Thread& t) const {\n"
      "    auto tile = t.shared2d<float>(32, PAD, \"tile\");\n"
      "    int x = t.blockIdx.x * 32 + t.threadIdx.x;\n    int y = t.blockIdx.y * 32 + t.threadIdx.y;\n"
      "    for (int j = 0; t.branch(j < 32); j += 8) tile(t.threadIdx.y + j, t.threadIdx.x) = in((y + j) * n + x);\n"
      "    t.syncthreads();\n"
      "    x = t.blockIdx.y * 32 + t.threadIdx.x;\n    y = t.blockIdx.x * 32 + t.threadIdx.y;\n"
      "    for (int j = 0; t.branch(j < 32); j += 8) out((y + j) * n + x) = tile(t.threadIdx.x, t.threadIdx.y + j);\n"
      "  }\n};\n";
  const std::vector<Field> f = {{"out", "float", false, true, ""}, {"in", "float", true, true, ""},
                                {"n", "int", false, false, ""}};
  auto with_pad = [&](const char* pad) {
    std::string b = body;
    b.replace(b.find("PAD"), 3, pad);
    return b;
  };
  const RunResult d = run_dialect("tiled33", with_pad("33"), f, "transpose", "tiled", p);
  expect_same_counts(c, d);
  EXPECT_EQ(c.totals.shared_ld_conflicts(), 0u);
  EXPECT_GT(c.totals.shared_ld_wavefronts, 0u);

  // Without the padding column every column read is a 32-way conflict, as in the dialect.
  std::ifstream in(student("transpose_shared.cu"));
  std::string src((std::istreambuf_iterator<char>(in)), {});
  src.replace(src.find("TILE_DIM + 1"), 12, "TILE_DIM");
  const Params p0 = {{"n", 256}, {"tile", 32}, {"block_rows", 8}, {"pad", 0}};
  const RunResult c0 = run_cuda(write("unpadded.cu", src), "transpose", "tiled", p0);
  const RunResult d0 = run_dialect("tiled32", with_pad("32"), f, "transpose", "tiled", p0);
  ASSERT_TRUE(c0.error.empty()) << c0.error;
  expect_same_counts(c0, d0);
  EXPECT_EQ(c0.totals.shared_ld_conflicts(), 31 * c0.totals.shared_ld_requests);
}

TEST_F(CudaKernel, AStridedCopyCountsAsThePuzzlesDialectStarter) {
  const Params p = {{"n", 65536}, {"block", 256}, {"offset", 0}, {"elem", 4}};
  const RunResult c = run_cuda(student("strided_copy.cu"), "access", "offset", p);
  ASSERT_TRUE(c.error.empty()) << c.error;
  EXPECT_TRUE(c.verified) << c.verify_message;
  const RunResult d = run_dialect(
      "strided",
      "struct K {\n  Global<const float> in;\n  Global<float> out;\n"
      "  WS_DEVICE void operator()(Thread& t) const {\n    int tid = t.threadIdx.x;\n"
      "    long long i = (long long)t.blockIdx.x * t.blockDim.x + (tid % 8) * 32 + tid / 8;\n"
      "    out(i) = in(i);\n  }\n};\n",
      {{"in", "float", true, true, ""}, {"out", "float", false, true, ""}}, "access", "offset", p);
  expect_same_counts(c, d);
  EXPECT_EQ(c.totals.global_ld_sectors, 8 * c.totals.global_ld_requests);
  EXPECT_EQ(lines(c), (std::set<int>{5}));
}

TEST_F(CudaKernel, APlainIfIsADivergentBranchFoundByTheFrontEnd) {
  const Params p = {{"n", 8192}, {"block", 256}};
  const RunResult c = run_cuda(student("reduce_divergent.cu"), "reduce", "interleaved_modulo", p);
  ASSERT_TRUE(c.error.empty()) << c.error;
  EXPECT_TRUE(c.verified) << c.verify_message;
  EXPECT_TRUE(c.problems.empty()) << c.problems[0].message;
  const RunResult d = run_dialect(
      "modulo",
      "struct K {\n  Global<const int> in;\n  Global<int> out;\n"
      "  WS_DEVICE void operator()(Thread& t) const {\n"
      "    auto sdata = t.shared<int>(256, \"sdata\");\n    unsigned tid = t.threadIdx.x;\n"
      "    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;\n"
      "    sdata(tid) = in(i);\n    t.syncthreads();\n"
      "    for (unsigned s = 1; t.branch(s < t.blockDim.x); s *= 2) {\n"
      "      if (t.branch(tid % (2 * s) == 0)) sdata(tid) += sdata(tid + s);\n"
      "      t.syncthreads();\n    }\n"
      "    if (t.branch(tid == 0)) out(t.blockIdx.x) = sdata(0);\n  }\n};\n",
      {{"in", "int", true, true, ""}, {"out", "int", false, true, ""}}, "reduce",
      "interleaved_modulo", p);
  ASSERT_TRUE(d.error.empty()) << d.error;
  expect_same_counts(c, d);
  EXPECT_GT(c.totals.divergent_branches, 0u);
  // The divergent branches are the student's `if` lines.
  std::set<int> divergent;
  for (const auto& k : c.kept)
    for (const auto& e : k.events)
      if (diverged(e)) divergent.insert(e.line);
  EXPECT_EQ(divergent, (std::set<int>{11, 16}));
}

TEST_F(CudaKernel, AMissingBarrierIsARaceOnTheStudentsLine) {
  const RunResult c = run_cuda(student("reduce_race.cu"), "reduce", "sequential", {{"n", 8192}, {"block", 256}});
  ASSERT_TRUE(c.error.empty()) << c.error;
  ASSERT_FALSE(c.problems.empty());
  EXPECT_EQ(c.problems[0].kind, sim::ProblemKind::Race) << c.problems[0].message;
  EXPECT_EQ(c.problems[0].line, 8) << c.problems[0].message;
}

TEST_F(CudaKernel, ABarrierInADivergentBranchIsADeadlockAtItsLines) {
  const RunResult c = run_cuda(student("barrier_in_branch.cu"), "access", "offset",
                               {{"n", 1024}, {"block", 256}, {"offset", 0}, {"elem", 4}});
  ASSERT_TRUE(c.error.empty()) << c.error;
  ASSERT_FALSE(c.problems.empty());
  EXPECT_EQ(c.problems[0].kind, sim::ProblemKind::Deadlock) << c.problems[0].message;
  const std::set<int> at = {c.problems[0].line, c.problems[0].other_line};
  EXPECT_EQ(at, (std::set<int>{5, 7})) << c.problems[0].message;
}

TEST_F(CudaKernel, ShufflesVotesAtomicsAndExternSharedCountAsTheDialect) {
  const Params p = {{"n", 8192}, {"block", 256}};
  const RunResult c = run_cuda(student("reduce_atomic.cu"), "reduce", "sequential", p);
  ASSERT_TRUE(c.error.empty()) << c.error;
  EXPECT_TRUE(c.verified) << c.verify_message;
  EXPECT_TRUE(c.problems.empty()) << c.problems[0].message;
  const RunResult d = run_dialect(
      "atomic",
      "struct K {\n  Global<const int> in;\n  Global<int> out;\n"
      "  WS_DEVICE void operator()(Thread& t) const {\n"
      "    auto partial = t.shared<int>(256, \"partial\");\n    unsigned tid = t.threadIdx.x;\n"
      "    partial(tid) = in(t.blockIdx.x * t.blockDim.x + tid);\n"
      "    if (t.branch(tid == 0)) out(t.blockIdx.x) = 0;\n    t.syncthreads();\n"
      "    int sum = partial(tid);\n"
      "    for (int offset = 16; t.branch(offset > 0); offset /= 2) sum += t.shfl_down_sync(WS_FULL_MASK, sum, offset);\n"
      "    unsigned leaders = t.ballot_sync(WS_FULL_MASK, tid % 32 == 0);\n"
      "    if (t.branch(leaders == 1u && tid % 32 == 0)) out.atomic_add(t.blockIdx.x, sum);\n  }\n};\n",
      {{"in", "int", true, true, ""}, {"out", "int", false, true, ""}}, "reduce", "sequential", p);
  ASSERT_TRUE(d.error.empty()) << d.error;
  expect_same_counts(c, d);
  EXPECT_EQ(c.totals.global_red_requests, 8192u / 32);
  // The shuffle on line 7 (in the __device__ function), the vote and the atomic on theirs.
  std::set<std::pair<int, EventKind>> seen;
  for (const auto& k : c.kept)
    for (const auto& e : k.events) seen.insert({e.line, e.kind});
  EXPECT_TRUE(seen.count({7, EventKind::Shuffle}));
  EXPECT_TRUE(seen.count({18, EventKind::Vote}));
  EXPECT_TRUE(seen.count({19, EventKind::GlobalAtomic}));
  EXPECT_TRUE(seen.count({14, EventKind::SharedStore}));
}

TEST_F(CudaKernel, AnOutOfBoundsWriteNamesTheArrayAndTheStudentsLine) {
  const RunResult c = run_cuda(write("oob.cu",
                                     "__global__ void copy(const float* in, float* out) {\n"
                                     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                     "  float* p = out + 1;\n"
                                     "  p[i] = in[i];\n}\n"),
                               "access", "offset", {{"n", 1024}, {"block", 256}, {"offset", 0}, {"elem", 4}});
  ASSERT_TRUE(c.error.empty()) << c.error;
  ASSERT_FALSE(c.problems.empty());
  EXPECT_EQ(c.problems[0].line, 4);
  EXPECT_EQ(c.problems[0].message, "out-of-bounds write of `out` at index 1024 (it has 1024 elements)");
}

// The pointer failures' messages are built in the library (kernels/dialect/simt_emu.cpp),
// not in the student's build: they keep their words and the student's line.
TEST_F(CudaKernel, AMisalignedOrNullPointerIsReportedAtTheStudentsLine) {
  const Params p = {{"n", 1024}, {"block", 256}, {"offset", 0}, {"elem", 4}};
  const RunResult m = run_cuda(write("misaligned.cu",
                                     "__global__ void copy(const float* in, float* out) {\n"
                                     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                     "  const float4* v = reinterpret_cast<const float4*>(in + 1);\n"
                                     "  out[i] = v[0].x;\n}\n"),
                               "access", "offset", p);
  ASSERT_TRUE(m.error.empty()) << m.error;
  ASSERT_FALSE(m.problems.empty());
  EXPECT_EQ(m.problems[0].line, 4);
  EXPECT_EQ(m.problems[0].message, "misaligned access: byte 4 of `in` is not a multiple of 16 bytes");
  const RunResult z = run_cuda(write("null.cu",
                                     "__global__ void copy(const float* in, float* out) {\n"
                                     "  float* p = nullptr;\n"
                                     "  p[threadIdx.x] = in[threadIdx.x];\n}\n"),
                               "access", "offset", p);
  ASSERT_TRUE(z.error.empty()) << z.error;
  ASSERT_FALSE(z.problems.empty());
  EXPECT_EQ(z.problems[0].line, 3);
  EXPECT_EQ(z.problems[0].message, "access through a null pointer");
  // A C-style cast of 0 (the review of 2026-11-28: "no matching function for call to
  // 'cast<int>(int)'", a name the student never wrote).
  const RunResult c = run_cuda(write("cnull.cu",
                                     "__global__ void copy(const float* in, float* out) {\n"
                                     "  int* p = (int*)0;\n"
                                     "  out[threadIdx.x] = in[threadIdx.x];\n"
                                     "  if (threadIdx.x == 5) p[0] = 1;\n}\n"),
                               "access", "offset", p);
  ASSERT_TRUE(c.error.empty()) << c.error;
  ASSERT_FALSE(c.problems.empty());
  EXPECT_EQ(c.problems[0].line, 4);
  EXPECT_EQ(c.problems[0].message, "access through a null pointer");
}

TEST_F(CudaKernel, AParameterTheJobLacksIsNamedAndClangErrorsStayOnTheLine) {
  KernelSpec s;
  s.source_path = write("badname.cu", "__global__ void copy(const float* input, float* out) {\n"
                                      "  out[threadIdx.x] = input[threadIdx.x];\n}\n");
  const Compiled c = compile_emu(s);
  ASSERT_TRUE(c.ok) << c.message();
  const RunResult r = run_emu(c, s, *find_variant("access", "offset"),
                              {{"n", 1024}, {"block", 256}, {"offset", 0}, {"elem", 4}}, {}, {});
  EXPECT_NE(r.error.find("input"), std::string::npos) << r.error;

  s.source_path = write("syntax.cu", "__global__ void copy(const float* in, float* out) {\n"
                                     "  out[threadIdx.x] = in[threadIdx.x]\n}\n");
  const Compiled e = compile_emu(s);
  ASSERT_FALSE(e.ok);
  ASSERT_FALSE(e.errors.empty());
  EXPECT_EQ(e.errors[0].file, s.source_path);
  EXPECT_EQ(e.errors[0].line, 2);
  EXPECT_NE(e.errors[0].message.find("expected ';'"), std::string::npos) << e.errors[0].message;
}

}  // namespace
}  // namespace ws::user
