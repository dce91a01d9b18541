// The peers: library routines timed beside our kernels at the same size (a device-to-
// device copy, CUB's reduction, cuBLAS's SGEMM). Their buffers come from the backend's
// pool, so a peer measured again at the same size allocates nothing.
#include <cub/device/device_reduce.cuh>

#include <cmath>
#include <cstring>

#include "kernels/backends/cuda/common.h"
#include "sim/half.h"
#include "sim/inputs.h"

namespace ws::cuda {
namespace {

std::string param_or(const Params& p, const char* key, long long& out) {
  auto it = p.find(key);
  if (it == p.end()) return std::string("missing parameter ") + key;
  out = it->second;
  return "";
}

void fits(std::uint64_t bytes, const char* what, const BufferPool& pool) {
  std::size_t free_b = 0, total_b = 0;
  check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  if (bytes > free_b + pool.held_bytes())
    throw Failure{std::string(what) + " needs " + mb(bytes) + " of GPU memory, " + mb(free_b) +
                  " is free"};
}

__global__ void fill(std::uint32_t* p, std::uint64_t n, InputGen g, std::uint32_t stream) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    p[i] = input_word(g, 1, stream, i);
}

// The sum CUB must match, by a plain kernel (64-bit partial sums, one atomic per thread).
__global__ void plain_sum(const int* in, std::uint64_t n, unsigned long long* out) {
  long long s = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    s += in[i];
  atomicAdd(out, (unsigned long long)s);
}

void fill_on(cudaStream_t s, void* p, std::uint64_t words, InputGen g, std::uint32_t stream) {
  fill<<<1024, 256, 0, s>>>(static_cast<std::uint32_t*>(p), words, g, stream);
  check(cudaGetLastError(), "fill launch");
}

// The bytes the copy moves: bytes=B, as peer_params() gives it from a run's plan (the
// CLI, the GUI, the lessons) or from the family's declared copy size (a caller holding
// only a variant's parameters).
long long copy_bytes(const Params& p) {
  long long bytes = 0;
  if (param_or(p, "bytes", bytes).empty()) return bytes;
  throw Failure{"give the copy's size as bytes=B (peer_params gives it for a run or a family)"};
}

}  // namespace

Timing peer_memcpy(const Params& p, const RunOptions& opt, cudaStream_t s, BufferPool& pool) {
  const long long bytes = copy_bytes(p);
  if (bytes <= 0) throw Failure{"the copy's size must be positive (bytes=B)"};
  fits(2ull * std::uint64_t(bytes), "the copy", pool);
  void* src = pool.acquire(std::size_t(bytes), "the copy's source");
  void* dst = pool.acquire(std::size_t(bytes), "the copy's destination");
  const std::uint64_t words = std::uint64_t(bytes) / 4;
  const InputGen g{Fill::Bits};
  fill_on(s, src, words, g, 7);
  Timing t = time_on_stream(s, std::max(opt.warmup, 1), opt.repeats, [&] {
    check(cudaMemcpyAsync(dst, src, std::size_t(bytes), cudaMemcpyDeviceToDevice, s),
          "cudaMemcpyAsync(device to device)");
  });
  // Spot-check the copy: first, middle and last words.
  for (std::uint64_t i : {std::uint64_t(0), words / 2, words ? words - 1 : 0}) {
    if (!words) break;
    std::uint32_t got = 0;
    check(cudaMemcpy(&got, static_cast<std::uint32_t*>(dst) + i, 4, cudaMemcpyDeviceToHost),
          "cudaMemcpy(check)");
    if (got != input_word(g, 1, 7, i))
      throw Failure{"the device-to-device copy returned a wrong word at " + std::to_string(i)};
  }
  t.unit = "GB/s";
  t.throughput = 2.0 * double(bytes) / (t.median_ms * 1e6);  // read + written
  return t;
}

