#pragma once
// The kernel dialect on nvcc (see kernels/dialect/simt.h for the API every mode shares).
//
// This header has two parts:
//  1. Always (no mode needed): ws::cuda, the plumbing between the catalogue translation
//     units (catalogue_fast.cu, catalogue_traced.cu) and the backend (cuda_backend.cu):
//     the trace control block the traced build reads, the records it writes beside the
//     events, and the entry points each catalogue TU exports. cuda_backend.cu includes
//     only this part, so it never needs a mode of its own.
//  2. With WS_MODE_FAST or WS_MODE_TRACED (set by the including TU before kernels/dialect/simt.h):
//     the handles, Thread, ws_entry and Launcher of that mode, in ws::fast or ws::traced.
//     The traced mode's recording machinery (control block, device-side counting, warp
//     scheduler, Ref) is kernels/dialect/simt_traced.inc, included in the middle of part 2.
//
// WS_MODE_FAST: a handle is a pointer and an access is a plain load or store; nothing
// of the trace is compiled in (the transpose's SASS is in docs/HARDWARE.md).
// WS_MODE_TRACED: every access, marked branch, barrier and collective of a block inside
// the traced block range writes one ws::WarpEvent: the warp's first issuing lane reserves
// a slot with one atomicAdd and writes the header, every issuing lane writes its own byte
// offset; the access is then performed. Blocks outside the range run untraced, so
// whole-grid totals are gathered a range of blocks at a time.
//
// Which lanes issue an event together is decided by the emulator's rule, not by the
// hardware's momentary __activemask(): with independent thread scheduling the compiler
// is free not to reconverge a warp after a divergent `if` (seen on the H100: the store
// after `if (branch) { av = a(...); }` was recorded twice, by the lanes that skipped the
// load and then by those that did it). So in a traced block each event point is a round
// of a warp-level scheduler (ws_turn): every existing lane of the warp waits at its next
// event point, the lanes at the lowest (line, array, kind) key issue together, a
// collective waits for every lane its mask names, a barrier issues when every live lane
// is at it, and lanes that finished stay in the rounds (joining the barriers of their
// warp-mates) until the whole warp has finished. That is the emulator's scheduling
// (sim/emulator.h), so the GPU trace and the emulator trace agree event for event.
// Under NVRTC (student kernels, kernels/user_nvrtc.*) only the device side is compiled:
// the host plumbing and the Launcher are the CUDA backend's, and NVRTC has no host library.
#if !defined(__CUDACC_RTC__)
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/catalogue/catalogue.h"
#else
#include <cstdint>
#include <type_traits>
#endif
#include "sim/access.h"
#include "sim/trace.h"

