// Tests of the memory and SIMT model (sim/model.h). Expected counts come either from
// first principles in the test (brute-force sets over bytes and words), from the
// textbook cases, or from the H100 hardware counters in docs/h100-anchors.md.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <new>
#include <numeric>
#include <random>
#include <algorithm>
#include <set>

#include "sim/model.h"

// Counts heap allocations so a test can check that Totals::add allocates nothing.
// GCC cannot see that the replaced operator new uses malloc, and warns on the free().
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
namespace {
std::atomic<long> g_allocations{0};
}
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

using ws::EventKind;
using ws::WarpEvent;
namespace sim = ws::sim;

constexpr std::uint32_t kAll = 0xFFFFFFFFu;

// A warp event whose lane l accesses byte offset off(l).
template <class F>
WarpEvent access(EventKind kind, std::uint8_t bytes, F off, std::uint32_t mask = kAll) {
  WarpEvent e;
  e.kind = kind;
  e.bytes = bytes;
  e.mask = mask;
  e.array = 0;
  for (int l = 0; l < 32; ++l)
    if (mask >> l & 1u) e.offset[l] = std::uint32_t(off(l));
  return e;
}

std::uint32_t mask_of(bool (*pred)(int)) {
  std::uint32_t m = 0;
  for (int l = 0; l < 32; ++l)
    if (pred(l)) m |= 1u << l;
  return m;
}

// ---- Independent brute-force versions of the rules, byte by byte and word by word ----

struct BruteGlobal {
  std::set<std::uint64_t> sectors, lines;
  unsigned ideal = 0;
};
BruteGlobal brute_global(const WarpEvent& e, std::uint64_t sector = 32, std::uint64_t line = 128) {
  BruteGlobal b;
  unsigned active = 0;
  for (int l = 0; l < 32; ++l) {
    if (!(e.mask >> l & 1u)) continue;
    ++active;
    for (std::uint64_t byte = e.offset[l]; byte < std::uint64_t(e.offset[l]) + e.bytes; ++byte) {
      b.sectors.insert(byte / sector);
      b.lines.insert(byte / line);
    }
  }
  b.ideal = unsigned((active * e.bytes + sector - 1) / sector);
  return b;
}

struct BruteShared {
  unsigned wavefronts = 0, ideal = 0, max_degree = 0;
  bool broadcast = false;
};
BruteShared brute_shared(const WarpEvent& e, unsigned banks = 32, unsigned bank_bytes = 4) {
  BruteShared b;
  int per_pass = e.bytes <= 4 ? 32 : e.bytes == 8 ? 16 : 8;
  // The H100's pair rule: a load whose lanes 2k, 2k+1 (both active) read one address
  // serves each pair as one lane, so a pass spans twice the lanes.
  bool paired = e.kind == EventKind::SharedLoad;
  for (int k = 0; k < 16; ++k) {
    const bool both = (e.mask >> (2 * k) & 1u) && (e.mask >> (2 * k + 1) & 1u);
    if (both && e.offset[2 * k] != e.offset[2 * k + 1]) paired = false;
  }
  if (paired) per_pass = std::min(32, 2 * per_pass);
  for (int first = 0; first < 32; first += per_pass) {
    std::map<unsigned, std::set<std::uint64_t>> bank_words;
    std::map<std::uint64_t, std::set<int>> word_lanes;
    bool any = false;
    for (int l = first; l < first + per_pass; ++l) {
      if (!(e.mask >> l & 1u)) continue;
      any = true;
      for (std::uint64_t byte = e.offset[l]; byte < std::uint64_t(e.offset[l]) + e.bytes; ++byte) {
        bank_words[unsigned(byte / bank_bytes % banks)].insert(byte / bank_bytes);
        word_lanes[byte / bank_bytes].insert(l);
      }
    }
    if (!any) continue;
    unsigned degree = 0;
    for (auto& [bank, words] : bank_words) degree = std::max(degree, unsigned(words.size()));
    for (auto& [word, lanes] : word_lanes) b.broadcast |= lanes.size() > 1;
    b.max_degree = std::max(b.max_degree, degree);
    b.wavefronts += std::max(1u, degree);
    b.ideal += 1;
  }
  return b;
}

// ---- Global sectors ----

TEST(Global, AlignedWarpOfFloats) {
  const auto g = sim::analyze_global(access(EventKind::GlobalLoad, 4, [](int l) { return 4 * l; }));
  EXPECT_EQ(g.requests, 1u);
  EXPECT_EQ(g.sectors, 4u);
  EXPECT_EQ(g.ideal_sectors, 4u);
  EXPECT_EQ(g.lines, 1u);
  EXPECT_EQ(g.bytes_requested, 128u);
  EXPECT_EQ(g.bytes_moved, 128u);
  EXPECT_EQ(g.fetches, 2u);
  EXPECT_EQ(g.fetch_bytes, 128u);
  EXPECT_EQ(g.sector_ids, (std::vector<std::uint64_t>{0, 1, 2, 3}));
  for (int l = 0; l < 32; ++l) EXPECT_EQ(g.lane_sector[l], l / 8) << "lane " << l;
}

TEST(Global, OffsetByOneElement) {
  const auto g =
      sim::analyze_global(access(EventKind::GlobalLoad, 4, [](int l) { return 4 * (l + 1); }));
  EXPECT_EQ(g.sectors, 5u);
  EXPECT_EQ(g.ideal_sectors, 4u);
  EXPECT_EQ(g.lines, 2u);
  EXPECT_EQ(g.bytes_moved, 160u);
  EXPECT_EQ(g.fetches, 3u);
  EXPECT_EQ(g.fetch_bytes, 192u);
  EXPECT_EQ(g.lane_sector[31], 4);
}

TEST(Global, Strided) {
  const auto s2 = sim::analyze_global(access(EventKind::GlobalLoad, 4, [](int l) { return 8 * l; }));
  EXPECT_EQ(s2.sectors, 8u);
  EXPECT_EQ(s2.ideal_sectors, 4u);
  const auto s32 =
      sim::analyze_global(access(EventKind::GlobalStore, 4, [](int l) { return 128 * l; }));
  EXPECT_EQ(s32.sectors, 32u);
  EXPECT_EQ(s32.lines, 32u);
  EXPECT_EQ(s32.ideal_sectors, 4u);
  EXPECT_EQ(s32.bytes_moved, 32u * 32u);
  EXPECT_EQ(s32.fetch_bytes, 32u * 64u);  // each sector alone in its pair
  sim::DeviceModel sector_fetch;
  sector_fetch.fetch_bytes = 32;
  const auto s32b = sim::analyze_global(
      access(EventKind::GlobalStore, 4, [](int l) { return 128 * l; }), sector_fetch);
  EXPECT_EQ(s32b.fetch_bytes, s32b.bytes_moved);
}

TEST(Global, WideLanes) {
  const auto g8 = sim::analyze_global(access(EventKind::GlobalLoad, 8, [](int l) { return 8 * l; }));
  EXPECT_EQ(g8.sectors, 8u);
  EXPECT_EQ(g8.ideal_sectors, 8u);
  EXPECT_EQ(g8.lines, 2u);
  const auto g16 =
      sim::analyze_global(access(EventKind::GlobalLoad, 16, [](int l) { return 16 * l; }));
  EXPECT_EQ(g16.sectors, 16u);
  EXPECT_EQ(g16.ideal_sectors, 16u);
  EXPECT_EQ(g16.lines, 4u);
  // A 16-byte access that straddles a sector boundary touches both sectors.
  const auto straddle =
      sim::analyze_global(access(EventKind::GlobalLoad, 16, [](int) { return 24; }, 1u));
  EXPECT_EQ(straddle.sectors, 2u);
  EXPECT_EQ(straddle.lane_sector[0], 0);
  EXPECT_EQ(straddle.sector_ids, (std::vector<std::uint64_t>{0, 1}));
}

TEST(Global, PartialMasks) {
  const auto half = sim::analyze_global(
      access(EventKind::GlobalLoad, 4, [](int l) { return 4 * l; }, 0x0000FFFFu));
  EXPECT_EQ(half.sectors, 2u);
  EXPECT_EQ(half.ideal_sectors, 2u);
  EXPECT_EQ(half.bytes_requested, 64u);
  EXPECT_EQ(half.lane_sector[16], -1);
  const std::uint32_t even = mask_of([](int l) { return l % 2 == 0; });
  const auto sparse =
      sim::analyze_global(access(EventKind::GlobalLoad, 4, [](int l) { return 4 * l; }, even));
  EXPECT_EQ(sparse.sectors, 4u);
  EXPECT_EQ(sparse.ideal_sectors, 2u);
  EXPECT_EQ(sparse.lane_sector[1], -1);
  EXPECT_EQ(sparse.lane_sector[2], 0);
  const auto none =
      sim::analyze_global(access(EventKind::GlobalLoad, 4, [](int l) { return 4 * l; }, 0u));
  EXPECT_EQ(none.requests, 0u);
  EXPECT_EQ(none.sectors, 0u);
  EXPECT_EQ(none.bytes_moved, 0u);
  EXPECT_TRUE(none.sector_ids.empty());
  for (int l = 0; l < 32; ++l) EXPECT_EQ(none.lane_sector[l], -1);
}

TEST(Global, BroadcastLoadMovesOneSector) {
  const auto g = sim::analyze_global(access(EventKind::GlobalLoad, 4, [](int) { return 64; }));
  EXPECT_EQ(g.sectors, 1u);
  EXPECT_EQ(g.bytes_requested, 128u) << "every lane asked for its 4 bytes";
}

