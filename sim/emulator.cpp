// The SIMT emulator: each lane a fibre, a warp issued together, barriers, shared memory, races.
//
// Index (search for "[SECTION] <name>"):
//   Names
//   Lanes and warps: state, scheduling, barriers, shared memory
//   The emulator: blocks, warps, issue, races, stuck warps
//   Entry points: the current lane, work
//   Blocks for the several-cores driver (emulator_parallel.cpp: the driver itself)
#include "sim/emulator.h"
#include "sim/emulator_blocks.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#include "sim/fiber.h"
#include "sim/race.h"

namespace ws::sim {

// [SECTION] Names
std::string_view to_string(ProblemKind k) {
  switch (k) {
    case ProblemKind::Deadlock: return "deadlock";
    case ProblemKind::OutOfBounds: return "out of bounds";
    case ProblemKind::SharedOverflow: return "shared memory overflow";
    case ProblemKind::Race: return "race";
    case ProblemKind::BadCollective: return "bad collective";
    case ProblemKind::StepLimit: return "step limit";
    case ProblemKind::Cancelled: return "cancelled";
    case ProblemKind::Internal: return "internal";
  }
  return "unknown";
}

namespace {

constexpr std::uint32_t kNoKey = 0xFFFFFFFFu;
constexpr unsigned kMaxThreadsPerBlock = 1024;
static_assert(kMaxThreadsPerBlock <= RaceDetector::kMaxThreads);

// What a parked lane is waiting to do. Several ops can share an EventKind (a ballot and
// an __activemask are both Vote), so the lane keeps its own.
enum class Op : std::uint8_t { Access, Branch, Barrier, SyncWarp, Shuffle, Ballot, ActiveMask, Matrix };

}  // namespace

std::string_view to_string(ShuffleKind k) {
  switch (k) {
    case ShuffleKind::Idx: return "__shfl_sync";
    case ShuffleKind::Up: return "__shfl_up_sync";
    case ShuffleKind::Down: return "__shfl_down_sync";
    case ShuffleKind::Xor: return "__shfl_xor_sync";
  }
  return "__shfl_sync";
}

namespace {

const char* op_name(Op op) {
  switch (op) {
    case Op::Access: return "memory access";
    case Op::Branch: return "branch";
    case Op::Barrier: return "__syncthreads";
    case Op::SyncWarp: return "__syncwarp";
    case Op::Shuffle: return "__shfl_sync";
    case Op::Ballot: return "__ballot_sync";
    case Op::ActiveMask: return "__activemask";
    case Op::Matrix: return "warp matrix instruction (ldmatrix, mma.sync)";
  }
  return "?";
}

// [SECTION] Lanes and warps: state, scheduling, barriers, shared memory
// Thrown on a lane's own stack to unwind it; caught at the lane's entry, never beyond.
struct LaneAbort {};

// Issue key: the lowest (line, array, kind) issues first.
constexpr std::uint32_t make_key(std::uint16_t line, std::uint8_t array, EventKind kind) {
  return (std::uint32_t(line) << 16) | (std::uint32_t(array) << 8) | std::uint32_t(kind);
}
constexpr std::uint16_t key_line(std::uint32_t k) { return std::uint16_t(k >> 16); }

struct WarpState {
  std::uint32_t exists = 0;      // lanes that exist (partial last warp)
  std::uint32_t exited = 0;
  std::uint32_t parked = 0;      // waiting at an event point to be issued
  std::uint32_t at_barrier = 0;  // waiting at __syncthreads
  std::uint32_t runnable = 0;    // to be resumed by the scheduler
  std::uint32_t keys[32];        // what each parked lane waits at (stale for the others)
  // The parked lanes' memory offsets (Work: instruction counts), side by side as the
  // event holds them, so an issue reads one array instead of 32 lanes.
  std::uint32_t offset[32];
  std::uint8_t bytes[32];  // and their access widths
};

struct SharedAlloc {
  std::uint32_t offset = 0, bytes = 0, elem = 0, cols = 0;
  const char* name = "";
  std::uint16_t line = 0;
};

std::string thread_ranges(const std::vector<unsigned>& tids) {
  std::string s;
  std::size_t i = 0, shown = 0;
  while (i < tids.size()) {
    std::size_t j = i;
    while (j + 1 < tids.size() && tids[j + 1] == tids[j] + 1) ++j;
    if (shown == 4) {
      s += ", ...";
      break;
    }
    if (!s.empty()) s += ", ";
    s += std::to_string(tids[i]);
    if (j > i) s += "-" + std::to_string(tids[j]);
    ++shown;
    i = j + 1;
  }
  return s;
}

std::string lane_list(std::uint32_t mask) {
  std::vector<unsigned> v;
  for (unsigned i = 0; i < 32; ++i)
    if (mask >> i & 1u) v.push_back(i);
  return thread_ranges(v);
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

class Emu;

class LaneImpl final : public Lane {
 public:
  LaneImpl(Emu& e, StackPool& pool, FiberHost& host) : emu(e), fiber(pool, host) {}

  void access(EventKind kind, std::uint8_t array, std::uint32_t off, std::uint8_t nbytes,
              std::uint16_t line, std::uint8_t event_flags) override {
    op = Op::Access;
    warp->offset[lane] = off;
    warp->bytes[lane] = nbytes;
    bytes = nbytes;
    flags = event_flags;
    park(make_key(line, array, kind));
  }
  bool branch(bool cond, std::uint16_t line) override {
    op = Op::Branch;
    pred = cond;
    park(make_key(line, kNoArray, EventKind::Branch));
    return cond;
  }
  void syncthreads(std::uint16_t line) override;
  void syncwarp(std::uint32_t mask, std::uint16_t line) override {
    op = Op::SyncWarp;
    cmask = mask;
    park(make_key(line, kNoArray, EventKind::WarpSync));
  }
  std::uint64_t shuffle(ShuffleKind kind, std::uint32_t mask, std::uint64_t value, int a,
                        int w, std::uint16_t line) override {
    op = Op::Shuffle;
    skind = kind;
    cmask = mask;
    bits = value;
    arg = a;
    width = w;
    park(make_key(line, kNoArray, EventKind::Shuffle));
    return out;
  }
  std::uint32_t ballot(std::uint32_t mask, bool p, std::uint16_t line) override {
    op = Op::Ballot;
    cmask = mask;
    pred = p;
    park(make_key(line, kNoArray, EventKind::Vote));
    return std::uint32_t(out);
  }
  void warp_exchange(EventKind kind, std::uint8_t array, std::uint32_t off, std::uint8_t nbytes,
                     const std::uint32_t* mine, unsigned n, std::uint32_t* all,
                     std::uint16_t line) override {
    op = Op::Matrix;
    warp->offset[lane] = off;
    warp->bytes[lane] = nbytes;
    bytes = nbytes;
    flags = 0;
    xmine = mine;
    xall = all;
    xn = n < kMaxExchangeWords ? n : kMaxExchangeWords;
    park(make_key(line, array, kind));
  }
  std::uint32_t activemask(std::uint16_t line) override {
    op = Op::ActiveMask;
    pred = true;
    park(make_key(line, kNoArray, EventKind::Vote));
    return std::uint32_t(out);
  }
  std::uint32_t alloc_shared(std::uint64_t nbytes, std::uint32_t align, std::uint32_t elem_bytes,
                             const char* name, std::uint16_t line, std::uint32_t cols) override;
  std::byte* shared_base() override;
  std::uint32_t shared_bytes() const override;
  [[noreturn]] void fail(ProblemKind kind, std::uint16_t line, std::string message) override;

  [[gnu::always_inline]] inline void park(std::uint32_t key);
  // Counts n steps at `line` (`what`: the event or "work loop"): the step limit, and the
  // launch's cancellation and progress poll. Throws LaneAbort when the launch aborts.
  [[gnu::always_inline]] inline void tick(std::uint64_t n, std::uint16_t line, const char* what);
  [[noreturn, gnu::cold, gnu::noinline]] void step_limit(std::uint16_t line, const char* what);
  void switch_away();
  LaneImpl* next_runnable();

  Emu& emu;
  Fiber fiber;
  WarpState* warp = nullptr;
  LaneImpl** warp_lanes = nullptr;  // lane 0 of this lane's warp
  unsigned lane = 0;
  std::uint32_t bit = 0;

  // The pending event, read by the scheduler while the lane is parked.
  Op op = Op::Access;
  ShuffleKind skind = ShuffleKind::Idx;
  bool pred = false;
  std::uint8_t bytes = 0;
  std::uint8_t flags = 0;  // WarpEvent::flags of an access
  std::uint16_t barrier_line = 0;
  std::uint32_t cmask = 0;
  int arg = 0, width = 32;
  std::uint64_t bits = 0;
  std::uint64_t out = 0;  // written by the scheduler before resuming
  const std::uint32_t* xmine = nullptr;  // Op::Matrix: this lane's words, and where the
  std::uint32_t* xall = nullptr;         // warp's land (32 x xn)
  unsigned xn = 0;

  std::uint64_t events = 0;
  std::uint32_t allocs = 0;
};

thread_local LaneImpl* tl_current = nullptr;

class Emu {
 public:
  Emu(const EmuLaunch& l, TraceSink& s, const EmuOptions& o)
      : launch(l), info(l.info), sink(s), opt(o), pool(StackPool::kDefaultStackBytes) {}
  ~Emu() {
    // Lanes hold fibers that refer to host and pool: they go first.
    lanes.clear();
  }

  EmuResult run();
  // Checks the launch and makes the block's lanes; false (a Problem recorded) when the
  // launch cannot run.
  bool prepare();
  // A worker of a parallel run: the blocks [lo, hi) of `list`, as a fresh run would see
  // them (no race reported yet, no shared array announced); stops at an abort.
  void run_chunk(const std::vector<std::uint32_t>& list, std::size_t lo, std::size_t hi);

  // Called from lanes.
  void report_abort(Problem p) {
    if (aborting) return;  // the first abort-worthy problem is the one that counts
    aborting = true;
    result.problems.push_back(std::move(p));
  }

  const EmuLaunch& launch;
  const LaunchInfo& info;
  TraceSink& sink;
  const EmuOptions& opt;
  const std::uint64_t max_events = opt.max_events_per_thread;  // read at every step
  StackPool pool;
  FiberHost host;
  EmuResult result;
  bool aborting = false;

  // Steps of all threads so far, and when the control is polled next.
  static constexpr std::uint64_t kPollEvery = 1024;
  std::uint64_t steps = 0, next_poll = kPollEvery;
  std::uint64_t blocks_done = 0, blocks_reported = 0;
  void poll() {
    next_poll = steps + kPollEvery;
    RunControl* c = opt.control;
    if (!c) return;
    if (c->cancelled()) {
      result.cancelled = true;
      report_abort(Problem{ProblemKind::Cancelled, 0, 0, block, 0,
                           "cancelled in block " + std::to_string(block) + " of " +
                               std::to_string(info.grid.count())});
      return;
    }
    // What this launch finished since its last report: parts of one run on several cores
    // each add their own, so the run's count only grows.
    c->advance(double(blocks_done - blocks_reported), opt.progress_stage);
    blocks_reported = blocks_done;
  }

  std::uint32_t block = 0;
  std::vector<std::unique_ptr<LaneImpl>> lanes;
  std::vector<LaneImpl*> lane_ptrs;
  std::vector<WarpState> warps;
  std::vector<std::byte> shared;
  std::vector<SharedAlloc> allocs;
  std::size_t announced = 0;  // shared arrays already passed to sink.on_array

  RaceDetector races;  // used when opt.detect_races
  std::vector<Race> found_races;  // what one access found (kept: no allocation per access)

 private:
  bool validate();
 public:
  void run_block(std::uint32_t b);
 private:
  void step_warp(unsigned w);
  std::uint32_t pick_and_issue(unsigned w);
  bool check_collective(unsigned w, std::uint32_t group, std::uint32_t key, bool& blocked);
  void issue(unsigned w, std::uint32_t group, std::uint32_t key);
  void check_races(unsigned tid, std::uint32_t first_byte, std::uint64_t end, bool write,
                   std::uint16_t line);
  void release_barrier();
  void report_stuck();
  void abort_block();
  std::string shared_word_name(std::uint32_t word) const;
  LaneImpl& lane_at(unsigned w, unsigned l) { return *lane_ptrs[std::size_t(w) * 32 + l]; }
  void add_problem(Problem p) {
    if (result.problems.size() < opt.max_problems) result.problems.push_back(std::move(p));
  }
};

void lane_entry(void* p) {
  auto* l = static_cast<LaneImpl*>(p);
  Emu& e = l->emu;
  if (!e.aborting) {
    try {
      e.launch.thread_body();
    } catch (const LaneAbort&) {
    } catch (const std::exception& ex) {
      e.report_abort(Problem{ProblemKind::Internal, 0, 0, e.block, l->linear_tid,
                             "thread " + std::to_string(l->linear_tid) + " of block " +
                                 std::to_string(e.block) + " threw: " + ex.what()});
    } catch (...) {
      e.report_abort(Problem{ProblemKind::Internal, 0, 0, e.block, l->linear_tid,
                             "thread " + std::to_string(l->linear_tid) + " of block " +
                                 std::to_string(e.block) + " threw an unknown exception"});
    }
  }
  l->warp->exited |= l->bit;
  // Hand over straight to the next lane of the warp waiting to run, if any.
  l->fiber.set_successor(nullptr);
  if (LaneImpl* nx = l->next_runnable()) l->fiber.set_successor(&nx->fiber);
}

// The next lane of this warp that the scheduler marked runnable, taken off the list.
LaneImpl* LaneImpl::next_runnable() {
  std::uint32_t& run = warp->runnable;
  if (!run || emu.aborting) return nullptr;
  LaneImpl* nx = warp_lanes[__builtin_ctz(run)];
  run &= run - 1;
  tl_current = nx;
  return nx;
}

// Parks this lane: runs the next runnable lane of the warp directly, or returns to the
// scheduler when there is none, so a warp event costs one switch per lane, not two.
void LaneImpl::switch_away() {
  if (LaneImpl* nx = next_runnable())
    fiber.yield_to(nx->fiber);
  else
    fiber.yield();
}

void LaneImpl::park(std::uint32_t key) {
  if (emu.aborting) {
    // Unwinding: no more events. Inside a destructor during unwinding we must not throw.
    if (std::uncaught_exceptions() == 0) throw LaneAbort{};
    return;
  }
  tick(1, key_line(key), "an event");
  warp->keys[lane] = key;
  warp->parked |= bit;
  switch_away();
  if (emu.aborting && std::uncaught_exceptions() == 0) throw LaneAbort{};
}

void LaneImpl::tick(std::uint64_t n, std::uint16_t line, const char* what) {
  events += n;
  if (events > emu.max_events) [[unlikely]]
    step_limit(line, what);
  emu.steps += n;
  if (emu.steps >= emu.next_poll) [[unlikely]] {
    emu.poll();
    if (emu.aborting && std::uncaught_exceptions() == 0) throw LaneAbort{};
  }
}

void LaneImpl::step_limit(std::uint16_t line, const char* what) {
  fail(ProblemKind::StepLimit, line,
         "thread " + std::to_string(linear_tid) + " of block " + std::to_string(emu.block) +
             " ran more than " + std::to_string(emu.opt.max_events_per_thread) +
             " steps (events and work-loop rounds; at " + what + " on line " +
             std::to_string(line) + "): probably a loop that never ends");
}

void LaneImpl::syncthreads(std::uint16_t line) {
  if (emu.aborting) {
    if (std::uncaught_exceptions() == 0) throw LaneAbort{};
    return;
  }
  tick(1, line, "the barrier");
  op = Op::Barrier;
  barrier_line = line;
  warp->at_barrier |= bit;
  switch_away();
  if (emu.aborting && std::uncaught_exceptions() == 0) throw LaneAbort{};
}

std::uint32_t LaneImpl::alloc_shared(std::uint64_t nbytes, std::uint32_t align,
                                     std::uint32_t elem_bytes, const char* name,
                                     std::uint16_t line, std::uint32_t cols) {
  std::uint32_t k = allocs++;
  auto& list = emu.allocs;
  if (k < list.size()) return list[k].offset;  // another thread fixed it already
  if (align == 0 || (align & (align - 1)) != 0) align = 16;
  std::uint64_t prev_end = list.empty() ? 0 : std::uint64_t(list.back().offset) + list.back().bytes;
  std::uint64_t off = (prev_end + align - 1) / align * align;
  const std::uint32_t have = emu.info.shared_bytes;
  if (off + nbytes > have)
    fail(ProblemKind::SharedOverflow, line,
         std::string("shared array '") + (name ? name : "?") + "' on line " +
             std::to_string(line) + " needs " + std::to_string(nbytes) + " bytes at offset " +
             std::to_string(off) + " (" + std::to_string(off + nbytes) +
             " bytes in all), but the launch has only " + std::to_string(have) +
             " bytes of shared memory");
  SharedAlloc a;
  a.offset = std::uint32_t(off);
  a.bytes = std::uint32_t(nbytes);
  a.elem = elem_bytes ? elem_bytes : 1;
  a.name = name ? name : "shared";
  a.line = line;
  a.cols = cols;
  list.push_back(a);
  if (k >= emu.announced) {
    ArrayDesc d;
    d.id = std::uint8_t(kFirstSharedArray + k);
    d.space = Space::Shared;
    d.name = a.name;
    d.elem_bytes = a.elem;
    d.count = a.bytes / a.elem;
    d.base_offset = a.offset;
    d.cols = a.cols;
    emu.sink.on_array(d);
    emu.announced = k + 1;
  }
  return a.offset;
}

std::byte* LaneImpl::shared_base() { return emu.shared.data(); }
std::uint32_t LaneImpl::shared_bytes() const { return emu.info.shared_bytes; }

void LaneImpl::fail(ProblemKind kind, std::uint16_t line, std::string message) {
  emu.report_abort(Problem{kind, line, 0, emu.block, linear_tid, std::move(message)});
  throw LaneAbort{};
}

// ---------------------------------------------------------------------------------------

// [SECTION] The emulator: blocks, warps, issue, races, stuck warps
bool Emu::validate() {
  auto bad = [&](std::string m) {
    result.problems.push_back(Problem{ProblemKind::Internal, 0, 0, 0, 0, std::move(m)});
    return false;
  };
  if (!launch.thread_body) return bad("the launch has no thread body");
  const unsigned long long threads = info.block.count();
  if (threads == 0) return bad("the block has no threads");
  if (threads > kMaxThreadsPerBlock)
    return bad("a block of " + std::to_string(threads) + " threads exceeds the limit of " +
               std::to_string(kMaxThreadsPerBlock));
  const unsigned long long nblocks = info.grid.count();
  if (nblocks > 0xFFFFFFFFull)
    return bad("a grid of " + std::to_string(nblocks) + " blocks is too large to emulate");
  for (std::uint32_t b : opt.only_blocks)
    if (b >= nblocks)
      return bad("block " + std::to_string(b) + " is outside the grid of " +
                 std::to_string(nblocks) + " blocks");
  return true;
}

bool Emu::prepare() {
  if (!validate()) return false;
  const unsigned nthreads = unsigned(info.block.count());
  const unsigned nwarps = (nthreads + 31) / 32;
  lanes.reserve(nthreads);
  lane_ptrs.assign(std::size_t(nwarps) * 32, nullptr);
  for (unsigned t = 0; t < nthreads; ++t) {
    lanes.push_back(std::make_unique<LaneImpl>(*this, pool, host));
    lanes.back()->lazy = opt.lazy;
    lane_ptrs[t] = lanes.back().get();
    LaneImpl& l = *lanes.back();
    l.linear_tid = t;
    l.block_dim = info.block;
    l.grid_dim = info.grid;
    l.thread_idx = Dim3{t % info.block.x, (t / info.block.x) % info.block.y,
                        t / (info.block.x * info.block.y)};
    l.lane = t % 32;
    l.bit = 1u << l.lane;
  }
  warps.assign(nwarps, WarpState{});
  for (unsigned w = 0; w < nwarps; ++w) {
    unsigned n = std::min(32u, nthreads - w * 32);
    warps[w].exists = n == 32 ? 0xFFFFFFFFu : ((1u << n) - 1);
    for (unsigned l = 0; l < n; ++l) {
      lane_at(w, l).warp = &warps[w];
      lane_at(w, l).warp_lanes = &lane_ptrs[std::size_t(w) * 32];
    }
  }
  shared.assign(info.shared_bytes, std::byte{0});
  if (opt.detect_races) races.start_launch(info.shared_bytes, nwarps);
  return true;
}

EmuResult Emu::run() {
  sink.begin_launch(info);
  if (!prepare()) {
    sink.end_launch();
    result.ok = result.problems.empty();
    return result;
  }
  std::vector<std::uint32_t> blocks = opt.only_blocks;
  std::sort(blocks.begin(), blocks.end());
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  const std::uint64_t nblocks = blocks.empty() ? info.grid.count() : blocks.size();

  LaneImpl* saved = tl_current;
  try {
    for (std::uint64_t i = 0; i < nblocks && !aborting; ++i) {
      blocks_done = i;
      run_block(blocks.empty() ? std::uint32_t(i) : blocks[i]);
    }
    blocks_done = nblocks;
    if (!aborting && opt.control) poll();  // the launch's last report, or its cancel
  } catch (...) {
    // Only the sink can throw here; unwind the block's fibers before passing it on.
    abort_block();
    tl_current = saved;
    throw;
  }
  tl_current = saved;
  sink.end_launch();
  result.steps = steps;
  result.blocks_run = blocks_done;
  result.ok = result.problems.empty();
  return result;
}

void Emu::run_chunk(const std::vector<std::uint32_t>& list, std::size_t lo, std::size_t hi) {
  result = EmuResult{};
  aborting = false;
  announced = 0;
  if (opt.detect_races) races.forget_reports();
  const std::uint64_t steps0 = steps;
  try {
    for (std::size_t i = lo; i < hi && !aborting; ++i) {
      run_block(list.empty() ? std::uint32_t(i) : list[i]);
      ++blocks_done;
    }
    if (!aborting && opt.control) poll();  // this chunk's blocks, or a cancel
  } catch (...) {
    abort_block();
    throw;
  }
  result.steps = steps - steps0;
}

void Emu::run_block(std::uint32_t b) {
  block = b;
  const Dim3 g = info.grid;
  const Dim3 bidx{b % g.x, (b / g.x) % g.y, b / (g.x * g.y)};
  std::fill(shared.begin(), shared.end(), std::byte{0});
  allocs.clear();
  if (opt.detect_races) races.start_block();
  for (WarpState& W : warps) {
    W.exited = W.parked = W.at_barrier = 0;
    W.runnable = W.exists;
    std::fill(std::begin(W.keys), std::end(W.keys), kNoKey);
  }
  for (auto& lp : lanes) {
    LaneImpl& l = *lp;
    l.block_idx = bidx;
    l.events = 0;
    l.allocs = 0;
    l.fiber.start(&lane_entry, &l);
  }
  result.threads_run += lanes.size();

  for (;;) {
    for (unsigned w = 0; w < warps.size(); ++w) {
      step_warp(w);
      if (aborting) {
        abort_block();
        return;
      }
    }
    // Every warp is as far as it can go on its own: finished, at the barrier, or stuck.
    std::uint32_t any_parked = 0, any_live = 0;
    for (const WarpState& W : warps) {
      any_parked |= W.parked;
      any_live |= W.exists & ~W.exited;
    }
    if (!any_live) return;
    if (!any_parked) {
      // Every live thread waits at a barrier: one line releases it, several deadlock.
      std::uint16_t line = 0;
      bool same = true, first = true;
      for (unsigned w = 0; w < warps.size(); ++w)
        for (std::uint32_t m = warps[w].at_barrier; m; m &= m - 1) {
          std::uint16_t bl = lane_at(w, unsigned(__builtin_ctz(m))).barrier_line;
          if (first) line = bl, first = false;
          else if (bl != line) same = false;
        }
      if (same) {
        release_barrier();
        continue;
      }
    }
    report_stuck();
    abort_block();
    return;
  }
}

void Emu::step_warp(unsigned w) {
  WarpState& W = warps[w];
  LaneImpl** L = &lane_ptrs[std::size_t(w) * 32];
  for (;;) {
    if (W.runnable) {
      // The first runnable lane runs; each lane hands over to the next when it parks.
      LaneImpl* l = L[__builtin_ctz(W.runnable)];
      W.runnable &= W.runnable - 1;
      tl_current = l;
      l->fiber.resume();
      if (aborting) return;
    }
    if (!W.parked || !pick_and_issue(w)) return;
  }
}

// Issues the lanes at the lowest key (skipping collectives that wait for lanes still on
// their way) and marks them runnable. Returns the issued mask, 0 when nothing can issue.
std::uint32_t Emu::pick_and_issue(unsigned w) {
  WarpState& W = warps[w];
  std::uint32_t avail = W.parked;
  while (avail) {
    // The lowest key and the lanes at it, in one pass over the parked lanes.
    std::uint32_t mn = kNoKey, group = 0;
    for (std::uint32_t m = avail; m; m &= m - 1) {
      const unsigned i = unsigned(__builtin_ctz(m));
      const std::uint32_t k = W.keys[i];
      if (k < mn) {
        mn = k;
        group = 1u << i;
      } else if (k == mn) {
        group |= 1u << i;
      }
    }
    const EventKind kind = EventKind(mn & 0xFF);
    if (kind == EventKind::Shuffle || kind == EventKind::Vote || kind == EventKind::WarpSync) {
      bool blocked = false;
      if (!check_collective(w, group, mn, blocked)) return 0;  // reported, aborting
      if (blocked) {
        avail &= ~group;
        continue;
      }
    }
    issue(w, group, mn);
    return aborting ? 0 : group;
  }
  return 0;
}

// A collective's lanes must all be here. Lanes still on their way make it wait (blocked);
// lanes that exited or never existed make it a BadCollective.
bool Emu::check_collective(unsigned w, std::uint32_t group, std::uint32_t key, bool& blocked) {
  WarpState& W = warps[w];
  std::uint32_t need = 0;
  for (std::uint32_t m = group; m; m &= m - 1) {
    LaneImpl& l = lane_at(w, unsigned(__builtin_ctz(m)));
    if (l.op == Op::ActiveMask) continue;
    if (!(l.cmask & l.bit)) {
      report_abort(Problem{ProblemKind::BadCollective, key_line(key), 0, block, l.linear_tid,
                           std::string(l.op == Op::Shuffle ? to_string(l.skind)
                                                           : op_name(l.op)) +
                               " on line " +
                               std::to_string(key_line(key)) + ": thread " +
                               std::to_string(l.linear_tid) + " (lane " +
                               std::to_string(l.lane) + ") passes mask " + hex32(l.cmask) +
                               ", which does not name its own lane"});
      return false;
    }
    if (l.op == Op::Shuffle) {
      int wd = l.width;
      if (wd < 1 || wd > 32 || (wd & (wd - 1)) != 0) {
        report_abort(Problem{ProblemKind::BadCollective, key_line(key), 0, block, l.linear_tid,
                             std::string(to_string(l.skind)) + " on line " +
                                 std::to_string(key_line(key)) +
                                 ": width " + std::to_string(wd) +
                                 " is not a power of two from 1 to 32"});
        return false;
      }
    }
    need |= l.cmask;
  }
  std::uint32_t missing = need & ~group;
  if (!missing) return true;
  std::uint32_t gone = missing & (W.exited | ~W.exists);
  if (gone) {
    unsigned first = unsigned(__builtin_ctz(group));
    const unsigned nthreads = unsigned(lanes.size());
    std::string why = (gone & ~W.exists)
                          ? "never exist (the block has " + std::to_string(nthreads) + " threads)"
                          : "have already exited";
    report_abort(Problem{ProblemKind::BadCollective, key_line(key), 0, block,
                         w * 32 + first,
                         std::string(op_name(lane_at(w, first).op)) + " on line " +
                             std::to_string(key_line(key)) + " in warp " + std::to_string(w) +
                             " of block " + std::to_string(block) + ": its mask " +
                             hex32(need) + " names lanes " + lane_list(gone) + ", which " + why});
    return false;
  }
  blocked = true;
  return true;
}

void Emu::issue(unsigned w, std::uint32_t group, std::uint32_t key) {
  WarpState& W = warps[w];
  WarpEvent ev;
  ev.block = block;
  ev.warp = std::uint16_t(w);
  ev.line = key_line(key);
  ev.array = std::uint8_t(key >> 8);
  ev.kind = EventKind(key & 0xFF);
  ev.mask = group;
  LaneImpl& f = lane_at(w, unsigned(__builtin_ctz(group)));
  if (f.op == Op::Matrix && group != W.exists) {
    report_abort(Problem{ProblemKind::BadCollective, ev.line, 0, block, f.linear_tid,
                         "the warp matrix instruction (ldmatrix, mma.sync) on line " +
                             std::to_string(ev.line) + " in warp " + std::to_string(w) +
                             " of block " + std::to_string(block) + " ran on lanes " +
                             lane_list(group) + " only: it needs every lane of the warp"});
    return;
  }
  switch (f.op) {
    case Op::Matrix:
    case Op::Access: {
      ev.bytes = f.bytes;
      ev.flags = f.flags;
      const bool sh = is_shared(ev.kind);
      const bool track = sh && opt.detect_races && ev.kind != EventKind::SharedAtomic;
      const bool write = ev.kind == EventKind::SharedStore || ev.kind == EventKind::AsyncStore;
      if (track) races.begin_instruction();
      for (std::uint32_t m = group; m; m &= m - 1) {
        unsigned i = unsigned(__builtin_ctz(m));
        ev.offset[i] = W.offset[i];
      }
      if (sh)
        for (std::uint32_t m = group; m; m &= m - 1) {
          const unsigned i = unsigned(__builtin_ctz(m));
          const unsigned tid = w * 32 + i;  // the lane's linear thread id
          const std::uint32_t off = W.offset[i];
          const std::uint64_t end = std::uint64_t(off) + (W.bytes[i] ? W.bytes[i] : 1);
          if (end > shared.size()) [[unlikely]] {
            report_abort(Problem{ProblemKind::OutOfBounds, ev.line, 0, block, tid,
                                 "shared access on line " + std::to_string(ev.line) +
                                     " at byte " + std::to_string(off) + " of thread " +
                                     std::to_string(tid) +
                                     " is past the block's " + std::to_string(shared.size()) +
                                     " bytes of shared memory"});
            return;
          }
          if (track) check_races(tid, off, end, write, ev.line);
        }
      // A matrix instruction: every lane gets the warp's words (each parked lane's `mine`
      // is alive on its own stack).
      if (f.op == Op::Matrix)
        for (std::uint32_t m = group; m; m &= m - 1) {
          LaneImpl& to = lane_at(w, unsigned(__builtin_ctz(m)));
          for (std::uint32_t k = group; k; k &= k - 1) {
            const unsigned src = unsigned(__builtin_ctz(k));
            const LaneImpl& from = lane_at(w, src);
            for (unsigned i = 0; i < to.xn && i < from.xn; ++i)
              to.xall[src * to.xn + i] = from.xmine[i];
          }
        }
      break;
    }
    case Op::Branch:
      for (std::uint32_t m = group; m; m &= m - 1) {
        unsigned i = unsigned(__builtin_ctz(m));
        ev.ballot |= std::uint32_t(lane_at(w, i).pred) << i;
      }
      break;
    case Op::SyncWarp:
      if (opt.detect_races) races.syncwarp(w, group);
      break;
    case Op::Shuffle: {
      std::uint64_t vals[32];
      for (std::uint32_t m = group; m; m &= m - 1) {
        unsigned i = unsigned(__builtin_ctz(m));
        vals[i] = lane_at(w, i).bits;
      }
      for (std::uint32_t m = group; m; m &= m - 1) {
        unsigned i = unsigned(__builtin_ctz(m));
        LaneImpl& l = lane_at(w, i);
        const unsigned wd = unsigned(l.width);
        const unsigned seg = i & ~(wd - 1);
        const unsigned a = unsigned(l.arg);
        unsigned src = i;
        switch (l.skind) {
          case ShuffleKind::Idx: src = seg + (a & (wd - 1)); break;
          case ShuffleKind::Up: src = (i - seg) >= a ? i - a : i; break;
          case ShuffleKind::Down: src = (i - seg) + std::uint64_t(a) < wd ? i + a : i; break;
          case ShuffleKind::Xor: src = (i ^ a) < seg + wd ? (i ^ a) : i; break;
        }
        // A source outside the segment, or not taking part, yields the lane's own value.
        l.out = (src < 32 && (group >> src & 1u)) ? vals[src] : vals[i];
      }
      break;
    }
    case Op::Ballot:
    case Op::ActiveMask: {
      std::uint32_t votes = 0;
      for (std::uint32_t m = group; m; m &= m - 1) {
        unsigned i = unsigned(__builtin_ctz(m));
        votes |= std::uint32_t(lane_at(w, i).pred) << i;
      }
      ev.ballot = votes;
      for (std::uint32_t m = group; m; m &= m - 1) {
        LaneImpl& l = lane_at(w, unsigned(__builtin_ctz(m)));
        l.out = l.op == Op::ActiveMask ? group : (votes & l.cmask);
      }
      break;
    }
    case Op::Barrier:
      break;  // barriers never reach here: they wait in at_barrier
  }
  // The issued lanes' keys stay as they are: keys are read only for parked lanes.
  W.parked &= ~group;
  W.runnable |= group;
  if (opt.last_line) opt.last_line->store(ev.line, std::memory_order_relaxed);
  sink.on_event(ev);
  ++result.events;
}

// Each word of bytes [first_byte, end) of shared memory, for the race detector.
void Emu::check_races(unsigned tid, std::uint32_t first_byte, std::uint64_t end, bool write,
                      std::uint16_t line) {
  for (std::uint32_t word = first_byte / 4; word <= (end - 1) / 4; ++word) {
    races.access(tid, word, write, line, found_races);
    if (found_races.empty()) [[likely]]
      continue;
    for (const Race& r : found_races)
      add_problem(Problem{ProblemKind::Race, r.line, r.prev_line, block, tid,
                          describe(r, shared_word_name(word), block)});
    found_races.clear();
  }
}

std::string Emu::shared_word_name(std::uint32_t word) const {
  const std::uint32_t byte = word * 4;
  for (const SharedAlloc& a : allocs)
    if (byte >= a.offset && byte < a.offset + a.bytes)
      return std::string("'") + a.name + "' word " + std::to_string((byte - a.offset) / 4);
  return "shared word " + std::to_string(word);
}

void Emu::release_barrier() {
  for (unsigned w = 0; w < warps.size(); ++w) {
    WarpState& W = warps[w];
    if (!W.at_barrier) continue;
    WarpEvent ev;
    ev.block = block;
    ev.warp = std::uint16_t(w);
    ev.line = lane_at(w, unsigned(__builtin_ctz(W.at_barrier))).barrier_line;
    ev.kind = EventKind::Barrier;
    ev.array = kNoArray;
    ev.mask = W.at_barrier;
    W.runnable |= W.at_barrier;
    W.at_barrier = 0;
    sink.on_event(ev);
    ++result.events;
  }
  if (opt.detect_races) races.barrier();
}

// Nothing can move: name who waits where.
void Emu::report_stuck() {
  struct Group {
    bool barrier;
    Op op;
    std::uint16_t line;
    std::vector<unsigned> tids;
  };
  std::vector<Group> groups;
  bool any_barrier = false;
  for (unsigned w = 0; w < warps.size(); ++w) {
    const WarpState& W = warps[w];
    for (std::uint32_t m = (W.parked | W.at_barrier); m; m &= m - 1) {
      unsigned i = unsigned(__builtin_ctz(m));
      const LaneImpl& l = lane_at(w, i);
      const bool bar = (W.at_barrier >> i) & 1u;
      const std::uint16_t line = bar ? l.barrier_line : key_line(W.keys[i]);
      const Op op = bar ? Op::Barrier : l.op;
      any_barrier |= bar;
      auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
        return g.barrier == bar && g.op == op && g.line == line;
      });
      if (it == groups.end()) {
        groups.push_back(Group{bar, op, line, {}});
        it = groups.end() - 1;
      }
      it->tids.push_back(l.linear_tid);
    }
  }
  std::string msg = std::string(any_barrier ? "deadlock" : "collective that can never complete") +
                    " in block " + std::to_string(block) + ": ";
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (g) msg += "; ";
    const Group& G = groups[g];
    msg += "threads " + thread_ranges(G.tids) + " wait at " + op_name(G.op) + " on line " +
           std::to_string(G.line);
    if (!G.barrier) msg += " for lanes that never arrive";
  }
  Problem p;
  p.kind = any_barrier ? ProblemKind::Deadlock : ProblemKind::BadCollective;
  p.line = groups.empty() ? 0 : groups[0].line;
  p.other_line = groups.size() > 1 ? groups[1].line : 0;
  p.block = block;
  p.thread = groups.size() > 1 ? groups[1].tids[0] : groups.empty() ? 0 : groups[0].tids[0];
  p.message = std::move(msg);
  report_abort(std::move(p));
}

