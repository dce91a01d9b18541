#pragma once
// The CUDA backend's factory, declared without any CUDA header so that backend.cpp
// (host compiler) can call it. Defined in cuda_backend.cu.
#include <memory>
#include <string>

#include "kernels/backends/backend.h"

namespace ws::cuda {

// nullptr with `why` set (one readable sentence) when there is no device, no driver, or
// the driver is older than the runtime this build needs.
std::unique_ptr<Backend> make_backend(std::string& why);

// The GPU reference of `ref` (kernels/backends/cuda/verify.cu) run on copies of host arrays, so a
// test can hold it equal to the CPU's check_reference on outputs made wrong on purpose.
// `error` names a CUDA failure ("" when it ran).
CheckResult check_on_device(const Reference& ref, const HostArrays& h, std::string& error);

}  // namespace ws::cuda
