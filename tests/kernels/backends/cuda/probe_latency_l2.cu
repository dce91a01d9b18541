// Latency and L2 probe: the constants of the model's latency and L2 parts
// (sim::DeviceModel: dram_latency_ns, l2_latency_ns, barrier_round_ns, warp_sync_ns,
// l2_read_gbps, l2_write_gbps), measured on their own, not on the calibrated kernels.
// Standalone: nvcc -arch=sm_90 -O3 probe_latency_l2.cu && ./a.out
// The H100's output (2026-11-23) is in docs/CALIBRATION.md.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

// Each warp chases its own chain of 128-byte lines: lane l reads word l of the line, the
// next line is what lane 0 read. One coalesced load in flight per warp.
__global__ void chase(const unsigned* __restrict__ buf, int hops, unsigned* out, unsigned start_stride, unsigned lines) {
  unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
  unsigned p = (unsigned)(((unsigned long long)warp * start_stride) % lines);
  unsigned acc = 0;
  for (int h = 0; h < hops; ++h) {
    unsigned v = buf[(size_t)p * 32 + lane];
    acc += v;
    p = __shfl_sync(0xffffffffu, v, 0);
  }
  if (acc == 0xdeadbeef) out[0] = acc;
}
__global__ void shared_chase(int hops, unsigned* out) {
  __shared__ unsigned s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = (i * 97 + 31) % 1024;
  __syncthreads();
  unsigned p = threadIdx.x;
  for (int h = 0; h < hops; ++h) p = s[p];
  if (p == 0xdeadbeef) out[0] = p;
}
// A tree step without the tree: load a neighbour, add, store, barrier; `iters` times.
__global__ void barrier_round(int iters, unsigned* out) {
  __shared__ unsigned s[1024];
  unsigned t = threadIdx.x;
  s[t] = t;
  __syncthreads();
  for (int i = 0; i < iters; ++i) {
    unsigned v = s[t ^ (1u + (i & 7))];
    __syncthreads();
    s[t] = v + 1;
    __syncthreads();
  }
  if (s[t] == 0xdeadbeef) out[0] = t;
}
// The same with one barrier per round (load, add, store, barrier): what a tree level costs.
__global__ void barrier_round1(int iters, unsigned* out) {
  __shared__ unsigned s[2048];
  unsigned t = threadIdx.x;
  s[t] = t; s[t + 1024] = t;
  __syncthreads();
  for (int i = 0; i < iters; ++i) {
    unsigned* src = s + ((i & 1) ? 1024 : 0);
    unsigned* dst = s + ((i & 1) ? 0 : 1024);
    dst[t] = src[t ^ 1u] + 1;
    __syncthreads();
  }
  if (s[t] == 0xdeadbeef) out[0] = t;
}
__global__ void warp_round(int iters, unsigned* out) {
  __shared__ unsigned s[1024];
  unsigned t = threadIdx.x;
  s[t] = t;
  __syncwarp();
  for (int i = 0; i < iters; ++i) {
    unsigned v = s[t ^ 1u];
    __syncwarp();
    s[t] = v + 1;
    __syncwarp();
  }
  if (s[t] == 0xdeadbeef) out[0] = t;
}
__global__ void read4(const float4* __restrict__ in, size_t n4, int passes, float* out) {
  float acc = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) { float4 v = in[i]; acc += v.x + v.y + v.z + v.w; }
  if (acc == 1234.5f) out[0] = acc;
}
__global__ void write4(float4* out, size_t n4, int passes) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) out[i] = make_float4(p, p, p, p);
}
// 4 bytes to each of 32 sectors per warp instruction: the naive transpose's store.
__global__ void write_partial(float* out, size_t nsec, int passes) {
  size_t warps = (size_t)gridDim.x * blockDim.x / 32;
  size_t w = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32; unsigned lane = threadIdx.x & 31;
  for (int p = 0; p < passes; ++p)
    for (size_t s = w * 32; s + 32 <= nsec; s += warps * 32) out[(s + lane) * 8 + (p & 7)] = p;
}
// 4 bytes from each of 32 sectors per warp instruction (the naive transpose's other side).
__global__ void read_partial(const float* in, size_t nsec, int passes, float* out) {
  size_t warps = (size_t)gridDim.x * blockDim.x / 32;
  size_t w = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32; unsigned lane = threadIdx.x & 31;
  float acc = 0;
  for (int p = 0; p < passes; ++p)
    for (size_t s = w * 32; s + 32 <= nsec; s += warps * 32) acc += in[(s + lane) * 8 + (p & 7)];
  if (acc == 1234.5f) out[0] = acc;
}
__global__ void fill_ordered(unsigned* buf, size_t lines, unsigned W) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < lines * 32; i += (size_t)gridDim.x * blockDim.x)
    buf[i] = unsigned((i / 32 + W) % lines);
}
int main() {
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  auto ms_of = [&](auto f) {
    f(); CK(cudaDeviceSynchronize());
    float best = 1e9;
    for (int r = 0; r < 5; ++r) { cudaEventRecord(e0); f(); cudaEventRecord(e1); CK(cudaEventSynchronize(e1));
      float ms; cudaEventElapsedTime(&ms, e0, e1); best = std::min(best, ms); }
    return best;
  };
  unsigned* out; CK(cudaMalloc(&out, 64));
  int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int clk = 0; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  printf("sms %d clock %.3f GHz\n", sms, clk / 1e6);
  // Chains of random lines over `lines` 128-byte lines.
  for (size_t mb : {4ull, 1024ull}) {
    size_t lines = (mb << 20) / 128;
    std::vector<unsigned> perm(lines); for (size_t i = 0; i < lines; ++i) perm[i] = i;
    std::mt19937 rng(1); std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<unsigned> host(lines * 32);
    for (size_t i = 0; i < lines; ++i) { unsigned nxt = perm[(i + 1) % lines]; for (int l = 0; l < 32; ++l) host[(size_t)perm[i] * 32 + l] = nxt; }
    unsigned* buf; CK(cudaMalloc(&buf, lines * 128)); CK(cudaMemcpy(buf, host.data(), lines * 128, cudaMemcpyHostToDevice));
    const int hops = 20000;
    unsigned ss = unsigned(lines / 7919);  // start points spread over the chain's lines
    // One warp's 20,000 hops touch 2.5 MB, which the timed repeats find in L2: this line
    // is L2's latency unloaded at every size. The loaded lines below touch it all.
    float one = ms_of([&] { chase<<<1, 32>>>(buf, hops, out, 0, lines); });
    printf("chase %5zu MB  1 warp:           %.1f ns/hop\n", mb, one * 1e6 / hops);
    for (int wps : {8, 16, 32, 64}) {
      const int h2 = 2000;
      float all = ms_of([&] { chase<<<sms * wps / 8, 256>>>(buf, h2, out, ss | 1, lines); });
      double inflight = double(sms) * wps * 128;
      printf("chase %5zu MB  %2d warps x %d SMs: %.1f ns/hop  (%.0f GB/s with %.2f MB in flight)\n", mb, wps, sms,
             all * 1e6 / h2, inflight * h2 / (all * 1e6), inflight / 1e6);
    }
    cudaFree(buf);
  }
  // Streaming in order: warp w reads lines w, w + W, w + 2W ... of 2 GB, each hop waiting
  // for the last (one coalesced 128-byte load in flight per warp), as a one-load-per-thread
  // kernel's warps do together.
  { size_t lines = (2048ull << 20) / 128; unsigned* buf; CK(cudaMalloc(&buf, lines * 128));
    for (int wps : {8, 16, 32, 64}) {
      unsigned W = sms * wps; fill_ordered<<<1024, 256>>>(buf, lines, W); CK(cudaDeviceSynchronize());
      const int h2 = int(lines / W) - 1;
      float all = ms_of([&] { chase<<<sms * wps / 8, 256>>>(buf, h2, out, 1, lines); });
      double inflight = double(W) * 128;
      printf("ordered 2 GB   %2d warps x %d SMs: %.1f ns/hop  (%.0f GB/s with %.2f MB in flight)\n", wps, sms,
             all * 1e6 / h2, inflight * h2 / (all * 1e6), inflight / 1e6);
    }
    cudaFree(buf); }
  { const int hops = 100000; float ms = ms_of([&] { shared_chase<<<1, 32>>>(hops, out); });
    printf("shared chase 1 warp: %.2f ns/hop = %.1f clocks\n", ms * 1e6 / hops, ms * 1e6 / hops * clk / 1e6); }
  for (int threads : {256, 512, 1024}) {
    const int it = 20000;
    float one = ms_of([&] { barrier_round1<<<1, threads>>>(it, out); });
    float full = ms_of([&] { barrier_round1<<<sms * (2048 / threads), threads>>>(it, out); });
    float two = ms_of([&] { barrier_round<<<1, threads>>>(it, out); });
    printf("round (ld, add, st, 1 barrier) block %4d: %.1f ns alone, %.1f ns with 2048 threads/SM; 2-barrier round %.1f ns\n",
           threads, one * 1e6 / it, full * 1e6 / it, two * 1e6 / it);
  }
  { const int it = 20000; float one = ms_of([&] { warp_round<<<1, 32>>>(it, out); });
    printf("warp round (ld, syncwarp, st, syncwarp): %.1f ns\n", one * 1e6 / it); }
  // L2-resident rates: 16 MB, 20 passes.
  size_t bytes = 16u << 20; float* b; CK(cudaMalloc(&b, bytes)); CK(cudaMemset(b, 0, bytes));
  const int passes = 20; int grid = sms * 8;
  float r = ms_of([&] { read4<<<grid, 256>>>((const float4*)b, bytes / 16, passes, (float*)out); });
  printf("L2 read float4 16 MB: %.0f GB/s\n", double(bytes) * passes / (r * 1e6));
  float w = ms_of([&] { write4<<<grid, 256>>>((float4*)b, bytes / 16, passes); });
  printf("L2 write float4 16 MB: %.0f GB/s\n", double(bytes) * passes / (w * 1e6));
  size_t nsec = bytes / 32;
  float wp = ms_of([&] { write_partial<<<grid, 256>>>(b, nsec, passes); });
  printf("L2 partial-sector writes (4 B per sector, 32 sectors a warp): %.2f G sectors/s = %.0f GB/s of sectors\n",
         double(nsec) * passes / (wp * 1e6), double(nsec) * 32 * passes / (wp * 1e6));
  float rp = ms_of([&] { read_partial<<<grid, 256>>>(b, nsec, passes, (float*)out); });
  printf("L2 partial-sector reads (4 B per sector, 32 sectors a warp): %.2f G sectors/s = %.0f GB/s of sectors\n",
         double(nsec) * passes / (rp * 1e6), double(nsec) * 32 * passes / (rp * 1e6));
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