namespace ws::cuda {

// A shared array as the traced build saw it allocated (first traced block, thread 0).
struct SharedArrayRec {
  std::uint32_t elem_bytes;
  std::uint32_t count;
  std::uint32_t offset;
  std::uint32_t cols;  // shared2d: elements per row; 0 for a 1D array
  std::uint8_t id;
  char name[15];
};
constexpr int kMaxSharedArrays = 16;

// What the traced build found wrong while it ran (the first fault of a launch wins).
enum class FaultKind : std::uint32_t {
  None = 0,
  OutOfBounds = 1,
  SharedOverflow = 2,
  Deadlock = 3,  // the lanes of a warp wait for each other (a collective naming lanes
                 // that exited or wait at a barrier): the traced run stops scheduling
};
inline const char* to_string(FaultKind k) {
  switch (k) {
    case FaultKind::None: return "none";
    case FaultKind::OutOfBounds: return "out of bounds";
    case FaultKind::SharedOverflow: return "shared memory overflow";
    case FaultKind::Deadlock: return "deadlock";
  }
  return "unknown fault";
}
struct DeviceFault {
  std::uint32_t kind;    // FaultKind
  std::uint32_t line;
  std::uint32_t array;
  std::uint32_t block;
  std::uint32_t thread;
  std::uint32_t shared;  // 1: shared array, 0: global
  long long index;       // element index (OutOfBounds) or bytes wanted (SharedOverflow)
  unsigned long long extent;  // elements of the array, or shared bytes of the launch
};

// Whole-grid counters are accumulated on the device, per source site: a small
// open-addressed table per shard (blocks spread over the shards by index, so atomics on
// one counter do not all meet at one address). The host adds the shards together.
constexpr int kSiteSlots = 256;   // distinct (line, array, kind) sites per launch, at most
constexpr int kSiteShards = 16;
struct SiteSlot {
  std::uint32_t tag;              // site_key + 1; 0 = empty
  std::uint32_t pad;
  sim::Counters counts;
};
// Blocks whose events are copied back while the whole grid is counted on the device.
constexpr int kMaxKeptBlocks = 16;
// The counting batch: a warp stores its events and, when kBatch are in, its lanes count
// one each with the model's analysis (32 at once instead of one after another).
constexpr int kBatch = 32;
constexpr int kWarpSlotsPerSm = 64;  // the most warps an SM holds (Hopper)

// The traced build's control block, one per launch, in __constant__ memory. Plain data:
// __constant__ variables cannot have constructors.
struct TraceCtl {
  WarpEvent* events;             // capacity slots
  unsigned long long* count;     // slots asked for; > capacity means the buffer overflowed
  unsigned long long capacity;
  std::uint32_t block_lo, block_hi;  // traced blocks: linear index in [lo, hi)
  SharedArrayRec* arrays;        // kMaxSharedArrays records, written by block block_lo
  DeviceFault* fault;
  // Per-site counters (kSiteShards x kSiteSlots), or null: no totals on this pass.
  SiteSlot* sites;
  unsigned* sites_full;          // set when a launch has more than kSiteSlots sites
  // Events waiting to be counted, kBatch per resident warp slot (SM x warp slot), and how
  // many each slot holds; null: each event is counted by its leader lane at once.
  WarpEvent* batch;
  std::uint32_t* batch_n;
  std::uint32_t batch_slots;     // slots allocated (%smid may be past the SM count)
  std::uint32_t sector_bytes, line_bytes, shared_banks, bank_bytes, fetch_bytes;  // sim::AccessModel
  // Which traced blocks write their events: all of them, or only the listed ones.
  std::uint32_t keep_all;
  std::uint32_t keep_n;
  std::uint32_t keep[kMaxKeptBlocks];
};

#if !defined(__CUDACC_RTC__)
// Called by the traced Launcher around each launch of a variant's plan.
class TraceHooks {
 public:
  virtual ~TraceHooks() = default;
  // Before launch `index`: fill `ctl`. Returning false stops the plan here: neither this
  // launch nor a later one runs. A non-empty `error` stops it too.
  virtual bool before(int index, const LaunchCfg& cfg, TraceCtl& ctl, std::string& error) = 0;
  // After launch `index` was queued on the stream.
  virtual void after(int index, const LaunchCfg& cfg, std::string& error) = 0;
};

// The device arrays of a run, in plan order.
struct DeviceArrays {
  std::vector<void*> ptr;
  std::vector<std::uint64_t> count;
};

// Exported by catalogue_fast.cu. The description of a variant ("" family or variant
// unknown: nullptr), and every variant of the CUDA build in teaching order.
const VariantInfo* fast_info(const std::string& family, const std::string& variant);
std::vector<const VariantInfo*> fast_catalogue();
// Queues the plan's launches of the fast build on `stream`.
// @post returns "" when every launch was queued; else the failing CUDA call and its
//       error string. *regs (when given) is the most registers per thread of its kernels.
std::string launch_fast(const std::string& family, const std::string& variant,
                        const Params& p, const Plan& plan, const DeviceArrays& a,
                        cudaStream_t stream, int* regs = nullptr);
// Exported by catalogue_traced.cu: the same, traced, with `hooks` called around each
// launch.
std::string launch_traced(const std::string& family, const std::string& variant,
                          const Params& p, const Plan& plan, const DeviceArrays& a,
                          cudaStream_t stream, TraceHooks& hooks);

// "cudaMalloc: out of memory" -- the call and the runtime's sentence, never a bare code.
inline std::string cuda_error_text(const char* call, cudaError_t e) {
  return std::string(call) + ": " + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")";
}

// "transpose_tiled (grid 32x32x1, block 32x8x1, 4096 B shared)"
inline std::string describe(const LaunchCfg& c) {
  auto d = [](const Dim3& v) {
    return std::to_string(v.x) + "x" + std::to_string(v.y) + "x" + std::to_string(v.z);
  };
  return c.kernel + " (grid " + d(c.grid) + ", block " + d(c.block) + ", " +
         std::to_string(c.shared_bytes) + " B shared)";
}
#endif  // !__CUDACC_RTC__

}  // namespace ws::cuda

