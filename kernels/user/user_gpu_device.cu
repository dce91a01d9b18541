// See user_gpu_device.h. The runtime finds the runner's context current on this thread
// (made by cuCtxCreate) and uses it, so the pointers of cuMemAlloc are valid here.
#include "kernels/user/user_gpu_device.h"

#include "kernels/backends/cuda/common.h"

namespace ws::user {
namespace {

// The request's arrays as the CUDA backend's: a plan whose array i is made as made[i] says
// (Given arrays are neither filled nor poisoned: the runner copied their bytes).
cuda::DeviceArrays device_arrays(const GpuRequest& q, const std::vector<unsigned long long>& ptr) {
  cuda::DeviceArrays d;
  for (std::size_t i = 0; i < ptr.size(); ++i) {
    d.ptr.push_back(reinterpret_cast<void*>(ptr[i]));
    d.count.push_back(request_bytes(q, i));
  }
  return d;
}

}  // namespace

std::string device_make(const GpuRequest& q, const std::vector<unsigned long long>& ptr) {
  try {
    const cuda::DeviceArrays d = device_arrays(q, ptr);
    // The plan's stream of an array is its index: every array is in the plan, a Given one
    // with no bytes (the runner copied them).
    Plan p;
    for (const GpuMade& m : q.made) {
      ArraySpec& a = p.arrays.emplace_back();
      a.elem_bytes = 1;
      a.count = m.how == GpuFill::Given ? 0 : m.bytes;
      a.output = m.how == GpuFill::Poisoned;
      a.gen = m.gen;
    }
    cuda::make_inputs(p, q.seed, d, nullptr);
    cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (inputs)");
  } catch (const cuda::Failure& f) {
    return f.what;
  }
  return "";
}

std::string device_check(const GpuRequest& q, const std::vector<unsigned long long>& ptr, CheckResult& out) {
  try {
    cuda::Cublas blas;
    cuda::DeviceVerifier v;
    out = v.check(q.ref, device_arrays(q, ptr), nullptr, blas);
  } catch (const cuda::Failure& f) {
    return f.what;
  }
  return "";
}

}  // namespace ws::user
