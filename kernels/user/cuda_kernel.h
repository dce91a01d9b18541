#pragma once
// A student's plain CUDA file on the emulator: the front end (cuda_front.h) rewrites it into
// the dialect, and the result is built and run like a dialect kernel (user_kernel.h) whose
// struct's members are the __global__ function's parameters, bound to the job by name.
#include <string>
#include <vector>

#include "kernels/user/cuda_front.h"
#include "kernels/user/user_kernel.h"

namespace ws::user {

// Whether the kernel file is plain CUDA (it defines a __global__ function) rather than
// the dialect.
bool is_cuda_file(const std::string& path);

struct CudaPrepared {
  bool ok = false;
  std::vector<CompileError> errors;  // on the student's file and lines
  KernelSpec spec;                   // the rewritten file, its struct and members
  std::string kernel;                // the __global__ function's name
  int kernel_line = 0;
  std::vector<cuda::Param> params;
};

// Rewrites the CUDA file `path` for the emulator into `dir` (a file named like the
// student's, in a directory named by the source's hash, so compiler messages keep the
// student's file name) and describes the struct the job builds.
// @post ok implies spec.source_path exists, spec.struct_name is
//       cuda::Translation::kStruct and spec.fields are the kernel's parameters in order.
CudaPrepared prepare_cuda(const std::string& path, const std::string& dir);

}  // namespace ws::user