#if defined(WS_MODE_FAST) || defined(WS_MODE_TRACED)

#if defined(WS_MODE_FAST) && defined(WS_MODE_TRACED)
#error "define only one of WS_MODE_FAST, WS_MODE_TRACED"
#endif

namespace ws {
#if defined(WS_MODE_FAST)
inline namespace fast {
#else
inline namespace traced {
#endif

__device__ __forceinline__ unsigned ws_block_linear() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}
__device__ __forceinline__ unsigned ws_tid_linear() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ unsigned char* ws_dynamic_smem() {
  extern __shared__ __align__(16) unsigned char ws_smem[];
  return ws_smem;
}
__device__ __forceinline__ std::uint32_t ws_dynamic_smem_bytes() {
  std::uint32_t s;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(s));
  return s;
}

// atomicAdd for the element types the catalogue uses; long long goes through the
// unsigned overload (two's complement addition is the same).
__device__ __forceinline__ int ws_atomic_add(int* p, int v) { return atomicAdd(p, v); }
__device__ __forceinline__ unsigned ws_atomic_add(unsigned* p, unsigned v) {
  return atomicAdd(p, v);
}
__device__ __forceinline__ float ws_atomic_add(float* p, float v) { return atomicAdd(p, v); }
__device__ __forceinline__ double ws_atomic_add(double* p, double v) { return atomicAdd(p, v); }
__device__ __forceinline__ unsigned long long ws_atomic_add(unsigned long long* p,
                                                            unsigned long long v) {
  return atomicAdd(p, v);
}
__device__ __forceinline__ long long ws_atomic_add(long long* p, long long v) {
  return (long long)atomicAdd(reinterpret_cast<unsigned long long*>(p),
                              (unsigned long long)v);
}

#if defined(WS_MODE_TRACED)
#include "kernels/dialect/simt_traced.inc"
#endif  // WS_MODE_TRACED

// The handles. Aggregates with the emulator's members, so Args builds them the same way.
#if defined(WS_MODE_FAST)
template <class T>
struct Global {
  T* ptr = nullptr;
  std::uint64_t n = 0;
  std::uint8_t id = kNoArray;
  __device__ __forceinline__ T& operator()(std::int64_t i, int = __builtin_LINE()) const {
    return ptr[i];
  }
  __device__ __forceinline__ void atomic_add(std::int64_t i, std::remove_const_t<T> v,
                                             int = __builtin_LINE()) const {
    ws_atomic_add(ptr + i, v);
  }
  __host__ __device__ std::uint64_t size() const { return n; }
};

template <class T>
struct Shared {
  T* ptr = nullptr;
  std::uint32_t off = 0, n = 0;
  std::uint8_t id = kNoArray;
  __device__ __forceinline__ T& operator()(std::int64_t i, int = __builtin_LINE()) const {
    return ptr[i];
  }
  __device__ __forceinline__ void atomic_add(std::int64_t i, T v, int = __builtin_LINE()) const {
    ws_atomic_add(ptr + i, v);
  }
  __device__ __forceinline__ void atomic_add_varying(std::int64_t i, T v,
                                                     int = __builtin_LINE()) const {
    ws_atomic_add(ptr + i, v);
  }
};

template <class T>
struct Shared2D {
  T* ptr = nullptr;
  std::uint32_t off = 0;
  int rows = 0, cols = 0;
  std::uint8_t id = kNoArray;
  __device__ __forceinline__ T& operator()(int r, int c, int = __builtin_LINE()) const {
    return ptr[r * cols + c];
  }
  template <class U>
  __device__ __forceinline__ Shared2D<U> view() const {  // as in simt_emu.h
    return Shared2D<U>{reinterpret_cast<U*>(ptr), off, rows, int(cols * sizeof(T) / sizeof(U)), id};
  }
};
#else
template <class T>
struct Global {
  T* ptr = nullptr;
  std::uint64_t n = 0;
  std::uint8_t id = kNoArray;
  __device__ __forceinline__ Ref<T> operator()(std::int64_t i, int line = __builtin_LINE()) const {
    return Ref<T>(ptr, n, i, id, 0, false, std::uint16_t(line));
  }
  __device__ __forceinline__ void atomic_add(std::int64_t i, std::remove_const_t<T> v,
                                             int line = __builtin_LINE()) const {
    (*this)(i, line).atomic_add(v);
  }
  __host__ __device__ std::uint64_t size() const { return n; }
};

template <class T>
struct Shared {
  T* ptr = nullptr;
  std::uint32_t off = 0, n = 0;
  std::uint8_t id = kNoArray;
  __device__ __forceinline__ Ref<T> operator()(std::int64_t i, int line = __builtin_LINE()) const {
    return Ref<T>(ptr, n, i, id, off, true, std::uint16_t(line));
  }
  __device__ __forceinline__ void atomic_add(std::int64_t i, T v, int line = __builtin_LINE()) const {
    (*this)(i, line).atomic_add(v);
  }
  __device__ __forceinline__ void atomic_add_varying(std::int64_t i, T v,
                                                     int line = __builtin_LINE()) const {
    (*this)(i, line).atomic_add_varying(v);
  }
};

template <class T>
struct Shared2D {
  T* ptr = nullptr;
  std::uint32_t off = 0;
  int rows = 0, cols = 0;
  std::uint8_t id = kNoArray;
  __device__ __forceinline__ Ref<T> operator()(int r, int c, int line = __builtin_LINE()) const {
    // A column outside the row would alias the next row: the emulator rejects it, so do we.
    const bool inside = r >= 0 && r < rows && c >= 0 && c < cols;
    const std::int64_t i = std::int64_t(r) * cols + c;
    if (!inside)
      ws_fault(cuda::FaultKind::OutOfBounds, std::uint16_t(line), id, true, i,
               (unsigned long long)rows * cols);
    return Ref<T>(ptr, std::uint64_t(rows) * cols, inside ? i : -1, id, off, true,
                  std::uint16_t(line));
  }
  template <class U>
  __device__ __forceinline__ Shared2D<U> view() const {  // as in simt_emu.h
    return Shared2D<U>{reinterpret_cast<U*>(ptr), off, rows, int(cols * sizeof(T) / sizeof(U)), id};
  }
};
#endif

// The thread context a kernel body receives.
class Thread {
 public:
  Dim3 threadIdx, blockIdx, blockDim, gridDim;

