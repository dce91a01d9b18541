#pragma once
// The SIMT emulator: runs a kernel body once per CUDA thread, one fiber per thread,
// and steps each warp in lock-step so that the lanes at the same site issue together.
// It emits the same WarpEvents as the traced CUDA build. No CUDA, no GUI here.
//
// Scheduling (deterministic, so traces are reproducible):
//  - blocks run one after another in linear order (EmuOptions::threads > 1: on several
//    cores, the events still reaching the sink in that order); within a block, warps in
//    order;
//  - a warp runs each lane to its next event point; the lanes waiting at the lowest
//    (line, array, kind) issue together with their active mask; lanes elsewhere are the
//    other side of a divergent branch and issue later (min-site reconvergence, which is
//    what the hardware's reconvergence gives for the structured if/else and loops the
//    catalogue uses);
//  - __syncthreads releases when every live (not exited) thread of the block waits at
//    a barrier; if all live threads wait but some can never arrive, that is a deadlock.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/run_control.h"
#include "sim/trace.h"

namespace ws::sim {

enum class ProblemKind : std::uint8_t {
  Deadlock,           // a barrier or collective that can never complete
  OutOfBounds,        // global or shared index outside its array
  SharedOverflow,     // shared allocations exceed the launch's shared memory
  Race,               // two threads, same shared word, >= 1 write, no barrier between
  BadCollective,      // shuffle/ballot/syncwarp mask names lanes not at this site
  StepLimit,          // a thread ran too many steps (probably an endless loop)
  Cancelled,          // the run's RunControl was cancelled
  Internal,
};
std::string_view to_string(ProblemKind k);

struct Problem {
  ProblemKind kind = ProblemKind::Internal;
  std::uint16_t line = 0;         // source line of the site involved
  std::uint16_t other_line = 0;   // second site (race partner, other barrier), 0 if none
  std::uint32_t block = 0;        // linear block
  std::uint32_t thread = 0;       // linear thread id in the block
  std::string message;            // one readable sentence naming the sites
};

// Global memory made on first touch: a run of a few blocks of a huge grid fills only
// the pages those blocks read or write (kernels/backends/emu/lazy_arrays.h). The dialect calls
// touch() before it loads or stores `bytes` at `addr` of a global array.
class LazyMemory {
 public:
  virtual ~LazyMemory() = default;
  virtual void touch(const void* addr, std::size_t bytes) = 0;
};

struct EmuOptions {
  bool detect_races = true;
  // Steps a thread may take: its events plus the rounds of its marked work loops (work()).
  std::uint64_t max_events_per_thread = 1ull << 24;
  std::size_t max_problems = 16;  // the launch stops at the first abort-worthy problem
  // Blocks to run; empty = the whole grid. Lets the GUI emulate one block of a huge grid.
  std::vector<std::uint32_t> only_blocks;
  // Made-on-touch global arrays (may be null: the arrays are filled already).
  LazyMemory* lazy = nullptr;
  // Cancellation and progress (may be null): polled at least every 1024 steps, so a
  // cancel stops the launch within about a millisecond; the blocks it finishes are added
  // to the control's count (RunControl::advance) as progress_stage.
  RunControl* control = nullptr;
  std::string progress_stage;
  // OS threads that emulate blocks at once (at most one per block); 1 is the serial run.
  // Whatever the number, the sink sees the same calls in the same order and the result
  // is the same (blocks are independent: a kernel's blocks share only global memory,
  // whose atomics the dialect makes atomic). Runs on made-on-touch memory are serial.
  unsigned threads = 1;
  // Where each issued event's line is stored as it issues (may be null): a sandboxed
  // student run reads it when the run is stopped at its deadline or by a signal, before
  // any buffered event has reached the sink. With threads > 1, some block's latest line.
  std::atomic<int>* last_line = nullptr;
};

// The threads for a whole-grid emulation: WARPSCOPE_EMU_THREADS (or WS_EMU_THREADS) when
// set to 1..256, else the machine's hardware threads (at most 64).
// @post >= 1
unsigned emu_threads();

struct EmuResult {
  bool ok = true;
  std::vector<Problem> problems;
  std::uint64_t events = 0;        // warp-level events emitted
  std::uint64_t threads_run = 0;
  std::uint64_t steps = 0;         // lane events plus marked work rounds, of all threads
  std::uint64_t blocks_run = 0;
  bool cancelled = false;          // stopped by EmuOptions::control
};

// The launch to emulate. `thread_body` runs inside each thread's fiber; it reads its
// coordinates from current_lane().
struct EmuLaunch {
  LaunchInfo info;                  // grid, block, shared bytes, global arrays
  std::function<void()> thread_body;
};

// Runs the launch, streaming events to `sink`. Never throws on kernel errors: they come
// back as Problems (the launch stops at the first deadlock/out-of-bounds/overflow).
// @post result.ok == result.problems.empty(); every emitted event has mask != 0.
EmuResult run(const EmuLaunch& launch, TraceSink& sink, const EmuOptions& opt = {});

enum class ShuffleKind : std::uint8_t { Idx, Up, Down, Xor };
// The CUDA intrinsic a student wrote: "__shfl_sync", "__shfl_up_sync", ...
std::string_view to_string(ShuffleKind k);

// The calls a running thread makes. Each is one event point: the thread parks until
// its warp issues the event together with the other lanes at the same site, then the
// call returns and the caller performs the access itself.
class Lane {
 public:
  virtual ~Lane() = default;
  Dim3 thread_idx, block_idx, block_dim, grid_dim;
  unsigned linear_tid = 0;   // x + y*bx + z*bx*by
  LazyMemory* lazy = nullptr;  // EmuOptions::lazy of the launch
  unsigned lane_id() const { return linear_tid % 32; }
  unsigned warp_id() const { return linear_tid / 32; }

