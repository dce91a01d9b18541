#pragma once
// The trace: one record per warp-level event. The emulator (sim/emulator.*) and the
// traced CUDA build (kernels/cuda_*) both write exactly this struct, so a trace from the
// GPU and one from the emulator can be compared byte for byte. Plain C++: no CUDA here.
#include <cstdint>
// Under NVRTC (student kernels built at run time) only the plain records below are
// compiled: no host library exists there.
#if !defined(__CUDACC_RTC__)
#include <string>
#include <string_view>
#include <vector>
#endif

#include "sim/hd.h"

namespace ws {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr unsigned long long count() const { return 1ull * x * y * z; }
  friend constexpr bool operator==(const Dim3&, const Dim3&) = default;
};

// What a warp did at one event. Memory kinds carry per-lane byte offsets; the rest
// carry only masks. Values are stable: fixtures store them as numbers.
enum class EventKind : std::uint8_t {
  GlobalLoad = 0,
  GlobalStore = 1,
  GlobalAtomic = 2,
  SharedLoad = 3,
  SharedStore = 4,
  SharedAtomic = 5,
  Branch = 6,    // a marked branch (t.branch(cond)): ballot = lanes where cond held
  Barrier = 7,   // __syncthreads
  WarpSync = 8,  // __syncwarp
  Shuffle = 9,   // __shfl*_sync
  Vote = 10,     // __ballot_sync / __activemask
  Work = 11,     // t.work(n): the instructions a path runs between traced events, as the
                 // kernel states them; offset[lane] = n for each issuing lane
  // cp.async (t.cp_async16): one instruction, two events, so each side has its own
  // offsets: the global read (counted as Nsight Compute's LDGSTS, not as a load) and the
  // shared write it lands as.
  AsyncLoad = 12,
  AsyncStore = 13,
  Mma = 14,      // mma.sync (t.mma_16816): one tensor-core instruction; masks only
  // cp.async.bulk.global.shared::cta (bulk_store): each lane hands the copy engine (TMA) a
  // run of 16-byte units to copy from shared to global; the lanes issue no store. One
  // event, the global side, packed (see bulk_pack below) because the sectors the copy
  // writes depend on its shared source's alignment too.
  BulkStore = 15,
};
constexpr int kEventKindCount = 16;

#if !defined(__CUDACC_RTC__)
std::string_view to_string(EventKind k);
bool event_kind_from_string(std::string_view s, EventKind& out);
#endif
WS_HD constexpr bool is_global(EventKind k) {
  return k <= EventKind::GlobalAtomic || k == EventKind::AsyncLoad || k == EventKind::BulkStore;
}
WS_HD constexpr bool is_shared(EventKind k) {
  return (k >= EventKind::SharedLoad && k <= EventKind::SharedAtomic) || k == EventKind::AsyncStore;
}
WS_HD constexpr bool is_memory(EventKind k) { return is_global(k) || is_shared(k); }
WS_HD constexpr bool is_load(EventKind k) {
  return k == EventKind::GlobalLoad || k == EventKind::SharedLoad || k == EventKind::AsyncLoad;
}
WS_HD constexpr bool is_store(EventKind k) {
  return k == EventKind::GlobalStore || k == EventKind::SharedStore || k == EventKind::AsyncStore ||
         k == EventKind::BulkStore;
}

constexpr std::uint8_t kNoArray = 0xFF;

// A source site: the line of the kernel's family header, and which array the access
// names (kernel argument ordinal for global arrays, allocation ordinal for shared ones).
// nvcc has no __builtin_COLUMN, so "which array + which kind" tells apart the accesses
// that share a line (As vs Bs, the load vs the store of `a += b`).
struct Site {
  std::uint16_t line = 0;
  std::uint8_t array = kNoArray;
  friend constexpr bool operator==(const Site&, const Site&) = default;
};

