// Student kernels on the emulator: the runtime build (errors on the student's lines) and
// the sandbox (an endless loop, a crash, a stack overflow, an abort, an out-of-bounds
// access each come back as a message while this process keeps running).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "kernels/user/user_kernel.h"

namespace ws::user {
namespace {

namespace fs = std::filesystem;

class UserKernel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  }
  std::string write(const std::string& name, const std::string& body) {
    const fs::path dir = fs::path(WS_BINARY_DIR) / "test-user-kernels";
    fs::create_directories(dir);
    const std::string f = (dir / name).string();
    std::ofstream(f) << body;
    return f;
  }
  // The copy job: out[i] = in[i + offset], 1024 floats.
  KernelSpec spec(const std::string& file) {
    KernelSpec s;
    s.source_path = file;
    s.struct_name = "Copy";
    s.fields = {{"in", "float", true, true, ""}, {"out", "float", false, true, ""}};
    return s;
  }
  RunResult run(const std::string& body, double time_s = 20, Compiled* out = nullptr, std::uint64_t memory_mb = 2048) {
    const KernelSpec s = spec(write(::testing::UnitTest::GetInstance()->current_test_info()->name() +
                                        std::string(".cuh"),
                                    body));
    Compiled c = compile_emu(s);
    if (out) *out = c;
    EXPECT_TRUE(c.ok) << c.message();
    Limits lim;
    lim.time_s = time_s;
    lim.memory_mb = memory_mb;
    RunOptions o;
    o.timing = true;
    return run_emu(c, s, *find_variant("access", "offset"),
                   {{"n", 1024}, {"block", 256}, {"offset", 0}, {"elem", 4}}, o, lim);
  }
  static std::string copy_body(const std::string& extra_before, const std::string& access) {
    return "struct Copy {\n"
           "  Global<const float> in;\n"
           "  Global<float> out;\n"
           "  WS_DEVICE void operator()(Thread& t) const {\n"
           "    long long i = (long long)t.blockIdx.x * t.blockDim.x + t.threadIdx.x;\n" +
           extra_before + access + "  }\n};\n";
  }
};

TEST_F(UserKernel, ACorrectKernelRunsVerifiesAndCountsSectors) {
  const RunResult r = run(copy_body("", "    out(i) = in(i);\n"));
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.verified) << r.verify_message;
  EXPECT_EQ(r.totals.global_ld_requests, 32u);
  EXPECT_EQ(r.totals.global_ld_sectors, 128u);
  ASSERT_EQ(r.kept.size(), 1u);  // block 0 kept for the views
  EXPECT_EQ(r.kept[0].events.size(), 16u);
  EXPECT_EQ(r.kept[0].events[0].line, 6);  // the student's line
  EXPECT_EQ(r.timing.source.source, sim::Source::Modelled);
  EXPECT_GT(r.timing.median_ms, 0);
}

TEST_F(UserKernel, AWrongResultIsNotVerified) {
  const RunResult r = run(copy_body("", "    out(i) = in(i) + 1.f;\n"));
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_FALSE(r.verified);
  EXPECT_NE(r.verify_message.find("out[0]"), std::string::npos) << r.verify_message;
}

TEST_F(UserKernel, ACompileErrorIsOnTheStudentsLine) {
  const KernelSpec s = spec(write("syntax.cuh", copy_body("    int x = ;\n", "    out(i) = in(i);\n")));
  const Compiled c = compile_emu(s);
  ASSERT_FALSE(c.ok);
  ASSERT_FALSE(c.errors.empty()) << c.log;
  EXPECT_EQ(c.errors[0].line, 6);
  EXPECT_EQ(c.errors[0].file, s.source_path);
  EXPECT_EQ(c.errors[0].text().rfind(s.source_path + ":6: ", 0), 0u) << c.errors[0].text();
}

TEST_F(UserKernel, AMisnamedStructIsReportedAtItsLineWithWhatTheJobBuilds) {
  const KernelSpec s = spec(write("name.cuh", "\n\nstruct Kopy {\n  Global<const float> in;\n  "
                                              "Global<float> out;\n  WS_DEVICE void "
                                              "operator()(Thread&) const {}\n};\n"));
  const Compiled c = compile_emu(s);
  ASSERT_FALSE(c.ok);
  ASSERT_FALSE(c.errors.empty());
  EXPECT_EQ(c.errors[0].line, 3);
  EXPECT_NE(c.errors[0].message.find("Copy{in, out}"), std::string::npos) << c.errors[0].message;
}

