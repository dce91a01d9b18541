// Loads-in-flight and launch probe: what the model's DRAM part needs beyond the copy rate
// (sim::DeviceModel: the DRAM read rate at a given number of bytes in flight per SM, and
// the cost of a launch queued behind another), measured on kernels of its own, not on
// the calibrated ones.
// Standalone: nvcc -arch=sm_90 -O3 probe_inflight.cu && ./a.out
// The H100's output is in docs/CALIBRATION.md.
//
// 1. Little's law. Each warp of a grid-stride sum issues K independent coalesced loads of
//    W bytes a lane, then adds them (the add waits for all K): K x W x 32 bytes in flight
//    a warp, times the warps an SM holds. The loop is kept rolled so that no iteration's
//    loads pass the previous add (the SASS is printed by the caller: cuobjdump -sass).
// 2. Launches. Kernels queued back to back between two events, as `warpscope bench`
//    times a plan: an empty kernel, two, ten; and a one-thread kernel queued before a
//    streaming one, against the streaming one alone.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

template <int K, class T>
__global__ void stream_sum(const T* __restrict__ in, size_t n, int* out) {
  size_t i = blockIdx.x * (size_t)blockDim.x * K + threadIdx.x;
  const size_t step = (size_t)gridDim.x * blockDim.x * K;
  int sum = 0;
#pragma unroll 1
  for (; i + (K - 1) * (size_t)blockDim.x < n; i += step) {
    T v[K];
#pragma unroll
    for (int k = 0; k < K; ++k) v[k] = in[i + k * (size_t)blockDim.x];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if constexpr (sizeof(T) == 16) sum += v[k].x + v[k].y + v[k].z + v[k].w;
      else sum += v[k];
    }
  }
  if (sum == 0x7fffffff) out[0] = sum;
}
__global__ void empty_kernel() {}
__global__ void zero_one(int* p) { if (threadIdx.x == 0) p[0] = 0; }

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median ms of `reps` timed runs of body, each between its own pair of events, all queued
// back to back after `warm` untimed runs.
template <class F>
static double time_ms(F body, int reps = 20, int warm = 3) {
  for (int i = 0; i < warm; ++i) body();
  CK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> a(reps), b(reps);
  for (int i = 0; i < reps; ++i) { CK(cudaEventCreate(&a[i])); CK(cudaEventCreate(&b[i])); }
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a[i]));
    body();
    CK(cudaEventRecord(b[i]));
  }
  CK(cudaDeviceSynchronize());
  std::vector<double> ms(reps);
  for (int i = 0; i < reps; ++i) {
    float f = 0;
    CK(cudaEventElapsedTime(&f, a[i], b[i]));
    ms[i] = f;
    CK(cudaEventDestroy(a[i]));
    CK(cudaEventDestroy(b[i]));
  }
  return median(ms);
}

template <int K, class T>
static void stream_row(const void* buf, size_t bytes, int* out, int sms, int warps_per_sm) {
  const int block = 256;
  const int blocks = sms * warps_per_sm / (block / 32);
  const size_t n = bytes / sizeof(T);
  const double ms = time_ms([&] { stream_sum<K, T><<<blocks, block>>>((const T*)buf, n, out); });
  CK(cudaGetLastError());
  const double per_warp = double(K) * sizeof(T) * 32;
  printf("stream K=%d W=%2zu warps/SM=%2d  in flight: %5.0f B a warp, %7.0f B an SM  %8.1f GB/s  (%.4f ms)\n",
         K, sizeof(T), warps_per_sm, per_warp, per_warp * warps_per_sm, double(bytes) / ms / 1e6, ms);
}

int main() {
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, 0));
  printf("%s, %d SMs\n", p.name, p.multiProcessorCount);
  const int sms = p.multiProcessorCount;
  const size_t bytes = size_t(1) << 30;  // 1 GiB: far past the 50 MB L2
  void* buf = nullptr;
  int* out = nullptr;
  CK(cudaMalloc(&buf, bytes));
  CK(cudaMemset(buf, 1, bytes));
  CK(cudaMalloc(&out, 64));

  for (int w : {64, 32, 16}) {
    stream_row<1, int>(buf, bytes, out, sms, w);
    stream_row<2, int>(buf, bytes, out, sms, w);
    stream_row<4, int>(buf, bytes, out, sms, w);
    stream_row<8, int>(buf, bytes, out, sms, w);
    stream_row<1, int4>(buf, bytes, out, sms, w);
    stream_row<2, int4>(buf, bytes, out, sms, w);
    stream_row<4, int4>(buf, bytes, out, sms, w);
  }
  // cudaMemcpy device to device of the same 1 GiB for scale (the model's copy rate).
  {
    void* dst = nullptr;
    CK(cudaMalloc(&dst, bytes / 2));
    const double ms = time_ms([&] { CK(cudaMemcpyAsync(dst, buf, bytes / 2, cudaMemcpyDeviceToDevice)); });
    printf("cudaMemcpy D2D 512 MiB: %.1f GB/s (read + write)\n", double(bytes) / ms / 1e6);
    CK(cudaFree(dst));
  }

  // Launches queued back to back, between one pair of events.
  const double one = time_ms([&] { empty_kernel<<<1, 32>>>(); }, 50);
  const double two = time_ms([&] { empty_kernel<<<1, 32>>>(); empty_kernel<<<1, 32>>>(); }, 50);
  const double ten = time_ms([&] { for (int i = 0; i < 10; ++i) empty_kernel<<<1, 32>>>(); }, 50);
  printf("empty kernel: 1 launch %.2f us, 2 launches %.2f us, 10 launches %.2f us (%.2f us each after the first)\n",
         one * 1e3, two * 1e3, ten * 1e3, (ten - one) * 1e3 / 9);
  const size_t n4 = (size_t(1) << 27) / 16;  // 128 MiB of int4: a reduction's size
  const int blocks = sms * 8;
  const double alone = time_ms([&] { stream_sum<1, int4><<<blocks, 256>>>((const int4*)buf, n4, out); });
  const double after = time_ms([&] {
    zero_one<<<1, 32>>>(out);
    stream_sum<1, int4><<<blocks, 256>>>((const int4*)buf, n4, out);
  });
  const double twice = time_ms([&] {
    stream_sum<1, int4><<<blocks, 256>>>((const int4*)buf, n4, out);
    stream_sum<1, int4><<<blocks, 256>>>((const int4*)buf, n4, out);
  });
  printf("128 MiB int4 sum: alone %.2f us; after a one-thread launch %.2f us (+%.2f); twice %.2f us (second +%.2f)\n",
         alone * 1e3, after * 1e3, (after - alone) * 1e3, twice * 1e3, (twice - 2 * alone) * 1e3);
  CK(cudaFree(buf));
  CK(cudaFree(out));
  return 0;
}
