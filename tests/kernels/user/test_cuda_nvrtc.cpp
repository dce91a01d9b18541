// NVRTC compiles every puzzle solution and every student kernel of tests/kernels/students
// unchanged (no GPU needed), names the kernel for the launch, and puts its errors on the
// student's lines.
#include "kernels/user/cuda_nvrtc.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace ws::user {
namespace {
namespace fs = std::filesystem;

TEST(CudaNvrtc, EverySolutionAndStudentKernelCompilesUnchanged) {
  int n = 0;
  for (const char* dir : {"/puzzles/solutions", "/tests/kernels/students"})
    for (const auto& e : fs::directory_iterator(std::string(WS_SOURCE_DIR) + dir)) {
      if (e.path().extension() != ".cu") continue;
      const CudaGpuBuild b = compile_cuda_nvrtc(e.path().string(), "sm_90");
      EXPECT_TRUE(b.compiled.ok) << e.path() << ": " << b.compiled.message() << b.compiled.log;
      EXPECT_FALSE(b.cubin.empty()) << e.path();
      EXPECT_NE(b.lowered.find(b.kernel), std::string::npos) << b.lowered;
      ++n;
    }
  EXPECT_GE(n, 16);
}

TEST(CudaNvrtc, AnErrorIsOnTheStudentsLine) {
  const fs::path f = fs::path(WS_BINARY_DIR) / "cuda_nvrtc_error.cu";
  // An undeclared function: the front end (Clang) stops it before NVRTC, on its line.
  std::ofstream(f) << "__global__ void k(float* out) {\n  out[threadIdx.x] = 1.f;\n"
                      "  __undefined_device_thing();\n}\n";
  const CudaGpuBuild b = compile_cuda_nvrtc(f.string(), "sm_90");
  ASSERT_FALSE(b.compiled.ok);
  ASSERT_FALSE(b.compiled.errors.empty()) << b.compiled.log;
  EXPECT_EQ(b.compiled.errors[0].line, 3);
  EXPECT_EQ(b.compiled.errors[0].file, f.string());
}

// The editor's Check after a save that changed nothing, and a time target's rounds, compile
// once: the same file's build is kept in the process; an edit builds afresh.
TEST(CudaNvrtc, AnUnchangedFileIsBuiltOnce) {
  const fs::path f = fs::path(WS_BINARY_DIR) / "cuda_nvrtc_kept.cu";
  const std::string src = "__global__ void k(float* out) {\n  out[threadIdx.x] = 2.f;\n}\n";
  std::ofstream(f) << src;  // the kept builds are this process's: the first is built
  const CudaGpuBuild a = compile_cuda_nvrtc(f.string(), "sm_90");
  ASSERT_TRUE(a.compiled.ok) << a.compiled.message();
  EXPECT_FALSE(a.compiled.cached);
  const CudaGpuBuild b = compile_cuda_nvrtc(f.string(), "sm_90");
  EXPECT_TRUE(b.compiled.cached);
  EXPECT_EQ(b.compiled.seconds, 0.0);
  EXPECT_EQ(b.cubin, a.cubin);
  EXPECT_EQ(b.lowered, a.lowered);
  // One character changed: built again.
  std::ofstream(f) << src << "// edited\n";
  const CudaGpuBuild c = compile_cuda_nvrtc(f.string(), "sm_90");
  ASSERT_TRUE(c.compiled.ok);
  EXPECT_FALSE(c.compiled.cached);
}

}  // namespace
}  // namespace ws::user