  __device__ __forceinline__ Thread()
      : threadIdx{::threadIdx.x, ::threadIdx.y, ::threadIdx.z},
        blockIdx{::blockIdx.x, ::blockIdx.y, ::blockIdx.z},
        blockDim{::blockDim.x, ::blockDim.y, ::blockDim.z},
        gridDim{::gridDim.x, ::gridDim.y, ::gridDim.z} {}

  __device__ __forceinline__ unsigned tid() const { return ws_tid_linear(); }
  __device__ __forceinline__ unsigned lane() const { return ws_tid_linear() & 31u; }
  __device__ __forceinline__ unsigned warp() const { return ws_tid_linear() >> 5; }

#if defined(WS_MODE_FAST)
  __device__ __forceinline__ void syncthreads(int = __builtin_LINE()) { __syncthreads(); }
  __device__ __forceinline__ void syncwarp(unsigned mask = WS_FULL_MASK, int = __builtin_LINE()) {
    __syncwarp(mask);
  }
  __device__ __forceinline__ bool branch(bool cond, int = __builtin_LINE()) { return cond; }
  __device__ __forceinline__ void work(unsigned, int = __builtin_LINE()) {}
  __device__ __forceinline__ unsigned ballot_sync(unsigned mask, bool pred,
                                                  int = __builtin_LINE()) {
    return __ballot_sync(mask, pred);
  }
  __device__ __forceinline__ unsigned activemask(int = __builtin_LINE()) { return __activemask(); }
  template <class V>
  __device__ __forceinline__ V shfl_sync(unsigned mask, V v, int src, int width = 32,
                                         int = __builtin_LINE()) {
    return __shfl_sync(mask, v, src, width);
  }
  template <class V>
  __device__ __forceinline__ V shfl_up_sync(unsigned mask, V v, int delta, int width = 32,
                                            int = __builtin_LINE()) {
    return __shfl_up_sync(mask, v, unsigned(delta), width);
  }
  template <class V>
  __device__ __forceinline__ V shfl_down_sync(unsigned mask, V v, int delta, int width = 32,
                                              int = __builtin_LINE()) {
    return __shfl_down_sync(mask, v, unsigned(delta), width);
  }
  template <class V>
  __device__ __forceinline__ V shfl_xor_sync(unsigned mask, V v, int lane_mask, int width = 32,
                                             int = __builtin_LINE()) {
    return __shfl_xor_sync(mask, v, lane_mask, width);
  }
#else
  // In a traced block each call is an event point of the warp scheduler (ws_turn); the
  // collective itself runs once its lanes are issued together. Untraced blocks run the
  // plain intrinsics.
  __device__ __forceinline__ void syncthreads(int line = __builtin_LINE()) {
    if (ws_block_traced()) {
      const Turn turn = ws_turn(kBarrierKey, 0u, std::uint16_t(line));
      ws_emit(turn.group, EventKind::Barrier, kNoArray, 0, std::uint16_t(line), 0u, 0u);
    }
    __syncthreads();
  }
  __device__ __forceinline__ void syncwarp(unsigned mask = WS_FULL_MASK,
                                           int line = __builtin_LINE()) {
    if (ws_block_traced()) ws_control(EventKind::WarpSync, std::uint16_t(line), mask);
    __syncwarp(mask);
  }
  __device__ __forceinline__ bool branch(bool cond, int line = __builtin_LINE()) {
    if (ws_block_traced()) {
      const std::uint16_t l = std::uint16_t(line);
      const Turn turn = ws_turn(ws_key(l, kNoArray, EventKind::Branch), 0u, l);
      const unsigned b = __ballot_sync(turn.group, cond);
      ws_emit(turn.group, EventKind::Branch, kNoArray, 0, l, b, 0u);
    }
    return cond;
  }
  __device__ __forceinline__ void work(unsigned instructions, int line = __builtin_LINE()) {
    if (ws_block_traced()) {
      const std::uint16_t l = std::uint16_t(line);
      const Turn turn = ws_turn(ws_key(l, kNoArray, EventKind::Work), 0u, l);
      ws_emit(turn.group, EventKind::Work, kNoArray, 0, l, 0u, instructions);
    }
  }
  __device__ __forceinline__ unsigned ballot_sync(unsigned mask, bool pred,
                                                  int line = __builtin_LINE()) {
    if (!ws_block_traced()) return __ballot_sync(mask, pred);
    const std::uint16_t l = std::uint16_t(line);
    const Turn turn = ws_turn(ws_key(l, kNoArray, EventKind::Vote), mask, l);
    const unsigned votes = __ballot_sync(turn.group, pred);
    ws_emit(turn.group, EventKind::Vote, kNoArray, 0, l, votes, 0u);
    return votes & mask;
  }
  // The lanes issuing together, as the emulator answers (in an untraced block, the
  // hardware's answer).
  __device__ __forceinline__ unsigned activemask(int line = __builtin_LINE()) {
    if (!ws_block_traced()) return __activemask();
    const std::uint16_t l = std::uint16_t(line);
    const Turn turn = ws_turn(ws_key(l, kNoArray, EventKind::Vote), 0u, l);
    ws_emit(turn.group, EventKind::Vote, kNoArray, 0, l, turn.group, 0u);
    return turn.group;
  }
  template <class V>
  __device__ __forceinline__ V shfl_sync(unsigned mask, V v, int src, int width = 32,
                                         int line = __builtin_LINE()) {
    if (ws_block_traced()) ws_control(EventKind::Shuffle, std::uint16_t(line), mask);
    return __shfl_sync(mask, v, src, width);
  }
  template <class V>
  __device__ __forceinline__ V shfl_up_sync(unsigned mask, V v, int delta, int width = 32,
                                            int line = __builtin_LINE()) {
    if (ws_block_traced()) ws_control(EventKind::Shuffle, std::uint16_t(line), mask);
    return __shfl_up_sync(mask, v, unsigned(delta), width);
  }
  template <class V>
  __device__ __forceinline__ V shfl_down_sync(unsigned mask, V v, int delta, int width = 32,
                                              int line = __builtin_LINE()) {
    if (ws_block_traced()) ws_control(EventKind::Shuffle, std::uint16_t(line), mask);
    return __shfl_down_sync(mask, v, unsigned(delta), width);
  }
  template <class V>
  __device__ __forceinline__ V shfl_xor_sync(unsigned mask, V v, int lane_mask, int width = 32,
                                             int line = __builtin_LINE()) {
    if (ws_block_traced()) ws_control(EventKind::Shuffle, std::uint16_t(line), mask);
    return __shfl_xor_sync(mask, v, lane_mask, width);
  }
#endif

