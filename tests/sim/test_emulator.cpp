// The SIMT emulator: results against CPU references, lock-step masks, collectives,
// problems (deadlock, out of bounds, overflow, races, bad collectives, endless loops),
// and the transposes' totals against the H100's Nsight Compute counters.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kernels/dialect/simt.h"
#include "kernels/families/transpose.cuh"
#include "sim/emulator.h"
#include "sim/fiber.h"
#include "sim/model.h"

namespace {

using namespace ws;
using sim::EmuOptions;
using sim::EmuResult;
using sim::ProblemKind;
using sim::ShuffleKind;

// Records everything a launch streams, and the order of the calls. Every test that uses
// one also checks run()'s @post that no emitted event has an empty mask.
struct Recorder : TraceSink {
  ~Recorder() override { EXPECT_EQ(empty_masks, 0u) << "events with mask 0 were emitted"; }
  std::size_t empty_masks = 0;
  std::vector<std::string> calls;
  LaunchInfo info;
  std::vector<ArrayDesc> arrays;
  std::vector<WarpEvent> events;
  void begin_launch(const LaunchInfo& l) override {
    calls.push_back("begin");
    info = l;
  }
  void on_array(const ArrayDesc& a) override {
    calls.push_back("array");
    arrays.push_back(a);
  }
  void on_event(const WarpEvent& e) override {
    if (calls.empty() || calls.back() != "event") calls.push_back("event");
    empty_masks += e.mask == 0;
    events.push_back(e);
  }
  void end_launch() override { calls.push_back("end"); }
  std::vector<WarpEvent> at(int line, EventKind kind) const {
    std::vector<WarpEvent> r;
    for (const auto& e : events)
      if (e.line == line && e.kind == kind) r.push_back(e);
    return r;
  }
  std::vector<std::uint32_t> masks(int line, EventKind kind, std::uint16_t warp = 0,
                                   std::uint32_t block = 0) const {
    std::vector<std::uint32_t> r;
    for (const auto& e : events)
      if (e.line == line && e.kind == kind && e.warp == warp && e.block == block)
        r.push_back(e.mask);
    return r;
  }
};

template <class K>
EmuResult emulate(const K& k, Dim3 grid, Dim3 block, std::uint32_t shared, TraceSink& sink,
                  EmuOptions opt = {}) {
  sim::EmuLaunch l;
  l.info.kernel = "test";
  l.info.source_file = "tests/sim/test_emulator.cpp";
  l.info.grid = grid;
  l.info.block = block;
  l.info.shared_bytes = shared;
  l.thread_body = [&k] {
    Thread t;
    k(t);
  };
  return sim::run(l, sink, opt);
}

template <class T>
Global<T> g(std::vector<T>& v, int id) {
  return Global<T>{v.data(), v.size(), std::uint8_t(id)};
}
template <class T>
Global<const T> gin(const std::vector<T>& v, int id) {
  return Global<const T>{v.data(), v.size(), std::uint8_t(id)};
}

std::vector<int> random_ints(std::size_t n, int lo, int hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int> v(n);
  for (int& x : v) x = d(rng);
  return v;
}

const sim::Problem* find_problem(const EmuResult& r, ProblemKind k) {
  for (const auto& p : r.problems)
    if (p.kind == k) return &p;
  return nullptr;
}

void expect_masks_nonzero(const Recorder& rec) {
  for (const auto& e : rec.events) ASSERT_NE(e.mask, 0u) << "event on line " << e.line;
}

// ---------------------------------------------------------------------------------------
// Results against CPU references

TEST(Emulator, TransposesMatchTheCpuReference) {
  const int n = 64;
  std::vector<float> in(n * n), out_naive(n * n, -1.f), out_tiled(n * n, -1.f);
  std::iota(in.begin(), in.end(), 0.f);
  Recorder r1, r2;
  EmuResult a = emulate(TransposeNaive{gin(in, 0), g(out_naive, 1), n}, {2, 2, 1}, {32, 8, 1},
                        0, r1);
  EmuResult b = emulate(TransposeTiled<32, 8>{gin(in, 0), g(out_tiled, 1), n, 1}, {2, 2, 1},
                        {32, 8, 1}, 32 * 33 * 4, r2);
  ASSERT_TRUE(a.ok) << a.problems[0].message;
  ASSERT_TRUE(b.ok) << b.problems[0].message;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      ASSERT_EQ(out_naive[x * n + y], in[y * n + x]) << x << "," << y;
      ASSERT_EQ(out_tiled[x * n + y], in[y * n + x]) << x << "," << y;
    }
  EXPECT_EQ(a.threads_run, 4u * 256u);
  EXPECT_EQ(a.events, r1.events.size());
  EXPECT_EQ(b.events, r2.events.size());
  // Tiled, per warp: 4 global loads, 4 shared stores, 1 barrier, 4 shared loads, 4 stores.
  EXPECT_EQ(r2.events.size(), 4u * 8u * 17u);
  expect_masks_nonzero(r2);
}

struct BlockSum {
  Global<const int> in;
  Global<int> out;
  void operator()(Thread& t) const {
    auto s = t.shared<int>(t.blockDim.x, "partial");
    unsigned tid = t.threadIdx.x;
    s(tid) = in(t.blockIdx.x * t.blockDim.x + tid);
    t.syncthreads();
    for (unsigned stride = t.blockDim.x / 2; stride > 0; stride /= 2) {
      if (tid < stride) s(tid) += s(tid + stride);
      t.syncthreads();
    }
    if (tid == 0) out(t.blockIdx.x) = s(0);
  }
};

TEST(Emulator, SharedMemoryReductionWithBarriers) {
  const unsigned blocks = 4, threads = 128;
  auto in = random_ints(blocks * threads, -1000, 1000, 7);
  std::vector<int> out(blocks, 0);
  Recorder rec;
  EmuResult r = emulate(BlockSum{gin(in, 0), g(out, 1)}, {blocks, 1, 1}, {threads, 1, 1},
                        threads * 4, rec);
  ASSERT_TRUE(r.ok) << r.problems[0].message;  // race-free: no Race reported
  for (unsigned b = 0; b < blocks; ++b)
    EXPECT_EQ(out[b], std::accumulate(in.begin() + b * threads, in.begin() + (b + 1) * threads, 0));
  // One barrier before the loop and one per halving (7), for each of 4 warps per block.
  std::size_t barriers = 0;
  for (const auto& e : rec.events) barriers += e.kind == EventKind::Barrier;
  EXPECT_EQ(barriers, blocks * 4u * 8u);
  for (const auto& e : rec.events)
    if (e.kind == EventKind::Barrier) EXPECT_EQ(e.mask, 0xFFFFFFFFu);
}