// One warp-level event, 148 bytes. The same layout is written by device code, so it
// holds only fixed-size integers (checked by static_assert below).
struct WarpEvent {
  std::uint32_t block = 0;   // linear block index: x + y*gx + z*gx*gy
  std::uint16_t warp = 0;    // warp within the block (linear thread id / 32)
  std::uint16_t line = 0;    // source line in the family header
  EventKind kind = EventKind::GlobalLoad;
  std::uint8_t array = kNoArray;
  std::uint8_t bytes = 0;    // bytes per lane for memory events (1, 2, 4, 8 or 16)
  std::uint8_t flags = 0;     // kEventVaryingAtomic, else 0
  std::uint32_t mask = 0;    // lanes that executed this event
  std::uint32_t ballot = 0;  // Branch/Vote: lanes whose predicate was true; else 0
  // Memory events, per lane (0 for lanes not in mask): global: byte offset into the
  // array (arrays are 256-byte aligned, so sectors follow from it); shared: byte offset
  // into the block's shared memory, array base included, so banks follow from it.
  // Work events: the instruction count each issuing lane stated.
  std::uint32_t offset[32] = {};
  Site site() const { return Site{line, array}; }
#if !defined(__CUDACC_RTC__)
  int active_lanes() const { return __builtin_popcount(mask); }
#endif
  friend bool operator==(const WarpEvent&, const WarpEvent&) = default;
};
static_assert(sizeof(WarpEvent) == 148, "WarpEvent layout is shared with device code");

// WarpEvent::flags. A shared atomic whose added value varies per lane (a weighted
// histogram's `+= w`): the compiler emits ATOMS.ADD, which cannot combine the lanes that
// name one word the way `+= 1` compiles to ATOMS.POPC.INC (a population count added
// once), so those lanes serialise. Set by the dialect's atomic_add_varying.
inline constexpr std::uint8_t kEventVaryingAtomic = 1;

// The one test of "did this branch diverge": a marked branch whose condition held on some
// but not all of the lanes that ran it, so the warp runs both sides one after the other.
// @post true iff e is a Branch and 0 < popcount(ballot & mask) < popcount(mask).
constexpr bool diverged(const WarpEvent& e) {
  const std::uint32_t taken = e.ballot & e.mask;
  return e.kind == EventKind::Branch && taken != 0 && taken != e.mask;
}

// A BulkStore's fields. A bulk copy moves whole 16-byte units between 16-byte-aligned
// addresses, so `bytes` holds the units (256 bytes: 16) and each lane's offset is its
// global byte offset with its shared source's 16-byte unit within a 128-byte line (0-7)
// in the four low bits, which are zero in the address. Every view and count reads a lane
// through lane_offset / lane_bytes, which unpack it; other kinds pass through.
inline constexpr std::uint32_t kBulkUnit = 16;
// The copy engine cuts a copy where its shared source crosses a line of this many bytes.
inline constexpr std::uint32_t kBulkSourceLine = 128;
// @post lane_offset of the result == global_off rounded down to 16; bulk_shared_phase ==
//       shared_off % 128 rounded down to 16.
WS_HD constexpr std::uint32_t bulk_pack(std::uint32_t global_off, std::uint32_t shared_off) {
  return (global_off & ~(kBulkUnit - 1)) | (shared_off % kBulkSourceLine / kBulkUnit);
}
// @post the lane's byte offset into its array (a BulkStore's global offset, unpacked).
WS_HD constexpr std::uint32_t lane_offset(const WarpEvent& e, unsigned lane) {
  return e.kind == EventKind::BulkStore ? e.offset[lane] & ~(kBulkUnit - 1) : e.offset[lane];
}
// @post the bytes each lane of e moves (a BulkStore's units x 16).
WS_HD constexpr std::uint32_t lane_bytes(const WarpEvent& e) {
  return e.kind == EventKind::BulkStore ? std::uint32_t(e.bytes) * kBulkUnit : e.bytes;
}
// @post a BulkStore lane's shared source modulo 128 bytes (0, 16, ..., 112).
WS_HD constexpr std::uint32_t bulk_shared_phase(const WarpEvent& e, unsigned lane) {
  return (e.offset[lane] & (kBulkSourceLine / kBulkUnit - 1)) * kBulkUnit;
}

