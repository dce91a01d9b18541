// Student kernels through NVRTC: every puzzle's solution builds fast and traced from the
// same file the emulator builds (no GPU needed to compile), errors land on the student's
// lines; on a GPU (label gpu), a solution runs and verifies and a faulting kernel is
// reported with the CUDA error while the next run works again.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "app/puzzle/puzzle.h"
#include "kernels/user_nvrtc.h"

namespace ws::user {
namespace {

namespace fs = std::filesystem;

TEST(UserNvrtc, EverySolutionBuildsFastAndTraced) {
  for (const auto& f : puzzle::list_files(std::string(WS_SOURCE_DIR) + "/puzzles")) {
    puzzle::Puzzle p;
    std::vector<puzzle::Error> e;
    ASSERT_TRUE(puzzle::parse_file(f, p, e));
    KernelSpec spec = p.spec;
    spec.source_path = puzzle::solution_path(f);
    for (bool traced : {false, true}) {
      const NvrtcBuild b = compile_nvrtc(spec, traced, "sm_90");
      EXPECT_TRUE(b.compiled.ok) << f << (traced ? " traced: " : " fast: ") << b.compiled.message()
                                 << b.compiled.log;
      EXPECT_FALSE(b.cubin.empty());
    }
  }
}

TEST(UserNvrtc, ACompileErrorIsOnTheStudentsLine) {
  const fs::path d = fs::path(WS_BINARY_DIR) / "test-nvrtc";
  fs::create_directories(d);
  const std::string f = (d / "bad.cuh").string();
  std::ofstream(f) << "struct Copy {\n  Global<const float> in;\n  Global<float> out;\n"
                      "  WS_DEVICE void operator()(Thread& t) const {\n    out(0) = in(0) + nope;\n  }\n};\n";
  KernelSpec spec;
  spec.source_path = f;
  spec.struct_name = "Copy";
  spec.fields = {{"in", "float", true, true, ""}, {"out", "float", false, true, ""}};
  const NvrtcBuild b = compile_nvrtc(spec, false, "sm_90");
  ASSERT_FALSE(b.compiled.ok);
  ASSERT_FALSE(b.compiled.errors.empty()) << b.compiled.log;
  EXPECT_EQ(b.compiled.errors[0].line, 5) << b.compiled.log;
  EXPECT_EQ(b.compiled.errors[0].file, f);
  EXPECT_NE(b.compiled.errors[0].message.find("nope"), std::string::npos);
}

bool have_gpu() {
  std::string why;
  return gpu_available(why);
}

TEST(UserNvrtcGpu, ASolutionRunsAndAFaultIsReportedAndRecovered) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  const std::string pf = std::string(WS_SOURCE_DIR) + "/puzzles/01-strided-copy.md";
  puzzle::Puzzle p;
  std::vector<puzzle::Error> e;
  ASSERT_TRUE(puzzle::parse_file(pf, p, e));
  const VariantInfo* job = find_variant(p.family, p.variant);
  KernelSpec spec = p.spec;
  spec.source_path = puzzle::solution_path(pf);
  RunOptions o;
  o.timing = true;
  Compiled c;
  RunResult r = run_cuda(spec, *job, p.params, o, c);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.verified) << r.verify_message;
  EXPECT_TRUE(r.timing.measured);
  EXPECT_GT(r.timing.median_ms, 0);

  // Faults only on the device (the emulator's run of it is clean).
  const fs::path d = fs::path(WS_BINARY_DIR) / "test-nvrtc";
  fs::create_directories(d);
  spec.source_path = (d / "fault.cuh").string();
  std::ofstream(spec.source_path)
      << "struct Copy {\n  Global<const float> in;\n  Global<float> out;\n"
         "  WS_DEVICE void operator()(Thread& t) const {\n"
         "    long long i = (long long)t.blockIdx.x * t.blockDim.x + t.threadIdx.x;\n"
         "    out(i) = in(i);\n"
         "#if defined(__CUDACC_RTC__)\n    if (i == 5) out.ptr[1ll << 40] = 1.f;\n#endif\n  }\n};\n";
  r = run_cuda(spec, *job, p.params, o, c);
  EXPECT_NE(r.error.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("the context was reset"), std::string::npos) << r.error;

  spec.source_path = puzzle::solution_path(pf);
  r = run_cuda(spec, *job, p.params, o, c);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.verified);
}

}  // namespace
}  // namespace ws::user