struct WarpSum {
  Global<const int> in;
  Global<int> out, all;
  void operator()(Thread& t) const {
    int i = int(t.blockIdx.x * t.blockDim.x + t.threadIdx.x);
    int v = in(i);
    for (int o = 16; o > 0; o /= 2) v += t.shfl_down_sync(WS_FULL_MASK, v, o);
    if (t.lane() == 0) out(i / 32) = v;
    int w = in(i);
    for (int m = 1; m < 32; m *= 2) w += t.shfl_xor_sync(WS_FULL_MASK, w, m);
    all(i) = w;
  }
};

TEST(Emulator, WarpShuffleReduction) {
  auto in = random_ints(256, -50, 50, 3);
  std::vector<int> out(8, 0), all(256, 0);
  Recorder rec;
  EmuResult r = emulate(WarpSum{gin(in, 0), g(out, 1), g(all, 2)}, {2, 1, 1}, {128, 1, 1}, 0, rec);
  ASSERT_TRUE(r.ok) << r.problems[0].message;
  for (int w = 0; w < 8; ++w) {
    int sum = std::accumulate(in.begin() + w * 32, in.begin() + (w + 1) * 32, 0);
    EXPECT_EQ(out[w], sum) << "warp " << w;
    for (int l = 0; l < 32; ++l) EXPECT_EQ(all[w * 32 + l], sum) << "warp " << w << " lane " << l;
  }
  std::size_t shuffles = 0;
  for (const auto& e : rec.events) shuffles += e.kind == EventKind::Shuffle;
  EXPECT_EQ(shuffles, 8u * 10u);
}

struct ShuffleForms {
  Global<int> out;
  void operator()(Thread& t) const {
    int l = int(t.lane());
    int base = int(t.tid()) * 4;
    out(base + 0) = t.shfl_sync(WS_FULL_MASK, 100 + l, 11, 8);
    out(base + 1) = t.shfl_up_sync(WS_FULL_MASK, 100 + l, 2, 8);
    out(base + 2) = t.shfl_down_sync(WS_FULL_MASK, 100 + l, 3, 8);
    out(base + 3) = t.shfl_xor_sync(WS_FULL_MASK, 100 + l, 9, 8);
  }
};

TEST(Emulator, ShuffleWidthSemanticsFollowCuda) {
  std::vector<int> out(32 * 4, 0);
  Recorder rec;
  ASSERT_TRUE(emulate(ShuffleForms{g(out, 0)}, {1, 1, 1}, {32, 1, 1}, 0, rec).ok);
  // CUDA's rules with width 8: segments of 8 lanes; idx wraps inside the segment; up/down
  // that leave the segment, and xor that reaches a later segment, return the own value.
  for (int l = 0; l < 32; ++l) {
    int seg = l & ~7;
    EXPECT_EQ(out[l * 4 + 0], 100 + seg + (11 % 8)) << l;
    EXPECT_EQ(out[l * 4 + 1], 100 + ((l - seg) >= 2 ? l - 2 : l)) << l;
    EXPECT_EQ(out[l * 4 + 2], 100 + ((l - seg) + 3 < 8 ? l + 3 : l)) << l;
    EXPECT_EQ(out[l * 4 + 3], 100 + ((l ^ 9) < seg + 8 ? (l ^ 9) : l)) << l;
  }
}

struct BallotAndActive {
  Global<unsigned> out;
  static constexpr int kIf = __LINE__ + 3;
  void operator()(Thread& t) const {
    unsigned b = t.ballot_sync(WS_FULL_MASK, t.lane() % 3 == 0);
    if (t.branch(t.lane() >= 20)) {
      out(t.tid() * 2 + 1) = t.activemask();
    }
    out(t.tid() * 2) = b;
  }
};

TEST(Emulator, BallotAndActivemask) {
  std::vector<unsigned> out(64, 0);
  Recorder rec;
  ASSERT_TRUE(emulate(BallotAndActive{g(out, 0)}, {1, 1, 1}, {32, 1, 1}, 0, rec).ok);
  std::uint32_t every3 = 0;
  for (int l = 0; l < 32; l += 3) every3 |= 1u << l;
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(out[l * 2], every3);
    if (l >= 20) EXPECT_EQ(out[l * 2 + 1], 0xFFF00000u);
  }
  auto votes = rec.at(BallotAndActive::kIf + 1, EventKind::Vote);
  ASSERT_EQ(votes.size(), 1u);
  EXPECT_EQ(votes[0].mask, 0xFFF00000u);
  EXPECT_EQ(votes[0].ballot, 0xFFF00000u);
  auto ballots = rec.at(BallotAndActive::kIf - 1, EventKind::Vote);
  ASSERT_EQ(ballots.size(), 1u);
  EXPECT_EQ(ballots[0].ballot, every3);
}

struct Histogram {
  Global<const int> in;
  Global<int> hist;
  void operator()(Thread& t) const {
    auto bins = t.shared<int>(8, "bins");
    if (t.threadIdx.x < 8) bins(t.threadIdx.x) = 0;
    t.syncthreads();
    int i = int(t.blockIdx.x * t.blockDim.x + t.threadIdx.x);
    bins.atomic_add(in(i) % 8, 1);
    t.syncthreads();
    if (t.threadIdx.x < 8) hist.atomic_add(t.threadIdx.x, bins(t.threadIdx.x));
  }
};

TEST(Emulator, SharedAndGlobalAtomics) {
  auto in = random_ints(3 * 96, 0, 1000, 11);
  std::vector<int> hist(8, 0), want(8, 0);
  for (int v : in) ++want[v % 8];
  Recorder rec;
  EmuResult r = emulate(Histogram{gin(in, 0), g(hist, 1)}, {3, 1, 1}, {96, 1, 1}, 64, rec);
  ASSERT_TRUE(r.ok) << r.problems[0].message;  // atomics never race
  EXPECT_EQ(hist, want);
  bool shared_atomic = false, global_atomic = false;
  for (const auto& e : rec.events) {
    shared_atomic |= e.kind == EventKind::SharedAtomic;
    global_atomic |= e.kind == EventKind::GlobalAtomic;
  }
  EXPECT_TRUE(shared_atomic);
  EXPECT_TRUE(global_atomic);
}

// ---------------------------------------------------------------------------------------
// Lock-step masks

struct Alternating {
  Global<int> out;
  static constexpr int kIf = __LINE__ + 2;
  void operator()(Thread& t) const {
    if (t.branch(t.lane() % 2)) {
      out(t.tid()) = 1;
    } else {
      out(t.tid()) = 2;
    }
  }
};

