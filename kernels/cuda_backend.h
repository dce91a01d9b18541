#pragma once
// The CUDA backend's factory, declared without any CUDA header so that backend.cpp
// (host compiler) can call it. Defined in cuda_backend.cu.
#include <memory>
#include <string>

#include "kernels/backend.h"

namespace ws::cuda {

// nullptr with `why` set (one readable sentence) when there is no device, no driver, or
// the driver is older than the runtime this build needs.
std::unique_ptr<Backend> make_backend(std::string& why);

}  // namespace ws::cuda
