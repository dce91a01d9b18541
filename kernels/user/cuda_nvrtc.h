#pragma once
// The GPU build of a student's plain CUDA file: NVRTC compiles the file unchanged (the
// headers a CUDA file may include that NVRTC lacks are given empty, as named sources), the
// __global__ function found by the front end (cuda_front.h) and named to NVRTC with
// nvrtcAddNameExpression, so the launch can bind its parameters by name. Plain host C++.
#include <string>
#include <vector>

#include "kernels/user/cuda_front.h"
#include "kernels/user/user_kernel.h"

namespace ws::user {

struct CudaGpuBuild {
  Compiled compiled;               // ok, errors on the student's file and lines, log, seconds
  std::vector<char> cubin;
  std::string kernel;              // the __global__ function's name
  std::string lowered;             // its mangled name in the cubin (cuModuleGetFunction)
  std::vector<cuda::Param> params; // in order: the launch passes each by name
};

// Compiles the CUDA file at `path` for `arch` ("sm_90"). Never throws. The builds of the last
// few (path, text, arch) are kept in the process: a check's time target, the next check of
// an unchanged file and the editor's Check after a save that changed nothing compile once.
// @post compiled.ok implies cubin and lowered are non-empty and params are the kernel's;
//       a build answered from the process's cache has compiled.cached set and seconds 0.
CudaGpuBuild compile_cuda_nvrtc(const std::string& path, const std::string& arch);

}  // namespace ws::user