#if !defined(__CUDACC_RTC__)
// The memory an access names: global arrays are kernel arguments, shared ones are
// carved from the block's dynamic shared memory in declaration order.
enum class Space : std::uint8_t { Global = 0, Shared = 1 };
std::string_view to_string(Space s);

struct ArrayDesc {
  std::uint8_t id = kNoArray;
  Space space = Space::Global;
  std::string name;           // "in", "out", "tile"
  std::uint32_t elem_bytes = 4;
  std::uint64_t count = 0;    // elements
  std::uint32_t base_offset = 0;  // shared: byte offset of element 0 in the block's smem
  std::uint32_t cols = 0;     // shared2d: elements per row, padding included; 0: one row
};

// Everything about one kernel launch that a view needs beside its events.
struct LaunchInfo {
  std::string kernel;         // entry name, e.g. "transpose_tiled"
  std::string source_file;    // the family header, e.g. "kernels/families/transpose.cuh"
  Dim3 grid, block;
  std::uint32_t shared_bytes = 0;
  std::vector<ArrayDesc> arrays;  // global arrays first (by argument ordinal), then shared
  unsigned warps_per_block() const { return unsigned((block.count() + 31) / 32); }
};

// Receives a launch's events as they happen, so whole-grid totals need no stored trace.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void begin_launch(const LaunchInfo&) {}
  // A shared array became known during the launch (emulator: at its first allocation).
  virtual void on_array(const ArrayDesc&) {}
  virtual void on_event(const WarpEvent& e) = 0;
  virtual void end_launch() {}
};

// Fans one stream of events out to several sinks (totals + kept blocks, say).
class TeeSink : public TraceSink {
 public:
  explicit TeeSink(std::vector<TraceSink*> sinks) : sinks_(std::move(sinks)) {}
  void begin_launch(const LaunchInfo& l) override {
    for (auto* s : sinks_) s->begin_launch(l);
  }
  void on_array(const ArrayDesc& a) override {
    for (auto* s : sinks_) s->on_array(a);
  }
  void on_event(const WarpEvent& e) override {
    for (auto* s : sinks_) s->on_event(e);
  }
  void end_launch() override {
    for (auto* s : sinks_) s->end_launch();
  }

 private:
  std::vector<TraceSink*> sinks_;
};

// A kept trace: the events of selected blocks of one launch, in issue order.
struct KeptLaunch {
  LaunchInfo info;
  std::vector<WarpEvent> events;
};

// Keeps the events of the listed blocks (all blocks when the list is empty).
class KeepSink : public TraceSink {
 public:
  explicit KeepSink(std::vector<std::uint32_t> blocks = {}, std::size_t max_events = 1u << 22)
      : blocks_(std::move(blocks)), max_events_(max_events) {}
  void begin_launch(const LaunchInfo& l) override;
  void on_array(const ArrayDesc& a) override;  // appended to the current launch's info
  void on_event(const WarpEvent& e) override;
  const std::vector<KeptLaunch>& launches() const { return launches_; }
  std::vector<KeptLaunch>& launches() { return launches_; }
  bool truncated() const { return truncated_; }

 private:
  std::vector<std::uint32_t> blocks_;
  std::size_t max_events_;
  std::vector<KeptLaunch> launches_;
  bool truncated_ = false;
};

// Canonical order for comparing traces from different backends: by block, warp, site
// and kind, keeping issue order within each (block, warp, site, kind). The GPU may run
// the two sides of a divergent if/else in either order; per-site order is fixed.
// @post result is a permutation of events; equal multisets of per-site sequences
//       give equal results.
std::vector<WarpEvent> canonical(std::vector<WarpEvent> events);

// First difference between two canonical traces, as one readable line ("" if equal).
std::string first_difference(const std::vector<WarpEvent>& a, const std::vector<WarpEvent>& b);

#endif  // !__CUDACC_RTC__

}  // namespace ws