TEST(Emulator, AlternatingBranchGivesAlternatingMasks) {
  std::vector<int> out(64, 0);
  Recorder rec;
  ASSERT_TRUE(emulate(Alternating{g(out, 0)}, {1, 1, 1}, {64, 1, 1}, 0, rec).ok);
  for (std::uint16_t w = 0; w < 2; ++w) {
    auto br = rec.at(Alternating::kIf, EventKind::Branch);
    ASSERT_EQ(br.size(), 2u);
    EXPECT_EQ(br[w].mask, 0xFFFFFFFFu);
    EXPECT_EQ(br[w].ballot, 0xAAAAAAAAu);
    EXPECT_EQ(rec.masks(Alternating::kIf + 1, EventKind::GlobalStore, w),
              std::vector<std::uint32_t>{0xAAAAAAAAu});
    EXPECT_EQ(rec.masks(Alternating::kIf + 3, EventKind::GlobalStore, w),
              std::vector<std::uint32_t>{0x55555555u});
  }
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], i % 2 ? 1 : 2);
  // Lanes issue in order: the branch, then the lower line, then the other side.
  ASSERT_EQ(rec.events.size(), 6u);
  EXPECT_EQ(rec.events[0].kind, EventKind::Branch);
  EXPECT_EQ(rec.events[1].line, Alternating::kIf + 1);
  EXPECT_EQ(rec.events[2].line, Alternating::kIf + 3);
  EXPECT_EQ(rec.events[3].warp, 1);
}

struct FirstThree {
  Global<int> out;
  static constexpr int kIf = __LINE__ + 2;
  void operator()(Thread& t) const {
    if (t.branch(t.lane() < 3)) out(t.tid()) = 7;
  }
};

TEST(Emulator, BranchOnFirstThreeLanes) {
  std::vector<int> out(40, 0);
  Recorder rec;
  // 40 threads: the second warp has 8 lanes, the others never exist.
  ASSERT_TRUE(emulate(FirstThree{g(out, 0)}, {1, 1, 1}, {40, 1, 1}, 0, rec).ok);
  auto br = rec.at(FirstThree::kIf, EventKind::Branch);
  ASSERT_EQ(br.size(), 2u);
  EXPECT_EQ(br[0].mask, 0xFFFFFFFFu);
  EXPECT_EQ(br[0].ballot, 0x7u);
  EXPECT_EQ(br[1].mask, 0xFFu);
  EXPECT_EQ(br[1].ballot, 0x7u);
  auto st = rec.at(FirstThree::kIf, EventKind::GlobalStore);
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[0].mask, 0x7u);
  EXPECT_EQ(st[0].offset[2], 2u * 4u);
  EXPECT_EQ(st[0].offset[5], 0u);  // lanes outside the mask carry 0
  EXPECT_EQ(st[1].offset[1], 33u * 4u);
}

struct Shrinking {
  Global<int> out;
  static constexpr int kLoop = __LINE__ + 4;
  void operator()(Thread& t) const {
    int trips = int(t.lane() / 8) + 1;
    for (int i = 0; i < trips; ++i)
      out(int(t.tid()) * 4 + i) = i;
  }
};

TEST(Emulator, LaneDependentTripCountShrinksTheMask) {
  std::vector<int> out(128, -1);
  Recorder rec;
  ASSERT_TRUE(emulate(Shrinking{g(out, 0)}, {1, 1, 1}, {32, 1, 1}, 0, rec).ok);
  EXPECT_EQ(rec.masks(Shrinking::kLoop, EventKind::GlobalStore),
            (std::vector<std::uint32_t>{0xFFFFFFFFu, 0xFFFFFF00u, 0xFFFF0000u, 0xFF000000u}));
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i) EXPECT_EQ(out[l * 4 + i], i < l / 8 + 1 ? i : -1);
}

// ---------------------------------------------------------------------------------------
// Problems

struct SplitBarrier {
  static constexpr int kFirst = __LINE__ + 4;
  void operator()(Thread& t) const {
    volatile int x = 0;
    if (t.warp() == 0) {
      t.syncthreads();
      x = 1;
    } else {
      t.syncthreads();
      x = 2;
    }
    (void)x;
  }
};

TEST(EmulatorProblems, BarriersOnDifferentLinesDeadlock) {
  Recorder rec;
  EmuResult r = emulate(SplitBarrier{}, {2, 1, 1}, {96, 1, 1}, 0, rec);
  ASSERT_FALSE(r.ok);
  ASSERT_EQ(r.problems.size(), 1u);
  const auto& p = r.problems[0];
  EXPECT_EQ(p.kind, ProblemKind::Deadlock);
  EXPECT_EQ(p.line, SplitBarrier::kFirst);
  EXPECT_EQ(p.other_line, SplitBarrier::kFirst + 3);
  EXPECT_EQ(p.block, 0u);  // the launch stops at the first block
  EXPECT_NE(p.message.find("0-31"), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("32-95"), std::string::npos) << p.message;
  EXPECT_EQ(rec.calls.back(), "end");
}

struct BarrierVsShuffle {
  static constexpr int kBarrier = __LINE__ + 4;
  Global<int> out;
  void operator()(Thread& t) const {
    if (t.lane() < 16)
      t.syncthreads();
    else
      out(t.tid()) = t.shfl_sync(WS_FULL_MASK, 1, 0);
  }
};

TEST(EmulatorProblems, BarrierAgainstAWaitingShuffleDeadlocks) {
  std::vector<int> out(32, 0);
  Recorder rec;
  EmuResult r = emulate(BarrierVsShuffle{g(out, 0)}, {1, 1, 1}, {32, 1, 1}, 0, rec);
  const sim::Problem* p = find_problem(r, ProblemKind::Deadlock);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->line, BarrierVsShuffle::kBarrier);
  EXPECT_EQ(p->other_line, BarrierVsShuffle::kBarrier + 2);
}

struct ShuffleAll {
  Global<int> out;
  static constexpr int kLine = __LINE__ + 3;
  void operator()(Thread& t) const {
    if (t.lane() >= 16 && t.tid() < 32) return;
    out(t.tid()) = t.shfl_sync(WS_FULL_MASK, int(t.lane()), 0);
  }
};

TEST(EmulatorProblems, CollectiveNamingExitedLanes) {
  std::vector<int> out(64, 0);
  Recorder rec;  // lanes 16-31 exited before the shuffle
  EmuResult r = emulate(ShuffleAll{g(out, 0)}, {1, 1, 1}, {32, 1, 1}, 0, rec);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, ProblemKind::BadCollective);
  EXPECT_EQ(r.problems[0].line, ShuffleAll::kLine);
  EXPECT_NE(r.problems[0].message.find("exited"), std::string::npos) << r.problems[0].message;
}

struct BadWidthShuffle {
  Global<int> out;
  void operator()(Thread& t) const { out(t.tid()) = t.shfl_down_sync(WS_FULL_MASK, 1, 1, 12); }
};

