#pragma once
// What the pieces of the CUDA backend share (cuda_backend.cu, buffers, verify, trace,
// peers, device query): the failure type every CUDA call turns into, device memory,
// events and the timing loop. Internal to kernels/: nothing outside includes this.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/backends/backend.h"
#include "kernels/dialect/simt_cuda.h"
#include "sim/run_control.h"

namespace ws::cuda {

// A run's CUDA failure, carried to the top of run()/run_peer() where it becomes text.
struct Failure {
  std::string what;
};

inline void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw Failure{cuda_error_text(call, e)};
}

inline std::string mb(std::uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MB", double(bytes) / 1e6);
  return b;
}

// Device memory with one owner; allocate() throws Failure naming the array and the free
// memory when the device is out of it.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }
  void allocate(std::size_t bytes, const std::string& what);
  void release();
  void* get() const { return p_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;     // page-aligned, inside base_'s allocation
  void* base_ = nullptr;  // what cudaMalloc returned
  std::size_t bytes_ = 0;
};

class Event {
 public:
  Event() { check(cudaEventCreate(&e_), "cudaEventCreate"); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : e_(o.e_) { o.e_ = nullptr; }
  ~Event() {
    if (e_) cudaEventDestroy(e_);
  }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// Median, min and max of timing samples in milliseconds.
Timing summarize(std::vector<double> samples_ms);

// Times `body` (which queues work on `s`): warm-up, then one pair of events around each
// of `repeats` runs.
template <class F>
Timing time_on_stream(cudaStream_t s, int warmup, int repeats, F&& body) {
  // A cancel (RunControl) takes effect between batches: the kernels queued finish first.
  throw_if_cancelled();
  for (int i = 0; i < warmup; ++i) body();
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize (warm-up)");
  throw_if_cancelled();
  repeats = std::max(repeats, 1);
  std::vector<Event> start(repeats), stop(repeats);
  for (int i = 0; i < repeats; ++i) {
    check(cudaEventRecord(start[i].get(), s), "cudaEventRecord");
    body();
    check(cudaEventRecord(stop[i].get(), s), "cudaEventRecord");
  }
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize (timed runs)");
  std::vector<double> samples;
  for (int i = 0; i < repeats; ++i) {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start[i].get(), stop[i].get()), "cudaEventElapsedTime");
    samples.push_back(ms);
  }
  return summarize(std::move(samples));
}

// One cuBLAS handle per backend, made on first use, bound to the backend's stream, plain
// FP32 (no TF32 tensor-core shortcut: it does the arithmetic our kernels do).
class Cublas {
 public:
  ~Cublas();
  cublasHandle_t get(cudaStream_t s);

 private:
  cublasHandle_t h_ = nullptr;
};
void cublas_check(cublasStatus_t s, const char* call);

// --- buffers.cu: the arrays of runs, allocated once per size and reused ---
class BufferPool {
 public:
  // A buffer of exactly `bytes` not handed out since release_all(); allocated when there
  // is none (freeing the unused ones first when the device is short of memory).
  void* acquire(std::size_t bytes, const std::string& what);
  void release_all();  // every buffer may be handed out again (none is freed)
  void clear();        // frees them all
  std::size_t held_bytes() const;

 private:
  struct Entry {
    std::unique_ptr<DeviceBuffer> buf;
    bool in_use = false;
  };
  std::vector<Entry> entries_;
};

// The inputs of `plan` made on the device from the seed (sim/inputs.h, the emulator's
// values), outputs poisoned (all bits set: NaN for floats, -1 for integers).
void make_inputs(const Plan& plan, std::uint64_t seed, const DeviceArrays& d, cudaStream_t s);

// --- verify.cu: the output checked where it lies ---
class DeviceVerifier {
 public:
  // The GPU form of check_reference (kernels/catalogue/catalogue.h): a plain kernel for gathers
  // and transposes and Smooth, CUB for block sums, cuBLAS for Gemm and GemmHalf. `ref.kind`
  // must not be None.
  CheckResult check(const Reference& ref, const DeviceArrays& d, cudaStream_t s, Cublas& blas);

 private:
  BufferPool scratch_;
};

// --- peers.cu: library routines timed beside the kernels ---
Timing peer_memcpy(const Params& p, const RunOptions& opt, cudaStream_t s, BufferPool& pool);
Timing peer_cub(const Params& p, const RunOptions& opt, cudaStream_t s, BufferPool& pool);
Timing peer_sgemm(const Params& p, const RunOptions& opt, cudaStream_t s, BufferPool& pool,
                  Cublas& blas);
// cublasGemmEx, FP16 A and B, FP32 C and accumulation: the tensor family's operands
// (A row-major, B column-major, C row-major), so the same C = A B.
Timing peer_gemm_ex(const Params& p, const RunOptions& opt, cudaStream_t s, BufferPool& pool,
                    Cublas& blas);

// --- device_query.cu ---
// DeviceInfo of device `dev`, or "" with `why` set.
bool query_device(int dev, DeviceInfo& info, std::string& why);
std::string version_text(int v);  // 13000 -> "13.0"

}  // namespace ws::cuda