// Unwinds every fiber of the block: parked ones wake to a LaneAbort, fresh ones return
// at once. No fiber is left suspended, so nothing on their stacks leaks.
void Emu::abort_block() {
  aborting = true;
  for (WarpState& W : warps) W.runnable = 0;
  for (auto& lp : lanes) {
    LaneImpl& l = *lp;
    for (int guard = 0; !l.fiber.idle() && guard < 1000; ++guard) {
      tl_current = &l;
      l.fiber.resume();
    }
  }
}

// [SECTION] Entry points: the current lane, work
// A lane for code that calls into the dialect outside an emulated thread: every call is
// a programming error, reported as an exception on the caller's own stack.
class NoLane final : public Lane {
  [[noreturn]] static void misuse() {
    throw std::logic_error("ws::sim::current_lane() used outside an emulated thread");
  }
  void access(EventKind, std::uint8_t, std::uint32_t, std::uint8_t, std::uint16_t,
              std::uint8_t) override {
    misuse();
  }
  bool branch(bool, std::uint16_t) override { misuse(); }
  void syncthreads(std::uint16_t) override { misuse(); }
  void syncwarp(std::uint32_t, std::uint16_t) override { misuse(); }
  std::uint64_t shuffle(ShuffleKind, std::uint32_t, std::uint64_t, int, int,
                        std::uint16_t) override {
    misuse();
  }
  std::uint32_t ballot(std::uint32_t, bool, std::uint16_t) override { misuse(); }
  std::uint32_t activemask(std::uint16_t) override { misuse(); }
  void warp_exchange(EventKind, std::uint8_t, std::uint32_t, std::uint8_t, const std::uint32_t*,
                     unsigned, std::uint32_t*, std::uint16_t) override {
    misuse();
  }
  std::uint32_t alloc_shared(std::uint64_t, std::uint32_t, std::uint32_t, const char*,
                             std::uint16_t, std::uint32_t) override {
    misuse();
  }
  std::byte* shared_base() override { misuse(); }
  std::uint32_t shared_bytes() const override { misuse(); }
  [[noreturn]] void fail(ProblemKind, std::uint16_t, std::string) override { misuse(); }
};

}  // namespace

Lane& current_lane() {
  if (tl_current) return *tl_current;
  static NoLane none;
  return none;
}

void work(std::uint64_t rounds, std::uint16_t line) {
  if (tl_current) {
    tl_current->tick(rounds, line, "a work loop");
    return;
  }
  throw_if_cancelled();
}

// [SECTION] Blocks for the several-cores driver (emulator_parallel.cpp)
struct BlockRunner::Impl {
  Emu emu;
  Impl(const EmuLaunch& l, TraceSink& s, const EmuOptions& o) : emu(l, s, o) {}
};
BlockRunner::BlockRunner(const EmuLaunch& launch, TraceSink& sink, const EmuOptions& opt)
    : impl_(std::make_unique<Impl>(launch, sink, opt)) {}
BlockRunner::~BlockRunner() = default;
bool BlockRunner::prepare() { return impl_->emu.prepare(); }
EmuResult BlockRunner::run() { return impl_->emu.run(); }
void BlockRunner::run_chunk(const std::vector<std::uint32_t>& list, std::size_t lo, std::size_t hi) {
  impl_->emu.run_chunk(list, lo, hi);
}
const EmuResult& BlockRunner::result() const { return impl_->emu.result; }

}  // namespace ws::sim