  // Global or shared load/store/atomic of `bytes` at byte `offset` of array `array`.
  // `flags`: WarpEvent::flags of the event (kEventVaryingAtomic), the same for every lane
  // of one site.
  virtual void access(EventKind kind, std::uint8_t array, std::uint32_t offset,
                      std::uint8_t bytes, std::uint16_t line, std::uint8_t flags = 0) = 0;
  virtual bool branch(bool cond, std::uint16_t line) = 0;
  virtual void syncthreads(std::uint16_t line) = 0;
  virtual void syncwarp(std::uint32_t mask, std::uint16_t line) = 0;
  // Exchanges a value (up to 8 bytes, as raw bits) with the lanes issuing together.
  virtual std::uint64_t shuffle(ShuffleKind kind, std::uint32_t mask, std::uint64_t bits,
                                int arg, int width, std::uint16_t line) = 0;
  virtual std::uint32_t ballot(std::uint32_t mask, bool pred, std::uint16_t line) = 0;
  virtual std::uint32_t activemask(std::uint16_t line) = 0;
  // A warp-wide matrix instruction (ldmatrix, mma.sync: `.sync.aligned`, so every lane of
  // the warp issues it together, else a BadCollective): one event of `kind` with this
  // lane's `offset` and `bytes` (a shared load's row address; 0 for an Mma), and an
  // exchange of registers: `mine` (n words) from every lane lands in `all` (32 x n, by
  // lane) before the call returns. n <= kMaxExchangeWords.
  static constexpr unsigned kMaxExchangeWords = 16;
  virtual void warp_exchange(EventKind kind, std::uint8_t array, std::uint32_t offset,
                             std::uint8_t bytes, const std::uint32_t* mine, unsigned n,
                             std::uint32_t* all, std::uint16_t line) = 0;

  // Shared memory of the running block. alloc_shared returns the byte offset of a new
  // array (aligned to `align`) and registers it for messages; overflow is a Problem.
  // `cols`: elements per row of a 2D array (0 for 1D), so views can draw its grid.
  virtual std::uint32_t alloc_shared(std::uint64_t bytes, std::uint32_t align,
                                     std::uint32_t elem_bytes, const char* name,
                                     std::uint16_t line, std::uint32_t cols) = 0;
  virtual std::byte* shared_base() = 0;
  // The launch's shared memory in bytes (an `extern __shared__` array takes what is left).
  virtual std::uint32_t shared_bytes() const = 0;

  // Reports an error found by the dialect (out-of-bounds index) and aborts the launch:
  // does not return normally (unwinds the thread's fiber).
  [[noreturn]] virtual void fail(ProblemKind kind, std::uint16_t line, std::string message) = 0;
};

// The lane whose fiber is running on this OS thread. Only valid inside thread_body.
Lane& current_lane();

// Counts `rounds` of event-free compute (a marked work loop, WS_WORK in the dialect)
// toward the running thread's step limit, cancellation and progress. Outside an emulated
// thread (a CPU reference) it polls this thread's RunControl (ThreadControlScope) and
// throws RunCancelled when that was cancelled.
void work(std::uint64_t rounds, std::uint16_t line = __builtin_LINE());

}  // namespace ws::sim
