#pragma once
// Test helper for the GPU tests (label gpu): one CUDA backend per test binary, made on
// first use, and NEED_GPU() to skip a test cleanly, with the reason, when there is none.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "kernels/backends/backend.h"
#include "kernels/backends/cuda/cuda_backend.h"

namespace ws::test {

inline Backend* gpu(std::string& why) {
  static std::string reason;
  static std::unique_ptr<Backend> b = ws::cuda::make_backend(reason);
  why = reason;
  return b.get();
}

}  // namespace ws::test

// Declares `cuda` (the backend) or skips the test.
#define NEED_GPU()                                        \
  std::string why_;                                       \
  Backend* cuda = ws::test::gpu(why_);                    \
  if (!cuda) GTEST_SKIP() << "no CUDA backend: " << why_; \
  (void)cuda