TEST(EmulatorProblems, ShuffleMessagesNameTheIntrinsicTheStudentWrote) {
  EXPECT_EQ(sim::to_string(ShuffleKind::Idx), "__shfl_sync");
  EXPECT_EQ(sim::to_string(ShuffleKind::Up), "__shfl_up_sync");
  EXPECT_EQ(sim::to_string(ShuffleKind::Down), "__shfl_down_sync");
  EXPECT_EQ(sim::to_string(ShuffleKind::Xor), "__shfl_xor_sync");
  std::vector<int> out(32, 0);
  Recorder rec;
  EmuResult r = emulate(BadWidthShuffle{g(out, 0)}, {1, 1, 1}, {32, 1, 1}, 0, rec);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, ProblemKind::BadCollective);
  EXPECT_NE(r.problems[0].message.find("__shfl_down_sync on line"), std::string::npos)
      << r.problems[0].message;
  EXPECT_NE(r.problems[0].message.find("width 12 is not a power of two"), std::string::npos)
      << r.problems[0].message;
}

struct PartialWarpShuffle {
  Global<int> out;
  void operator()(Thread& t) const { out(t.tid()) = t.shfl_sync(WS_FULL_MASK, 1, 0); }
};

TEST(EmulatorProblems, FullMaskInAPartialWarpIsBad) {
  std::vector<int> out(48, 0);
  Recorder rec;
  EmuResult r = emulate(PartialWarpShuffle{g(out, 0)}, {1, 1, 1}, {48, 1, 1}, 0, rec);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, ProblemKind::BadCollective);
  EXPECT_NE(r.problems[0].message.find("never exist"), std::string::npos)
      << r.problems[0].message;
  // The partial mask is fine.
  struct Half {
    Global<int> out;
    void operator()(Thread& t) const {
      out(t.tid()) = t.shfl_sync(t.warp() == 1 ? 0xFFFFu : WS_FULL_MASK, int(t.lane()), 3);
    }
  };
  Recorder rec2;
  EmuResult r2 = emulate(Half{g(out, 0)}, {1, 1, 1}, {48, 1, 1}, 0, rec2);
  ASSERT_TRUE(r2.ok) << r2.problems[0].message;
  for (int i = 0; i < 48; ++i) EXPECT_EQ(out[i], 3);
}

struct OobGlobal {
  Global<int> out;
  static constexpr int kLine = __LINE__ + 1;
  void operator()(Thread& t) const { out(t.tid() + 1) = 1; }
};

struct OobShared {
  static constexpr int kLine = __LINE__ + 4;
  Global<int> out;
  void operator()(Thread& t) const {
    auto s = t.shared2d<float>(4, 4, "small");
    s(int(t.threadIdx.x), 0) = 1.f;
  }
};

TEST(EmulatorProblems, OutOfBoundsGlobalAndShared) {
  std::vector<int> out(64, 0);
  {
    Recorder rec;
    EmuResult r = emulate(OobGlobal{g(out, 0)}, {1, 1, 1}, {64, 1, 1}, 0, rec);
    ASSERT_EQ(r.problems.size(), 1u);
    EXPECT_EQ(r.problems[0].kind, ProblemKind::OutOfBounds);
    EXPECT_EQ(r.problems[0].line, OobGlobal::kLine);
    EXPECT_EQ(r.problems[0].thread, 63u);
    EXPECT_NE(r.problems[0].message.find("64"), std::string::npos);
    EXPECT_EQ(rec.calls.back(), "end");
  }
  {
    Recorder rec;
    EmuResult r = emulate(OobShared{g(out, 0)}, {2, 1, 1}, {8, 1, 1}, 64, rec);
    ASSERT_EQ(r.problems.size(), 1u);
    EXPECT_EQ(r.problems[0].kind, ProblemKind::OutOfBounds);
    EXPECT_EQ(r.problems[0].line, OobShared::kLine);
    EXPECT_EQ(r.problems[0].thread, 4u);
    EXPECT_EQ(r.threads_run, 8u);  // the second block never ran
  }
}

struct TooMuchShared {
  static constexpr int kLine = __LINE__ + 3;
  void operator()(Thread& t) const {
    auto a = t.shared<float>(100, "a");
    auto b = t.shared<float>(300, "big");
    (void)a;
    (void)b;
  }
};

TEST(EmulatorProblems, SharedOverflowNamesLineAndSizes) {
  Recorder rec;
  EmuResult r = emulate(TooMuchShared{}, {1, 1, 1}, {32, 1, 1}, 1024, rec);
  ASSERT_EQ(r.problems.size(), 1u);
  const auto& p = r.problems[0];
  EXPECT_EQ(p.kind, ProblemKind::SharedOverflow);
  EXPECT_EQ(p.line, TooMuchShared::kLine);
  EXPECT_NE(p.message.find("'big'"), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("1200"), std::string::npos) << p.message;  // its size
  EXPECT_NE(p.message.find("1024"), std::string::npos) << p.message;  // what there is
  EXPECT_EQ(rec.arrays.size(), 1u);  // 'a' was announced, 'big' never existed
}

struct Exchange {
  Global<int> out;
  bool sync;
  static constexpr int kWrite = __LINE__ + 3;
  void operator()(Thread& t) const {
    auto s = t.shared<int>(64, "buf");
    s(t.tid()) = int(t.tid());
    if (sync) t.syncthreads();
    out(t.tid()) = s((t.tid() + 32) % 64);
  }
};

TEST(EmulatorProblems, RaceBetweenWarpsWithoutBarrier) {
  std::vector<int> out(64, -1);
  Recorder rec;
  EmuResult r = emulate(Exchange{g(out, 0), false}, {1, 1, 1}, {64, 1, 1}, 256, rec);
  ASSERT_FALSE(r.ok);
  for (const auto& p : r.problems) EXPECT_EQ(p.kind, ProblemKind::Race) << p.message;
  const sim::Problem* p = find_problem(r, ProblemKind::Race);
  ASSERT_NE(p, nullptr);
  std::vector<int> lines = {p->line, p->other_line};
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<int>{Exchange::kWrite, Exchange::kWrite + 2}));
  EXPECT_NE(p->message.find("'buf'"), std::string::npos) << p->message;
  EXPECT_NE(p->message.find("word"), std::string::npos) << p->message;
  EXPECT_NE(p->message.find("thread"), std::string::npos) << p->message;
  // A race does not abort: every thread ran to the end.
  EXPECT_EQ(r.threads_run, 64u);
  EXPECT_EQ(rec.at(Exchange::kWrite + 2, EventKind::GlobalStore).size(), 2u);
}

TEST(EmulatorProblems, SameExchangeWithBarrierIsRaceFree) {
  std::vector<int> out(64, -1);
  Recorder rec;
  EmuResult r = emulate(Exchange{g(out, 0), true}, {2, 1, 1}, {64, 1, 1}, 256, rec);
  ASSERT_TRUE(r.ok) << r.problems[0].message;
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], (i + 32) % 64);
}

struct WarpHandoff {
  Global<int> out;
  bool sync;
  static constexpr int kWrite = __LINE__ + 3;
  void operator()(Thread& t) const {
    auto s = t.shared<int>(32, "x");
    s(t.lane()) = int(t.lane());
    if (sync) t.syncwarp();
    out(t.tid()) = s((t.lane() + 1) % 32);
  }
};

