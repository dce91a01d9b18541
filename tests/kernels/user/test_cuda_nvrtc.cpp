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

}  // namespace
}  // namespace ws::user