  // Shared arrays are carved with the emulator's rule: offset rounded up to
  // max(16, alignof(T)), ids from kFirstSharedId in declaration order.
  template <class T>
  __device__ __forceinline__ Shared<T> shared(std::uint32_t count, const char* name = "shared",
                                              int line = __builtin_LINE()) {
    const std::uint32_t off = carve(std::uint64_t(count) * sizeof(T), alignment<T>(),
                                    sizeof(T), count, 0, name, line);
    return Shared<T>{reinterpret_cast<T*>(ws_dynamic_smem() + off), off, count, next_id_++};
  }
  template <class T>
  __device__ __forceinline__ Shared2D<T> shared2d(int rows, int cols, const char* name = "tile",
                                                  int line = __builtin_LINE()) {
    const std::uint32_t off =
        carve(std::uint64_t(rows) * std::uint64_t(cols) * sizeof(T), alignment<T>(), sizeof(T),
              std::uint32_t(rows) * std::uint32_t(cols), std::uint32_t(cols), name, line);
    return Shared2D<T>{reinterpret_cast<T*>(ws_dynamic_smem() + off), off, rows, cols,
                       next_id_++};
  }

 private:
  template <class T>
  __host__ __device__ static constexpr std::uint32_t alignment() {
    return alignof(T) < 16 ? 16 : std::uint32_t(alignof(T));
  }
  __device__ __forceinline__ std::uint32_t carve(std::uint64_t bytes, std::uint32_t align,
                                                 std::uint32_t elem_bytes, std::uint32_t count,
                                                 std::uint32_t cols, const char* name, int line) {
    const std::uint32_t off = shared_carve(used_, align);
    used_ = std::uint32_t(off + bytes);
#if defined(WS_MODE_TRACED)
    const std::uint32_t have = ws_dynamic_smem_bytes();
    if (off + bytes > have)
      ws_fault(cuda::FaultKind::SharedOverflow, std::uint16_t(line), next_id_, true,
               (long long)(off + bytes), have);
    const int k = next_id_ - kFirstSharedId;
    if (ws_block_linear() == ws_trace.block_lo && ws_tid_linear() == 0 &&
        k < cuda::kMaxSharedArrays) {
      cuda::SharedArrayRec& r = ws_trace.arrays[k];
      r.elem_bytes = elem_bytes;
      r.count = count;
      r.offset = off;
      r.cols = cols;
      r.id = next_id_;
      int c = 0;
      for (; c < int(sizeof(r.name)) - 1 && name[c]; ++c) r.name[c] = name[c];
      r.name[c] = 0;
    }
#else
    (void)elem_bytes, (void)count, (void)cols, (void)name, (void)line;
#endif
    return off;
  }
  std::uint32_t used_ = 0;
  std::uint8_t next_id_ = kFirstSharedId;
};

// The traced build's counting (ws_count) needs registers the fast build does not; bounded
// for the largest block, so a 1024-thread block still launches (the rest spills).
#if defined(WS_MODE_TRACED)
#define WS_ENTRY_BOUNDS __launch_bounds__(1024)
#else
#define WS_ENTRY_BOUNDS
#endif
template <class K>
__global__ void WS_ENTRY_BOUNDS ws_entry(K k) {
  Thread t;
  k(t);
#if defined(WS_MODE_TRACED)
  ws_finish();
#endif
}

#if !defined(__CUDACC_RTC__)
// Queues a variant's launches on one stream. The first failure is kept and later
// launches are skipped: their inputs would be garbage.
class Launcher {
 public:
#if defined(WS_MODE_FAST)
  explicit Launcher(cudaStream_t s) : stream_(s) {}
#else
  Launcher(cudaStream_t s, cuda::TraceHooks& hooks) : stream_(s), hooks_(hooks) {}
#endif