TEST(EmulatorProblems, SyncwarpOrdersLanesOfOneWarp) {
  std::vector<int> out(32, -1);
  Recorder r1, r2;
  EmuResult racy = emulate(WarpHandoff{g(out, 0), false}, {1, 1, 1}, {32, 1, 1}, 128, r1);
  const sim::Problem* p = find_problem(racy, ProblemKind::Race);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->line, WarpHandoff::kWrite + 2);
  EXPECT_EQ(p->other_line, WarpHandoff::kWrite);
  EXPECT_NE(p->message.find("__syncwarp"), std::string::npos) << p->message;
  EmuResult clean = emulate(WarpHandoff{g(out, 0), true}, {1, 1, 1}, {32, 1, 1}, 128, r2);
  EXPECT_TRUE(clean.ok) << clean.problems[0].message;
  EXPECT_EQ(r2.at(WarpHandoff::kWrite + 1, EventKind::WarpSync).size(), 1u);
}

struct AllWriteOneWord {
  static constexpr int kLine = __LINE__ + 4;
  Global<int> out;
  void operator()(Thread& t) const {
    auto s = t.shared<int>(4, "flag");
    s(0) = int(t.tid());
  }
};

TEST(EmulatorProblems, TwoLanesWritingOneWordInOneInstructionRace) {
  Recorder rec;
  std::vector<int> out(1);
  EmuResult r = emulate(AllWriteOneWord{g(out, 0)}, {1, 1, 1}, {32, 1, 1}, 16, rec);
  const sim::Problem* p = find_problem(r, ProblemKind::Race);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->line, AllWriteOneWord::kLine);
  EXPECT_NE(p->message.find("same instruction"), std::string::npos) << p->message;
  EmuOptions off;
  off.detect_races = false;
  EXPECT_TRUE(emulate(AllWriteOneWord{g(out, 0)}, {1, 1, 1}, {32, 1, 1}, 16, rec, off).ok);
}

struct Forever {
  Global<int> out;
  static constexpr int kLine = __LINE__ + 3;
  void operator()(Thread& t) const {
    for (;;)
      out(0) = int(t.tid());
  }
};

TEST(EmulatorProblems, EndlessLoopHitsTheStepLimit) {
  std::vector<int> out(1);
  Recorder rec;
  EmuOptions opt;
  opt.max_events_per_thread = 500;
  EmuResult r = emulate(Forever{g(out, 0)}, {4, 1, 1}, {64, 1, 1}, 0, rec, opt);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, ProblemKind::StepLimit);
  EXPECT_EQ(r.problems[0].line, Forever::kLine);
  EXPECT_LE(r.events, 2u * 500u + 2u);  // warp 0 reached the limit; nothing ran past it
}

// An event-free loop, marked with WS_WORK: without the mark it escaped the step limit
// and cancellation (issue 10, finding 5).
struct MarkedWorkForever {
  Global<int> out;
  static constexpr int kLine = __LINE__ + 4;
  void operator()(Thread& t) const {
    unsigned v = t.tid();
    for (;;) {
      WS_WORK(1000);
      for (int r = 0; r < 1000; ++r) v = v * 1664525u + 1013904223u;
      if (v == 0xFFFFFFFFu) break;  // (never: keeps the loop from being optimised away)
    }
    out(0) = int(v);
  }
};

TEST(EmulatorProblems, MarkedWorkLoopCountsTowardTheStepLimit) {
  std::vector<int> out(1);
  Recorder rec;
  EmuOptions opt;
  opt.max_events_per_thread = 100000;
  EmuResult r = emulate(MarkedWorkForever{g(out, 0)}, {1, 1, 1}, {32, 1, 1}, 0, rec, opt);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, ProblemKind::StepLimit);
  EXPECT_EQ(r.problems[0].line, MarkedWorkForever::kLine);
  EXPECT_NE(r.problems[0].message.find("work loop"), std::string::npos) << r.problems[0].message;
}

struct CountsWork {
  Global<int> out;
  void operator()(Thread& t) const {
    WS_WORK(7);
    out(t.tid()) = 1;
  }
};

TEST(Emulator, StepsAreEventsPlusWorkRounds) {
  std::vector<int> out(64);
  Recorder rec;
  EmuResult r = emulate(CountsWork{g(out, 0)}, {2, 1, 1}, {32, 1, 1}, 0, rec);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.steps, 64u * (7u + 1u));  // 64 threads, 7 rounds and one store each
  EXPECT_EQ(r.blocks_run, 2u);
}

TEST(Emulator, CancelStopsAnEndlessWorkLoopQuickly) {
  std::vector<int> out(1);
  Recorder rec;
  RunControl ctl;
  EmuOptions opt;
  opt.max_events_per_thread = ~0ull;  // only the cancel can stop it
  opt.control = &ctl;
  ctl.start(4, "test");
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ctl.cancel();
  });
  const auto t0 = std::chrono::steady_clock::now();
  EmuResult r = emulate(MarkedWorkForever{g(out, 0)}, {4, 1, 1}, {64, 1, 1}, 0, rec, opt);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  canceller.join();
  EXPECT_TRUE(r.cancelled);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, ProblemKind::Cancelled);
  // 50 ms until the cancel, then the promised 100 ms (with slack for a loaded CI machine;
  // without the cancel it never ends).
  RecordProperty("cancel_ms_after_request", std::to_string(ms - 50));
  EXPECT_LT(ms, 50 + 1000) << ms;
}

TEST(Emulator, ReportsProgressInBlocks) {
  std::vector<int> out(32 * 8);
  Recorder rec;
  RunControl ctl;
  std::vector<double> seen;
  ctl.min_interval_s = 0;
  ctl.on_progress = [&](const RunProgress& p) { seen.push_back(p.done); };
  EmuOptions opt;
  opt.control = &ctl;
  // A run of 18 blocks of which 10 ran before this launch (an earlier launch, or another
  // core's part): the launch adds its own 8.
  ctl.start(18, "test");
  ctl.report(10, 18, "test");
  EmuResult r = emulate(CountsWork{g(out, 0)}, {8, 1, 1}, {32, 1, 1}, 0, rec, opt);
  ASSERT_TRUE(r.ok);
  ASSERT_FALSE(seen.empty());
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(seen.back(), 18);  // 10 before plus the 8 blocks of this launch
  EXPECT_EQ(ctl.progress().total, 18);
  EXPECT_DOUBLE_EQ(ctl.progress().fraction(), 1.0);
}

TEST(Emulator, WorkOutsideAThreadPollsTheThreadsControl) {
  sim::work(5);  // no control: nothing happens
  RunControl ctl;
  ThreadControlScope scope(&ctl);
  sim::work(5);
  ctl.cancel();
  EXPECT_THROW(sim::work(5), RunCancelled);
}

struct Thrower {
  void operator()(Thread& t) const {
    if (t.tid() == 5) throw std::runtime_error("boom in the kernel");
    t.syncthreads();
  }
};

