// Shared-memory wavefront probe: one warp issues a fixed number of shared loads of one
// lane->address pattern, so Nsight Compute's wavefront counter divided by the executed
// shared-load instructions is the wavefronts the H100 spends on that pattern. The
// emulator model (sim/model.cpp) is checked against the measured table.
//
//   nvcc -arch=sm_90 -O3 -o probe_shared tests/kernels/backends/cuda/probe_shared.cu
//   ./probe_shared > patterns.json      # every launch's name, width and per-lane offsets
//   ncu --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
//   l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\
//   smsp__sass_inst_executed_op_shared_ld.sum --csv --page raw ./probe_shared
//
// Standalone on purpose: no project header, so it builds with one nvcc command.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime.h>

namespace {

constexpr int kIters = 64;          // shared loads per lane per launch
constexpr int kSharedBytes = 8192;  // covers the widest pattern (stride 8 x 31 x 16 B)

struct Offsets {
  int elem[32];  // element index per lane; -1: lane inactive
};

// A volatile shared load (ld.volatile.shared): ptxas keeps one LDS per iteration. A plain
// ld.shared in an `asm volatile` is not enough: ptxas still folds the loop's loads of one
// address into a single LDS.
template <int Bytes>
__device__ __forceinline__ unsigned load_shared(unsigned addr) {
  unsigned a, b, c, d;
  if constexpr (Bytes == 16) {
    asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr) : "memory");
    return a ^ b ^ c ^ d;
  } else if constexpr (Bytes == 8) {
    asm volatile("ld.volatile.shared.v2.u32 {%0,%1}, [%2];"
                 : "=r"(a), "=r"(b) : "r"(addr) : "memory");
    return a ^ b;
  } else {
    asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(a) : "r"(addr) : "memory");
    return a;
  }
}

// Pattern is a template argument only so that every launch carries its own name in the
// profiler's report; the offsets themselves come in as a parameter.
template <int Bytes, int Pattern>
__global__ void probe(Offsets off, unsigned* out, int iters) {
  __shared__ __align__(16) unsigned smem[kSharedBytes / 4];
  for (int i = threadIdx.x; i < kSharedBytes / 4; i += blockDim.x) smem[i] = i;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const int e = off.elem[lane];
  unsigned acc = 0;
  if (e >= 0) {
    const unsigned addr = unsigned(__cvta_generic_to_shared(smem)) + unsigned(e) * Bytes;
    for (int i = 0; i < iters; ++i) acc += load_shared<Bytes>(addr);
  }
  out[threadIdx.x] = acc;
}

struct Pattern {
  const char* name;
  Offsets off;
};

Offsets make(int (*f)(int)) {
  Offsets o{};
  for (int l = 0; l < 32; ++l) o.elem[l] = f(l);
  return o;
}