  template <class K>
  void launch(const LaunchCfg& cfg, const K& kernel) {
    if (stopped_ || !error_.empty()) return;
    const int index = index_++;
#if defined(WS_MODE_TRACED)
    cuda::TraceCtl ctl{};
    if (!hooks_.before(index, cfg, ctl, error_) || !error_.empty()) {
      stopped_ = true;
      return;
    }
    if (!check(cudaMemcpyToSymbolAsync(ws_trace, &ctl, sizeof ctl, 0, cudaMemcpyHostToDevice,
                                       stream_),
               "cudaMemcpyToSymbolAsync(trace control)", cfg))
      return;
#endif
    // Above 48 KB a kernel must opt in to its dynamic shared memory. Asked at every such
    // launch (a cheap call), so no process-wide static remembers which kernels did.
    if (cfg.shared_bytes > sim::h100::kMaxSharedPerBlock) {
      if (!check(cudaFuncSetAttribute(ws_entry<K>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      int(cfg.shared_bytes)),
                 "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)", cfg))
        return;
    }
    ws_entry<K><<<dim3(cfg.grid.x, cfg.grid.y, cfg.grid.z),
                  dim3(cfg.block.x, cfg.block.y, cfg.block.z), cfg.shared_bytes, stream_>>>(
        kernel);
    if (!check(cudaGetLastError(), "kernel launch", cfg)) return;
#if defined(WS_MODE_TRACED)
    hooks_.after(index, cfg, error_);
#else
    // Registers per thread of the fast build: what limits residency beside warps, blocks
    // and shared memory (the occupancy the lessons show). Asked once per kernel.
    static const int regs = [] {
      cudaFuncAttributes a{};
      return cudaFuncGetAttributes(&a, ws_entry<K>) == cudaSuccess ? a.numRegs : 0;
    }();
    regs_ = regs > regs_ ? regs : regs_;
#endif
  }
  const std::string& error() const { return error_; }
  int regs() const { return regs_; }  // max over the launches so far (fast build), else 0
  int launched() const { return index_; }
  // A variant's launch function found no instance for its parameters: nothing runs.
  void refuse(std::string why) {
    if (error_.empty()) error_ = std::move(why);
  }

 private:
  bool check(cudaError_t e, const char* call, const LaunchCfg& cfg) {
    if (e == cudaSuccess) return true;
    error_ = cuda::cuda_error_text(call, e) + " for " + cuda::describe(cfg);
    return false;
  }
  cudaStream_t stream_;
#if defined(WS_MODE_TRACED)
  cuda::TraceHooks& hooks_;
#endif
  std::string error_;
  int index_ = 0;
  int regs_ = 0;
  bool stopped_ = false;
};
#endif  // !__CUDACC_RTC__

}  // namespace (mode)
}  // namespace ws

#endif  // WS_MODE_FAST || WS_MODE_TRACED