TEST(EmulatorProblems, ExceptionInAThreadIsAnInternalProblem) {
  Recorder rec;
  EmuResult r = emulate(Thrower{}, {1, 1, 1}, {32, 1, 1}, 0, rec);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, ProblemKind::Internal);
  EXPECT_EQ(r.problems[0].thread, 5u);
  EXPECT_NE(r.problems[0].message.find("boom"), std::string::npos);
}

TEST(EmulatorProblems, BadLaunchesAreReportedNotRun) {
  Recorder rec;
  EmuResult r = emulate(Thrower{}, {1, 1, 1}, {2048, 1, 1}, 0, rec);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].message.find("2048"), std::string::npos);
  EXPECT_EQ(r.threads_run, 0u);
  EmuOptions opt;
  opt.only_blocks = {7};
  EmuResult r2 = emulate(Thrower{}, {2, 1, 1}, {32, 1, 1}, 0, rec, opt);
  ASSERT_EQ(r2.problems.size(), 1u);
  EXPECT_NE(r2.problems[0].message.find("block 7"), std::string::npos);
  sim::EmuLaunch empty;
  empty.info.block = {32, 1, 1};
  EXPECT_FALSE(sim::run(empty, rec).ok);
}

TEST(EmulatorProblems, EmulatorIsUsableAfterAnAbortedLaunch) {
  std::vector<int> out(64, 0);
  Recorder rec;
  for (int round = 0; round < 3; ++round) {
    EXPECT_FALSE(emulate(OobGlobal{g(out, 0)}, {1, 1, 1}, {64, 1, 1}, 0, rec).ok);
    EXPECT_FALSE(emulate(SplitBarrier{}, {1, 1, 1}, {64, 1, 1}, 0, rec).ok);
  }
  auto in = random_ints(128, 0, 9, 1);
  std::vector<int> sums(1);
  EXPECT_TRUE(emulate(BlockSum{gin(in, 0), g(sums, 1)}, {1, 1, 1}, {128, 1, 1}, 512, rec).ok);
  EXPECT_EQ(sums[0], std::accumulate(in.begin(), in.end(), 0));
}

// ---------------------------------------------------------------------------------------
// Launch structure

struct TwoArrays {
  Global<int> out;
  void operator()(Thread& t) const {
    auto a = t.shared<char>(10, "a");
    auto b = t.shared<double>(3, "b");
    out(t.blockIdx.x * t.blockDim.x * 3 + t.tid() * 3 + 0) = int(a.off);
    out(t.blockIdx.x * t.blockDim.x * 3 + t.tid() * 3 + 1) = int(b.off);
    out(t.blockIdx.x * t.blockDim.x * 3 + t.tid() * 3 + 2) = int(b(t.tid() % 3));
    b(t.tid() % 3) = 5.0;  // the next block must see zeros again
  }
};

TEST(Emulator, SharedArraysAreCarvedOnceAndAnnouncedOnce) {
  std::vector<int> out(2 * 8 * 3, -1);
  Recorder rec;
  EmuOptions opt;
  opt.detect_races = false;
  ASSERT_TRUE(emulate(TwoArrays{g(out, 0)}, {2, 1, 1}, {8, 1, 1}, 64, rec, opt).ok);
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(out[i * 3 + 0], 0);
    EXPECT_EQ(out[i * 3 + 1], 16);  // 10 bytes rounded up to the 16-byte alignment
    EXPECT_EQ(out[i * 3 + 2], 0);   // shared memory starts zeroed in every block
  }
  ASSERT_EQ(rec.arrays.size(), 2u);
  EXPECT_EQ(rec.arrays[0].id, kFirstSharedId);
  EXPECT_EQ(rec.arrays[1].id, kFirstSharedId + 1);
  EXPECT_EQ(rec.arrays[0].space, Space::Shared);
  EXPECT_EQ(rec.arrays[0].name, "a");
  EXPECT_EQ(rec.arrays[0].count, 10u);
  EXPECT_EQ(rec.arrays[1].elem_bytes, 8u);
  EXPECT_EQ(rec.arrays[1].count, 3u);
  EXPECT_EQ(rec.arrays[1].base_offset, 16u);
  // Shared events carry the array's id and the byte offset within the block's memory.
  for (const auto& e : rec.events)
    if (e.kind == EventKind::SharedLoad) {
      EXPECT_EQ(e.array, kFirstSharedId + 1);
      EXPECT_EQ(e.offset[1], 16u + 8u);
    }
}

TEST(Emulator, CallOrderAndBlockOrder) {
  auto in = random_ints(4 * 64, 0, 9, 5);
  std::vector<int> out(4);
  Recorder rec;
  ASSERT_TRUE(emulate(BlockSum{gin(in, 0), g(out, 1)}, {2, 2, 1}, {64, 1, 1}, 256, rec).ok);
  EXPECT_EQ(rec.calls, (std::vector<std::string>{"begin", "array", "event", "end"}));
  EXPECT_EQ(rec.info.kernel, "test");
  for (std::size_t i = 1; i < rec.events.size(); ++i)
    ASSERT_LE(rec.events[i - 1].block, rec.events[i].block);
  // Between two barriers of a block, warp 0 issues before warp 1.
  for (std::size_t i = 1; i < rec.events.size(); ++i) {
    const auto &a = rec.events[i - 1], &b = rec.events[i];
    if (a.block == b.block && a.kind != EventKind::Barrier && b.kind != EventKind::Barrier)
      ASSERT_LE(a.warp, b.warp) << "event " << i;
  }
}

TEST(Emulator, OnlyBlocksRunsThoseBlocksInOrder) {
  auto in = random_ints(4 * 64, 0, 9, 5);
  std::vector<int> out(4, -1);
  Recorder rec;
  EmuOptions opt;
  opt.only_blocks = {3, 1};
  EmuResult r = emulate(BlockSum{gin(in, 0), g(out, 1)}, {4, 1, 1}, {64, 1, 1}, 256, rec, opt);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.threads_run, 128u);
  EXPECT_EQ(out[0], -1);
  EXPECT_EQ(out[2], -1);
  EXPECT_EQ(out[3], std::accumulate(in.begin() + 192, in.end(), 0));
  EXPECT_EQ(rec.events.front().block, 1u);
  EXPECT_EQ(rec.events.back().block, 3u);
}

TEST(Emulator, UcontextFibersGiveTheSameTrace) {
  auto in = random_ints(2 * 128, -9, 9, 2);
  std::vector<int> out1(2), out2(2);
  Recorder a, b;
  ASSERT_TRUE(emulate(BlockSum{gin(in, 0), g(out1, 1)}, {2, 1, 1}, {128, 1, 1}, 512, a).ok);
  ::setenv("WS_FIBERS", "ucontext", 1);
  EmuResult r = emulate(BlockSum{gin(in, 0), g(out2, 1)}, {2, 1, 1}, {128, 1, 1}, 512, b);
  ::unsetenv("WS_FIBERS");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(out1, out2);
  EXPECT_TRUE(a.events == b.events);
}