Timing peer_cub(const Params& p, const RunOptions& opt, cudaStream_t s, BufferPool& pool) {
  long long n = 0;
  if (!param_or(p, "n", n).empty() || n <= 0 || n > (1ll << 31) - 1)
    throw Failure{"give the reduction's size as n=N ints (0 < N < 2^31)"};
  fits(std::uint64_t(n) * 4 + 64, "the reduction", pool);
  int* in = static_cast<int*>(pool.acquire(std::size_t(n) * 4, "the reduction's input"));
  int* out = static_cast<int*>(pool.acquire(4, "the reduction's output"));
  const InputGen g{Fill::IntRange, -8, 8};  // 2^31 of them cannot overflow an int
  fill_on(s, in, std::uint64_t(n), g, 11);
  std::size_t temp_bytes = 0;
  check(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, out, int(n), s),
        "cub::DeviceReduce::Sum (temporary storage size)");
  void* temp = pool.acquire(std::max<std::size_t>(temp_bytes, 1), "CUB's temporary storage");
  Timing t = time_on_stream(s, std::max(opt.warmup, 1), opt.repeats, [&] {
    check(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, int(n), s), "cub::DeviceReduce::Sum");
  });
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize (sum)");
  int got = 0;
  check(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy(sum)");
  auto* ref = static_cast<unsigned long long*>(pool.acquire(8, "the reference sum"));
  check(cudaMemsetAsync(ref, 0, 8, s), "cudaMemsetAsync(reference sum)");
  plain_sum<<<1024, 256, 0, s>>>(in, std::uint64_t(n), ref);
  check(cudaGetLastError(), "plain_sum launch");
  // The stream does not block with the legacy one that cudaMemcpy uses: wait for it.
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize (reference sum)");
  long long want = 0;
  check(cudaMemcpy(&want, ref, 8, cudaMemcpyDeviceToHost), "cudaMemcpy(reference sum)");
  if (got != want)
    throw Failure{"CUB's sum is " + std::to_string(got) + ", expected " + std::to_string(want)};
  t.unit = "GB/s";
  t.throughput = (4.0 * double(n) + 4.0) / (t.median_ms * 1e6);
  return t;
}

Timing peer_sgemm(const Params& p, const RunOptions& opt, cudaStream_t s, BufferPool& pool,
                  Cublas& blas) {
  long long n = 0;
  if (!param_or(p, "n", n).empty() || n <= 0 || n > 32768)
    throw Failure{"give the matrix side as n=N (0 < N <= 32768)"};
  const std::size_t bytes = std::size_t(n) * std::size_t(n) * 4;
  fits(3ull * bytes, "SGEMM", pool);
  auto* a = static_cast<float*>(pool.acquire(bytes, "matrix A"));
  auto* b = static_cast<float*>(pool.acquire(bytes, "matrix B"));
  auto* c = static_cast<float*>(pool.acquire(bytes, "matrix C"));
  const std::uint64_t nn = std::uint64_t(n) * std::uint64_t(n);
  const InputGen g{Fill::UnitFloat};
  fill_on(s, a, nn, g, 3);
  fill_on(s, b, nn, g, 5);
  cublasHandle_t h = blas.get(s);
  const float one = 1.f, zero = 0.f;
  const int in = int(n);
  Timing t = time_on_stream(s, std::max(opt.warmup, 1), opt.repeats, [&] {
    cublas_check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, in, in, in, &one, a, in, b, in, &zero,
                             c, in),
                 "cublasSgemm");
  });
  // Spot-check a few entries (column-major: C(i,j) = sum_k A(i,k) B(k,j)) in double.
  auto val = [&](std::uint64_t i, std::uint32_t stream) {
    const std::uint32_t w = input_word(g, 1, stream, i);
    float f;
    std::memcpy(&f, &w, 4);
    return double(f);
  };
  for (long long probe : {0ll, n / 3, n - 1}) {
    const long long i = probe, j = (probe * 7 + 1) % n;
    double want = 0, mag = 0;
    for (long long k = 0; k < n; ++k) {
      const double x = val(std::uint64_t(k * n + i), 3);
      const double y = val(std::uint64_t(j * n + k), 5);
      want += x * y;
      mag += std::fabs(x * y);
    }
    float got = 0;
    check(cudaMemcpy(&got, c + (j * n + i), 4, cudaMemcpyDeviceToHost), "cudaMemcpy(check)");
    if (!(std::fabs(got - want) <= 1e-4 * mag + 1e-6))
      throw Failure{"cuBLAS C(" + std::to_string(i) + "," + std::to_string(j) + ") = " +
                    std::to_string(got) + ", expected " + std::to_string(want)};
  }
  t.unit = "GFLOP/s";
  t.throughput = 2.0 * double(n) * double(n) * double(n) / (t.median_ms * 1e6);
  return t;
}

