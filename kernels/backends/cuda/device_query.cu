// What the backend knows about its GPU: name, versions, limits, memory bus, and whether
// this build holds code for it at all.
#include "kernels/backends/cuda/common.h"

namespace ws::cuda {
namespace {

// Lets query_device() ask whether this build holds code for the device at all.
__global__ void probe_kernel() {}

}  // namespace

std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

bool query_device(int dev, DeviceInfo& info, std::string& why) {
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorInsufficientDriver || (e == cudaSuccess && drv > 0 && drv < rt)) {
    cudaGetLastError();
    why = drv == 0 ? "no NVIDIA driver is loaded (" + cuda_error_text("cudaGetDeviceCount", e) + ")"
                   : "the NVIDIA driver supports CUDA " + version_text(drv) +
                         " but warpscope was built with CUDA " + version_text(rt) +
                         ": update the driver";
    return false;
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    why = "no usable CUDA device: " + cuda_error_text("cudaGetDeviceCount", e);
    return false;
  }
  if (count == 0) {
    why = "no CUDA device found";
    return false;
  }
  auto fail = [&](const char* call, cudaError_t err) {
    cudaGetLastError();
    why = "the CUDA device could not be used: " + cuda_error_text(call, err);
    return false;
  };
  if ((e = cudaSetDevice(dev)) != cudaSuccess) return fail("cudaSetDevice", e);
  cudaDeviceProp prop{};
  if ((e = cudaGetDeviceProperties(&prop, dev)) != cudaSuccess)
    return fail("cudaGetDeviceProperties", e);
  cudaFuncAttributes fa{};
  if ((e = cudaFuncGetAttributes(&fa, probe_kernel)) != cudaSuccess) {
    cudaGetLastError();
    why = "this build of warpscope holds no GPU code for the " + std::string(prop.name) +
          " (compute capability " + std::to_string(prop.major) + "." +
          std::to_string(prop.minor) + "); rebuild with -DCMAKE_CUDA_ARCHITECTURES=" +
          std::to_string(prop.major) + std::to_string(prop.minor) + " (" +
          cuda_error_text("cudaFuncGetAttributes", e) + ")";
    return false;
  }
  int mem_khz = 0, bus = 0;
  if ((e = cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev)) != cudaSuccess)
    return fail("cudaDeviceGetAttribute(MemoryClockRate)", e);
  if ((e = cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev)) != cudaSuccess)
    return fail("cudaDeviceGetAttribute(GlobalMemoryBusWidth)", e);

  info.name = prop.name;
  info.driver = version_text(drv);
  info.runtime = version_text(rt);
  info.sm_count = prop.multiProcessorCount;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.mem_clock_mhz = mem_khz / 1000.0;
  int sm_khz = 0;
  if (cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, dev) == cudaSuccess)
    info.sm_clock_mhz = sm_khz / 1000.0;
  info.bus_width_bits = bus;
  // Double data rate: two transfers per clock over bus/8 bytes.
  info.peak_gbps = 2.0 * (mem_khz * 1e3) * (bus / 8.0) / 1e9;
  info.l2_bytes = std::uint64_t(prop.l2CacheSize);
  // FP32 lanes per SM: 64 on Volta and the A100 (7.x, 8.0), 128 from 8.6 on (Hopper
  // included); each does one FMA (2 FLOPs) a clock, at the boost clock the driver reports.
  const int lanes = (prop.major == 7 || (prop.major == 8 && prop.minor == 0)) ? 64 : 128;
  info.peak_gflops = 2.0 * lanes * prop.multiProcessorCount * (sm_khz * 1e3) / 1e9;
  DeviceLimits& l = info.limits;
  l.name = prop.name;
  l.max_threads_per_block = prop.maxThreadsPerBlock;
  l.max_block = {unsigned(prop.maxThreadsDim[0]), unsigned(prop.maxThreadsDim[1]),
                 unsigned(prop.maxThreadsDim[2])};
  l.max_grid = {unsigned(prop.maxGridSize[0]), unsigned(prop.maxGridSize[1]),
                unsigned(prop.maxGridSize[2])};
  l.max_shared_per_block = std::uint32_t(prop.sharedMemPerBlock);
  l.max_shared_per_block_optin = std::uint32_t(prop.sharedMemPerBlockOptin);
  l.sm_count = prop.multiProcessorCount;
  l.warp_size = prop.warpSize;
  why.clear();
  return true;
}

}  // namespace ws::cuda