// @post sectors == sector_ids.size(); ideal_sectors <= sectors (lanes at distinct
//       addresses); bytes_moved == 32 * sectors; requests == (mask != 0).
TEST(Global, ContractOnRandomAccesses) {
  std::mt19937 rng(2024);
  const std::uint8_t widths[] = {1, 2, 4, 8, 16};
  for (int iter = 0; iter < 3000; ++iter) {
    const std::uint8_t bytes = widths[rng() % 5];
    const std::uint32_t mask = iter % 7 == 0 ? 0u : std::uint32_t(rng()) | (iter % 3 == 0 ? kAll : 0u);
    // Distinct lanes take distinct element slots (shifted by a common misalignment), so
    // no byte is shared; the others pick any byte offset, sharing allowed.
    const bool distinct = iter % 5 != 0;
    const std::uint32_t shift = iter % 2 == 0 ? 0u : std::uint32_t(rng() % 32);
    std::vector<std::uint32_t> slots(32u << (rng() % 8));
    std::iota(slots.begin(), slots.end(), 0u);
    std::shuffle(slots.begin(), slots.end(), rng);
    const auto e = access(
        EventKind::GlobalLoad, bytes,
        [&](int l) {
          return distinct ? slots[l] * bytes + shift : std::uint32_t(rng() % (64u * 1024u));
        },
        mask);
    const auto g = sim::analyze_global(e);
    const auto b = brute_global(e);
    ASSERT_EQ(g.requests, mask != 0 ? 1u : 0u);
    ASSERT_EQ(g.sectors, b.sectors.size()) << "iter " << iter;
    ASSERT_EQ(g.sectors, g.sector_ids.size());
    ASSERT_EQ(g.sector_ids, std::vector<std::uint64_t>(b.sectors.begin(), b.sectors.end()));
    ASSERT_EQ(g.lines, b.lines.size()) << "iter " << iter;
    ASSERT_EQ(g.ideal_sectors, b.ideal);
    if (distinct) {
      ASSERT_LE(g.ideal_sectors, g.sectors) << "iter " << iter;
    }
    ASSERT_EQ(g.bytes_moved, 32u * g.sectors);
    ASSERT_EQ(g.bytes_requested, std::uint64_t(__builtin_popcount(mask)) * bytes);
    for (int l = 0; l < 32; ++l) {
      if (mask >> l & 1u) {
        ASSERT_GE(g.lane_sector[l], 0);
        ASSERT_EQ(g.sector_ids[g.lane_sector[l]], e.offset[l] / 32);
      } else {
        ASSERT_EQ(g.lane_sector[l], -1);
      }
    }
  }
}

// Other GPUs override the unit sizes; the model must follow them, powers of two or not.
TEST(Global, OtherDeviceModels) {
  struct Units {
    unsigned sector, line;
  };
  std::mt19937 rng(3);
  for (Units u : {Units{16, 64}, Units{32, 48}, Units{24, 96}, Units{64, 64}}) {
    sim::DeviceModel m;
    m.sector_bytes = u.sector;
    m.line_bytes = u.line;
    for (int iter = 0; iter < 300; ++iter) {
      const std::uint8_t bytes = std::uint8_t(1u << (rng() % 5));
      const auto e = access(EventKind::GlobalStore, bytes, [&](int) { return rng() % 3000; },
                            std::uint32_t(rng()));
      const auto g = sim::analyze_global(e, m);
      const auto b = brute_global(e, u.sector, u.line);
      ASSERT_EQ(g.sectors, b.sectors.size()) << u.sector << "/" << u.line << " iter " << iter;
      ASSERT_EQ(g.lines, b.lines.size()) << u.sector << "/" << u.line << " iter " << iter;
      ASSERT_EQ(g.ideal_sectors, b.ideal);
      ASSERT_EQ(g.bytes_moved, std::uint64_t(u.sector) * g.sectors);
      sim::Totals t;
      t.add(e, m);
      ASSERT_EQ(t.global_st_sectors, g.sectors);
    }
  }
}

// ---- Shared banks ----

TEST(Shared, WordStrides) {
  const std::map<unsigned, unsigned> expected = {{1, 1}, {2, 2}, {3, 1}, {8, 8}, {32, 32}};
  for (auto [stride, waves] : expected) {
    const auto s = sim::analyze_shared(
        // (a copy: clang 14 does not capture structured bindings)
        access(EventKind::SharedLoad, 4, [&, st = stride](int l) { return 4 * st * l; }));
    EXPECT_EQ(s.wavefronts, waves) << "stride " << stride;
    EXPECT_EQ(s.wavefronts, std::gcd(stride, 32u)) << "stride " << stride;
    EXPECT_EQ(s.ideal_wavefronts, 1u);
    EXPECT_EQ(s.conflicts, waves - 1);
    EXPECT_EQ(s.max_degree, waves);
    EXPECT_FALSE(s.broadcast);
    for (int l = 0; l < 32; ++l) EXPECT_EQ(s.lane_bank[l], int(stride * l % 32));
  }
}

TEST(Shared, BankWordsForStrideTwo) {
  const auto s =
      sim::analyze_shared(access(EventKind::SharedStore, 4, [](int l) { return 8 * l; }));
  for (int b = 0; b < 32; ++b) EXPECT_EQ(s.bank_words[b], b % 2 == 0 ? 2u : 0u) << "bank " << b;
}

TEST(Shared, Broadcast) {
  const auto one = sim::analyze_shared(access(EventKind::SharedLoad, 4, [](int) { return 20; }));
  EXPECT_EQ(one.wavefronts, 1u);
  EXPECT_EQ(one.conflicts, 0u);
  EXPECT_TRUE(one.broadcast);
  EXPECT_EQ(one.bank_words[5], 1u);
  // Two words in one bank, each read by half the warp: 2 wavefronts, still a broadcast.
  const auto two =
      sim::analyze_shared(access(EventKind::SharedLoad, 4, [](int l) { return l < 16 ? 0 : 128; }));
  EXPECT_EQ(two.wavefronts, 2u);
  EXPECT_TRUE(two.broadcast);
}

TEST(Shared, WideAccessesAreServedInPasses) {
  const auto s8 =
      sim::analyze_shared(access(EventKind::SharedLoad, 8, [](int l) { return 8 * l; }));
  EXPECT_EQ(s8.ideal_wavefronts, 2u);
  EXPECT_EQ(s8.wavefronts, 2u);
  EXPECT_EQ(s8.conflicts, 0u);
  const auto s16 =
      sim::analyze_shared(access(EventKind::SharedLoad, 16, [](int l) { return 16 * l; }));
  EXPECT_EQ(s16.ideal_wavefronts, 4u);
  EXPECT_EQ(s16.wavefronts, 4u);
  EXPECT_EQ(s16.conflicts, 0u);
  EXPECT_EQ(s16.lane_bank[1], 4);
  // Half a warp of 8-byte accesses uses only the first pass.
  const auto half = sim::analyze_shared(
      access(EventKind::SharedLoad, 8, [](int l) { return 8 * l; }, 0x0000FFFFu));
  EXPECT_EQ(half.ideal_wavefronts, 1u);
  EXPECT_EQ(half.wavefronts, 1u);
  EXPECT_EQ(half.lane_bank[16], -1);
  // 8-byte accesses at a 16-byte stride: two words per bank in each pass.
  const auto strided =
      sim::analyze_shared(access(EventKind::SharedLoad, 8, [](int l) { return 16 * l; }));
  EXPECT_EQ(strided.ideal_wavefronts, 2u);
  EXPECT_EQ(strided.wavefronts, 4u);
  EXPECT_EQ(strided.conflicts, 2u);
}

TEST(Shared, TileColumnPitch32Versus33) {
  for (unsigned pitch : {32u, 33u}) {
    const auto s = sim::analyze_shared(
        access(EventKind::SharedLoad, 4, [&](int l) { return 4 * (l * pitch + 7); }));
    EXPECT_EQ(s.wavefronts, pitch == 32 ? 32u : 1u) << "pitch " << pitch;
    EXPECT_EQ(s.conflicts, pitch == 32 ? 31u : 0u) << "pitch " << pitch;
  }
}

TEST(Shared, EmptyMask) {
  const auto s =
      sim::analyze_shared(access(EventKind::SharedLoad, 4, [](int l) { return 4 * l; }, 0u));
  EXPECT_EQ(s.wavefronts, 0u);
  EXPECT_EQ(s.ideal_wavefronts, 0u);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(s.lane_bank[l], -1);
}