std::vector<Pattern> patterns() {
  std::vector<Pattern> p = {
      {"consecutive", make([](int l) { return l; })},
      {"all_one_address", make([](int) { return 0; })},
      {"half_broadcast_l/16", make([](int l) { return l / 16; })},
      {"l/8", make([](int l) { return l / 8; })},
      {"l/4", make([](int l) { return l / 4; })},
      {"l/2", make([](int l) { return l / 2; })},
      {"l%4", make([](int l) { return l % 4; })},
      {"l%8", make([](int l) { return l % 8; })},
      {"l%16", make([](int l) { return l % 16; })},
      {"stride2", make([](int l) { return 2 * l; })},
      {"stride4", make([](int l) { return 4 * l; })},
      {"stride8", make([](int l) { return 8 * l; })},
      {"halves_same16_second_reversed", make([](int l) { return l < 16 ? l : 31 - l; })},
      {"quarters_reversed", make([](int l) { return (3 - l / 8) * 8 + l % 8; })},
      {"q1_reads_q0_set_reversed", make([](int l) { return l < 8 ? l : l < 16 ? 15 - l : l; })},
      {"q1_overlaps_q0_by_half", make([](int l) { return l < 16 ? (l < 8 ? l : l - 4) : l; })},
      {"q0q1_same_q2q3_distinct_l/8pairs", make([](int l) { return l < 16 ? l % 8 : l; })},
      {"stride8_l%8", make([](int l) { return 8 * (l % 8); })},
      {"l%8_plus_8_in_second_half", make([](int l) { return l % 8 + (l >= 16 ? 8 : 0); })},
      {"l/2_but_lane1_reads_16", make([](int l) { return l == 1 ? 16 : l / 2; })},
      {"lane0_reads_1_others_0", make([](int l) { return l == 0 ? 1 : 0; })},
      {"misaligned_pairs_(l+1)/2", make([](int l) { return (l + 1) / 2; })},
      {"half0_l/2_half1_consecutive", make([](int l) { return l < 16 ? l / 2 : l; })},
      {"half0_consecutive_half1_pairs", make([](int l) { return l < 16 ? l : 16 + (l - 16) / 2; })},
      {"active_lo16_consecutive", make([](int l) { return l < 16 ? l : -1; })},
      {"active_even_consecutive", make([](int l) { return l % 2 == 0 ? l : -1; })},
      {"active_q0_q2_consecutive", make([](int l) { return (l / 8) % 2 == 0 ? l : -1; })},
      {"active_q0_consecutive", make([](int l) { return l < 8 ? l : -1; })},
      {"active_lo16_all_one_address", make([](int l) { return l < 16 ? 0 : -1; })},
      {"active_even_l/16", make([](int l) { return l % 2 == 0 ? l / 16 : -1; })},
  };
  // A fixed random permutation: deterministic so the JSON and the run agree.
  Offsets perm{};
  std::vector<int> v(32);
  for (int i = 0; i < 32; ++i) v[i] = i;
  std::mt19937 rng(20261117);
  std::shuffle(v.begin(), v.end(), rng);
  for (int l = 0; l < 32; ++l) perm.elem[l] = v[l];
  p.push_back({"random_permutation", perm});
  return p;
}

constexpr int kPatterns = 31;

template <int Bytes, int P>
void launch_all(const std::vector<Pattern>& ps, unsigned* out, std::string& json, bool& first) {
  if constexpr (P < kPatterns) {
    probe<Bytes, P><<<1, 32>>>(ps[P].off, out, kIters);
    char buf[64];
    json += first ? "\n" : ",\n";
    first = false;
    json += "  {\"kernel\": \"probe<" + std::to_string(Bytes) + ", " + std::to_string(P) +
            ">\", \"bytes\": " + std::to_string(Bytes) + ", \"pattern\": \"" + ps[P].name +
            "\", \"iters\": " + std::to_string(kIters) + ", \"offsets\": [";
    for (int l = 0; l < 32; ++l) {
      const int e = ps[P].off.elem[l];
      std::snprintf(buf, sizeof buf, "%s%d", l ? ", " : "", e < 0 ? -1 : e * Bytes);
      json += buf;
    }
    json += "]}";
    launch_all<Bytes, P + 1>(ps, out, json, first);
  }
}

}  // namespace

int main() {
  const auto ps = patterns();
  if (int(ps.size()) != kPatterns) {
    std::fprintf(stderr, "pattern table has %zu entries, expected %d\n", ps.size(), kPatterns);
    return 1;
  }
  unsigned* out = nullptr;
  if (cudaMalloc(&out, 32 * sizeof(unsigned)) != cudaSuccess) {
    std::fprintf(stderr, "cudaMalloc failed: no CUDA device?\n");
    return 1;
  }
  std::string json = "[";
  bool first = true;
  launch_all<4, 0>(ps, out, json, first);
  launch_all<8, 0>(ps, out, json, first);
  launch_all<16, 0>(ps, out, json, first);
  const cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(err));
    return 1;
  }
  std::printf("%s\n]\n", json.c_str());
  cudaFree(out);
  return 0;
}
