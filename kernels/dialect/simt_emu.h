#pragma once
// WS_MODE_EMU: the dialect on the host compiler. Every access goes through a Ref that
// reports to the emulator's current lane, which parks the thread until its warp issues
// the access; then the Ref performs the load or store on host memory.
#include <atomic>
#include <cstring>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "kernels/catalogue/catalogue.h"
#include "sim/emulator.h"
#include "sim/mma.h"

// CUDA's vector types, for kernels that load 8 or 16 bytes per lane.
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };

// kernels/user/cuda_emu.h makes a CUDA pointer parameter's handle from a Global.
namespace ws::cu {
struct Access;
}

namespace ws {
inline namespace emu {

class Thread;

// The failures of a traced access, their messages built here once (kernels/dialect/
// simt_emu.cpp) rather than in every template instance: an index outside the array, and
// (a CUDA pointer handle, kernels/user/cuda_emu.h) a null or misaligned pointer. Both end
// the lane (sim::Lane::fail).
[[noreturn]] void fail_out_of_bounds(sim::Lane& lane, EventKind k, std::uint16_t line, bool shared,
                                     std::uint8_t array, std::int64_t i, std::uint64_t count);
[[noreturn]] void fail_pointer(sim::Lane& lane, int line, std::int64_t byte, std::size_t size, bool shared,
                               std::uint8_t array, bool null);

// A reference to one element of a global or shared array, tagged with its site.
template <class T>
class Ref {
 public:
  using V = std::remove_const_t<T>;
  Ref(T* base, std::uint64_t count, std::int64_t i, std::uint8_t array, std::uint32_t base_off,
      bool shared, std::uint16_t line)
      : base_(base), count_(count), i_(i), array_(array), base_off_(base_off), shared_(shared),
        line_(line) {}

  operator V() const {
    touch(shared_ ? EventKind::SharedLoad : EventKind::GlobalLoad);
    return base_[i_];
  }
  Ref& operator=(const V& v) requires(!std::is_const_v<T>) {
    touch(shared_ ? EventKind::SharedStore : EventKind::GlobalStore);
    base_[i_] = v;
    return *this;
  }
  Ref& operator=(const Ref& o) requires(!std::is_const_v<T>) { return *this = V(o); }
  template <class U>
  Ref& operator=(const Ref<U>& o) requires(!std::is_const_v<T>) { return *this = V(o); }
  Ref& operator+=(const V& v) requires(!std::is_const_v<T>) { return *this = V(*this) + v; }
  Ref& operator-=(const V& v) requires(!std::is_const_v<T>) { return *this = V(*this) - v; }
  Ref& operator*=(const V& v) requires(!std::is_const_v<T>) { return *this = V(*this) * v; }

  // The atomic: one event of kind *Atomic, then the read-modify-write. No result: the
  // dialect's atomics are reductions (kernels/dialect/simt.h).
  void atomic_add(const V& v) const requires(!std::is_const_v<T>) {
    touch(shared_ ? EventKind::SharedAtomic : EventKind::GlobalAtomic);
    rmw([&](const V& old) { return V(old + v); });
  }
  // A shared atomic whose value varies per lane: lanes on one word serialise
  // (kEventVaryingAtomic; the dialect's Shared::atomic_add_varying).
  void atomic_add_varying(const V& v) const requires(!std::is_const_v<T>) {
    touch(EventKind::SharedAtomic, kEventVaryingAtomic);
    rmw([&](const V& old) { return V(old + v); });
  }
  // Any read-modify-write as one atomic event, returning the old value (CUDA's atomics,
  // kernels/user/cuda_emu.h).
  template <class F>
  V atomic_apply(F f) const requires(!std::is_const_v<T>) {
    touch(shared_ ? EventKind::SharedAtomic : EventKind::GlobalAtomic);
    return rmw(f);
  }

 private:
  // The read-modify-write of an atomic. Blocks may run on several cores at once
  // (sim::EmuOptions::threads), so a global one is a real atomic; a block's shared
  // memory is one core's.
  template <class F>
  V rmw(F f) const requires(!std::is_const_v<T>) {
    if constexpr (sizeof(V) == 4 || sizeof(V) == 8) {
      if (!shared_) {
        std::atomic_ref<V> a(base_[i_]);
        V old = a.load(std::memory_order_relaxed);
        while (!a.compare_exchange_weak(old, f(old), std::memory_order_relaxed)) {
        }
        return old;
      }
    }
    const V old = base_[i_];
    base_[i_] = f(old);
    return old;
  }
  void touch(EventKind k, std::uint8_t flags = 0) const {
    auto& lane = sim::current_lane();
    if (i_ < 0 || std::uint64_t(i_) >= count_) [[unlikely]]
      out_of_bounds(lane, k);
    lane.access(k, array_, base_off_ + std::uint32_t(i_) * sizeof(T), sizeof(T), line_, flags);
    if (!shared_ && lane.lazy) lane.lazy->touch(base_ + i_, sizeof(T));
  }
  // Out of line, and its message built in the library (fail_out_of_bounds): the strings
  // would otherwise widen every access's stack frame (each frame line is one more cache miss
  // when the emulator switches lanes), and be compiled again in every student's build.
  [[noreturn, gnu::cold, gnu::noinline]] void out_of_bounds(sim::Lane& lane, EventKind k) const {
    fail_out_of_bounds(lane, k, line_, shared_, array_, i_, count_);
  }
  T* base_;
  std::uint64_t count_;
  std::int64_t i_;
  std::uint8_t array_;
  std::uint32_t base_off_;
  bool shared_;
  std::uint16_t line_;
};

// A global array passed to a kernel: pointer, element count, argument ordinal.
//
// In a student's build (WS_STUDENT_BUILD, kernels/user/user_build.cpp) the pointer, count and
// id are private: every access goes through a traced Ref, so a raw copy through `out.ptr`
// cannot cheat the counts (issue 27). The catalogue's kernels keep the aggregate.
#if defined(WS_STUDENT_BUILD)
#define WS_STUDENT_HIDDEN private:
#define WS_STUDENT_SHOWN public:
#else
#define WS_STUDENT_HIDDEN
#define WS_STUDENT_SHOWN
#endif
template <class T>
struct Global {
#if defined(WS_STUDENT_BUILD)
  Global() = default;
  Global(T* p, std::uint64_t count, std::uint8_t i) : ptr(p), n(count), id(i) {}
#endif
 WS_STUDENT_HIDDEN
  friend struct ::ws::cu::Access;
  friend class Thread;
  T* ptr = nullptr;
  std::uint64_t n = 0;
  std::uint8_t id = kNoArray;
 WS_STUDENT_SHOWN
  Ref<T> operator()(std::int64_t i, int line = __builtin_LINE()) const {
    return Ref<T>(ptr, n, i, id, 0, false, std::uint16_t(line));
  }
  void atomic_add(std::int64_t i, std::remove_const_t<T> v, int line = __builtin_LINE()) const {
    (*this)(i, line).atomic_add(v);
  }
  std::uint64_t size() const { return n; }
};

// A 1D shared array.
template <class T>
struct Shared {
#if defined(WS_STUDENT_BUILD)
  Shared() = default;
  Shared(T* p, std::uint32_t o, std::uint32_t count, std::uint8_t i) : ptr(p), off(o), n(count), id(i) {}
#endif
 WS_STUDENT_HIDDEN
  T* ptr = nullptr;
  std::uint32_t off = 0, n = 0;
  std::uint8_t id = kNoArray;
 WS_STUDENT_SHOWN
  Ref<T> operator()(std::int64_t i, int line = __builtin_LINE()) const {
    return Ref<T>(ptr, n, i, id, off, true, std::uint16_t(line));
  }
  void atomic_add(std::int64_t i, T v, int line = __builtin_LINE()) const {
    (*this)(i, line).atomic_add(v);
  }
  // `atomicAdd(&s[i], v)` where v differs between lanes (a weight): the compiler emits
  // ATOMS.ADD, which serialises lanes that name one word; atomic_add models a constant
  // (`+= 1`: ATOMS.POPC.INC, one update for all of them). Traced and counted apart.
  void atomic_add_varying(std::int64_t i, T v, int line = __builtin_LINE()) const {
    (*this)(i, line).atomic_add_varying(v);
  }
};

// A 2D shared array, row-major with `cols` words per row (padding included), like
// `__shared__ T tile[rows][cols]`.
template <class T>
struct Shared2D {
#if defined(WS_STUDENT_BUILD)
  Shared2D() = default;
  Shared2D(T* p, std::uint32_t o, int r, int c, std::uint8_t i) : ptr(p), off(o), rows(r), cols(c), id(i) {}
#endif
 WS_STUDENT_HIDDEN
  friend class Thread;
  T* ptr = nullptr;
  std::uint32_t off = 0;
  int rows = 0, cols = 0;
  std::uint8_t id = kNoArray;
 WS_STUDENT_SHOWN
  Ref<T> operator()(int r, int c, int line = __builtin_LINE()) const {
    if (r < 0 || r >= rows || c < 0 || c >= cols) [[unlikely]]
      outside(r, c, line);
    return Ref<T>(ptr, std::uint64_t(rows) * cols, std::int64_t(r) * cols + c, id, off, true,
                  std::uint16_t(line));
  }
  // The same bytes as rows of U (a float tile read four floats at a time as float4s);
  // U's size must divide a row's bytes. Accesses through it are U wide, under this name.
  template <class U>
  Shared2D<U> view() const {
    static_assert(sizeof(U) % sizeof(T) == 0, "a view's element spans whole elements");
    return Shared2D<U>{reinterpret_cast<U*>(ptr), off, rows, int(cols * sizeof(T) / sizeof(U)), id};
  }
  [[noreturn, gnu::cold, gnu::noinline]] void outside(int r, int c, int line) const {
    sim::current_lane().fail(sim::ProblemKind::OutOfBounds, std::uint16_t(line),
                             "shared tile index (" + std::to_string(r) + ", " +
                                 std::to_string(c) + ") is outside " + std::to_string(rows) +
                                 " x " + std::to_string(cols));
    __builtin_unreachable();  // fail() unwinds the lane
  }
};

// The thread context a kernel body receives.
class Thread {
 public:
  Dim3 threadIdx, blockIdx, blockDim, gridDim;

  Thread() : lane_(sim::current_lane()) {
    threadIdx = lane_.thread_idx;
    blockIdx = lane_.block_idx;
    blockDim = lane_.block_dim;
    gridDim = lane_.grid_dim;
  }
  // Bulk copies the thread issued and never waited for still land, as the copy engine
  // writes them on the GPU after the thread is gone (uncommitted ones too).
  ~Thread() {
    if (bulk_pending_.empty() && bulk_groups_.empty()) return;
    bulk_commit();
    bulk_wait_read<0>();
  }
  Thread(const Thread&) = delete;
  Thread& operator=(const Thread&) = delete;
  unsigned tid() const { return lane_.linear_tid; }
  unsigned lane() const { return lane_.linear_tid % 32; }
  unsigned warp() const { return lane_.linear_tid / 32; }

  void syncthreads(int line = __builtin_LINE()) { lane_.syncthreads(std::uint16_t(line)); }
  void syncwarp(unsigned mask = WS_FULL_MASK, int line = __builtin_LINE()) {
    lane_.syncwarp(mask, std::uint16_t(line));
  }
  bool branch(bool cond, int line = __builtin_LINE()) {
    return lane_.branch(cond, std::uint16_t(line));
  }
  // The instructions this path runs here (t.work(n)): one Work event at the lanes' mask.
  void work(unsigned instructions, int line = __builtin_LINE()) {
    lane_.access(EventKind::Work, kNoArray, instructions, 0, std::uint16_t(line));
  }
  unsigned ballot_sync(unsigned mask, bool pred, int line = __builtin_LINE()) {
    return lane_.ballot(mask, pred, std::uint16_t(line));
  }
  unsigned activemask(int line = __builtin_LINE()) {
    return lane_.activemask(std::uint16_t(line));
  }
  template <class V>
  V shfl_sync(unsigned mask, V v, int src, int width = 32, int line = __builtin_LINE()) {
    return shuffle(sim::ShuffleKind::Idx, mask, v, src, width, line);
  }
  template <class V>
  V shfl_up_sync(unsigned mask, V v, int delta, int width = 32, int line = __builtin_LINE()) {
    return shuffle(sim::ShuffleKind::Up, mask, v, delta, width, line);
  }
  template <class V>
  V shfl_down_sync(unsigned mask, V v, int delta, int width = 32, int line = __builtin_LINE()) {
    return shuffle(sim::ShuffleKind::Down, mask, v, delta, width, line);
  }
  template <class V>
  V shfl_xor_sync(unsigned mask, V v, int lane_mask, int width = 32,
                  int line = __builtin_LINE()) {
    return shuffle(sim::ShuffleKind::Xor, mask, v, lane_mask, width, line);
  }

  // --- Warp matrix and asynchronous-copy instructions. Kernels call them through the free
  // functions of kernels/dialect/simt_tensor.h (the same spelling on the GPU, where they are inline
  // PTX). ldmatrix and mma.sync are one event each for the whole warp, with the warp's
  // registers exchanged (sim::Lane::warp_exchange) and the result computed per lane with
  // the PTX fragment layouts (sim/mma.h).

  // ldmatrix .x4: a 16-byte SharedLoad at this lane's row address; register i of lane l is
  // row l / 4 of matrix i, halves 2 (l % 4), +1 (with trans: column l / 4 of rows 2 (l % 4), +1).
  template <class T>
  void ldmatrix_x4(std::uint32_t (&r)[4], const Shared2D<T>& s, int row, int col,
                   bool trans = false, int line = __builtin_LINE()) {
    static_assert(sizeof(T) == 16, "ldmatrix: each lane names one 16-byte row");
    check_tile(s, row, col, line);
    const std::uint32_t off = s.off + std::uint32_t(row * s.cols + col) * 16u;
    std::uint32_t all[32];
    lane_.warp_exchange(EventKind::SharedLoad, s.id, off, 16, &off, 1, all, std::uint16_t(line));
    const std::byte* base = lane_.shared_base();
    const unsigned l = lane();
    for (unsigned m = 0; m < 4; ++m) {
      if (!trans) {
        std::memcpy(&r[m], base + all[sim::ldmatrix_row_lane(m, l / 4)] + 4 * (l % 4), 4);
      } else {
        std::uint16_t lo, hi;
        std::memcpy(&lo, base + all[sim::ldmatrix_row_lane(m, 2 * (l % 4))] + 2 * (l / 4), 2);
        std::memcpy(&hi, base + all[sim::ldmatrix_row_lane(m, 2 * (l % 4) + 1)] + 2 * (l / 4), 2);
        r[m] = sim::pack_half2(lo, hi);
      }
    }
  }

  // mma.sync m16n8k16 (FP16 in, FP32 accumulate): d = a b + d; one Mma event.
  void mma_16816(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                 int line = __builtin_LINE()) {
    static_assert(sizeof(sim::MmaRegs) == 10 * sizeof(std::uint32_t));
    sim::MmaRegs mine{{a[0], a[1], a[2], a[3]}, {b[0], b[1]}, {d[0], d[1], d[2], d[3]}};
    sim::MmaRegs all[32];
    lane_.warp_exchange(EventKind::Mma, kNoArray, 0, 0, reinterpret_cast<const std::uint32_t*>(&mine),
                        10, reinterpret_cast<std::uint32_t*>(all), std::uint16_t(line));
    sim::mma_m16n8k16(all, lane(), d);
  }

  // cp.async 16 bytes: an AsyncLoad event (the global side) and an AsyncStore (the shared
  // side) now; the bytes land at the cp_async_wait that leaves their group behind, so a
  // read before it sees the old contents, as it may on the GPU.
  template <class T>
  void cp_async16(const Shared2D<T>& s, int row, int col, const Global<const T>& g,
                  std::int64_t i, int line = __builtin_LINE()) {
    static_assert(sizeof(T) == 16, "cp_async16 copies one 16-byte element");
    if (i < 0 || std::uint64_t(i) >= g.n)
      lane_.fail(sim::ProblemKind::OutOfBounds, std::uint16_t(line),
                 "out-of-bounds cp.async from global array #" + std::to_string(g.id) +
                     " at index " + std::to_string(i) + " (it has " + std::to_string(g.n) +
                     " elements)");
    check_tile(s, row, col, line);
    lane_.access(EventKind::AsyncLoad, g.id, std::uint32_t(i) * 16u, 16, std::uint16_t(line));
    if (lane_.lazy) lane_.lazy->touch(g.ptr + i, 16);
    const std::uint32_t e = std::uint32_t(row * s.cols + col);
    lane_.access(EventKind::AsyncStore, s.id, s.off + e * 16u, 16, std::uint16_t(line));
    pending_.push_back({reinterpret_cast<std::byte*>(s.ptr + e), reinterpret_cast<const std::byte*>(g.ptr + i)});
  }
  // cp.async.commit_group: the copies since the last commit become one group.
  void cp_async_commit(int = __builtin_LINE()) {
    groups_.push_back(std::move(pending_));
    pending_.clear();
  }
  // cp.async.wait_group N: every group but the newest N lands now.
  template <int N>
  void cp_async_wait(int = __builtin_LINE()) {
    static_assert(N >= 0);
    while (groups_.size() > std::size_t(N)) {
      for (const AsyncCopy& c : groups_.front()) std::memcpy(c.dst, c.src, 16);
      groups_.erase(groups_.begin());
    }
  }

  // cp.async.bulk shared -> global: COUNT elements of row `row` of `s` from column `col`
  // to elements i.. of `g`, copied by the copy engine. One BulkStore event (sim/trace.h);
  // the bytes leave shared at the bulk_wait_read that retires their group, so a shared
  // write before that wait changes what lands, as it may on the GPU. They are visible in
  // global memory from then on here; the GPU promises that only after a plain wait_group
  // (or the kernel's end), which the dialect does not offer: read them in a later launch.
  template <int COUNT, class T>
  void bulk_store(const Global<T>& g, std::int64_t i, const Shared2D<T>& s, int row, int col,
                  int line = __builtin_LINE()) {
    constexpr int count = COUNT;
    constexpr std::uint64_t bytes = std::uint64_t(COUNT) * sizeof(T);
    static_assert(sizeof(T) % kBulkUnit == 0, "bulk_store copies 16-byte elements (aligned both sides)");
    static_assert(COUNT > 0 && bytes / kBulkUnit <= 255, "a traced bulk copy moves 16 to 4080 bytes");
    static_assert(!std::is_const_v<T>, "bulk_store writes its global array");
    if (i < 0 || std::uint64_t(i) + std::uint64_t(count) > g.n)
      lane_.fail(sim::ProblemKind::OutOfBounds, std::uint16_t(line),
                 "out-of-bounds bulk_store to global array #" + std::to_string(g.id) +
                     " at elements " + std::to_string(i) + ".." + std::to_string(i + count - 1) +
                     " (it has " + std::to_string(g.n) + " elements)");
    check_tile(s, row, col, line);
    check_tile(s, row, col + count - 1, line);
    const std::uint32_t e = std::uint32_t(row * s.cols + col);
    lane_.access(EventKind::BulkStore, g.id,
                 bulk_pack(std::uint32_t(i * std::int64_t(sizeof(T))), s.off + e * std::uint32_t(sizeof(T))),
                 std::uint8_t(bytes / kBulkUnit), std::uint16_t(line));
    if (lane_.lazy) lane_.lazy->touch(g.ptr + i, bytes);
    bulk_pending_.push_back({reinterpret_cast<std::byte*>(g.ptr + i),
                             reinterpret_cast<const std::byte*>(s.ptr + e), std::uint32_t(bytes)});
  }
  // fence.proxy.async.shared::cta: this thread's shared writes become visible to the copy
  // engine (on the emulator they already are).
  void bulk_fence(int = __builtin_LINE()) {}
  // cp.async.bulk.commit_group: the bulk copies since the last commit become one group.
  void bulk_commit(int = __builtin_LINE()) {
    bulk_groups_.push_back(std::move(bulk_pending_));
    bulk_pending_.clear();
  }
  // cp.async.bulk.wait_group.read N: every group but the newest N has read its shared source.
  template <int N>
  void bulk_wait_read(int = __builtin_LINE()) {
    static_assert(N >= 0);
    while (bulk_groups_.size() > std::size_t(N)) {
      for (const BulkCopy& c : bulk_groups_.front()) std::memcpy(c.dst, c.src, c.bytes);
      bulk_groups_.erase(bulk_groups_.begin());
    }
  }

  template <class T>
  Shared<T> shared(std::uint32_t count, const char* name = "shared", int line = __builtin_LINE()) {
    std::uint32_t off = lane_.alloc_shared(std::uint64_t(count) * sizeof(T), alignment<T>(),
                                           sizeof(T), name, std::uint16_t(line), 0);
    return Shared<T>{reinterpret_cast<T*>(lane_.shared_base() + off), off, count, next_id_++};
  }
  template <class T>
  Shared2D<T> shared2d(int rows, int cols, const char* name = "tile",
                       int line = __builtin_LINE()) {
    std::uint32_t off = lane_.alloc_shared(std::uint64_t(rows) * cols * sizeof(T),
                                           alignment<T>(), sizeof(T), name, std::uint16_t(line),
                                           std::uint32_t(cols));
    return Shared2D<T>{reinterpret_cast<T*>(lane_.shared_base() + off), off, rows, cols,
                       next_id_++};
  }

 private:
  template <class T>
  static constexpr std::uint32_t alignment() {
    return alignof(T) < 16 ? 16 : alignof(T);
  }
  template <class V>
  V shuffle(sim::ShuffleKind k, unsigned mask, V v, int arg, int width, int line) {
    static_assert(sizeof(V) <= 8 && std::is_trivially_copyable_v<V>);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(V));
    bits = lane_.shuffle(k, mask, bits, arg, width, std::uint16_t(line));
    V out;
    std::memcpy(&out, &bits, sizeof(V));
    return out;
  }
  template <class T>
  void check_tile(const Shared2D<T>& s, int r, int c, int line) {
    if (r < 0 || r >= s.rows || c < 0 || c >= s.cols)
      lane_.fail(sim::ProblemKind::OutOfBounds, std::uint16_t(line),
                 "shared tile index (" + std::to_string(r) + ", " + std::to_string(c) +
                     ") is outside " + std::to_string(s.rows) + " x " + std::to_string(s.cols));
  }
  struct AsyncCopy {
    std::byte* dst;
    const std::byte* src;
  };
  struct BulkCopy {
    std::byte* dst;
    const std::byte* src;
    std::uint32_t bytes;
  };
  sim::Lane& lane_;
  std::uint8_t next_id_ = kFirstSharedId;
  std::vector<BulkCopy> bulk_pending_;
  std::vector<std::vector<BulkCopy>> bulk_groups_;
  std::vector<AsyncCopy> pending_;               // issued, not yet committed
  std::vector<std::vector<AsyncCopy>> groups_;   // committed, oldest first
};

// Runs a variant's launches on the emulator, streaming events to one sink. A launch after
// a failed one is skipped: its inputs would be garbage.
class Launcher {
 public:
  Launcher(TraceSink& sink, std::vector<ArrayDesc> arrays, std::string source_file,
           sim::EmuOptions opt = {})
      : sink_(sink), arrays_(std::move(arrays)), source_file_(std::move(source_file)),
        opt_(std::move(opt)) {}

  // Names the kernel structs launched (typeid, mangled) instead of running them: which
  // template instance of the fast build runs for these parameters (its SASS).
  void names_only(std::vector<std::string>* names) { names_ = names; }

  template <class K>
  void launch(const LaunchCfg& cfg, const K& kernel) {
    launch_body(cfg, typeid(K).name(), [](const void* k) {
      Thread t;
      (*static_cast<const K*>(k))(t);
    }, &kernel);
  }
  // The launch's work, compiled once in the library (simt_emu.cpp): `body(kernel)` runs one
  // thread. A template here cost a student's build about 0.2 s of compiler time each check.
  void launch_body(const LaunchCfg& cfg, const char* type_name, void (*body)(const void*), const void* kernel);
  const sim::EmuResult& result() const { return result_; }
  // A variant's launch function found no instance for its parameters: nothing runs.
  void refuse(std::string why) {
    if (error_.empty()) error_ = std::move(why);
    result_.ok = false;
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
  TraceSink& sink_;
  std::vector<ArrayDesc> arrays_;
  std::string source_file_;
  sim::EmuOptions opt_;
  sim::EmuResult result_;
  std::vector<std::string>* names_ = nullptr;
};

}  // namespace emu
}  // namespace ws