Timing peer_gemm_ex(const Params& p, const RunOptions& opt, cudaStream_t s, BufferPool& pool,
                    Cublas& blas) {
  long long n = 0;
  if (!param_or(p, "n", n).empty() || n <= 0 || n > 32768 || n % 2 != 0)
    throw Failure{"give the matrix side as n=N (0 < N <= 32768, even)"};
  const std::size_t nn = std::size_t(n) * std::size_t(n);
  fits(2ull * nn * 2 + nn * 4, "GemmEx", pool);
  void* a = pool.acquire(nn * 2, "matrix A (FP16)");
  void* bt = pool.acquire(nn * 2, "matrix B (FP16, column-major)");
  auto* c = static_cast<float*>(pool.acquire(nn * 4, "matrix C"));
  const InputGen g{Fill::HalfUnit};
  fill_on(s, a, nn / 2, g, 3);
  fill_on(s, bt, nn / 2, g, 5);
  cublasHandle_t h = blas.get(s);
  const float one = 1.f, zero = 0.f;
  const int in = int(n);
  // Row-major C = A B with B column-major is, column-major, C^T = Bt^T A^T: the "TN" GEMM
  // (Bt's buffer transposed, A's as it is).
  Timing t = time_on_stream(s, std::max(opt.warmup, 1), opt.repeats, [&] {
    cublas_check(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, in, in, in, &one, bt, CUDA_R_16F, in,
                              a, CUDA_R_16F, in, &zero, c, CUDA_R_32F, in, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
  });
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize (GemmEx)");
  // Spot-check a few entries: C[i][j] = sum_k A[i][k] Bt[j][k], in double from the halves.
  auto half_at = [&](std::uint64_t e, std::uint32_t stream) {
    const std::uint32_t w = input_word(g, 1, stream, e / 2);
    return double(sim::half_to_float(e % 2 ? sim::half2_hi(w) : sim::half2_lo(w)));
  };
  for (long long probe : {0ll, n / 3, n - 1}) {
    const long long i = probe, j = (probe * 7 + 1) % n;
    double want = 0, mag = 0;
    for (long long k = 0; k < n; ++k) {
      const double x = half_at(std::uint64_t(i * n + k), 3) * half_at(std::uint64_t(j * n + k), 5);
      want += x;
      mag += std::fabs(x);
    }
    float got = 0;
    check(cudaMemcpy(&got, c + (i * n + j), 4, cudaMemcpyDeviceToHost), "cudaMemcpy(check)");
    if (!(std::fabs(got - want) <= 1e-4 * mag + 1e-6))
      throw Failure{"cuBLAS GemmEx C[" + std::to_string(i) + "][" + std::to_string(j) + "] = " +
                    std::to_string(got) + ", expected " + std::to_string(want)};
  }
  t.unit = "GFLOP/s";
  t.throughput = 2.0 * double(n) * double(n) * double(n) / (t.median_ms * 1e6);
  return t;
}

}  // namespace ws::cuda