TEST(Emulator, CurrentLaneOutsideAThreadIsAnError) {
  EXPECT_THROW(sim::current_lane().syncthreads(1), std::logic_error);
}

TEST(Emulator, ProblemKindsHaveNames) {
  std::vector<std::string> names;
  for (auto k : {ProblemKind::Deadlock, ProblemKind::OutOfBounds, ProblemKind::SharedOverflow,
                 ProblemKind::Race, ProblemKind::BadCollective, ProblemKind::StepLimit,
                 ProblemKind::Cancelled, ProblemKind::Internal})
    names.emplace_back(sim::to_string(k));
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::unique(names.begin(), names.end()), names.end());
  for (const auto& n : names) EXPECT_FALSE(n.empty());
}

// ---------------------------------------------------------------------------------------
// The H100 anchors (docs/h100-anchors.md): 1024 x 1024 floats, whole grid.

struct AnchorRun {
  sim::Totals totals;
  bool ok = false;
  bool correct = false;
};

template <class K>
AnchorRun run_anchor(const K& kernel, Dim3 grid, Dim3 block, std::uint32_t shared,
                     const std::vector<float>& in, std::vector<float>& out) {
  sim::TotalsSink sink;
  std::vector<ArrayDesc> arrays = {{0, Space::Global, "in", 4, in.size(), 0},
                                   {1, Space::Global, "out", 4, out.size(), 0}};
  Launcher L(sink, arrays, "kernels/families/transpose.cuh");
  LaunchCfg cfg{"transpose", grid, block, shared};
  L.launch(cfg, kernel);
  AnchorRun r;
  r.ok = L.result().ok;
  r.totals = sink.totals();
  const int n = 1024;
  r.correct = true;
  for (int y = 0; y < n && r.correct; ++y)
    for (int x = 0; x < n; ++x)
      if (out[std::size_t(x) * n + y] != in[std::size_t(y) * n + x]) {
        r.correct = false;
        break;
      }
  return r;
}

class Anchors : public ::testing::Test {
 protected:
  static constexpr int n = 1024;
  void SetUp() override {
    in.resize(std::size_t(n) * n);
    out.assign(std::size_t(n) * n, 0.f);
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    for (float& v : in) v = d(rng);
  }
  std::vector<float> in, out;
};

TEST_F(Anchors, NaiveTranspose) {
  AnchorRun r = run_anchor(TransposeNaive{gin(in, 0), g(out, 1), n}, {32, 32, 1}, {32, 32, 1},
                           0, in, out);
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(r.correct);
  EXPECT_EQ(r.totals.global_ld_requests, 32768u);
  EXPECT_EQ(r.totals.global_ld_sectors, 131072u);
  EXPECT_EQ(r.totals.global_st_requests, 32768u);
  EXPECT_EQ(r.totals.global_st_sectors, 1048576u);
  EXPECT_EQ(r.totals.shared_ld_requests + r.totals.shared_st_requests, 0u);
}

TEST_F(Anchors, TiledTransposeNoPadding) {
  AnchorRun r = run_anchor(TransposeTiled<32, 8>{gin(in, 0), g(out, 1), n, 0}, {32, 32, 1},
                           {32, 8, 1}, 32 * 32 * 4, in, out);
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(r.correct);
  EXPECT_EQ(r.totals.global_ld_requests, 32768u);
  EXPECT_EQ(r.totals.global_ld_sectors, 131072u);
  EXPECT_EQ(r.totals.global_st_requests, 32768u);
  EXPECT_EQ(r.totals.global_st_sectors, 131072u);
  EXPECT_EQ(r.totals.shared_ld_wavefronts, 1048576u);
  EXPECT_EQ(r.totals.shared_ld_conflicts(), 1015808u);
  EXPECT_EQ(r.totals.shared_st_wavefronts, 32768u);
  EXPECT_EQ(r.totals.shared_st_conflicts(), 0u);
}

