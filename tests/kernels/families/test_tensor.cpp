// The tensor-core dialect on the emulator: FP16 conversions, the PTX fragment layouts of
// mma.m16n8k16 (hand-derived lanes from the ISA's tables), mma.sync computed per lane,
// ldmatrix's registers and its bank counts with and without a swizzle, cp.async's sectors
// and its wait as the point where the bytes land, and the tensor family's counts at n=128.
#define WS_MODE_EMU 1
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/backends/backend.h"
#include "kernels/dialect/simt.h"
#include "kernels/dialect/simt_tensor.h"
#include "kernels/families/tensor.cuh"
#include "kernels/hardware/hardware.h"
#include "sim/half.h"
#include "sim/mma.h"
#include "sim/model.h"

namespace {

using namespace ws;
using sim::FragPos;

struct Keep : TraceSink {
  std::vector<WarpEvent> events;
  sim::Totals totals;
  void on_event(const WarpEvent& e) override {
    events.push_back(e);
    totals.add(e);
  }
};

template <class K>
sim::EmuResult emulate(const K& k, unsigned threads, std::uint32_t shared, TraceSink& sink) {
  sim::EmuLaunch l;
  l.info.kernel = "test";
  l.info.source_file = "tests/kernels/families/test_tensor.cpp";
  l.info.grid = {1, 1, 1};
  l.info.block = {threads, 1, 1};
  l.info.shared_bytes = shared;
  l.thread_body = [&k] {
    Thread t;
    k(t);
  };
  return sim::run(l, sink, {});
}

std::string problems(const sim::EmuResult& r) {
  std::string s;
  for (const auto& p : r.problems) s += p.message + "; ";
  return s;
}

// ---------------------------------------------------------------------------------------
// FP16

TEST(Half, ConvertsExactlyAndRoundsToNearestEven) {
  EXPECT_EQ(sim::float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(sim::float_to_half(-2.0f), 0xC000);
  EXPECT_EQ(sim::float_to_half(65504.0f), 0x7BFF);             // the largest half
  EXPECT_EQ(sim::float_to_half(65520.0f), 0x7C00);             // rounds up to infinity
  EXPECT_EQ(sim::float_to_half(std::ldexp(1.0f, -24)), 0x0001);  // the smallest subnormal
  EXPECT_EQ(sim::float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // tie: to even
  EXPECT_EQ(sim::float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie: to even
  EXPECT_EQ(sim::half_to_float(0x3555), 0.333251953125f);
  EXPECT_EQ(sim::half_to_float(0x0200), std::ldexp(1.0f, -15));  // subnormal
  for (std::uint32_t h = 0; h < 0x7C00; ++h)
    ASSERT_EQ(sim::float_to_half(sim::half_to_float(sim::half_bits(h))), h) << h;
}

TEST(Half, TheFillGivesMultiplesOfTwoToTheMinusTen) {
  const InputGen g{Fill::HalfUnit};
  for (std::uint64_t i = 0; i < 4096; ++i) {
    const std::uint32_t w = input_word(g, 1, 0, i);
    for (sim::half_bits h : {sim::half2_lo(w), sim::half2_hi(w)}) {
      const float f = sim::half_to_float(h);
      ASSERT_GE(f, -1.0f);
      ASSERT_LT(f, 1.0f);
      ASSERT_EQ(f * 1024.0f, std::floor(f * 1024.0f)) << f;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Fragment layouts (PTX ISA, mma.m16n8k16, .f16 A/B, .f32 C/D)

TEST(MmaLayout, LanesHoldWhatThePtxTablesSay) {
  // Lane 5: groupID 1, threadID_in_group 1.
  EXPECT_EQ(sim::mma_a_pos(5, 0, 0).row, 1);
  EXPECT_EQ(sim::mma_a_pos(5, 0, 0).col, 2);   // a0
  EXPECT_EQ(sim::mma_a_pos(5, 0, 1).col, 3);   // a1
  EXPECT_EQ(sim::mma_a_pos(5, 1, 0).row, 9);   // a2: row groupID + 8
  EXPECT_EQ(sim::mma_a_pos(5, 1, 0).col, 2);
  EXPECT_EQ(sim::mma_a_pos(5, 2, 1).row, 1);   // a5: column + 8
  EXPECT_EQ(sim::mma_a_pos(5, 2, 1).col, 11);
  EXPECT_EQ(sim::mma_a_pos(5, 3, 0).row, 9);   // a6
  EXPECT_EQ(sim::mma_a_pos(5, 3, 0).col, 10);
  EXPECT_EQ(sim::mma_b_pos(5, 0, 0).row, 2);   // b0: k = 2 t
  EXPECT_EQ(sim::mma_b_pos(5, 0, 0).col, 1);   // n = groupID
  EXPECT_EQ(sim::mma_b_pos(5, 1, 1).row, 11);  // b3: k = 2 t + 1 + 8
  EXPECT_EQ(sim::mma_c_pos(5, 0).row, 1);
  EXPECT_EQ(sim::mma_c_pos(5, 0).col, 2);
  EXPECT_EQ(sim::mma_c_pos(5, 3).row, 9);      // c3
  EXPECT_EQ(sim::mma_c_pos(5, 3).col, 3);
  EXPECT_EQ(sim::mma_c_pos(31, 1).row, 7);
  EXPECT_EQ(sim::mma_c_pos(31, 1).col, 7);
}

TEST(MmaLayout, EveryElementIsHeldByExactlyOneLane) {
  int a[16][16] = {}, b[16][8] = {}, c[16][8] = {};
  for (unsigned l = 0; l < 32; ++l) {
    for (unsigned r = 0; r < 4; ++r)
      for (unsigned h = 0; h < 2; ++h) ++a[sim::mma_a_pos(l, r, h).row][sim::mma_a_pos(l, r, h).col];
    for (unsigned r = 0; r < 2; ++r)
      for (unsigned h = 0; h < 2; ++h) ++b[sim::mma_b_pos(l, r, h).row][sim::mma_b_pos(l, r, h).col];
    for (unsigned i = 0; i < 4; ++i) ++c[sim::mma_c_pos(l, i).row][sim::mma_c_pos(l, i).col];
  }
  for (auto& row : a)
    for (int v : row) EXPECT_EQ(v, 1);
  for (auto& row : b)
    for (int v : row) EXPECT_EQ(v, 1);
  for (auto& row : c)
    for (int v : row) EXPECT_EQ(v, 1);
}

TEST(MmaLayout, SlotsInvertThePositions) {
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned r = 0; r < 4; ++r)
      for (unsigned h = 0; h < 2; ++h) {
        const FragPos p = sim::mma_a_pos(l, r, h);
        const sim::FragSlot s = sim::mma_a_slot(unsigned(p.row), unsigned(p.col));
        EXPECT_TRUE(s.lane == l && s.reg == r && s.half == h) << l << " " << r << " " << h;
        if (r < 2) {
          const FragPos q = sim::mma_b_pos(l, r, h);
          const sim::FragSlot t = sim::mma_b_slot(unsigned(q.row), unsigned(q.col));
          EXPECT_TRUE(t.lane == l && t.reg == r && t.half == h) << l << " " << r << " " << h;
        }
      }
}

// One warp: each lane packs its fragments of A (16 x 16 row-major) and B (16 x 8, stored
// as B[k][n]) from the layouts, runs one mma.sync onto C, and writes its four results.
struct OneMma {
  Global<const float> a, b, c;
  Global<float> d;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned l = t.lane();
    auto pack = [](float lo, float hi) {
      return sim::pack_half2(sim::float_to_half(lo), sim::float_to_half(hi));
    };
    std::uint32_t af[4], bf[2];
    float acc[4];
    for (unsigned r = 0; r < 4; ++r) {
      FragPos p0 = sim::mma_a_pos(l, r, 0), p1 = sim::mma_a_pos(l, r, 1);
      af[r] = pack(a(p0.row * 16 + p0.col), a(p1.row * 16 + p1.col));
    }
    for (unsigned r = 0; r < 2; ++r) {
      FragPos p0 = sim::mma_b_pos(l, r, 0), p1 = sim::mma_b_pos(l, r, 1);
      bf[r] = pack(b(p0.row * 8 + p0.col), b(p1.row * 8 + p1.col));
    }
    for (unsigned i = 0; i < 4; ++i) acc[i] = c(sim::mma_c_pos(l, i).row * 8 + sim::mma_c_pos(l, i).col);
    mma_16816(t, acc, af, bf);
    for (unsigned i = 0; i < 4; ++i) d(l * 4 + i) = acc[i];
  }
};

TEST(Mma, IdentityTimesBGivesBInTheLayoutOfC) {
  std::vector<float> a(256, 0.f), b(128), c(128, 0.f), d(128, -1.f);
  for (int i = 0; i < 16; ++i) a[i * 16 + i] = 1.f;
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 8; ++n) b[k * 8 + n] = float(k * 8 + n);
  Keep keep;
  const auto r = emulate(OneMma{{a.data(), 256, 0}, {b.data(), 128, 1}, {c.data(), 128, 2},
                                {d.data(), 128, 3}},
                         32, 0, keep);
  ASSERT_TRUE(r.ok) << problems(r);
  // D[row][col] = row * 8 + col, at lane l's c0..c3 (rows g, g, g+8, g+8; columns 2t, 2t+1).
  EXPECT_EQ(std::vector<float>(d.begin(), d.begin() + 4), (std::vector<float>{0, 1, 64, 65}));
  EXPECT_EQ(std::vector<float>(d.begin() + 20, d.begin() + 24),
            (std::vector<float>{10, 11, 74, 75}));  // lane 5
  EXPECT_EQ(std::vector<float>(d.begin() + 124, d.end()),
            (std::vector<float>{62, 63, 126, 127}));  // lane 31
  EXPECT_EQ(keep.totals.tensor_instructions, 1u);
  int mma_events = 0;
  for (const auto& e : keep.events)
    if (e.kind == EventKind::Mma) {
      ++mma_events;
      EXPECT_EQ(e.mask, 0xFFFFFFFFu);
    }
  EXPECT_EQ(mma_events, 1);
}

TEST(Mma, MatchesTheProductForRandomHalves) {
  std::vector<float> a(256), b(128), c(128), d(128, 0.f);
  unsigned s = 7;
  auto next = [&] {
    s = s * 1103515245u + 12345u;
    return float(int(s >> 16) % 2048 - 1024) / 256.f;  // exact in a half
  };
  for (float& x : a) x = next();
  for (float& x : b) x = next();
  for (float& x : c) x = next();
  Keep keep;
  const auto r = emulate(OneMma{{a.data(), 256, 0}, {b.data(), 128, 1}, {c.data(), 128, 2},
                                {d.data(), 128, 3}},
                         32, 0, keep);
  ASSERT_TRUE(r.ok) << problems(r);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned i = 0; i < 4; ++i) {
      const FragPos p = sim::mma_c_pos(l, i);
      double want = c[p.row * 8 + p.col];
      for (int k = 0; k < 16; ++k) want += double(a[p.row * 16 + k]) * b[k * 8 + p.col];
      EXPECT_NEAR(d[l * 4 + i], want, 1e-3) << "lane " << l << " element " << i;
    }
}

// A warp of which only half the lanes reach the mma: mma.sync.aligned needs all of them.
struct HalfWarpMma {
  WS_DEVICE void operator()(Thread& t) const {
    if (t.lane() < 16) {
      std::uint32_t af[4] = {}, bf[2] = {};
      float acc[4] = {};
      mma_16816(t, acc, af, bf);
    }
  }
};

TEST(Mma, APartialWarpIsABadCollective) {
  Keep keep;
  const auto r = emulate(HalfWarpMma{}, 32, 0, keep);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.problems.at(0).kind, sim::ProblemKind::BadCollective);
  EXPECT_NE(r.problems.at(0).message.find("needs every lane of the warp"), std::string::npos)
      << r.problems.at(0).message;
}

// ---------------------------------------------------------------------------------------
// ldmatrix

// A 16-row tile of `chunks` 16-byte chunks a row, holding halves numbered by position
// (row * 8 * chunks + half); one ldmatrix .x4 with the A-fragment pattern (lanes 0-7 rows
// 0-7 chunk 0, 8-15 rows 8-15 chunk 0, 16-23 rows 0-7 chunk 1, 24-31 rows 8-15 chunk 1),
// optionally swizzled (chunk c of row r at c ^ (r / 2) % 4).
struct OneLdmatrix {
  Global<std::uint32_t> out;
  int chunks;
  bool swizzle, trans;
  WS_DEVICE void operator()(Thread& t) const {
    auto s = t.shared2d<int4>(16, chunks, "tile");
    int l = t.lane();
    for (int c = 0; c < chunks; ++c) {
      int4 v;
      std::uint16_t h[8];
      int pc = swizzle ? c ^ ((l >> 1) & 3) : c;
      for (int i = 0; i < 8; ++i) h[i] = std::uint16_t(l * 8 * chunks + c * 8 + i);
      std::memcpy(&v, h, 16);
      if (l < 16) s(l, pc) = v;
    }
    t.syncthreads();
    int r = l % 8 + (l / 8) % 2 * 8;
    int c = l / 16;
    std::uint32_t q[4];
    ldmatrix_x4(t, q, s, r, swizzle ? c ^ ((r >> 1) & 3) : c, trans);
    for (int i = 0; i < 4; ++i) out(l * 4 + i) = q[i];
  }
};

struct LdResult {
  std::vector<std::uint32_t> regs;
  Keep keep;
};

void run_ldmatrix(int chunks, bool swizzle, bool trans, LdResult& res) {
  res.regs.assign(128, 0);
  const auto r = emulate(OneLdmatrix{{res.regs.data(), 128, 0}, chunks, swizzle, trans}, 32,
                         std::uint32_t(16 * chunks * 16), res.keep);
  ASSERT_TRUE(r.ok) << problems(r);
}

TEST(Ldmatrix, RegistersFollowTheFragmentLayout) {
  for (bool swizzle : {false, true}) {
    LdResult res;
    run_ldmatrix(4, swizzle, false, res);
    // Register i of lane l: matrix i's row l / 4, halves 2 (l % 4), +1. Matrix i is rows
    // 8 (i % 2) .. +7, logical chunk i / 2: the A fragment of rows 0-15, k 0-15.
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned i = 0; i < 4; ++i) {
        const FragPos p0 = sim::mma_a_pos(l, i, 0), p1 = sim::mma_a_pos(l, i, 1);
        const std::uint32_t want = sim::pack_half2(std::uint16_t(p0.row * 32 + p0.col),
                                                   std::uint16_t(p1.row * 32 + p1.col));
        ASSERT_EQ(res.regs[l * 4 + i], want) << "lane " << l << " register " << i
                                             << (swizzle ? " swizzled" : "");
      }
  }
  // Lane 5, register 0 by hand: row 1, halves 2 and 3 of a 32-half row: 34 and 35.
  LdResult res;
  run_ldmatrix(4, false, false, res);
  EXPECT_EQ(res.regs[5 * 4 + 0], sim::pack_half2(34, 35));
}

TEST(Ldmatrix, TransGivesTheColumnsOfEachMatrix) {
  LdResult res;
  run_ldmatrix(4, false, true, res);
  // .trans: register i of lane l holds column l / 4 of matrix i, rows 2 (l % 4) and +1.
  // Lane 5, matrix 0 (rows 0-7, halves 0-7): column 1 of rows 2 and 3 -> 2*32+1, 3*32+1.
  EXPECT_EQ(res.regs[5 * 4 + 0], sim::pack_half2(65, 97));
  // Lane 5, matrix 3 (rows 8-15, halves 8-15): column 9 of rows 10 and 11.
  EXPECT_EQ(res.regs[5 * 4 + 3], sim::pack_half2(10 * 32 + 9, 11 * 32 + 9));
}

// The ldmatrix event: a SharedLoad of 16 bytes a lane, one phase of 8 lanes per matrix.
const WarpEvent& ldmatrix_event(const Keep& k) {
  for (const auto& e : k.events)
    if (e.kind == EventKind::SharedLoad) return e;
  static WarpEvent none;
  ADD_FAILURE() << "no ldmatrix event";
  return none;
}

TEST(Ldmatrix, BankCountsWithAndWithoutTheSwizzle) {
  sim::DeviceModel m;
  // 64-byte rows (4 chunks): rows r and r + 2 start 128 bytes apart, on the same 4 banks;
  // a phase's 8 rows put 4 distinct words on each bank used: 4 wavefronts, 4 phases.
  LdResult plain;
  run_ldmatrix(4, false, false, plain);
  const WarpEvent& e = ldmatrix_event(plain.keep);
  EXPECT_EQ(e.bytes, 16);
  EXPECT_EQ(e.mask, 0xFFFFFFFFu);
  EXPECT_EQ(e.offset[9], 9u * 64);  // lane 9 names row 1 of the second matrix: tile row 9
  const sim::SharedAccess s = sim::analyze_shared(e, m);
  EXPECT_EQ(s.wavefronts, 16u);
  EXPECT_EQ(s.ideal_wavefronts, 4u);
  EXPECT_EQ(s.conflicts, 12u);
  EXPECT_EQ(plain.keep.totals.shared_ld_wavefronts, 16u);
  EXPECT_EQ(plain.keep.totals.shared_ld_requests, 1u);
  // 128-byte rows (8 chunks): every row of a phase on the same 4 banks, 8-way.
  LdResult wide;
  run_ldmatrix(8, false, false, wide);
  EXPECT_EQ(sim::analyze_shared(ldmatrix_event(wide.keep), m).wavefronts, 32u);
  // Swizzled 64-byte rows: 8 rows on 8 different 16-byte bank groups, 1 wavefront a phase.
  LdResult sw;
  run_ldmatrix(4, true, false, sw);
  const sim::SharedAccess t = sim::analyze_shared(ldmatrix_event(sw.keep), m);
  EXPECT_EQ(t.wavefronts, 4u);
  EXPECT_EQ(t.conflicts, 0u);
}

// ---------------------------------------------------------------------------------------
// cp.async

// 32 lanes copy 16 bytes each, element `stride * lane` of `in`, into an 8 x 4 tile; `seen`
// gets what a lane reads back before the wait (the old contents) and after it.
struct OneCopy {
  Global<const int4> in;
  Global<int> before, after;
  int stride;
  WS_DEVICE void operator()(Thread& t) const {
    auto s = t.shared2d<int4>(8, 4, "tile");
    int l = t.lane();
    s(l / 4, l % 4) = int4{-1, -1, -1, -1};
    t.syncthreads();
    cp_async16(t, s, l / 4, l % 4, in, l * stride);
    cp_async_commit(t);
    int4 v = s(l / 4, l % 4);
    before(l) = v.x;
    cp_async_wait<0>(t);
    t.syncthreads();
    int4 w = s(l / 4, l % 4);
    after(l) = w.x;
  }
};

TEST(CpAsync, CountsLdgstsSectorsAndLandsAtTheWait) {
  for (int stride : {1, 2}) {
    std::vector<int4> in(64);
    for (int i = 0; i < 64; ++i) in[std::size_t(i)] = int4{i, i, i, i};
    std::vector<int> before(32), after(32);
    Keep keep;
    const auto r = emulate(OneCopy{{in.data(), 64, 0}, {before.data(), 32, 1},
                                   {after.data(), 32, 2}, stride},
                           32, 512, keep);
    ASSERT_TRUE(r.ok) << problems(r);
    for (int l = 0; l < 32; ++l) {
      EXPECT_EQ(before[std::size_t(l)], -1) << "lane " << l << ": landed before the wait";
      EXPECT_EQ(after[std::size_t(l)], l * stride) << "lane " << l;
    }
    const sim::Totals& t = keep.totals;
    // Contiguous: 32 x 16 bytes = 512 bytes = 16 sectors; stride 2: each 16 bytes in its
    // own sector, 32 sectors. Neither is a plain load.
    EXPECT_EQ(t.global_ldgsts_requests, 1u);
    EXPECT_EQ(t.global_ldgsts_sectors, stride == 1 ? 16u : 32u);
    EXPECT_EQ(t.global_ld_requests, 0u);
    EXPECT_EQ(t.global_ld_sectors, 0u);
    // The shared side: 8 lanes x 16 contiguous bytes a pass, 4 passes, no conflict.
    EXPECT_EQ(t.shared_ldgsts_wavefronts, 4u);
    EXPECT_EQ(t.shared_ldgsts_ideal, 4u);
    EXPECT_EQ(t.ncu().at("l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum"),
              stride == 1 ? 16.0 : 32.0);
    // Under Nsight Compute's names an LDGSTS is a global load too (as the H100 counts it).
    EXPECT_EQ(t.ncu().at("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
              stride == 1 ? 16.0 : 32.0);
    EXPECT_EQ(t.ncu().at("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), 1.0);
  }
}

// ---------------------------------------------------------------------------------------
// The tensor family at n = 128 (one block, 4 k tiles of 32, 8 warps of 4 x 4 mma tiles)

RunResult run_tensor(const std::string& variant, Params p) {
  auto b = make_emu_backend();
  RunOptions opt;
  return b->run("tensor", variant, p, opt);
}

TEST(TensorFamily, EveryVariantVerifiesWithItsHandCountedTotals) {
  // 2 n^3 / 4096 FLOPs an mma: 1,024 at n = 128.
  for (const char* v : {"mma_global", "ldmatrix", "swizzled", "pipelined", "warp64"}) {
    SCOPED_TRACE(v);
    const RunResult r = run_tensor(v, {{"n", 128}});
    ASSERT_TRUE(r.ok()) << r.error << " " << r.verify_message;
    EXPECT_EQ(r.totals.tensor_instructions, 1024u);
  }
  // ldmatrix: 4 k tiles x 8 warps x 2 k16 steps x 6 ldmatrix = 384, 4 phases each; the
  // unswizzled 64-byte rows are 4-way in every phase.
  const RunResult plain = run_tensor("ldmatrix", {{"n", 128}});
  EXPECT_EQ(plain.totals.shared_ld_requests, 384u);
  EXPECT_EQ(plain.totals.shared_ld_ideal, 1536u);
  EXPECT_EQ(plain.totals.shared_ld_wavefronts, 6144u);
  const RunResult sw = run_tensor("swizzled", {{"n", 128}});
  EXPECT_EQ(sw.totals.shared_ld_wavefronts, 1536u);
  // Their stores (2 x 2 16-byte chunks a thread a k tile) are conflict-free either way.
  EXPECT_EQ(plain.totals.shared_st_wavefronts, plain.totals.shared_st_ideal);
  EXPECT_EQ(sw.totals.shared_st_wavefronts, sw.totals.shared_st_ideal);
  // cp.async: every byte of A and Bt once, 2 x 128 x 128 x 2 bytes = 2,048 sectors, in
  // 4 requests a warp a k tile (8 rows x 64 bytes, 16 sectors each).
  for (long long stages : {2, 3}) {
    const RunResult pipe = run_tensor("pipelined", {{"n", 128}, {"stages", stages}});
    ASSERT_TRUE(pipe.ok()) << pipe.error << " " << pipe.verify_message;
    EXPECT_EQ(pipe.totals.global_ldgsts_requests, 128u);
    EXPECT_EQ(pipe.totals.global_ldgsts_sectors, 2048u);
    EXPECT_EQ(pipe.totals.global_ld_requests, 0u);
    EXPECT_EQ(pipe.totals.shared_ld_wavefronts, 1536u);
    EXPECT_EQ(pipe.totals.shared_ldgsts_wavefronts, pipe.totals.shared_ldgsts_ideal);
  }
  // From global memory: 24 four-byte loads a warp a k16 step, 8 sectors each (8 rows x 16
  // bytes, half a sector each): 8 steps x 8 warps x 24 = 1,536 requests.
  const RunResult glob = run_tensor("mma_global", {{"n", 128}});
  EXPECT_EQ(glob.totals.global_ld_requests, 1536u);
  EXPECT_EQ(glob.totals.global_ld_sectors, 1536u * 8);
}

// warp64: the pipeline with 4 warps of 64 x 64 (4 x 8 mma tiles) at n = 128. The same 1,024
// mma, the same bytes copied, but 8 ldmatrix a warp a k16 step for 32 mma: 4 k tiles x 4
// warps x 2 steps x 8 = 256 requests (pipelined: 384), 4 conflict-free wavefronts each.
TEST(TensorFamily, Warp64ReadsAThirdLessSharedMemoryPerMma) {
  for (long long stages : {2, 3}) {
    SCOPED_TRACE(stages);
    const RunResult w = run_tensor("warp64", {{"n", 128}, {"stages", stages}});
    ASSERT_TRUE(w.ok()) << w.error << " " << w.verify_message;
    EXPECT_EQ(w.totals.tensor_instructions, 1024u);
    EXPECT_EQ(w.totals.shared_ld_requests, 256u);
    EXPECT_EQ(w.totals.shared_ld_ideal, 1024u);
    EXPECT_EQ(w.totals.shared_ld_wavefronts, 1024u);
    // 128 threads copy 4 chunks of A and 4 of Bt a k tile: 4 x 4 x 8 = 128 requests of
    // 8 rows x 64 bytes, every byte once, as pipelined's 8 warps x 4 tiles x 4.
    EXPECT_EQ(w.totals.global_ldgsts_requests, 128u);
    EXPECT_EQ(w.totals.global_ldgsts_sectors, 2048u);
    EXPECT_EQ(w.totals.shared_ldgsts_wavefronts, w.totals.shared_ldgsts_ideal);
    EXPECT_EQ(w.totals.global_ld_requests, 0u);
    // C: 4 warps x 4 x 8 tiles x 2 float2 stores = 256 requests, 128 x 128 floats once.
    EXPECT_EQ(w.totals.global_st_requests, 256u);
    EXPECT_EQ(w.totals.global_st_sectors, 2048u);
  }
  const RunResult pipe = run_tensor("pipelined", {{"n", 128}});
  EXPECT_EQ(pipe.totals.shared_ld_requests, 384u);
}

TEST(TensorFamily, SeveralBlocksAndKTilesVerify) {
  for (const char* v : {"swizzled", "pipelined", "warp64"}) {
    const RunResult r = run_tensor(v, {{"n", 256}});
    EXPECT_TRUE(r.ok()) << v << ": " << r.error << " " << r.verify_message;
    EXPECT_EQ(r.totals.tensor_instructions, 2u * 256 * 256 * 256 / 4096);
  }
}

// pipelined's shapes (issue 25's candidates) at n = 256, each at 3 and 4 stages: the product
// verifies (every element, so the grouped block order covers every tile once), the same
// 8,192 mma, conflict-free ldmatrix and cp.async (the 128-byte rows of BK 64 included), and
// what each shape is for, counted by hand:
// - ldmatrix: 6 a warp of 64 x 32 a k16 step, 8 a warp of 64 x 64 (A shared by its halves):
//   (256 / 64) x (256 / 32) warp tiles x 16 steps x 6 = 3,072, or 4 x 4 x 16 x 8 = 2,048;
// - cp.async sectors: every block fetches its (BM + BN) rows x 256 halves once: 4 blocks x
//   256 x 512 / 32 = 16,384 at 128 x 128, 2 x 384 x 512 / 32 = 12,288 at 128 x 256 (3/4);
// - barriers: one a stage, so BK 64 passes half those of BK 32;
// - shapes 6-8 are shape 2's tile with a leaner loop: its counts, since precomputed addresses,
//   copies spread over the k16 steps and double-buffered fragments move no byte.
TEST(TensorFamily, PipelinedShapesVerifyWithTheirHandCountedTotals) {
  struct Want {
    long long shape;
    std::uint64_t ld_requests, ldgsts_sectors;
  };
  for (long long stages : {3, 4}) {
    std::uint64_t barriers32 = 0;
    for (const Want& w : {Want{1, 3072, 16384}, Want{2, 3072, 16384}, Want{3, 3072, 12288},
                          Want{4, 2048, 12288}, Want{5, 3072, 12288}, Want{6, 3072, 16384},
                          Want{7, 3072, 16384}, Want{8, 3072, 16384}}) {
      SCOPED_TRACE("shape " + std::to_string(w.shape) + " stages " + std::to_string(stages));
      const RunResult r =
          run_tensor("pipelined", {{"n", 256}, {"stages", stages}, {"shape", w.shape}});
      ASSERT_TRUE(r.ok()) << r.error << " " << r.verify_message;
      EXPECT_EQ(r.totals.tensor_instructions, 2u * 256 * 256 * 256 / 4096);
      EXPECT_EQ(r.totals.shared_ld_requests, w.ld_requests);
      EXPECT_EQ(r.totals.shared_ld_wavefronts, 4 * w.ld_requests);
      EXPECT_EQ(r.totals.shared_ld_ideal, r.totals.shared_ld_wavefronts);
      EXPECT_EQ(r.totals.global_ldgsts_sectors, w.ldgsts_sectors);
      EXPECT_EQ(r.totals.shared_ldgsts_wavefronts, r.totals.shared_ldgsts_ideal);
      EXPECT_EQ(r.totals.global_ld_requests, 0u);
      EXPECT_EQ(r.totals.global_st_sectors, 256u * 256 * 4 / 32);  // C once
      if (w.shape == 1) barriers32 = r.totals.barriers;
      // BK 64 (shapes 2, 6-8): half the tiles, half the barriers.
      if (w.shape == 2 || w.shape >= 6) EXPECT_EQ(2 * r.totals.barriers, barriers32);
    }
  }
  // Shape 1 is shape 0's kernel in another block order: the same counts.
  const RunResult s0 = run_tensor("pipelined", {{"n", 256}});
  const RunResult s1 = run_tensor("pipelined", {{"n", 256}, {"shape", 1}});
  EXPECT_EQ(s0.totals.shared_ld_requests, s1.totals.shared_ld_requests);
  EXPECT_EQ(s0.totals.global_ldgsts_sectors, s1.totals.global_ldgsts_sectors);
  EXPECT_EQ(s0.totals.barriers, s1.totals.barriers);
}

// The grouped block order (shapes 1-8) on grids too big to emulate: every tile exactly once,
// a group's blocks down its rows first, the last group cut to the rows left.
TEST(TensorFamily, GroupedBlocksCoverEveryTileOnceDownEachGroupsRows) {
  struct Grid {
    int gx, gy, group;
  };
  for (const Grid& g : {Grid{32, 32, 16}, Grid{16, 32, 16}, Grid{5, 7, 3}, Grid{4, 4, 0}}) {
    SCOPED_TRACE(std::to_string(g.gx) + " x " + std::to_string(g.gy) + " / " +
                 std::to_string(g.group));
    std::vector<int> seen(std::size_t(g.gx * g.gy), 0);
    for (int bid = 0; bid < g.gx * g.gy; ++bid) {
      int tm = -1, tn = -1;
      ws::emu::tensor_detail::grouped_tile(bid, g.gx, g.gy, g.group, tm, tn);
      ASSERT_TRUE(tm >= 0 && tm < g.gy && tn >= 0 && tn < g.gx) << bid;
      ++seen[std::size_t(tm * g.gx + tn)];
    }
    for (int v : seen) EXPECT_EQ(v, 1);
  }
  int tm = 0, tn = 0;
  ws::emu::tensor_detail::grouped_tile(17, 32, 32, 16, tm, tn);  // 2nd column, 2nd row
  EXPECT_EQ(tm, 1);
  EXPECT_EQ(tn, 1);
  ws::emu::tensor_detail::grouped_tile(32 * 16 + 1, 32, 32, 16, tm, tn);  // 2nd group
  EXPECT_EQ(tm, 17);
  EXPECT_EQ(tn, 0);
  ws::emu::tensor_detail::grouped_tile(5 * 6 + 2, 5, 7, 3, tm, tn);  // last group: 1 row
  EXPECT_EQ(tm, 6);
  EXPECT_EQ(tn, 2);
}

TEST(TensorFamily, AShapeRefusesWhatItIsNotCompiledOrTiledFor) {
  const RunResult wide = run_tensor("pipelined", {{"n", 128}, {"shape", 3}});
  EXPECT_NE(wide.error.find("not a multiple of the block tile 128 x 256"), std::string::npos)
      << wide.error;
  const RunResult two = run_tensor("pipelined", {{"n", 256}, {"shape", 1}, {"stages", 2}});
  EXPECT_NE(two.error.find("compiled at stages=3 and 4 only"), std::string::npos) << two.error;
  const RunResult four = run_tensor("pipelined", {{"n", 128}, {"stages", 4}});
  EXPECT_TRUE(four.ok()) << four.error << " " << four.verify_message;
}

TEST(TensorFamily, ASizeThatIsNotAMultipleOfTheTileIsRefused) {
  const RunResult r = run_tensor("swizzled", {{"n", 200}});
  EXPECT_NE(r.error.find("not a multiple of the block tile=128"), std::string::npos) << r.error;
}

// ---------------------------------------------------------------------------------------
// The async_copy family at n = 16,384 floats (4 blocks of 4 tiles of 1,024 floats)

RunResult run_async(const std::string& variant, Params p) {
  auto b = make_emu_backend();
  return b->run("async_copy", variant, p, {});
}

TEST(AsyncCopyFamily, EveryVariantVerifiesAndCopiesEachByteOnce) {
  const Params small = {{"n", 16384}, {"per_block", 4}, {"work", 4}};
  // 16,384 floats = 64 KB = 2,048 sectors read, 2,048 written; a warp's float4s are 512
  // contiguous bytes: 16 sectors a request, 128 requests.
  const RunResult sync = run_async("sync", small);
  ASSERT_TRUE(sync.ok()) << sync.error << " " << sync.verify_message;
  EXPECT_EQ(sync.totals.global_ld_sectors, 2048u);
  EXPECT_EQ(sync.totals.global_ld_requests, 128u);
  EXPECT_EQ(sync.totals.global_ldgsts_sectors, 0u);
  EXPECT_EQ(sync.totals.global_st_sectors, 2048u);
  for (const char* v : {"double_buffer", "pipeline"}) {
    SCOPED_TRACE(v);
    const RunResult r = run_async(v, small);
    ASSERT_TRUE(r.ok()) << r.error << " " << r.verify_message;
    EXPECT_EQ(r.totals.global_ld_sectors, 0u);
    EXPECT_EQ(r.totals.global_ldgsts_requests, 128u);
    EXPECT_EQ(r.totals.global_ldgsts_sectors, 2048u);
    EXPECT_EQ(r.totals.shared_ldgsts_wavefronts, 128u * 4);  // 4 passes of 8 lanes, no conflict
    EXPECT_EQ(r.totals.global_st_sectors, 2048u);
    // The stated arithmetic: one Work event of 4 FMAs x 4 rounds a warp a tile (4 blocks x
    // 8 warps x 4 tiles = 128), 15 instructions more than the event's one.
    EXPECT_EQ(r.totals.warp_instructions - r.totals.events, 15u * 128);
    // One barrier a tile instead of two.
    EXPECT_EQ(r.totals.barriers, 128u);
  }
  EXPECT_EQ(sync.totals.warp_instructions - sync.totals.events, 15u * 128);
  EXPECT_EQ(sync.totals.barriers, 256u);
  for (long long stages : {3, 8}) {
    const RunResult r = run_async("pipeline", {{"n", 16384}, {"per_block", 4}, {"work", 4}, {"stages", stages}});
    EXPECT_TRUE(r.ok()) << stages << ": " << r.error << " " << r.verify_message;
  }
}

// extra_kb holds shared memory no thread touches: the same accesses, barriers and
// instructions, only fewer blocks an SM (one at 120 KB, the lesson's timing size).
TEST(AsyncCopyFamily, ExtraSharedMemoryLowersResidencyNotCounts) {
  for (const char* v : {"sync", "double_buffer", "pipeline"}) {
    SCOPED_TRACE(v);
    const Params small = {{"n", 16384}, {"per_block", 4}, {"work", 4}};
    Params held = small;
    held["extra_kb"] = 120;
    const RunResult a = run_async(v, small), b = run_async(v, held);
    ASSERT_TRUE(a.ok() && b.ok()) << a.error << b.error << " " << b.verify_message;
    ASSERT_EQ(a.launches.size(), 1u);
    ASSERT_EQ(b.launches.size(), 1u);
    const std::uint32_t tiles = a.launches[0].cfg.shared_bytes;
    EXPECT_EQ(tiles, std::string(v) == "sync" ? 4096u : std::string(v) == "double_buffer" ? 8192u : 16384u);
    EXPECT_EQ(b.launches[0].cfg.shared_bytes, tiles + 120u * 1024);
    EXPECT_EQ(b.launches[0].cfg.held_shared_bytes, 120u * 1024);
    EXPECT_EQ(a.launches[0].cfg.held_shared_bytes, 0u);
    const sim::Totals &x = a.totals, &y = b.totals;
    EXPECT_EQ(y.global_ld_sectors, x.global_ld_sectors);
    EXPECT_EQ(y.global_ldgsts_sectors, x.global_ldgsts_sectors);
    EXPECT_EQ(y.global_st_sectors, x.global_st_sectors);
    EXPECT_EQ(y.shared_ld_wavefronts, x.shared_ld_wavefronts);
    EXPECT_EQ(y.shared_ldgsts_wavefronts, x.shared_ldgsts_wavefronts);
    EXPECT_EQ(y.barriers, x.barriers);
    EXPECT_EQ(y.warp_instructions, x.warp_instructions);
    // 256 threads: 8 blocks an SM by warps; with 120 KB more, one by shared memory.
    EXPECT_EQ(theoretical_occupancy(256, 0, tiles).blocks_per_sm, 8);
    const Occupancy one = theoretical_occupancy(256, 0, b.launches[0].cfg.shared_bytes);
    EXPECT_EQ(one.blocks_per_sm, 1);
    EXPECT_EQ(one.limiter, "shared memory");
  }
  // The deepest pipeline with the most held still fits the H100's 227 KB a block (the
  // launch opts in above 48 KB); one KB more is refused by the range.
  const RunResult deep =
      run_async("pipeline", {{"n", 16384}, {"per_block", 4}, {"stages", 8}, {"extra_kb", 192}});
  EXPECT_TRUE(deep.ok()) << deep.error;
  const RunResult over = run_async("sync", {{"n", 16384}, {"per_block", 4}, {"extra_kb", 193}});
  EXPECT_NE(over.error.find("extra_kb"), std::string::npos) << over.error;
}

TEST(AsyncCopyFamily, ASizeThatIsNotWholeTilesIsRefused) {
  const RunResult r = run_async("sync", {{"n", 16384 + 1024}, {"per_block", 4}});
  EXPECT_NE(r.error.find("not a multiple of 1024 x per_block=4096"), std::string::npos) << r.error;
}

}  // namespace