// Measured on the H100 (nvidia-h100-x1, 2026-11): tests/kernels/backends/cuda/probe_shared.cu
// under ncu, one warp, 64 loads of one pattern per launch;
// l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum and
// l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum divided by
// smsp__sass_inst_executed_op_shared_ld.sum (docs/HARDWARE.md, 3a). Lane l reads element
// elem[l] (-1: inactive) of 4, 8 and 16 bytes; the counts are per instruction.
struct ProbeRow {
  const char* name;
  int elem[32];
  unsigned wavefronts[3];  // 4 B, 8 B, 16 B
  unsigned conflicts[3];
};
const ProbeRow kH100Probe[] = {
    {"consecutive",
     {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
      16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31},
     {1, 2, 4},
     {0, 0, 0}},
    {"all_one_address",
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {1, 1, 2},
     {0, 0, 0}},
    {"half_broadcast_l/16",
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
     {1, 1, 2},
     {0, 0, 0}},
    {"l/8",
     {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
      2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3},
     {1, 1, 2},
     {0, 0, 0}},
    {"l/4",
     {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
      4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7},
     {1, 1, 2},
     {0, 0, 0}},
    {"l/2",
     {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7,
      8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15},
     {1, 1, 2},
     {0, 0, 0}},
    {"l%4",
     {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3,
      0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3},
     {1, 2, 4},
     {0, 0, 0}},
    {"l%8",
     {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7,
      0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7},
     {1, 2, 4},
     {0, 0, 0}},
    {"l%16",
     {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
     {1, 2, 4},
     {0, 0, 0}},
    {"stride2",
     {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30,
      32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62},
     {2, 4, 8},
     {1, 2, 4}},
    {"stride4",
     {0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60,
      64, 68, 72, 76, 80, 84, 88, 92, 96, 100, 104, 108, 112, 116, 120, 124},
     {4, 8, 16},
     {3, 6, 12}},
    {"stride8",
     {0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120,
      128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248},
     {8, 16, 32},
     {7, 14, 28}},
    {"halves_same16_second_reversed",
     {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
      15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0},
     {1, 2, 4},
     {0, 0, 0}},
    {"quarters_reversed",
     {24, 25, 26, 27, 28, 29, 30, 31, 16, 17, 18, 19, 20, 21, 22, 23,
      8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7},
     {1, 2, 4},
     {0, 0, 0}},
    {"q1_reads_q0_set_reversed",
     {0, 1, 2, 3, 4, 5, 6, 7, 7, 6, 5, 4, 3, 2, 1, 0,
      16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31},
     {1, 2, 4},
     {0, 0, 0}},
    {"q1_overlaps_q0_by_half",
     {0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7, 8, 9, 10, 11,
      16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31},
     {1, 2, 4},
     {0, 0, 0}},
    {"q0q1_same_q2q3_distinct_l/8pairs",
     {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7,
      16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31},
     {1, 2, 4},
     {0, 0, 0}},
    {"stride8_l%8",
     {0, 8, 16, 24, 32, 40, 48, 56, 0, 8, 16, 24, 32, 40, 48, 56,
      0, 8, 16, 24, 32, 40, 48, 56, 0, 8, 16, 24, 32, 40, 48, 56},
     {2, 8, 32},
     {1, 6, 28}},
    {"l%8_plus_8_in_second_half",
     {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7,
      8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15},
     {1, 2, 4},
     {0, 0, 0}},
    {"l/2_but_lane1_reads_16",
     {0, 16, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7,
      8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15},
     {1, 3, 5},
     {0, 1, 1}},
    {"lane0_reads_1_others_0",
     {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {1, 2, 4},
     {0, 0, 0}},
    {"misaligned_pairs_(l+1)/2",
     {0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8,
      8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16},
     {1, 2, 4},
     {0, 0, 0}},
    {"half0_l/2_half1_consecutive",
     {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7,
      16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31},
     {1, 2, 4},
     {0, 0, 0}},
    {"half0_consecutive_half1_pairs",
     {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
      16, 16, 17, 17, 18, 18, 19, 19, 20, 20, 21, 21, 22, 22, 23, 23},
     {1, 2, 4},
     {0, 0, 0}},
    {"active_lo16_consecutive",
     {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
      -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
     {1, 1, 2},
     {0, 0, 0}},
    {"active_even_consecutive",
     {0, -1, 2, -1, 4, -1, 6, -1, 8, -1, 10, -1, 12, -1, 14, -1,
      16, -1, 18, -1, 20, -1, 22, -1, 24, -1, 26, -1, 28, -1, 30, -1},
     {1, 2, 4},
     {0, 1, 2}},
    {"active_q0_q2_consecutive",
     {0, 1, 2, 3, 4, 5, 6, 7, -1, -1, -1, -1, -1, -1, -1, -1,
      16, 17, 18, 19, 20, 21, 22, 23, -1, -1, -1, -1, -1, -1, -1, -1},
     {1, 2, 2},
     {0, 0, 0}},
    {"active_q0_consecutive",
     {0, 1, 2, 3, 4, 5, 6, 7, -1, -1, -1, -1, -1, -1, -1, -1,
      -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
     {1, 1, 1},
     {0, 0, 0}},
    {"active_lo16_all_one_address",
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
     {1, 1, 1},
     {0, 0, 0}},
    {"active_even_l/16",
     {0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1,
      1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1},
     {1, 1, 2},
     {0, 0, 0}},
    {"random_permutation",
     {5, 20, 23, 8, 21, 14, 12, 1, 15, 4, 19, 29, 7, 17, 13, 24,
      26, 16, 25, 22, 27, 31, 3, 10, 0, 9, 2, 18, 30, 11, 6, 28},
     {1, 4, 8},
     {0, 2, 4}},
};

TEST(Shared, MatchesTheH100ProbeOfEveryLanePattern) {
  const std::uint8_t widths[] = {4, 8, 16};
  for (const ProbeRow& row : kH100Probe) {
    std::uint32_t mask = 0;
    for (int l = 0; l < 32; ++l)
      if (row.elem[l] >= 0) mask |= 1u << l;
    for (int w = 0; w < 3; ++w) {
      const unsigned bytes = widths[w];
      const auto s = sim::analyze_shared(access(
          EventKind::SharedLoad, widths[w], [&](int l) { return row.elem[l] * bytes; }, mask));
      EXPECT_EQ(s.wavefronts, row.wavefronts[w]) << row.name << ", " << bytes << " B";
      EXPECT_EQ(s.conflicts, row.conflicts[w]) << row.name << ", " << bytes << " B";
    }
  }
}

TEST(Shared, PairedLanesWidenThePassOfLoadsOnly) {
  // matmul vectorized's As load: lanes 0-15 read one float4, lanes 16-31 the next. The
  // H100 serves it in 2 wavefronts (one per half-warp), where quarter-warps would take 4.
  const auto half_bcast = [](int l) { return l < 16 ? 0 : 16; };
  const auto ld = sim::analyze_shared(access(EventKind::SharedLoad, 16, half_bcast));
  EXPECT_EQ(ld.wavefronts, 2u);
  EXPECT_EQ(ld.ideal_wavefronts, 2u);
  EXPECT_TRUE(ld.broadcast);
  // Stores were not measured with paired lanes: they keep quarter-warp passes.
  const auto st = sim::analyze_shared(access(EventKind::SharedStore, 16, half_bcast));
  EXPECT_EQ(st.wavefronts, 4u);
  // One pair reading two addresses anywhere in the warp undoes the widening for all.
  const auto broken = sim::analyze_shared(
      access(EventKind::SharedLoad, 16, [](int l) { return l == 31 ? 32 * 16 : 16 * (l / 2); }));
  EXPECT_EQ(broken.ideal_wavefronts, 4u);
  // 8-byte pairs: the whole warp is one pass.
  const auto pairs8 =
      sim::analyze_shared(access(EventKind::SharedLoad, 8, [](int l) { return 8 * (l / 2); }));
  EXPECT_EQ(pairs8.wavefronts, 1u);
  EXPECT_EQ(pairs8.ideal_wavefronts, 1u);
}

// @post wavefronts = sum over passes of max(1, max distinct words in any bank) for
//       passes with an active lane; ideal_wavefronts = number of those passes;
//       conflicts = wavefronts - ideal_wavefronts.
TEST(Shared, ContractOnRandomAccesses) {
  std::mt19937 rng(99);
  const std::uint8_t widths[] = {1, 2, 4, 8, 16};
  for (int iter = 0; iter < 3000; ++iter) {
    const std::uint8_t bytes = widths[rng() % 5];
    const std::uint32_t mask = iter % 11 == 0 ? 0u : std::uint32_t(rng()) | (iter % 2 ? kAll : 0u);
    const std::uint32_t words = 1u << (rng() % 11);
    const bool aligned = iter % 4 != 0;
    auto e = access(
        EventKind::SharedLoad, bytes,
        [&](int) { return aligned ? (rng() % words) * bytes : rng() % (4 * words); }, mask);
    // A third of the events have every lane pair reading one address (the pair rule).
    if (iter % 3 == 0)
      for (int l = 0; l < 32; l += 2) e.offset[l + 1] = e.offset[l];
    const auto s = sim::analyze_shared(e);
    const auto b = brute_shared(e);
    ASSERT_EQ(s.wavefronts, b.wavefronts) << "iter " << iter;
    ASSERT_EQ(s.ideal_wavefronts, b.ideal) << "iter " << iter;
    ASSERT_EQ(s.conflicts, s.wavefronts - s.ideal_wavefronts);
    ASSERT_EQ(s.max_degree, b.max_degree) << "iter " << iter;
    ASSERT_EQ(s.broadcast, b.broadcast) << "iter " << iter;
    unsigned most = 0;
    for (unsigned w : s.bank_words) most = std::max(most, w);
    ASSERT_EQ(most, s.max_degree);
  }
}

TEST(Shared, OtherDeviceModels) {
  sim::DeviceModel m;
  m.shared_banks = 16;
  m.bank_bytes = 8;
  std::mt19937 rng(4);
  for (int iter = 0; iter < 500; ++iter) {
    const std::uint8_t bytes = std::uint8_t(1u << (rng() % 5));
    const auto e = access(EventKind::SharedStore, bytes,
                          [&](int) { return (rng() % 512) * bytes; }, std::uint32_t(rng()));
    const auto s = sim::analyze_shared(e, m);
    const auto b = brute_shared(e, 16, 8);
    ASSERT_EQ(s.wavefronts, b.wavefronts) << "iter " << iter;
    ASSERT_EQ(s.ideal_wavefronts, b.ideal) << "iter " << iter;
    for (int l = 0; l < 32; ++l)
      if (e.mask >> l & 1u) {
        ASSERT_EQ(s.lane_bank[l], int(e.offset[l] / 8 % 16));
      }
  }
}

// ---- Totals over transposes built like the reference kernels ----

constexpr unsigned kN = 1024, kTile = 32;

WarpEvent row_access(EventKind kind, std::uint32_t block, std::uint16_t warp, std::uint16_t line,
                     std::uint8_t array, std::uint64_t first_elem, std::uint64_t lane_step) {
  auto e = access(kind, 4, [&](int l) { return 4 * (first_elem + lane_step * l); });
  e.block = block;
  e.warp = warp;
  e.line = line;
  e.array = array;
  return e;
}

// out[x*n + y] = in[y*n + x], 32x32 threads: one warp per row of the block.
void naive_block(unsigned bx, unsigned by, ws::TraceSink& sink) {
  const std::uint32_t block = bx + by * (kN / 32);
  for (unsigned ty = 0; ty < 32; ++ty) {
    const std::uint64_t x0 = bx * 32, y = by * 32 + ty;
    sink.on_event(row_access(EventKind::GlobalLoad, block, std::uint16_t(ty), 30, 0, y * kN + x0, 1));
    sink.on_event(row_access(EventKind::GlobalStore, block, std::uint16_t(ty), 30, 1, x0 * kN + y, kN));
  }
}

// Tiled 32x32 with 32x8 threads and a row pitch of 32 + pad floats.
void tiled_block(unsigned bx, unsigned by, unsigned pad, ws::TraceSink& sink) {
  const std::uint32_t block = bx + by * (kN / kTile);
  const unsigned pitch = kTile + pad;
  for (unsigned ty = 0; ty < 8; ++ty)
    for (unsigned j = 0; j < kTile; j += 8) {
      const std::uint64_t row = by * kTile + ty + j;
      sink.on_event(row_access(EventKind::GlobalLoad, block, std::uint16_t(ty), 46, 0,
                               row * kN + bx * kTile, 1));
      sink.on_event(row_access(EventKind::SharedStore, block, std::uint16_t(ty), 46, 0,
                               (ty + j) * pitch, 1));
    }
  for (unsigned ty = 0; ty < 8; ++ty) {
    WarpEvent b;
    b.block = block;
    b.warp = std::uint16_t(ty);
    b.line = 48;
    b.kind = EventKind::Barrier;
    b.mask = kAll;
    sink.on_event(b);
  }
  for (unsigned ty = 0; ty < 8; ++ty)
    for (unsigned j = 0; j < kTile; j += 8) {
      const std::uint64_t row = bx * kTile + ty + j;
      sink.on_event(row_access(EventKind::SharedLoad, block, std::uint16_t(ty), 52, 0,
                               ty + j, pitch));
      sink.on_event(row_access(EventKind::GlobalStore, block, std::uint16_t(ty), 52, 1,
                               row * kN + by * kTile, 1));
    }
}

double plain_value(const sim::Totals& t, const std::string& name) {
  for (auto& [k, v] : t.plain())
    if (k == name) return v;
  ADD_FAILURE() << "no plain metric '" << name << "'";
  return -1;
}

TEST(Totals, NaiveTransposeOneBlockRatios) {
  sim::TotalsSink sink;
  naive_block(3, 5, sink);
  const auto& t = sink.totals();
  EXPECT_EQ(t.global_ld_requests, 32u);
  EXPECT_DOUBLE_EQ(plain_value(t, "sectors per request (loads)"), 4.0);
  EXPECT_DOUBLE_EQ(plain_value(t, "sectors per request (stores)"), 32.0);
  EXPECT_DOUBLE_EQ(plain_value(t, "ideal sectors per request (stores)"), 4.0);
  EXPECT_DOUBLE_EQ(plain_value(t, "global efficiency (bytes requested / bytes moved)"),
                   (2.0 * 32 * 128) / (32.0 * 32 * (4 + 32)));
  EXPECT_DOUBLE_EQ(plain_value(t, "SIMD efficiency"), 1.0);
}

// The anchors: Nsight Compute on an H100, whole 1024x1024 grid (docs/h100-anchors.md).
TEST(Totals, NaiveTransposeMatchesH100Counters) {
  sim::TotalsSink sink;
  for (unsigned by = 0; by < kN / 32; ++by)
    for (unsigned bx = 0; bx < kN / 32; ++bx) naive_block(bx, by, sink);
  const auto ncu = sink.totals().ncu();
  EXPECT_EQ(ncu.at("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), 32768);
  EXPECT_EQ(ncu.at("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), 131072);
  EXPECT_EQ(ncu.at("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), 32768);
  EXPECT_EQ(ncu.at("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), 1048576);
  EXPECT_EQ(ncu.at("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), 0);
}

TEST(Totals, TiledTransposeMatchesH100Counters) {
  struct Row {
    unsigned pad;
    double shared_ld_wavefronts, shared_ld_conflicts;
  };
  for (Row r : {Row{0, 1048576, 1015808}, Row{1, 32768, 0}}) {
    sim::TotalsSink sink;
    for (unsigned by = 0; by < kN / kTile; ++by)
      for (unsigned bx = 0; bx < kN / kTile; ++bx) tiled_block(bx, by, r.pad, sink);
    const auto ncu = sink.totals().ncu();
    SCOPED_TRACE("pad " + std::to_string(r.pad));
    EXPECT_EQ(ncu.at("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), 32768);
    EXPECT_EQ(ncu.at("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), 131072);
    EXPECT_EQ(ncu.at("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), 32768);
    EXPECT_EQ(ncu.at("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), 131072);
    EXPECT_EQ(ncu.at("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), r.shared_ld_wavefronts);
    EXPECT_EQ(ncu.at("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
              r.shared_ld_conflicts);
    EXPECT_EQ(ncu.at("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"), 32768);
    EXPECT_EQ(ncu.at("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"), 0);
    EXPECT_EQ(ncu.at("smsp__sass_inst_executed_op_shared_ld.sum"), 32768);
    EXPECT_EQ(ncu.at("smsp__sass_inst_executed_op_shared_st.sum"), 32768);
    EXPECT_EQ(sink.totals().barriers, 8u * (kN / kTile) * (kN / kTile));
  }
}

TEST(Totals, TiledPadZeroColumnReadIs32Wavefronts) {
  sim::TotalsSink sink;
  tiled_block(0, 0, 0, sink);
  EXPECT_DOUBLE_EQ(plain_value(sink.totals(), "wavefronts per request (shared loads)"), 32.0);
  EXPECT_DOUBLE_EQ(plain_value(sink.totals(), "wavefronts per request (shared stores)"), 1.0);
  EXPECT_DOUBLE_EQ(plain_value(sink.totals(), "shared conflicts (loads)"), 32.0 * 31.0);
  EXPECT_DOUBLE_EQ(plain_value(sink.totals(), "barriers"), 8.0);
}

TEST(Totals, NcuHasExactlyTheDocumentedKeys) {
  const std::set<std::string> expected = {
      "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
      "smsp__sass_inst_executed_op_shared_ld.sum",
      "smsp__sass_inst_executed_op_shared_st.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
      "smsp__sass_inst_executed_op_shared_atom.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
      "smsp__inst_executed_pipe_tensor_op_hmma.sum",
      "l1tex__m_l1tex2xbar_write_sectors_mem_global_op_tma_st.sum",
  };
  std::set<std::string> got;
  for (auto& [k, v] : sim::Totals{}.ncu()) got.insert(k);
  EXPECT_EQ(got, expected);
}

TEST(Totals, AtomicsAndKindsAreSeparate) {
  sim::Totals t;
  t.add(access(EventKind::GlobalAtomic, 4, [](int l) { return 128 * l; }));
  t.add(access(EventKind::SharedAtomic, 4, [](int) { return 0; }));
  EXPECT_EQ(t.global_red_requests, 1u);
  EXPECT_EQ(t.global_red_sectors, 32u);
  EXPECT_EQ(t.global_ld_requests + t.global_st_requests, 0u);
  EXPECT_EQ(t.shared_atom_requests, 1u);
  EXPECT_EQ(t.shared_ld_requests + t.shared_st_requests, 0u);
  EXPECT_EQ(t.global_bytes_moved, 32u * 32u);
  // A shared atomic is not a shared load: its passes have their own counter.
  EXPECT_EQ(t.shared_atom_wavefronts, 1u);  // 32 lanes on one word: one update
  EXPECT_EQ(t.shared_ld_wavefronts + t.shared_st_wavefronts, 0u);
  const auto ncu = t.ncu();
  // The dialect's atomics are reductions (REDG): counted under op_red, none under op_atom.
  EXPECT_EQ(ncu.at("l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"), 32);
  EXPECT_EQ(ncu.at("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"), 1);
  EXPECT_EQ(ncu.at("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"), 0);
  EXPECT_EQ(ncu.at("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), 0);
  EXPECT_EQ(ncu.at("smsp__sass_inst_executed_op_shared_atom.sum"), 1);
  EXPECT_EQ(ncu.at("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), 0);
}

TEST(Totals, SharedAtomicPassesCountDistinctWordsPerBank) {
  sim::Totals t;
  // 32 lanes on 32 words of one bank (stride 32 words): 32 passes; on 32 banks: one.
  t.add(access(EventKind::SharedAtomic, 4, [](int l) { return 128 * l; }));
  EXPECT_EQ(t.shared_atom_wavefronts, 32u);
  t.add(access(EventKind::SharedAtomic, 4, [](int l) { return 4 * l; }));
  EXPECT_EQ(t.shared_atom_wavefronts, 33u);
}

TEST(Totals, EmptyMaskIssuesNoRequest) {
  sim::Totals t;
  t.add(access(EventKind::GlobalLoad, 4, [](int l) { return 4 * l; }, 0u));
  t.add(access(EventKind::SharedStore, 4, [](int l) { return 4 * l; }, 0u));
  EXPECT_EQ(t.global_ld_requests, 0u);
  EXPECT_EQ(t.shared_st_requests, 0u);
  EXPECT_EQ(t.shared_st_wavefronts, 0u);
  EXPECT_EQ(t.events, 2u);
  EXPECT_DOUBLE_EQ(plain_value(t, "sectors per request (loads)"), 0.0);
}

TEST(Totals, DivergentBranchesAndSimdEfficiency) {
  const std::uint32_t even = mask_of([](int l) { return l % 2 == 0; });
  sim::Totals t;
  auto branch = [](std::uint32_t mask, std::uint32_t ballot) {
    WarpEvent e;
    e.kind = EventKind::Branch;
    e.mask = mask;
    e.ballot = ballot;
    return e;
  };
  t.add(branch(kAll, even));  // divergent
  t.add(branch(kAll, kAll));  // all true
  t.add(branch(kAll, 0));     // all false
  t.add(branch(even, even));  // all active lanes true
  EXPECT_EQ(t.branches, 4u);
  EXPECT_EQ(t.divergent_branches, 1u);
  EXPECT_DOUBLE_EQ(t.simd_efficiency(), (32.0 * 3 + 16.0) / (32.0 * 4));
  EXPECT_DOUBLE_EQ(plain_value(t, "divergent branches"), 1.0);
  EXPECT_DOUBLE_EQ(sim::Totals{}.simd_efficiency(), 1.0);
}

TEST(Totals, MergeEqualsAddingEverything) {
  std::mt19937 rng(5);
  std::vector<WarpEvent> events;
  for (int i = 0; i < 400; ++i) {
    const auto kind = EventKind(rng() % ws::kEventKindCount);
    auto e = access(kind, std::uint8_t(4 << (rng() % 3)), [&](int) { return rng() % 4096; },
                    std::uint32_t(rng()));
    e.ballot = ws::is_memory(kind) ? 0u : std::uint32_t(rng()) & e.mask;
    events.push_back(e);
  }
  sim::Totals whole, a, b;
  for (std::size_t i = 0; i < events.size(); ++i) {
    whole.add(events[i]);
    (i % 3 ? a : b).add(events[i]);
  }
  a.merge(b);
  EXPECT_EQ(a.ncu(), whole.ncu());
  EXPECT_EQ(a.plain(), whole.plain());
  EXPECT_EQ(a.events, whole.events);
  EXPECT_EQ(a.active_lane_sum, whole.active_lane_sum);
  EXPECT_EQ(a.global_bytes_requested, whole.global_bytes_requested);
  EXPECT_EQ(a.global_ld_ideal_sectors, whole.global_ld_ideal_sectors);
  EXPECT_EQ(a.shared_atom_requests, whole.shared_atom_requests);
  EXPECT_EQ(a.branches, whole.branches);
  EXPECT_GT(whole.divergent_branches, 0u);
}

TEST(Totals, AddMatchesPerEventAnalyses) {
  std::mt19937 rng(17);
  sim::Totals t;
  std::uint64_t ld_sectors = 0, st_ideal = 0, sh_ld_waves = 0, sh_st_ideal = 0;
  for (int i = 0; i < 500; ++i) {
    const auto kind = EventKind(rng() % 6);
    const auto e = access(kind, std::uint8_t(1 << (rng() % 5)), [&](int) { return rng() % 2048; },
                          std::uint32_t(rng()));
    t.add(e);
    if (kind == EventKind::GlobalLoad) ld_sectors += sim::analyze_global(e).sectors;
    if (kind == EventKind::GlobalStore) st_ideal += sim::analyze_global(e).ideal_sectors;
    if (kind == EventKind::SharedLoad) sh_ld_waves += sim::analyze_shared(e).wavefronts;
    if (kind == EventKind::SharedStore) sh_st_ideal += sim::analyze_shared(e).ideal_wavefronts;
  }
  EXPECT_EQ(t.global_ld_sectors, ld_sectors);
  EXPECT_EQ(t.global_st_ideal_sectors, st_ideal);
  EXPECT_EQ(t.shared_ld_wavefronts, sh_ld_waves);
  EXPECT_EQ(t.shared_st_ideal, sh_st_ideal);
}

TEST(Totals, AddDoesNotAllocate) {
  std::vector<WarpEvent> events;
  for (int k = 0; k < ws::kEventKindCount; ++k)
    events.push_back(access(EventKind(k), 16, [](int l) { return 36 * l; }));
  sim::Totals t;
  const long before = g_allocations.load();
  for (int rep = 0; rep < 100; ++rep)
    for (const auto& e : events) t.add(e);
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_EQ(t.events, 100u * events.size());
  // The counter works: analyze_global fills a vector.
  const long again = g_allocations.load();
  (void)sim::analyze_global(events[0]);
  EXPECT_GT(g_allocations.load(), again);
}

// ---- Divergence per warp ----

TEST(MaskHistory, FollowsOneWarpInOrder) {
  const std::uint32_t even = mask_of([](int l) { return l % 2 == 0; });
  const std::uint32_t low3 = mask_of([](int l) { return l < 3; });
  std::vector<WarpEvent> events;
  auto add = [&](std::uint32_t block, std::uint16_t warp, std::uint16_t line, EventKind k,
                 std::uint32_t mask, std::uint32_t ballot) {
    WarpEvent e;
    e.block = block;
    e.warp = warp;
    e.line = line;
    e.kind = k;
    e.mask = mask;
    e.ballot = ballot;
    events.push_back(e);
  };
  add(0, 0, 10, EventKind::Branch, kAll, even);
  add(0, 1, 10, EventKind::Branch, kAll, kAll);
  add(1, 0, 10, EventKind::Branch, kAll, 0);
  add(0, 0, 11, EventKind::SharedLoad, even, 0);
  add(0, 0, 12, EventKind::Vote, low3, low3);
  const auto h = sim::mask_history(events, 0, 0);
  EXPECT_EQ(h.block, 0u);
  EXPECT_EQ(h.warp, 0);
  ASSERT_EQ(h.masks.size(), 3u);
  EXPECT_EQ(h.masks, (std::vector<std::uint32_t>{kAll, even, low3}));
  EXPECT_EQ(h.lines, (std::vector<std::uint16_t>{10, 11, 12}));
  EXPECT_EQ(h.kinds,
            (std::vector<EventKind>{EventKind::Branch, EventKind::SharedLoad, EventKind::Vote}));
  EXPECT_EQ(h.ballots, (std::vector<std::uint32_t>{even, 0u, 0u}));
  EXPECT_DOUBLE_EQ(h.simd_efficiency(), (32.0 + 16.0 + 3.0) / (3 * 32.0));
  EXPECT_EQ(sim::mask_history(events, 0, 1).masks.size(), 1u);
  EXPECT_EQ(sim::mask_history(events, 1, 0).masks.size(), 1u);
  const auto none = sim::mask_history(events, 2, 0);
  EXPECT_TRUE(none.masks.empty());
  EXPECT_DOUBLE_EQ(none.simd_efficiency(), 1.0);
}

TEST(MaskHistory, SimdEfficiencyOfConstructedMasks) {
  const std::uint32_t even = mask_of([](int l) { return l % 2 == 0; });
  const std::uint32_t low3 = mask_of([](int l) { return l < 3; });
  sim::MaskHistory h;
  h.masks = {even};
  EXPECT_DOUBLE_EQ(h.simd_efficiency(), 0.5);
  h.masks = {low3};
  EXPECT_DOUBLE_EQ(h.simd_efficiency(), 3.0 / 32.0);
  h.masks = {even, low3};
  EXPECT_DOUBLE_EQ(h.simd_efficiency(), (16.0 + 3.0) / 64.0);
}

// ---- Modelled time ----

TEST(ModelledTime, LargerOfMemoryAndComputePlusOverhead) {
  sim::DeviceModel m;
  m.stream_gbps = 1000;    // 1 byte per picosecond: 1e9 bytes take 1000 us
  m.fp32_gflops = 2000;    // 4e9 FLOPs take 2000 us
  m.launch_overhead_us = 5;
  sim::Totals t;
  t.global_st_sectors = 1'000'000'000 / 32;
  EXPECT_DOUBLE_EQ(sim::modelled_time_us(t, 0, m), 1005.0);
  EXPECT_DOUBLE_EQ(sim::modelled_time_us(t, 4e9, m), 2005.0);
  EXPECT_DOUBLE_EQ(sim::modelled_time_us(sim::Totals{}, 0, m), 5.0);
  // The peak charts compare with does not set the time: the streaming rate does.
  m.dram_gbps = 1;
  EXPECT_DOUBLE_EQ(sim::modelled_time_us(t, 0, m), 1005.0);
  // The default device streams at the H100's measured copy rate, below its theoretical peak.
  sim::Totals gb;
  gb.global_st_sectors = 2'986'000'000 / 32;
  EXPECT_NEAR(sim::modelled_time_us(gb, 0), 1000.0 + sim::DeviceModel{}.launch_overhead_us, 1e-6);
  EXPECT_LT(sim::DeviceModel{}.stream_gbps, sim::DeviceModel{}.dram_gbps);
}

TEST(ModelledTime, DramBytesAreTheLoadsFetchesAndTheStoresSectors) {
  sim::DeviceModel m;
  sim::Totals t;
  t.global_ld_sectors = 100;  // a stride of 16 floats: each sector alone in its pair
  t.global_ld_fetches = 100;
  t.global_st_sectors = 7;
  t.global_red_sectors = 3;
  EXPECT_EQ(sim::dram_bytes(t, m), 64u * 100 + 32u * (7 + 3));
  t.global_ld_fetches = 50;  // coalesced: two sectors a fetch
  EXPECT_EQ(sim::dram_bytes(t, m), 64u * 50 + 32u * 10);
  // Totals recorded before fetches were counted stream their load sectors.
  t.global_ld_fetches = 0;
  EXPECT_EQ(sim::dram_bytes(t, m), 32u * 100 + 32u * 10);
  m.fetch_bytes = 32;  // one fetch per sector
  t.global_ld_fetches = 100;
  EXPECT_EQ(sim::dram_bytes(t, m), 32u * 100 + 32u * 10);
  EXPECT_EQ(sim::dram_bytes(sim::Totals{}, m), 0u);
  // The strided copy's loads take twice the DRAM time of the same sectors in pairs.
  sim::Totals pairs = t, lone = t;
  pairs.global_st_sectors = lone.global_st_sectors = pairs.global_red_sectors =
      lone.global_red_sectors = 0;
  pairs.global_ld_fetches = 50;
  sim::DeviceModel h100;
  h100.launch_overhead_us = 0;
  EXPECT_DOUBLE_EQ(sim::modelled_time_us(lone, 0, h100), 2 * sim::modelled_time_us(pairs, 0, h100));
}

TEST(ModelledTime, SharedWavefrontsCostOneSmClockEach) {
  sim::DeviceModel m;
  m.stream_gbps = 1000;
  m.launch_overhead_us = 0;
  m.sm_count = 10;
  m.sm_clock_ghz = 1.0;  // 10 SMs x 1e3 wavefronts per microsecond
  sim::Totals t;
  t.global_st_sectors = 1'000'000 / 32;  // 1 us of DRAM
  t.shared_ld_wavefronts = 100'000;  // 10 us of banks
  t.shared_st_wavefronts = 50'000;   // 5 us more
  EXPECT_DOUBLE_EQ(sim::modelled_time_us(t, 0, m), 15.0);
  t.shared_ld_wavefronts = t.shared_st_wavefronts = 0;
  EXPECT_DOUBLE_EQ(sim::modelled_time_us(t, 0, m), 1.0);
}

TEST(ModelledTime, GlobalLoadLinesShareTheL1PipeWithSharedWavefronts) {
  sim::DeviceModel m;
  m.stream_gbps = 0;
  m.l2_read_gbps = 0;
  m.launch_overhead_us = 0;
  m.sm_count = 10;
  m.sm_clock_ghz = 1.0;  // 1e4 wavefronts a microsecond
  sim::Totals t;
  t.shared_ld_wavefronts = 20'000;
  t.global_ld_lines = 30'000;  // e.g. the naive product's rows of A: two lines a request
  const sim::TimeParts p = sim::modelled_time_parts(t, 0, m);
  EXPECT_DOUBLE_EQ(p.l1_us, 5.0);
  EXPECT_STREQ(p.bound(), "l1");
}

TEST(ModelledTime, TheBankConflictOfTheUnpaddedTransposeShows) {
  // Whole-grid totals of the 1024^2 tiled transpose (docs/h100-anchors.md): with pad=0 the
  // column read needs 32x the wavefronts, and the modelled time must say so.
  sim::Totals pad0, pad1;
  pad0.global_ld_sectors = pad1.global_ld_sectors = 1024 * 1024 * 4 / 32;
  pad0.global_ld_fetches = pad1.global_ld_fetches = 1024 * 1024 * 4 / 64;
  pad0.global_st_sectors = pad1.global_st_sectors = 1024 * 1024 * 4 / 32;
  pad0.shared_st_wavefronts = pad1.shared_st_wavefronts = 32768;
  pad0.shared_ld_wavefronts = 1048576;
  pad1.shared_ld_wavefronts = 32768;
  sim::DeviceModel m;  // H100 defaults, launch overhead left out to compare the kernels
  m.launch_overhead_us = 0;
  EXPECT_GT(sim::modelled_time_us(pad0, 0, m), 1.5 * sim::modelled_time_us(pad1, 0, m));
}

// ---- Work inside branches and issue time ----

WarpEvent work(std::uint32_t mask, std::uint32_t n) {
  WarpEvent e;
  e.kind = EventKind::Work;
  e.mask = mask;
  for (int l = 0; l < 32; ++l)
    if (mask >> l & 1u) e.offset[l] = n;
  return e;
}

TEST(WarpInstructions, WorkCountsItsLargestLaneOthersOne) {
  EXPECT_EQ(sim::event_warp_instructions(work(kAll, 64)), 64u);
  EXPECT_EQ(sim::event_warp_instructions(work(0, 64)), 0u);
  WarpEvent uneven = work(0x3u, 10);
  uneven.offset[1] = 30;
  EXPECT_EQ(sim::event_warp_instructions(uneven), 30u);
  EXPECT_EQ(sim::event_warp_instructions(access(EventKind::GlobalLoad, 4, [](int l) { return 4 * l; })),
            1u);
  EXPECT_EQ(sim::event_warp_instructions(access(EventKind::Barrier, 0, [](int) { return 0; }, 0x1u)), 1u);
}

TEST(Totals, BothSidesOfADivergentBranchCountAtTheirMasks) {
  // Odd/even: two half-warp paths of 100 instructions each plus one full-warp load.
  sim::Totals split, aligned;
  const auto load = access(EventKind::GlobalLoad, 4, [](int l) { return 4 * l; });
  split.add(load);
  split.add(work(0x55555555u, 100));
  split.add(work(0xAAAAAAAAu, 100));
  EXPECT_EQ(split.warp_instructions, 201u);
  EXPECT_EQ(split.lane_instructions, 32u + 16 * 100 + 16 * 100);
  EXPECT_DOUBLE_EQ(split.simd_efficiency(), (32.0 + 3200.0) / (32.0 * 201));
  // Warp-aligned: one path at full width, the same work per lane, half the issue.
  aligned.add(load);
  aligned.add(work(kAll, 100));
  EXPECT_DOUBLE_EQ(aligned.simd_efficiency(), 1.0);
  sim::DeviceModel m;
  m.launch_overhead_us = 0;
  m.stream_gbps = 0;
  EXPECT_NEAR(sim::modelled_time_us(split, 0, m), 2 * sim::modelled_time_us(aligned, 0, m),
              1e-9 + 0.01 * sim::modelled_time_us(aligned, 0, m));
  sim::Totals merged = split;
  merged.merge(aligned);
  EXPECT_EQ(merged.warp_instructions, 201u + 101u);
}

TEST(ModelledTime, IssueTimeIsWarpInstructionsAtTheSchedulersRate) {
  sim::DeviceModel m;
  m.launch_overhead_us = 2;
  m.sm_count = 10;
  m.sm_clock_ghz = 1.0;
  m.schedulers_per_sm = 4;  // 40e3 warp instructions per microsecond
  sim::Totals t;
  t.warp_instructions = 400'000;
  const sim::TimeParts p = sim::modelled_time_parts(t, 0, m);
  EXPECT_DOUBLE_EQ(p.issue_us, 10.0);
  EXPECT_STREQ(p.bound(), "issue");
  EXPECT_DOUBLE_EQ(p.launch_us, 2.0);
  EXPECT_DOUBLE_EQ(sim::modelled_time_us(t, 0, m), 12.0);
  t.global_st_sectors = 100'000'000'000ull / 32;  // far more DRAM time: the bound moves
  EXPECT_STREQ(sim::modelled_time_parts(t, 0, m).bound(), "dram");
}

TEST(MaskHistory, WorkEventsWeighTheirInstructions) {
  std::vector<WarpEvent> ev = {work(0xFFFFu, 30), work(kAll, 10)};
  const sim::MaskHistory h = sim::mask_history(ev, 0, 0);
  ASSERT_EQ(h.counts.size(), 2u);
  EXPECT_EQ(h.counts[0], 30u);
  EXPECT_DOUBLE_EQ(h.simd_efficiency(), (16.0 * 30 + 32.0 * 10) / (32.0 * 40));
}

}  // namespace

// ---- Residency, latency, L2 ----

TEST(ResidentBlocks, TheSmallestOfWarpsBlocksSharedAndRegisters) {
  sim::DeviceModel m;
  sim::LaunchShape s;
  EXPECT_EQ(sim::resident_blocks(s, m), 0u);  // unknown shape
  s.threads_per_block = 256;
  EXPECT_EQ(sim::resident_blocks(s, m), 8u);  // 64 warps / 8
  s.threads_per_block = 32;
  EXPECT_EQ(sim::resident_blocks(s, m), 32u);  // the block limit, not 64
  s.threads_per_block = 256;
  s.shared_bytes = 48 * 1024;
  EXPECT_EQ(sim::resident_blocks(s, m), 4u);  // 228 KiB / (48 KiB + 1 KiB reserved)
  s.shared_bytes = 0;
  s.regs_per_thread = 128;  // 4096 a warp: 16 warps, 2 blocks of 8
  EXPECT_EQ(sim::resident_blocks(s, m), 2u);
  s.regs_per_thread = 33;  // rounded up to 1280 a warp: 51 warps, 6 blocks
  EXPECT_EQ(sim::resident_blocks(s, m), 6u);
  s.regs_per_thread = 0;
  s.shared_bytes = 300 * 1024;  // more than an SM has
  EXPECT_EQ(sim::resident_blocks(s, m), 0u);
  s.shared_bytes = 0;
  s.threads_per_block = 4096;  // 128 warps: more than an SM holds
  EXPECT_EQ(sim::resident_blocks(s, m), 0u);
}

TEST(ModelledTime, ArraysThatFitInL2ReachDramOnce) {
  sim::DeviceModel m;
  sim::Totals t;
  t.global_ld_sectors = 1'000'000;  // 32 MB of sectors, read over and over
  t.global_ld_fetches = 500'000;
  sim::LaunchShape s;
  EXPECT_EQ(sim::dram_bytes(t, m, s), 32'000'000u);  // unknown footprint: streamed
  s.footprint_bytes = 12u << 20;                      // 12 MiB of arrays, in a 50 MiB L2
  EXPECT_EQ(sim::dram_bytes(t, m, s), 12u << 20);
  s.footprint_bytes = 64u << 20;  // more than L2: streamed
  EXPECT_EQ(sim::dram_bytes(t, m, s), 32'000'000u);
  s.footprint_bytes = 1000;  // fits, and more than the kernel streams: the stream
  t.global_ld_sectors = 10;
  t.global_ld_fetches = 5;
  EXPECT_EQ(sim::dram_bytes(t, m, s), 320u);
}

TEST(ModelledTime, L2SectorsAtTheMeasuredReadAndWriteRates) {
  sim::DeviceModel m;
  m.l2_read_gbps = 1;  // 1e3 bytes per microsecond
  m.l2_write_gbps = 0.5;
  sim::Totals t;
  t.global_ld_sectors = 1000;   // 32,000 bytes: 32 us
  t.global_st_sectors = 500;    // 16,000 bytes: 32 us
  t.global_red_sectors = 500;  // 32 us more
  EXPECT_DOUBLE_EQ(sim::modelled_time_parts(t, 0, m).l2_us, 96.0);
  m.stream_gbps = 0;
  m.launch_overhead_us = 0;
  EXPECT_STREQ(sim::modelled_time_parts(t, 0, m).bound(), "l2");
  m.l2_read_gbps = m.l2_write_gbps = 0;  // unknown rates leave the part out
  EXPECT_DOUBLE_EQ(sim::modelled_time_parts(t, 0, m).l2_us, 0.0);
}

TEST(ModelledTime, LatencyIsTheBlocksPathsResidentBlocksAtATime) {
  sim::DeviceModel m;
  m.sm_count = 10;
  m.dram_latency_ns = 500;
  m.l2_latency_ns = 200;
  m.barrier_round_ns = 100;
  m.barrier_round_per_warp_ns = 0;  // the lone round (the sharing is tested below)
  sim::LaunchShape s;
  s.blocks = 800;
  s.threads_per_block = 256;  // 8 warps; 8 blocks an SM: 80 at a time, 10 rounds of blocks
  sim::Totals t;
  t.global_ld_requests = 6400;  // a load per warp
  t.barriers = 6400 * 9;        // nine __syncthreads per warp
  // Each block: 500 ns for its load and 9 x 100 ns of barrier rounds.
  EXPECT_DOUBLE_EQ(sim::latency_us(t, s, m), 10 * 1.4);
  s.footprint_bytes = 1 << 20;  // the arrays fit in L2: the load waits on L2
  EXPECT_DOUBLE_EQ(sim::latency_us(t, s, m), 10 * 1.1);
  s.blocks = 40;  // fewer blocks than fit at once: one path
  EXPECT_DOUBLE_EQ(sim::latency_us(t, s, m), 0.2 + 6400 * 9 / 320.0 * 0.1);
  t.global_ld_requests = 0;  // no loads: barriers only
  EXPECT_DOUBLE_EQ(sim::latency_us(t, s, m), 6400 * 9 / 320.0 * 0.1);
  t.barriers = 0;
  s.warp_syncs = 12;  // a last warp's six steps, two syncs each
  m.warp_sync_ns = 10;
  EXPECT_DOUBLE_EQ(sim::latency_us(t, s, m), 0.12);
  s.warp_syncs = 0;
  m.sm_clock_ghz = 2;
  t.shared_ld_wavefronts = 40 * 300;  // 300 wavefronts a block, 200 of them conflicts
  t.shared_ld_ideal = 40 * 100;
  t.shared_st_wavefronts = t.shared_st_ideal = 40 * 50;  // conflict-free stores add nothing
  EXPECT_DOUBLE_EQ(sim::latency_us(t, s, m), 0.1);  // 200 wavefronts at 2 a nanosecond
  EXPECT_DOUBLE_EQ(sim::latency_us(t, sim::LaunchShape{}, m), 0.0);  // unknown shape
  s.shared_bytes = 1u << 30;  // a block that cannot be resident
  EXPECT_DOUBLE_EQ(sim::latency_us(t, s, m), 0.0);
}

TEST(ModelledTime, ABarrierRoundIsSharedByTheBlocksOfAnSm) {
  sim::DeviceModel m;
  m.sm_count = 1;
  m.barrier_round_ns = 30;
  m.barrier_round_per_warp_ns = 1.5;
  sim::LaunchShape s;
  s.blocks = 8;
  s.threads_per_block = 256;  // 8 blocks of 8 warps: 64 warps share each round
  sim::Totals t;
  t.barriers = 64 * 10;  // ten rounds per warp
  EXPECT_DOUBLE_EQ(sim::latency_us(t, s, m), 10 * 64 * 1.5 / 1000);
  s.regs_per_thread = 128;  // two blocks fit: 16 warps, 24 ns, below the lone round
  t.barriers = 64 * 10;
  EXPECT_DOUBLE_EQ(sim::latency_us(t, s, m), 8.0 / 2 * 10 * 30 / 1000);
}

TEST(ModelledTime, AOneLoadPerThreadTreeIsBoundByLatencyAManyLoadKernelByDram) {
  // Whole-grid counts of the reduction over 2^25 ints in blocks of 256 (H100 defaults):
  // `sequential` loads one int a thread and walks 8 tree levels, each behind a barrier;
  // a grid-stride kernel of one wave moves the same bytes with a handful of barriers.
  sim::DeviceModel m;
  const std::uint64_t n = 1ull << 25, warps = n / 32;
  sim::Totals tree;
  tree.global_ld_requests = warps;
  tree.global_ld_sectors = n / 8;
  tree.global_ld_fetches = n / 16;
  tree.barriers = warps * 9;
  sim::LaunchShape one_per_thread;
  one_per_thread.blocks = n / 256;
  one_per_thread.threads_per_block = 256;
  one_per_thread.footprint_bytes = 4 * n;
  const sim::TimeParts p = sim::modelled_time_parts(tree, 0, m, one_per_thread);
  EXPECT_STREQ(p.bound(), "latency");
  EXPECT_GT(p.latency_us, 3 * p.dram_us);
  sim::Totals stream = tree;
  sim::LaunchShape one_wave = one_per_thread;
  one_wave.blocks = m.sm_count * 8;
  stream.barriers = one_wave.blocks * 8 * 9;
  EXPECT_STREQ(sim::modelled_time_parts(stream, 0, m, one_wave).bound(), "dram");
}

TEST(ModelledTime, DramReadRateFollowsTheProbesCurve) {
  sim::DeviceModel m;
  m.read_gbps_by_bytes_in_flight = {{{1000, 500}, {2000, 1500}, {4000, 2500}, {8000, 2500},
                                     {16000, 2600}, {32000, 2700}, {64000, 2800}}};
  EXPECT_EQ(sim::dram_read_gbps(0, m), 0.0);
  EXPECT_EQ(sim::dram_read_gbps(-5, m), 0.0);
  for (const auto& p : m.read_gbps_by_bytes_in_flight) EXPECT_DOUBLE_EQ(sim::dram_read_gbps(p[0], m), p[1]);
  EXPECT_DOUBLE_EQ(sim::dram_read_gbps(500, m), 250);     // Little's law below the first point
  EXPECT_DOUBLE_EQ(sim::dram_read_gbps(1500, m), 1000);   // linear between points
  EXPECT_DOUBLE_EQ(sim::dram_read_gbps(1e9, m), 2800);    // flat past the last
  double last = 0;
  for (double b = 1; b < 1e6; b *= 1.1) {
    EXPECT_GE(sim::dram_read_gbps(b, m), last) << b;
    last = sim::dram_read_gbps(b, m);
  }
  // The H100's own curve is non-decreasing too, and below the copy rate until 32 KB an SM.
  sim::DeviceModel h100;
  for (std::size_t i = 1; i < h100.read_gbps_by_bytes_in_flight.size(); ++i) {
    EXPECT_GT(h100.read_gbps_by_bytes_in_flight[i][0], h100.read_gbps_by_bytes_in_flight[i - 1][0]);
    EXPECT_GE(h100.read_gbps_by_bytes_in_flight[i][1], h100.read_gbps_by_bytes_in_flight[i - 1][1]);
  }
  EXPECT_LT(sim::dram_read_gbps(16384, h100), h100.stream_gbps);
}

// Step 7 of the reduction against step 9 over 2^25 ints, one wave of 256-thread blocks
// (64 warps an SM): two 128-byte loads in flight a warp against one 512-byte load.
TEST(ModelledTime, FewerBytesInFlightStreamSlower) {
  sim::DeviceModel m;
  const std::uint64_t n = 1ull << 25;
  sim::LaunchShape s;
  s.blocks = m.sm_count * 8;
  s.threads_per_block = 256;
  s.footprint_bytes = 4 * n;
  sim::Totals two_ints;  // int loads: 128 bytes (2 fetches) a request
  two_ints.global_ld_requests = n / 32;
  two_ints.global_ld_sectors = n / 8;
  two_ints.global_ld_fetches = n / 16;
  sim::Totals int4 = two_ints;  // int4 loads: 512 bytes a request
  int4.global_ld_requests = n / 128;
  const double reads = 4.0 * n;
  EXPECT_EQ(sim::in_flight_us(two_ints, s, m), 0.0);  // unknown: no part
  s.loads_in_flight = 2;
  // 64 warps x 2 x 128 B = 16 KB an SM.
  EXPECT_DOUBLE_EQ(sim::in_flight_us(two_ints, s, m), reads / (sim::dram_read_gbps(16384, m) * 1e3));
  s.loads_in_flight = 1;
  EXPECT_DOUBLE_EQ(sim::in_flight_us(int4, s, m), reads / (sim::dram_read_gbps(32768, m) * 1e3));
  s.loads_in_flight = 2;
  const sim::TimeParts p7 = sim::modelled_time_parts(two_ints, 0, m, s);
  s.loads_in_flight = 1;
  const sim::TimeParts p9 = sim::modelled_time_parts(int4, 0, m, s);
  EXPECT_GT(p7.dram_us, p9.dram_us * 1.05);  // measured on the H100: 51.7 against 47.6 us
  EXPECT_STREQ(p7.bound(), "dram");
  // Step 9 keeps enough in flight: its DRAM part is the copy rate's.
  EXPECT_DOUBLE_EQ(p9.dram_us, double(sim::dram_bytes(int4, m, s)) / (m.stream_gbps * 1e3));
  // A grid of one block: only its SM's share of the GPU is in flight.
  s.blocks = 1;
  s.loads_in_flight = 2;
  EXPECT_DOUBLE_EQ(sim::in_flight_us(two_ints, s, m),
                   reads / (sim::dram_read_gbps(8.0 / m.sm_count * 2 * 128, m) * 1e3));
  // Arrays in L2, no loads, no resident block: no part.
  s.footprint_bytes = 1 << 20;
  EXPECT_EQ(sim::in_flight_us(two_ints, s, m), 0.0);
  s.footprint_bytes = 4 * n;
  EXPECT_EQ(sim::in_flight_us(sim::Totals{}, s, m), 0.0);
  s.shared_bytes = 1u << 30;
  EXPECT_EQ(sim::in_flight_us(two_ints, s, m), 0.0);
}

// A round cannot end before the SM's schedulers have issued every resident warp's
// instructions of it: stated work between barriers (reduction step 1's division)
// lengthens the round, a few events do not.
TEST(ModelledTime, ABarrierRoundTakesAtLeastItsIssueTime) {
  sim::DeviceModel m;
  m.sm_count = 1;
  m.barrier_round_ns = 30;
  m.barrier_round_per_warp_ns = 1.5;
  m.schedulers_per_sm = 4;
  m.sm_clock_ghz = 2;
  sim::LaunchShape s;
  s.blocks = 8;
  s.threads_per_block = 256;  // 64 warps share each round
  sim::Totals t;
  t.barriers = 64 * 10;
  t.warp_instructions = 64 * 10 * 5;  // 5 a warp a round: 0.625 ns, below the probe's 1.5
  EXPECT_DOUBLE_EQ(sim::latency_us(t, s, m), 10 * 64 * 1.5 / 1000);
  t.warp_instructions = 64 * 10 * 24;  // 24 a warp a round: 3 ns at 4 a clock of 2 GHz
  EXPECT_DOUBLE_EQ(sim::latency_us(t, s, m), 10 * 64 * 3.0 / 1000);
  // A grid of half a wave: each of two SMs holds 4 of the 8 blocks it could, so the issue
  // is shared by 32 warps, not 64 (the probe's round stays per resident block, as before).
  m.sm_count = 2;
  m.barrier_round_per_warp_ns = 0.5;
  EXPECT_DOUBLE_EQ(sim::latency_us(t, s, m), 10 * 32 * 3.0 / 1000);
  t.barriers = 0;  // no rounds, no issue on the path
  EXPECT_DOUBLE_EQ(sim::latency_us(t, s, m), 0.0);
}

// --- Atomics: reductions' passes, the words they spread over, their time ---

TEST(Atomics, AReductionsSectorsAreCountedPerPass) {
  sim::Totals t;
  // 32 lanes on 32 words of one 128-byte line: one pass, 4 sectors.
  t.add(access(EventKind::GlobalAtomic, 4, [](int l) { return 4 * l; }));
  EXPECT_EQ(t.global_red_sectors, 4u);
  // 16 lanes on word 0, 16 on 16 words of the next four sectors: pass 1 holds word 0 and the
  // 16 others (1 + 2 sectors), passes 2..16 word 0 alone: 3 + 15 sectors.
  sim::Totals u;
  u.add(access(EventKind::GlobalAtomic, 4, [](int l) { return l % 2 ? 0 : 32 + 4 * (l / 2); }));
  EXPECT_EQ(u.global_red_sectors, 3u + 15u);
  EXPECT_EQ(u.global_red_requests, 1u);
  // Every lane on one word: 32 passes of one sector.
  sim::Totals w;
  w.add(access(EventKind::GlobalAtomic, 4, [](int) { return 64; }));
  EXPECT_EQ(w.global_red_sectors, 32u);
  // A load with the same lanes is one pass: distinct sectors only.
  sim::Totals ld;
  ld.add(access(EventKind::GlobalLoad, 4, [](int) { return 64; }));
  EXPECT_EQ(ld.global_ld_sectors, 1u);
}

TEST(Atomics, HeatCountsWordsRequestsAndLanes) {
  sim::AtomicHeatSink h;
  h.on_event(access(EventKind::GlobalAtomic, 4, [](int l) { return l < 16 ? 0 : 4 * l; }));
  h.on_event(access(EventKind::GlobalAtomic, 4, [](int) { return 0; }));
  h.on_event(access(EventKind::SharedAtomic, 4, [](int) { return 0; }));  // not global
  // A coalesced request (lane l on word l of one line) is no scattered update.
  h.on_event(access(EventKind::GlobalAtomic, 4, [](int l) { return 1024 + 4 * l; }));
  const sim::AtomicHeat a = h.heat();
  EXPECT_TRUE(a.known);
  EXPECT_EQ(a.global_updates, 64u);
  EXPECT_EQ(a.global_words, 17u);  // word 0 and the words of lanes 16..31
  EXPECT_EQ(a.hot_lanes, 48u);
  EXPECT_EQ(a.hot_lanes_requests, 2u);
  EXPECT_EQ(a.hot_requests, 2u);
  // Another part of the launch adds to the same words.
  sim::AtomicHeatSink other;
  other.on_event(access(EventKind::GlobalAtomic, 4, [](int) { return 0; }));
  h.merge(other);
  EXPECT_EQ(h.heat().hot_lanes, 80u);
  EXPECT_EQ(h.heat().hot_requests, 3u);
  EXPECT_FALSE(sim::AtomicHeat{}.known);
}

TEST(Atomics, RateOverWordsFollowsTheProbesCurve) {
  const sim::DeviceModel m;
  for (const auto& [words, gups] : m.atomic_gups_by_words) EXPECT_DOUBLE_EQ(sim::atomic_gups(words, m), gups);
  EXPECT_DOUBLE_EQ(sim::atomic_gups(1, m), m.atomic_gups_by_words.front()[1]);
  EXPECT_DOUBLE_EQ(sim::atomic_gups(1e12, m), m.atomic_gups_by_words.back()[1]);
  // Halfway in log2 between 1024 and 4096 words: halfway between their rates.
  EXPECT_NEAR(sim::atomic_gups(2048, m), (11.841 + 36.308) / 2, 1e-9);
}

TEST(Atomics, TheAtomicPartIsTheLongerOfSpreadAndHottestWord) {
  const sim::DeviceModel m;
  sim::Totals t;
  t.global_red_requests = 1;
  sim::LaunchShape s;
  // Unknown spread: no global part, and the time says it is outside the model's reach.
  EXPECT_EQ(sim::atomic_us(t, s, m), 0.0);
  EXPECT_NE(sim::modelled_time_parts(t, 0, m, s).outside_reach, "");
  // 2^22 updates over 256 words: the probe's 3.886 G/s, 1.079 ms.
  s.heat.known = true;
  s.heat.global_updates = 1u << 22;
  s.heat.global_words = 256;
  s.heat.hot_lanes = s.heat.hot_requests_lanes = 16384;
  s.heat.hot_lanes_requests = s.heat.hot_requests = 16000;
  EXPECT_NEAR(sim::atomic_us(t, s, m), double(1u << 22) / 3.886 / 1000, 1e-6);
  const sim::TimeParts p = sim::modelled_time_parts(t, 0, m, s);
  EXPECT_EQ(p.outside_reach, "");
  EXPECT_STREQ(p.bound(), "atomic");
  // Half of them on one word, 16 lanes of each request: the hottest word binds.
  s.heat.hot_lanes = s.heat.hot_requests_lanes = 1u << 21;
  s.heat.hot_lanes_requests = s.heat.hot_requests = 1u << 17;
  const double hot_ns = double(1u << 17) * m.atomic_word_request_ns +
                        double((1u << 21) - (1u << 17)) * m.atomic_word_lane_ns;
  EXPECT_NEAR(sim::atomic_us(t, s, m), hot_ns / 1000, 1e-6);
  // Stores that fill a quarter of each sector or less (the naive transpose's) are outside
  // the model's reach too; a coalesced store is not.
  sim::Totals st;
  st.global_st_sectors = 16;  // a quarter of each sector filled: within reach
  st.global_st_ideal_sectors = 4;
  EXPECT_EQ(sim::modelled_time_parts(st, 0, m, {}).outside_reach, "");
  st.global_st_sectors = 17;
  EXPECT_NE(sim::modelled_time_parts(st, 0, m, {}).outside_reach, "");
  // Shared atomics: the longer of instructions and wavefronts, spread over the SMs.
  sim::Totals sh;
  sh.shared_atom_requests = 132000;
  sh.shared_atom_wavefronts = 132000;
  EXPECT_NEAR(sim::atomic_us(sh, {}, m), 1000 * m.shared_atomic_ns / 1000, 1e-9);
  sh.shared_atom_wavefronts = 132000 * 32;
  EXPECT_NEAR(sim::atomic_us(sh, {}, m), 1000 * 32 * m.shared_atomic_wavefront_ns / 1000, 1e-9);
}
