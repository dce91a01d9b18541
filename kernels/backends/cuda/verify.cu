// Verification on the device: the output of a large run is checked where it lies,
// against a trusted reference computed on the GPU (a plain kernel for gathers and
// transposes and async_copy's smoothing, CUB for block sums, cuBLAS for matrix products,
// FP32 and FP16). Only the mismatch count
// and the first wrong element come back. tests/kernels/cuda holds each one equal to its
// CPU form (check_reference in kernels/catalogue/catalogue.cpp).
#include <cub/device/device_segmented_reduce.cuh>

#include <cmath>
#include <cstring>

#include "kernels/backends/cuda/common.h"
#include "kernels/backends/cuda/cuda_backend.h"
#include "sim/smooth.h"

namespace ws::cuda {
namespace {

// Mismatches and the lowest wrong index, as the CPU reports them.
struct Tally {
  unsigned long long mismatches;
  unsigned long long first;  // ~0 when none
  double got, want;          // at `first`, written by the host after the fact
};

__device__ void wrong(Tally* t, std::uint64_t i) {
  atomicAdd(&t->mismatches, 1ull);
  atomicMin(&t->first, (unsigned long long)i);
}

#define WS_GRID_LOOP(i, n)                                                              \
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < (n); \
       i += std::uint64_t(gridDim.x) * blockDim.x)

__global__ void gather_check(const std::uint32_t* in, const std::uint32_t* out,
                             std::uint64_t count, std::uint64_t step, std::uint64_t shift,
                             unsigned words, Tally* t) {
  WS_GRID_LOOP(i, count) {
    const std::uint32_t* o = out + i * words;
    const std::uint32_t* w = in + (i * step + shift) * words;
    bool same = true;
    for (unsigned k = 0; k < words; ++k) same = same && o[k] == w[k];
    if (!same) wrong(t, i);
  }
}

__global__ void transpose_check(const std::uint32_t* in, const std::uint32_t* out,
                                std::uint64_t n, Tally* t) {
  WS_GRID_LOOP(i, n * n) {
    const std::uint64_t x = i / n, y = i % n;  // out[x][y] = in[y][x]
    if (out[i] != in[y * n + x]) wrong(t, i);
  }
}

__global__ void run_offsets(int* off, std::uint64_t runs, std::uint64_t div, std::uint64_t count) {
  WS_GRID_LOOP(r, runs + 1) off[r] = int(r * div < count ? r * div : count);
}

// Block k's sum: the runs r with r % groups == k (each run a CUB segment sum).
__global__ void block_sums_check(const long long* run_sums, std::uint64_t runs,
                                 std::uint64_t groups, const int* out, long long* want,
                                 Tally* t) {
  WS_GRID_LOOP(k, groups) {
    long long s = 0;
    for (std::uint64_t r = k; r < runs; r += groups) s += run_sums[r];
    want[k] = s;
    if ((long long)out[k] != s) wrong(t, k);
  }
}

__global__ void absolute(const float* in, float* out, std::uint64_t n) {
  WS_GRID_LOOP(i, n) out[i] = fabsf(in[i]);
}

// Halves' magnitudes: the sign bit cleared.
__global__ void absolute_halves(const std::uint16_t* in, std::uint16_t* out, std::uint64_t n) {
  WS_GRID_LOOP(i, n) out[i] = in[i] & 0x7FFFu;
}

// The tolerance of check_reference's Gemm: ulps sqrt(n) ulps of sum |a||b| (+1e-6).
__global__ void gemm_check(const float* c, const float* ref, const float* mag, std::uint64_t n,
                           std::uint32_t ulps, Tally* t) {
  const double tol = double(ulps) * sqrt(double(n)) * 1.1920928955078125e-07;
  WS_GRID_LOOP(i, n * n) {
    const double d = fabs(double(c[i]) - double(ref[i]));
    if (!(d <= tol * double(mag[i]) + 1e-6)) wrong(t, i);
  }
}

// The reference histogram: each block counts in shared memory, the lanes of a warp with the
// same value adding once (so skewed data does not serialise), then adds its counts to `want`.
__global__ void histogram_ref(const std::uint32_t* in, std::uint64_t n, std::uint32_t bins,
                              unsigned long long* want) {
  extern __shared__ unsigned local[];
  for (unsigned b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0u;
  __syncthreads();
  WS_GRID_LOOP(i, n) {
    const std::uint32_t v = in[i];
    const unsigned same = __match_any_sync(__activemask(), v);
    if (v < bins && (threadIdx.x & 31u) == unsigned(__ffs(int(same)) - 1)) atomicAdd(&local[v], unsigned(__popc(same)));
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < bins; b += blockDim.x)
    if (local[b]) atomicAdd(&want[b], (unsigned long long)local[b]);
}

__global__ void histogram_check(const std::uint32_t* out, const unsigned long long* want,
                                std::uint64_t bins, Tally* t) {
  WS_GRID_LOOP(k, bins) {
    if ((unsigned long long)out[k] != want[k]) wrong(t, k);
  }
}

// Weighted: bin v gets w[i] for every in[i] == v; sums wrap at 2^32 as the kernels' do, so
// the reference keeps 64 bits and the check compares the low 32.
__global__ void weighted_histogram_ref(const std::uint32_t* in, const std::uint32_t* w, std::uint64_t n,
                                       std::uint32_t bins, unsigned long long* want) {
  extern __shared__ unsigned long long local64[];
  for (unsigned b = threadIdx.x; b < bins; b += blockDim.x) local64[b] = 0ull;
  __syncthreads();
  WS_GRID_LOOP(i, n) {
    const std::uint32_t v = in[i];
    if (v < bins) atomicAdd(&local64[v], (unsigned long long)w[i]);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < bins; b += blockDim.x)
    if (local64[b]) atomicAdd(&want[b], local64[b]);
}

__global__ void weighted_histogram_check(const std::uint32_t* out, const unsigned long long* want,
                                         std::uint64_t bins, Tally* t) {
  WS_GRID_LOOP(k, bins) {
    if (out[k] != std::uint32_t(want[k])) wrong(t, k);
  }
}

// async_copy's output, float by float, exactly: sim::smooth of the float and the same lane
// of the next float4 in its tile of `tile` float4s (wrapping).
__global__ void smooth_check(const float* in, const float* out, std::uint64_t count, std::uint64_t tile,
                             int work, Tally* t) {
  WS_GRID_LOOP(e, count) {
    const float want = sim::smooth(in[e], in[sim::smooth_neighbour(e, tile)], work);
    if (__float_as_uint(want) != __float_as_uint(out[e])) wrong(t, e);
  }
}

double word_as_float(std::uint32_t w) {
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}

}  // namespace

CheckResult DeviceVerifier::check(const Reference& ref, const DeviceArrays& d, cudaStream_t s,
                                  Cublas& blas) {
  scratch_.release_all();
  auto* tally = static_cast<Tally*>(scratch_.acquire(sizeof(Tally), "the verification tally"));
  const Tally init{0, ~0ull, 0, 0};
  cuda::check(cudaMemcpyAsync(tally, &init, sizeof init, cudaMemcpyHostToDevice, s),
        "cudaMemcpyAsync(tally)");
  const dim3 grid(2048), block(256);
  // What the host reads at the first wrong index: (device pointer of got, of want, as).
  const void* got_at = nullptr;
  std::uint64_t got_stride = 4;
  enum { Float, Int } as = Float;
  const float* ref_buf = nullptr;
  long long* want_dev = nullptr;
  switch (ref.kind) {
    case RefKind::None: throw Failure{"no GPU reference for this variant"};
    case RefKind::Gather: {
      const unsigned words = ref.elem / 4;
      gather_check<<<grid, block, 0, s>>>(static_cast<const std::uint32_t*>(d.ptr.at(ref.a)),
                                          static_cast<const std::uint32_t*>(d.ptr.at(ref.out)),
                                          ref.count, ref.step, ref.shift, words, tally);
      got_at = d.ptr.at(ref.out);
      got_stride = ref.elem;
      break;
    }
    case RefKind::Transpose:
      transpose_check<<<grid, block, 0, s>>>(static_cast<const std::uint32_t*>(d.ptr.at(ref.a)),
                                             static_cast<const std::uint32_t*>(d.ptr.at(ref.out)),
                                             ref.n, tally);
      got_at = d.ptr.at(ref.out);
      break;
    case RefKind::BlockSums: {
      const std::uint64_t runs = (ref.count + ref.div - 1) / ref.div;
      auto* off = static_cast<int*>(scratch_.acquire((runs + 1) * sizeof(int), "segment offsets"));
      auto* sums = static_cast<long long*>(
          scratch_.acquire(runs * sizeof(long long), "segment sums"));
      want_dev = static_cast<long long*>(
          scratch_.acquire(ref.groups * sizeof(long long), "the reference block sums"));
      run_offsets<<<grid, block, 0, s>>>(off, runs, ref.div, ref.count);
      const int* in = static_cast<const int*>(d.ptr.at(ref.a));
      std::size_t temp_bytes = 0;
      cuda::check(cub::DeviceSegmentedReduce::Sum(nullptr, temp_bytes, in, sums, int(runs), off,
                                            off + 1, s),
            "cub::DeviceSegmentedReduce::Sum (temporary storage size)");
      void* temp = scratch_.acquire(std::max<std::size_t>(temp_bytes, 1), "CUB's temporary storage");
      cuda::check(cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in, sums, int(runs), off, off + 1, s),
            "cub::DeviceSegmentedReduce::Sum");
      block_sums_check<<<grid, block, 0, s>>>(sums, runs, ref.groups,
                                              static_cast<const int*>(d.ptr.at(ref.out)), want_dev,
                                              tally);
      got_at = d.ptr.at(ref.out);
      as = Int;
      break;
    }
    case RefKind::Histogram: {
      want_dev = static_cast<long long*>(
          scratch_.acquire(std::max<std::uint64_t>(ref.groups, 1) * sizeof(long long), "the reference histogram"));
      cuda::check(cudaMemsetAsync(want_dev, 0, ref.groups * sizeof(long long), s), "cudaMemsetAsync(reference histogram)");
      auto* want = reinterpret_cast<unsigned long long*>(want_dev);
      histogram_ref<<<grid, block, std::size_t(ref.groups) * 4, s>>>(
          static_cast<const std::uint32_t*>(d.ptr.at(ref.a)), ref.count, std::uint32_t(ref.groups), want);
      histogram_check<<<grid, block, 0, s>>>(static_cast<const std::uint32_t*>(d.ptr.at(ref.out)), want,
                                             ref.groups, tally);
      got_at = d.ptr.at(ref.out);
      as = Int;
      break;
    }
    case RefKind::WeightedHistogram: {
      want_dev = static_cast<long long*>(
          scratch_.acquire(std::max<std::uint64_t>(ref.groups, 1) * sizeof(long long), "the reference histogram"));
      cuda::check(cudaMemsetAsync(want_dev, 0, ref.groups * sizeof(long long), s), "cudaMemsetAsync(reference histogram)");
      auto* want = reinterpret_cast<unsigned long long*>(want_dev);
      weighted_histogram_ref<<<grid, block, std::size_t(ref.groups) * 8, s>>>(
          static_cast<const std::uint32_t*>(d.ptr.at(ref.a)), static_cast<const std::uint32_t*>(d.ptr.at(ref.b)),
          ref.count, std::uint32_t(ref.groups), want);
      weighted_histogram_check<<<grid, block, 0, s>>>(static_cast<const std::uint32_t*>(d.ptr.at(ref.out)), want,
                                                      ref.groups, tally);
      got_at = d.ptr.at(ref.out);
      as = Int;
      break;
    }
    case RefKind::Smooth:
      smooth_check<<<grid, block, 0, s>>>(static_cast<const float*>(d.ptr.at(ref.a)),
                                          static_cast<const float*>(d.ptr.at(ref.out)), ref.count,
                                          ref.div, int(ref.work), tally);
      got_at = d.ptr.at(ref.out);
      break;
    case RefKind::GemmHalf: {
      const std::uint64_t nn = ref.n * ref.n;
      auto* C = static_cast<float*>(scratch_.acquire(nn * 4, "cuBLAS's product"));
      auto* M = static_cast<float*>(scratch_.acquire(nn * 4, "the tolerance's sum |a||b|"));
      auto* absA = static_cast<std::uint16_t*>(scratch_.acquire(nn * 2, "|A|"));
      auto* absB = static_cast<std::uint16_t*>(scratch_.acquire(nn * 2, "|B|"));
      const auto* A = static_cast<const std::uint16_t*>(d.ptr.at(ref.a));
      const auto* B = static_cast<const std::uint16_t*>(d.ptr.at(ref.b));
      absolute_halves<<<grid, block, 0, s>>>(A, absA, nn);
      absolute_halves<<<grid, block, 0, s>>>(B, absB, nn);
      cublasHandle_t h = blas.get(s);
      const float one = 1.f, zero = 0.f;
      const int n = int(ref.n);
      // Row-major C = A B^T is column-major C^T = B A^T: cuBLAS sees the buffers of B and A
      // as B^T and A^T, so B's is transposed back and A's taken as it is. FP32 compute.
      auto gemm = [&](const void* b, const void* a, float* c, const char* what) {
        cublas_check(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, b, CUDA_R_16F, n, a, CUDA_R_16F,
                                  n, &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     what);
      };
      gemm(B, A, C, "cublasGemmEx (reference)");
      gemm(absB, absA, M, "cublasGemmEx (tolerance)");
      gemm_check<<<grid, block, 0, s>>>(static_cast<const float*>(d.ptr.at(ref.out)), C, M, ref.n,
                                        ref.ulps, tally);
      got_at = d.ptr.at(ref.out);
      ref_buf = C;
      break;
    }
    case RefKind::Gemm: {
      const std::uint64_t nn = ref.n * ref.n;
      auto* C = static_cast<float*>(scratch_.acquire(nn * 4, "cuBLAS's product"));
      auto* M = static_cast<float*>(scratch_.acquire(nn * 4, "the tolerance's sum |a||b|"));
      auto* absA = static_cast<float*>(scratch_.acquire(nn * 4, "|A|"));
      auto* absB = static_cast<float*>(scratch_.acquire(nn * 4, "|B|"));
      const auto* A = static_cast<const float*>(d.ptr.at(ref.a));
      const auto* B = static_cast<const float*>(d.ptr.at(ref.b));
      absolute<<<grid, block, 0, s>>>(A, absA, nn);
      absolute<<<grid, block, 0, s>>>(B, absB, nn);
      cublasHandle_t h = blas.get(s);
      const float one = 1.f, zero = 0.f;
      const int n = int(ref.n);
      // Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
      cublas_check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n),
                   "cublasSgemm (reference)");
      cublas_check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, absB, n, absA, n, &zero,
                               M, n),
                   "cublasSgemm (tolerance)");
      gemm_check<<<grid, block, 0, s>>>(static_cast<const float*>(d.ptr.at(ref.out)), C, M,
                                        ref.n, ref.ulps, tally);
      got_at = d.ptr.at(ref.out);
      ref_buf = C;
      break;
    }
  }
  cuda::check(cudaGetLastError(), "verification kernel launch");
  Tally t{};
  cuda::check(cudaMemcpyAsync(&t, tally, sizeof t, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync(tally)");
  cuda::check(cudaStreamSynchronize(s), "cudaStreamSynchronize (verification)");
  CheckResult r;
  r.mismatches = t.mismatches;
  if (t.mismatches == 0) return r;
  r.first = std::int64_t(t.first);
  auto fetch = [&](const void* base, std::uint64_t byte_off, void* dst, std::size_t n) {
    cuda::check(cudaMemcpy(dst, static_cast<const char*>(base) + byte_off, n, cudaMemcpyDeviceToHost),
          "cudaMemcpy(first wrong element)");
  };
  std::uint32_t g = 0;
  fetch(got_at, t.first * got_stride, &g, 4);
  r.got = as == Int ? double(int(g)) : word_as_float(g);
  switch (ref.kind) {
    case RefKind::Gather: {
      std::uint32_t w = 0;
      fetch(d.ptr.at(ref.a), (t.first * ref.step + ref.shift) * ref.elem, &w, 4);
      r.want = word_as_float(w);
      break;
    }
    case RefKind::Transpose: {
      std::uint32_t w = 0;
      const std::uint64_t x = t.first / ref.n, y = t.first % ref.n;
      fetch(d.ptr.at(ref.a), (y * ref.n + x) * 4, &w, 4);
      r.want = word_as_float(w);
      break;
    }
    case RefKind::BlockSums:
    case RefKind::Histogram: {
      long long w = 0;
      fetch(want_dev, t.first * 8, &w, 8);
      r.want = double(w);
      break;
    }
    case RefKind::WeightedHistogram: {
      unsigned long long w = 0;
      fetch(want_dev, t.first * 8, &w, 8);
      r.want = double(std::uint32_t(w));
      break;
    }
    case RefKind::Gemm:
    case RefKind::GemmHalf: {
      float w = 0;
      fetch(ref_buf, t.first * 4, &w, 4);
      r.want = w;
      break;
    }
    case RefKind::Smooth: {
      float x = 0, y = 0;
      fetch(d.ptr.at(ref.a), t.first * 4, &x, 4);
      fetch(d.ptr.at(ref.a), sim::smooth_neighbour(t.first, ref.div) * 4, &y, 4);
      r.want = sim::smooth(x, y, int(ref.work));
      break;
    }
    default: break;
  }
  return r;
}

CheckResult check_on_device(const Reference& ref, const HostArrays& h, std::string& error) {
  error.clear();
  cudaStream_t s = nullptr;
  try {
    cuda::check(cudaStreamCreate(&s), "cudaStreamCreate");
    BufferPool pool;
    DeviceArrays d;
    for (const auto& a : h.data) {
      d.ptr.push_back(pool.acquire(a.size(), "a test array"));
      d.count.push_back(a.size());
      cuda::check(cudaMemcpyAsync(d.ptr.back(), a.data(), a.size(), cudaMemcpyHostToDevice, s),
                  "cudaMemcpyAsync(test array)");
    }
    Cublas blas;
    DeviceVerifier v;
    CheckResult r = v.check(ref, d, s, blas);
    cudaStreamDestroy(s);
    return r;
  } catch (const Failure& f) {
    error = f.what;
  }
  if (s) cudaStreamDestroy(s);
  return {};
}

}  // namespace ws::cuda