TEST_F(Anchors, TiledTransposePaddedByOne) {
  AnchorRun r = run_anchor(TransposeTiled<32, 8>{gin(in, 0), g(out, 1), n, 1}, {32, 32, 1},
                           {32, 8, 1}, 32 * 33 * 4, in, out);
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(r.correct);
  EXPECT_EQ(r.totals.global_ld_requests, 32768u);
  EXPECT_EQ(r.totals.global_ld_sectors, 131072u);
  EXPECT_EQ(r.totals.global_st_requests, 32768u);
  EXPECT_EQ(r.totals.global_st_sectors, 131072u);
  EXPECT_EQ(r.totals.shared_ld_wavefronts, 32768u);
  EXPECT_EQ(r.totals.shared_ld_conflicts(), 0u);
  EXPECT_EQ(r.totals.shared_st_wavefronts, 32768u);
  EXPECT_EQ(r.totals.shared_st_conflicts(), 0u);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Blocks on several cores (EmuOptions::threads): the sink sees the serial run's calls in
// the serial order, and the result is the serial one, problems included.

namespace {

// Blocks that differ: every 7th (from 5) races between warps on one pair of lines, every
// 11th (from 9) has all lanes write one word, `fault` reads out of bounds and `stuck`
// deadlocks at two barriers; global and shared atomics add up beside them.
struct Mixed {
  Global<int> out;
  Global<int> hist;
  int fault = -1, stuck = -1;
  void operator()(Thread& t) const {
    auto s = t.shared<int>(64, "buf");
    const int b = int(t.blockIdx.x);
    const unsigned tid = t.tid();
    s(tid) = int(tid) + b;
    if (b % 7 == 5) out(b * 64 + int(tid)) = s((tid + 32) % 64);
    t.syncthreads();
    if (t.branch(b % 11 == 9)) s(0) = b;
    if (b == fault && tid == 3) out(1 << 30) = 1;
    hist.atomic_add(int(tid % 8), 1);
    s.atomic_add(int(tid % 4), 1);
    if (b == stuck && tid < 32) {
      t.syncthreads();
      return;
    }
    t.syncthreads();
    if (b % 7 != 5) out(b * 64 + int(tid)) = s(int(tid) ^ 1) + t.shfl_xor_sync(~0u, int(tid), 1);
  }
};

struct Ran {
  Recorder rec;
  EmuResult r;
  std::vector<int> out, hist;
};

void run_mixed(Ran& x, unsigned threads, int blocks, int fault, int stuck,
               std::vector<std::uint32_t> only = {}) {
  x.out.assign(std::size_t(blocks) * 64, -1);
  x.hist.assign(8, 0);
  EmuOptions o;
  o.threads = threads;
  o.only_blocks = std::move(only);
  x.r = emulate(Mixed{g(x.out, 0), g(x.hist, 1), fault, stuck}, {unsigned(blocks), 1, 1},
                {64, 1, 1}, 512, x.rec, o);
}

void expect_same_run(const Ran& a, const Ran& b) {
  EXPECT_EQ(a.rec.calls, b.rec.calls);
  ASSERT_EQ(a.rec.arrays.size(), b.rec.arrays.size());
  for (std::size_t i = 0; i < a.rec.arrays.size(); ++i) {
    EXPECT_EQ(a.rec.arrays[i].id, b.rec.arrays[i].id);
    EXPECT_EQ(a.rec.arrays[i].name, b.rec.arrays[i].name);
    EXPECT_EQ(a.rec.arrays[i].base_offset, b.rec.arrays[i].base_offset);
  }
  ASSERT_EQ(a.rec.events.size(), b.rec.events.size());
  EXPECT_TRUE(a.rec.events == b.rec.events);
  EXPECT_EQ(a.r.ok, b.r.ok);
  EXPECT_EQ(a.r.events, b.r.events);
  EXPECT_EQ(a.r.threads_run, b.r.threads_run);
  EXPECT_EQ(a.r.steps, b.r.steps);
  EXPECT_EQ(a.r.blocks_run, b.r.blocks_run);
  EXPECT_EQ(a.r.cancelled, b.r.cancelled);
  ASSERT_EQ(a.r.problems.size(), b.r.problems.size());
  for (std::size_t i = 0; i < a.r.problems.size(); ++i) {
    const sim::Problem &p = a.r.problems[i], &q = b.r.problems[i];
    EXPECT_EQ(p.kind, q.kind) << i;
    EXPECT_EQ(p.line, q.line) << i;
    EXPECT_EQ(p.other_line, q.other_line) << i;
    EXPECT_EQ(p.block, q.block) << i;
    EXPECT_EQ(p.thread, q.thread) << i;
    EXPECT_EQ(p.message, q.message) << i;
  }
}

}  // namespace

TEST(EmulatorCores, RacesAtomicsShufflesAsOnOneCore) {
  Ran one;
  run_mixed(one, 1, 90, -1, -1);
  // The serial run itself: every pair of racing lines once, atomics complete.
  ASSERT_GE(one.r.problems.size(), 2u);
  for (const auto& p : one.r.problems) EXPECT_EQ(p.kind, ProblemKind::Race) << p.message;
  EXPECT_EQ(one.r.problems[0].block, 5u);
  EXPECT_EQ(one.hist, std::vector<int>(8, 90 * 8));
  for (unsigned threads : {2u, 3u, 8u}) {
    SCOPED_TRACE(threads);
    Ran n;
    run_mixed(n, threads, 90, -1, -1);
    expect_same_run(one, n);
    EXPECT_EQ(one.out, n.out);
    EXPECT_EQ(one.hist, n.hist);
  }
}

TEST(EmulatorCores, TheFirstFaultInBlockOrderEndsTheRunAsOnOneCore) {
  for (const auto& [fault, stuck] : std::vector<std::pair<int, int>>{{47, -1}, {-1, 33}, {61, 20}}) {
    SCOPED_TRACE(std::to_string(fault) + " " + std::to_string(stuck));
    Ran one;
    run_mixed(one, 1, 90, fault, stuck);
    ASSERT_FALSE(one.r.ok);
    const sim::Problem& last = one.r.problems.back();
    EXPECT_EQ(last.kind, fault >= 0 && (stuck < 0 || fault < stuck) ? ProblemKind::OutOfBounds
                                                                  : ProblemKind::Deadlock);
    EXPECT_EQ(last.block, std::uint32_t(stuck >= 0 && (fault < 0 || stuck < fault) ? stuck : fault));
    // Nothing of a later block reached the sink.
    for (const auto& e : one.rec.events) EXPECT_LE(e.block, last.block);
    for (unsigned threads : {2u, 5u}) {
      SCOPED_TRACE(threads);
      Ran n;
      run_mixed(n, threads, 90, fault, stuck);
      expect_same_run(one, n);
    }
  }
}

TEST(EmulatorCores, OnlyBlocksAndOneBlockPerCore) {
  Ran one, n;
  const std::vector<std::uint32_t> only = {40, 2, 9, 5, 9, 77};
  run_mixed(one, 1, 90, -1, -1, only);
  run_mixed(n, 4, 90, -1, -1, only);
  expect_same_run(one, n);
  EXPECT_EQ(one.out, n.out);
  Ran a, b;  // more threads than blocks
  run_mixed(a, 1, 3, -1, -1);
  run_mixed(b, 16, 3, -1, -1);
  expect_same_run(a, b);
}

TEST(EmulatorCores, ProgressOnlyGrowsAndReachesTheGrid) {
  RunControl ctl;
  std::vector<double> seen;
  ctl.min_interval_s = 0;
  ctl.on_progress = [&](const RunProgress& p) { seen.push_back(p.done); };
  ctl.start(200, "emulating");
  Ran x;
  x.out.assign(200 * 64, -1);
  x.hist.assign(8, 0);
  EmuOptions o;
  o.threads = 4;
  o.control = &ctl;
  x.r = emulate(Mixed{g(x.out, 0), g(x.hist, 1)}, {200, 1, 1}, {64, 1, 1}, 512, x.rec, o);
  ASSERT_FALSE(seen.empty());
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i], seen[i - 1]);
  EXPECT_EQ(ctl.progress().done, 200);
}

TEST(EmulatorCores, ThreadsComeFromTheEnvironment) {
  ::setenv("WARPSCOPE_EMU_THREADS", "3", 1);
  EXPECT_EQ(sim::emu_threads(), 3u);
  ::setenv("WARPSCOPE_EMU_THREADS", "zero", 1);
  EXPECT_GE(sim::emu_threads(), 1u);
  ::unsetenv("WARPSCOPE_EMU_THREADS");
  ::setenv("WS_EMU_THREADS", "2", 1);
  EXPECT_EQ(sim::emu_threads(), 2u);
  ::unsetenv("WS_EMU_THREADS");
  EXPECT_EQ(sim::emu_threads(), std::max(1u, std::min(64u, std::thread::hardware_concurrency())));
}

// A sink that fails stops a run on several cores as it stops a serial one: the exception
// reaches the caller, no worker is left waiting.
TEST(EmulatorCores, ASinkThatThrowsStopsTheRun) {
  struct Failing : TraceSink {
    std::size_t n = 0;
    void on_event(const WarpEvent&) override {
      if (++n == 500) throw std::runtime_error("sink full");
    }
  };
  for (unsigned threads : {1u, 3u}) {
    SCOPED_TRACE(threads);
    std::vector<int> out(90 * 64), hist(8);
    Failing sink;
    EmuOptions o;
    o.threads = threads;
    EXPECT_THROW(emulate(Mixed{g(out, 0), g(hist, 1)}, {90, 1, 1}, {64, 1, 1}, 512, sink, o),
                 std::runtime_error);
    EXPECT_EQ(sink.n, 500u);
  }
}
