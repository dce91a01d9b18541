// Atomic throughput probe: what the model's atomic part needs (sim::DeviceModel: how fast
// the L2 applies updates to one address and to many, and how fast an SM's shared memory
// does), measured on kernels of its own, not on the histograms it is checked against.
// Standalone: nvcc -arch=sm_90 -O3 probe_atomics.cu && ./a.out
// The H100's output is in docs/CALIBRATION.md.
//
// 1. Global. 2^24 updates (one atomicAdd per thread, its result unused: RED on sm_90, or
//    used: ATOM), to addresses chosen per pattern: all on one word, each warp on its own
//    word, the 32 lanes on 32 words of one line shared by every warp, uniform over B words
//    (a hash of the thread index, as a histogram of even data), every thread its own word.
//    Printed: updates per second, and the hottest word's updates over the time (ns an
//    update of one word).
// 2. Shared. One wave of 256-thread blocks, each thread 512 updates of its block's
//    array: the same patterns within a block, with +1 (ATOMS.POPC.INC: the warp's lanes on
//    one word are one update) and with a variable value (ATOMS.ADD).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

enum Pattern { kOne = 0, kWarpWord = 1, kLaneLine = 2, kUniform = 3, kDistinct = 4, kLaneBank = 5 };
static const char* name(int p) {
  switch (p) {
    case kOne: return "one word";
    case kWarpWord: return "a word per warp";
    case kLaneLine: return "lanes on 32 words of one line";
    case kUniform: return "uniform over B words";
    case kDistinct: return "every thread its own word";
    case kLaneBank: return "lanes on 32 words of one bank";
  }
  return "?";
}

__host__ __device__ inline unsigned hash(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}
__host__ __device__ inline unsigned word_of(int p, unsigned i, unsigned bins) {
  switch (p) {
    case kOne: return 0;
    case kWarpWord: return (i / 32) % bins;
    case kLaneLine: return i % 32;
    case kUniform: return hash(i) % bins;
    case kDistinct: return i;
    case kLaneBank: return (i % 32) * 32;
  }
  return 0;
}

template <bool Used>
__global__ void global_atomics(unsigned* hist, unsigned* sink, int p, unsigned bins) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if constexpr (Used) {
    const unsigned old = atomicAdd(hist + word_of(p, i, bins), 1u);
    if (old == 0xFFFFFFFFu) sink[0] = i;  // never true: keeps the result used (ATOM)
  } else {
    atomicAdd(hist + word_of(p, i, bins), 1u);  // result unused: RED
  }
}

constexpr int kSharedIters = 512;
template <bool One>
__global__ void shared_atomics(unsigned* out, int p, unsigned bins) {
  extern __shared__ unsigned s[];
  for (unsigned b = threadIdx.x; b < bins; b += blockDim.x) s[b] = 0;
  __syncthreads();
  const unsigned v = One ? 1u : (threadIdx.x & 1u) + 1u;
#pragma unroll 1
  for (int k = 0; k < kSharedIters; ++k) {
    const unsigned i = threadIdx.x + blockDim.x * (blockIdx.x * kSharedIters + k);
    atomicAdd(s + word_of(p, i, bins) % bins, v);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < bins; b += blockDim.x)
    if (s[b] == 0xFFFFFFFFu) out[b] = s[b];
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
template <class F>
static double time_ms(F body, int reps = 9, int warm = 2) {
  for (int i = 0; i < warm; ++i) body();
  CK(cudaDeviceSynchronize());
  std::vector<double> ms;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a));
    body();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t = 0;
    CK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  return median(ms);
}

// The most updates one word receives (host replay of word_of).
static unsigned long long hottest(int p, unsigned n, unsigned bins, unsigned modulo) {
  if (p == kDistinct) return 1;
  std::vector<unsigned long long> c(std::max(bins, 32u * 32u + 1), 0);
  for (unsigned i = 0; i < n; ++i) {
    unsigned w = word_of(p, i, bins);
    if (modulo) w %= modulo;
    ++c[w % c.size()];
  }
  return *std::max_element(c.begin(), c.end());
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  const unsigned n = 1u << 24;
  unsigned *hist, *sink;
  CK(cudaMalloc(&hist, sizeof(unsigned) * n));
  CK(cudaMalloc(&sink, sizeof(unsigned) * 4096));
  CK(cudaMemset(hist, 0, sizeof(unsigned) * n));
  printf("\n== global atomics, %u updates (one a thread, 256-thread blocks)\n", n);
  printf("%-34s %8s %5s %10s %12s %12s %14s\n", "pattern", "B", "op", "ms", "G updates/s",
         "hottest", "ns/hot update");
  struct G { int p; unsigned bins; };
  const G gs[] = {{kOne, 1},      {kWarpWord, 1 << 16}, {kLaneLine, 32},      {kUniform, 32},
                  {kUniform, 256}, {kUniform, 1024},    {kUniform, 4096},     {kUniform, 65536},
                  {kUniform, 1 << 20}, {kDistinct, n}};
  for (const G& g : gs)
    for (int used = 0; used < 2; ++used) {
      if (used && !(g.p == kOne || (g.p == kUniform && g.bins == 256) || g.p == kDistinct)) continue;
      const double ms = time_ms([&] {
        if (used) global_atomics<true><<<n / 256, 256>>>(hist, sink, g.p, g.bins);
        else global_atomics<false><<<n / 256, 256>>>(hist, sink, g.p, g.bins);
      });
      CK(cudaGetLastError());
      const unsigned long long hot = hottest(g.p, n, g.bins, 0);
      printf("%-34s %8u %5s %10.4f %12.3f %12llu %14.3f\n", name(g.p), g.bins, used ? "ATOM" : "RED",
             ms, n / (ms * 1e6), hot, ms * 1e6 / double(hot));
    }

  const int blocks = prop.multiProcessorCount * 8, threads = 256;
  const double sn = double(blocks) * threads * kSharedIters;
  printf("\n== shared atomics, one wave: %d blocks x %d threads x %d updates = %.0f\n", blocks,
         threads, kSharedIters, sn);
  printf("%-34s %8s %6s %10s %12s %16s %16s\n", "pattern", "B", "value", "ms",
         "G updates/s", "hottest/block", "ns/hot update");
  struct S { int p; unsigned bins; };
  const S ss[] = {{kOne, 1},        {kLaneLine, 32},  {kLaneBank, 1024}, {kWarpWord, 8},
                  {kUniform, 32},   {kUniform, 256},  {kUniform, 1024},  {kUniform, 4096}};
  for (const S& s : ss)
    for (int one = 1; one >= 0; --one) {
      const size_t smem = sizeof(unsigned) * s.bins;
      const double ms = time_ms([&] {
        if (one) shared_atomics<true><<<blocks, threads, smem>>>(sink, s.p, s.bins);
        else shared_atomics<false><<<blocks, threads, smem>>>(sink, s.p, s.bins);
      });
      CK(cudaGetLastError());
      // The hottest word of block 0 (the blocks' patterns are alike).
      std::vector<unsigned long long> c(s.bins, 0);
      for (int k = 0; k < kSharedIters; ++k)
        for (int t = 0; t < threads; ++t) ++c[word_of(s.p, t + threads * k, s.bins) % s.bins];
      const unsigned long long hot = *std::max_element(c.begin(), c.end());
      printf("%-34s %8u %6s %10.4f %12.3f %16llu %16.3f\n", name(s.p), s.bins, one ? "+1" : "var", ms,
             sn / (ms * 1e6), hot, ms * 1e6 / double(hot));
    }
  return 0;
}
