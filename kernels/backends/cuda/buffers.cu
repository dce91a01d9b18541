// Device memory of the CUDA backend: one-owner buffers, the pool that keeps a run's
// arrays for the next run of the same size, and the inputs made on the device.
#include <cstdint>
#include <memory>

#include "kernels/backends/cuda/common.h"
#include "sim/inputs.h"

namespace ws::cuda {

// Every array starts on a 2 MiB boundary (a GPU large page). The L2 slice that serves an
// address is a hash of its bits, so a small array placed after whatever came before it can
// land its lines on shared slices or on distinct ones: on the H100, 2^26 global atomics on
// 256 bins (a 1 KB array, 8 lines) took 8.3 ms in one process and 17.3 ms in another, the
// same kernel and data. At a fixed offset in a page the run does not depend on its history.
constexpr std::size_t kPageBytes = std::size_t(2) << 20;

void DeviceBuffer::allocate(std::size_t bytes, const std::string& what) {
  release();
  const std::size_t pages = (std::max<std::size_t>(bytes, 1) + kPageBytes - 1) / kPageBytes;
  cudaError_t e = cudaMalloc(&base_, (pages + 1) * kPageBytes);
  if (e == cudaSuccess) {
    const auto a = reinterpret_cast<std::uintptr_t>(base_);
    p_ = reinterpret_cast<void*>((a + kPageBytes - 1) / kPageBytes * kPageBytes);
  }
  if (e != cudaSuccess) {
    p_ = base_ = nullptr;
    cudaGetLastError();  // clear a non-sticky allocation error
    std::size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    throw Failure{"not enough GPU memory for " + what + " (" + mb(bytes) + " asked, " +
                  mb(free_b) + " free): " + cuda_error_text("cudaMalloc", e)};
  }
  bytes_ = bytes;
}

void DeviceBuffer::release() {
  if (base_) cudaFree(base_);
  p_ = base_ = nullptr;
  bytes_ = 0;
}

Timing summarize(std::vector<double> samples_ms) {
  Timing t;
  t.source.source = sim::Source::Measured;  // the backend names the device (CudaBackend)
  t.samples_ms = samples_ms;
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t n = samples_ms.size();
  if (n == 0) return t;
  t.median_ms = n % 2 ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
  t.min_ms = samples_ms.front();
  t.max_ms = samples_ms.back();
  return t;
}

Cublas::~Cublas() {
  if (h_) cublasDestroy(h_);
}

void cublas_check(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Failure{std::string(call) + ": " + cublasGetStatusString(s)};
}

cublasHandle_t Cublas::get(cudaStream_t s) {
  if (!h_) {
    cublasStatus_t st = cublasCreate(&h_);
    if (st != CUBLAS_STATUS_SUCCESS) {
      h_ = nullptr;
      throw Failure{std::string("cublasCreate: ") + cublasGetStatusString(st)};
    }
  }
  cublas_check(cublasSetStream(h_, s), "cublasSetStream");
  cublas_check(cublasSetMathMode(h_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  return h_;
}

void* BufferPool::acquire(std::size_t bytes, const std::string& what) {
  for (Entry& e : entries_)
    if (!e.in_use && e.buf->bytes() == bytes) {
      e.in_use = true;
      return e.buf->get();
    }
  auto buf = std::make_unique<DeviceBuffer>();
  std::size_t free_b = 0, total_b = 0;
  check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  // Buffers of other sizes give way before a new size is refused.
  if (bytes + (64u << 20) > free_b) {
    std::vector<Entry> kept;
    for (Entry& e : entries_)
      if (e.in_use) kept.push_back(std::move(e));
    entries_ = std::move(kept);
  }
  buf->allocate(bytes, what);
  entries_.push_back({std::move(buf), true});
  return entries_.back().buf->get();
}

void BufferPool::release_all() {
  for (Entry& e : entries_) e.in_use = false;
}

void BufferPool::clear() { entries_.clear(); }

std::size_t BufferPool::held_bytes() const {
  std::size_t b = 0;
  for (const Entry& e : entries_) b += e.buf->bytes();
  return b;
}

namespace {

__global__ void fill_words(std::uint32_t* p, std::uint64_t words, InputGen g, std::uint64_t seed,
                           std::uint32_t stream) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < words;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    p[i] = input_word(g, seed, stream, i);
}

}  // namespace

void make_inputs(const Plan& plan, std::uint64_t seed, const DeviceArrays& d, cudaStream_t s) {
  for (std::size_t i = 0; i < plan.arrays.size(); ++i) {
    const ArraySpec& a = plan.arrays[i];
    const std::size_t bytes = std::size_t(a.count) * a.elem_bytes;
    if (a.output || a.gen.fill == Fill::None) {
      check(cudaMemsetAsync(d.ptr[i], a.output ? 0xFF : 0, bytes, s),
            "cudaMemsetAsync(poison output)");
      continue;
    }
    fill_words<<<2048, 256, 0, s>>>(static_cast<std::uint32_t*>(d.ptr[i]), bytes / 4, a.gen,
                                    seed, std::uint32_t(i));
    check(cudaGetLastError(), "fill_words launch");
  }
}

}  // namespace ws::cuda