TEST_F(UserKernel, AnErrorInsideTheDialectPointsAtTheStudentsCall) {
  // Writing through a const array fails inside Ref's requires-clause.
  const KernelSpec s = spec(write("constw.cuh", copy_body("", "    in(i) = 1.f;\n")));
  const Compiled c = compile_emu(s);
  ASSERT_FALSE(c.ok);
  ASSERT_FALSE(c.errors.empty()) << c.log;
  EXPECT_EQ(c.errors[0].line, 6) << c.errors[0].text();
}

TEST_F(UserKernel, AnEndlessLoopIsStoppedAtTheTimeLimit) {
  const RunResult r = run(copy_body("    volatile int x = 0;\n    for (;;) x = x + 1;\n", ""), 1);
  EXPECT_EQ(r.error.rfind("your kernel did not finish in 1 s", 0), 0u) << r.error;
  EXPECT_EQ(r.error.find("last it was seen"), std::string::npos) << "it made no access: " << r.error;
}

// A loop of accesses is stopped with the line it loops on.
TEST_F(UserKernel, AnEndlessLoopOfAccessesNamesItsLine) {
  const RunResult r = run(copy_body("    for (;;)\n", "      out(i) = in(i);\n"), 1);
  // Prefixed file:line: as a crash is, which the editor marks.
  EXPECT_NE(r.error.find(".cuh:7: your kernel did not finish in 1 s"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("the last it was seen at"), std::string::npos) << r.error;
}

// With the time to spare, the same loop's trace fills the memory limit first (the window's
// default 10 s, where a student saw only "ran out of memory"): its line and why, still.
TEST_F(UserKernel, AnEndlessLoopThatRunsOutOfMemoryNamesItsLineAndWhy) {
  const RunResult r = run(copy_body("    for (;;)\n", "      out(i) = in(i);\n"), 60, nullptr, 320);
  EXPECT_NE(r.error.find(".cuh:7: your kernel ran out of memory (the limit is 320 MB)"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("an endless loop that keeps accessing memory"), std::string::npos) << r.error;
}

TEST_F(UserKernel, ACrashIsReportedWithTheLineOfTheLastAccess) {
  const RunResult r = run(copy_body("    out(i) = in(i);\n",
                                    "    if (i == 77) *reinterpret_cast<volatile int*>(std::uintptr_t(16)) = 1;\n"));
  EXPECT_NE(r.error.find("crashed (SIGSEGV"), std::string::npos) << r.error << r.verify_message << (r.problems.empty() ? "" : r.problems[0].message);
  EXPECT_NE(r.error.find(":6:"), std::string::npos) << r.error;
}

// WARPSCOPE_EMU_THREADS for one scope, unset again however the scope ends.
struct EmuThreads {
  explicit EmuThreads(const char* n) { ::setenv("WARPSCOPE_EMU_THREADS", n, 1); }
  ~EmuThreads() { ::unsetenv("WARPSCOPE_EMU_THREADS"); }
};

// Blocks run on several cores (run_emu); a crash is run again on one, so its line is the
// faulting thread's whichever block faults.
TEST_F(UserKernel, ACrashInALaterBlockNamesItsLineToo) {
  const EmuThreads four("4");
  // Blocks 0-2 access on line 6 only; block 3's last access before the fault is line 7's.
  const RunResult r = run(copy_body("    if (i < 768) out(i) = in(i);\n",
                                    "    else { float v = in(i); if (i == 1000) *reinterpret_cast<volatile int*>(std::uintptr_t(16)) = 1; out(i) = v; }\n"));
  EXPECT_NE(r.error.find("crashed (SIGSEGV"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find(":7:"), std::string::npos) << r.error;
}

TEST_F(UserKernel, SeveralCoresGiveOneCoresCountsAndTrace) {
  const std::string body = copy_body("    if (i % 3 == 0) out(i) = in(i);\n", "    else out(i) = in(i) * 2.f;\n");
  RunResult one, four;
  {
    const EmuThreads t("1");
    one = run(body);
  }
  {
    const EmuThreads t("4");
    four = run(body);
  }
  ASSERT_TRUE(one.error.empty() && four.error.empty()) << one.error << four.error;
  EXPECT_EQ(one.totals.global_ld_requests, four.totals.global_ld_requests);
  EXPECT_EQ(one.totals.global_st_sectors, four.totals.global_st_sectors);
  EXPECT_EQ(one.totals.divergent_branches, four.totals.divergent_branches);
  ASSERT_EQ(one.kept.size(), four.kept.size());
  ASSERT_EQ(one.kept[0].events.size(), four.kept[0].events.size());
  for (std::size_t k = 0; k < one.kept[0].events.size(); ++k) {
    EXPECT_EQ(one.kept[0].events[k].line, four.kept[0].events[k].line) << k;
    EXPECT_EQ(one.kept[0].events[k].warp, four.kept[0].events[k].warp) << k;
  }
}

TEST_F(UserKernel, AStackOverflowIsReportedAsOne) {
  const std::string deep =
      "WS_DEVICE int deep(int k) { volatile char pad[256]; pad[0] = char(k); "
      "return k > 1000000000 ? 0 : deep(k + 1) + pad[0]; }\n";
  const RunResult r = run(deep + copy_body("", "    out(i) = in(i) + float(deep(0));\n"));
  EXPECT_NE(r.error.find("overflowed its stack"), std::string::npos) << r.error;
}

TEST_F(UserKernel, AnAbortIsReportedWithTheAssertion) {
  const RunResult r =
      run("#include <cassert>\n" + copy_body("    assert(i < 100);\n", "    out(i) = in(i);\n"));
  EXPECT_NE(r.error.find("SIGABRT"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("i < 100"), std::string::npos) << r.error;
}

TEST_F(UserKernel, AnOutOfBoundsReadNamesTheArrayIndexAndLine) {
  const RunResult r = run(copy_body("", "    out(i) = in(i + 1);\n"));
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_FALSE(r.problems.empty());
  EXPECT_EQ(r.problems[0].line, 6);
  EXPECT_EQ(r.problems[0].message, "out-of-bounds read of `in` at index 1024 (it has 1024 elements)");
  EXPECT_FALSE(r.verified);
}

TEST_F(UserKernel, ADeadlockIsReportedWithItsSite) {
  // Warp 0 waits at the barrier of line 6, the other warps at the one of line 7.
  const RunResult r = run(copy_body("    if (t.threadIdx.x < 32) t.syncthreads();\n"
                                    "    else t.syncthreads();\n", "    out(i) = in(i);\n"));
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_FALSE(r.problems.empty());
  EXPECT_EQ(r.problems[0].kind, sim::ProblemKind::Deadlock) << r.problems[0].message;
  EXPECT_EQ(r.problems[0].line, 6);
  EXPECT_EQ(r.problems[0].other_line, 7);
}

TEST_F(UserKernel, MembersMustNameArraysOrParametersOfTheJob) {
  KernelSpec s = spec("x.cuh");
  const VariantInfo* v = find_variant("access", "offset");
  Params p;
  ASSERT_EQ(validate(*v, {{"offset", 0}}, DeviceLimits{}, p), "");
  const Plan plan = v->plan(p);
  EXPECT_EQ(check_fields(s, plan, p), "");
  s.fields.push_back({"nope", "float", true, true, ""});
  EXPECT_EQ(check_fields(s, plan, p), "member nope names no array of the job ('nope')");
  s.fields.back() = {"offset", "int", false, false, ""};
  EXPECT_EQ(check_fields(s, plan, p), "");
  s.fields.back() = {"v", "float4", false, true, "in"};
  EXPECT_EQ(check_fields(s, plan, p), "");  // 1<<20 floats are whole float4s
  p["offset"] = 1;
  EXPECT_EQ(check_fields(s, v->plan(p), p),
            "array in of 4194308 bytes is not a whole number of float4 (16 bytes)");
}

TEST_F(UserKernel, ARecompileOfTheSameSourceIsCached) {
  const KernelSpec s = spec(write("cached.cuh", copy_body("", "    out(i) = in(i);\n")));
  const Compiled a = compile_emu(s);
  ASSERT_TRUE(a.ok) << a.message();
  const Compiled b = compile_emu(s);
  ASSERT_TRUE(b.ok);
  EXPECT_TRUE(b.cached);
  EXPECT_EQ(a.artifact, b.artifact);
}

}  // namespace
}  // namespace ws::user
