#pragma once
// The GPU runner's use of our own device code (kernels/backends/cuda): the request's
// generated inputs made on the device (make_inputs, the words the host would fill) and the
// output checked where it lies (DeviceVerifier), so a 256 MB array never travels through
// the request or the reply. Plain C++ header; defined in user_gpu_device.cu, which runs on
// the runtime API inside the context the runner made current with the driver API.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/user/user_gpu_runner.h"

namespace ws::user {

// Array i of `q` at device address ptr[i], for every array whose made entry is not Given.
// @post "" when made (synchronised), else the CUDA error.
std::string device_make(const GpuRequest& q, const std::vector<unsigned long long>& ptr);

// The output checked against q.ref on the device (q.outputs is Check).
// @post "" and `out` set (mismatches, first wrong element), else the CUDA error.
std::string device_check(const GpuRequest& q, const std::vector<unsigned long long>& ptr, CheckResult& out);

}  // namespace ws::user
