// The rungs that close the gap to the libraries (issue 26): matmul/tuned at every compiled
// shape and transpose/vec4 at every legal shape run on the emulator,
// verify, and count what their comments promise, against values derived by hand below (n
// small, one or a few blocks): requests and sectors of every global access, no bank
// conflict in shared.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "kernels/backends/backend.h"

namespace ws {
namespace {

RunResult run(const std::string& family, const std::string& variant, const Params& p) {
  RunOptions opt;
  opt.totals = true;
  return make_emu_backend()->run(family, variant, p, opt);
}

std::string describe(const RunResult& r) {
  return r.error + (r.problems.empty() ? "" : r.problems.front().message) + r.verify_message;
}

// n = 64, tile 64, block_rows 8: one block of 16 x 8 threads (4 warps), 2 blocks of 4 x 4
// per thread. Loads: 8 float4 per thread = 32 requests; a warp reads 2 rows x 256 bytes,
// 16 sectors. Stores: 64 / 8 = 8 float4 per thread, 32 requests of 16 sectors. Shared: 8
// 16-byte stores and 8 loads per thread, 4 passes of 8 lanes each, never a conflict.
TEST(SpeedRungs, TransposeVec4CountsAtN64) {
  const RunResult r = run("transpose", "vec4", {{"n", 64}, {"tile", 64}, {"block_rows", 8}});
  ASSERT_TRUE(r.ok() && r.verified) << describe(r);
  EXPECT_EQ(r.totals.global_ld_requests, 32u);
  EXPECT_EQ(r.totals.global_ld_sectors, 512u);  // 64 x 64 x 4 bytes / 32: every byte once
  EXPECT_EQ(r.totals.global_st_requests, 32u);
  EXPECT_EQ(r.totals.global_st_sectors, 512u);
  EXPECT_EQ(r.totals.shared_st_requests, 32u);
  EXPECT_EQ(r.totals.shared_ld_requests, 32u);
  EXPECT_EQ(r.totals.shared_st_wavefronts, 4u * 32u);
  EXPECT_EQ(r.totals.shared_ld_wavefronts, 4u * 32u);
  EXPECT_EQ(r.totals.shared_st_conflicts(), 0u);
  EXPECT_EQ(r.totals.shared_ld_conflicts(), 0u);
}

// Every legal (tile, block_rows, tiles) at n = 256: verified, whole sectors, conflict-free,
// and the requests are (n^2 / 4 float4s) / the lanes of a warp each way (tile 32 with 2
// rows is a block of 16 threads: half-empty warps, twice the requests for the same
// sectors). A block turning `tiles` tiles moves the same bytes with the same accesses; its
// warps wait at 2 tiles - 1 barriers (none before the first tile's stores).
TEST(SpeedRungs, TransposeVec4EveryShapeIsExactAndConflictFree) {
  const std::uint64_t n = 256;
  for (long long tile : {32, 64})
    for (long long rows : {2, 4, 8, 16})
      for (long long tiles : {1, 2, 4}) {
        const Params p = {{"n", 256}, {"tile", tile}, {"block_rows", rows}, {"tiles", tiles}};
        SCOPED_TRACE(to_string(p));
        const RunResult r = run("transpose", "vec4", p);
        if (tile / 4 % rows != 0 || tile / 4 / rows > 4) {
          EXPECT_NE(r.error.find("block_rows=" + std::to_string(rows)), std::string::npos) << r.error;
          continue;
        }
        ASSERT_TRUE(r.ok() && r.verified) << describe(r);
        const std::uint64_t lanes = std::min<long long>(32, tile / 4 * rows);
        EXPECT_EQ(r.totals.global_ld_requests, n * n / 4 / lanes);
        EXPECT_EQ(r.totals.global_st_requests, n * n / 4 / lanes);
        EXPECT_EQ(r.totals.global_ld_sectors, n * n * 4 / 32);
        EXPECT_EQ(r.totals.global_st_sectors, n * n * 4 / 32);
        EXPECT_EQ(r.totals.shared_st_conflicts(), 0u);
        EXPECT_EQ(r.totals.shared_ld_conflicts(), 0u);
        const std::uint64_t blocks = (n / tile) * (n / tile) / tiles;
        const std::uint64_t warps = (tile / 4 * rows + 31) / 32;
        EXPECT_EQ(r.totals.barriers, blocks * warps * (2 * tiles - 1));
      }
}

// n = 128 at warptiled's shape (128 x 128 x 8, warp 64 x 32, thread 8 x 8): one block of
// 256 threads, 16 steps of k. Per thread: A 4 scalar loads a step (64 = 512 requests, a
// warp reads 4 rows x 32 bytes: 4 sectors), B one float4 a step (16 = 128 requests of 16
// sectors), C 8 rows x 2 float4s (128 requests of 8 rows x 64 bytes = 16 sectors); As and
// Bs one float4 store each a step (256 requests), 4 float4 loads per k (4096 requests).
// The same counts as warptiled, whose shape it is.
TEST(SpeedRungs, MatmulTunedDefaultCountsAtN128) {
  const RunResult r = run("matmul", "tuned", {{"n", 128}, {"bm", 128}, {"bn", 128}, {"bk", 8},
                                              {"wm", 64}, {"wn", 32}, {"tm", 8}, {"tn", 8}});
  ASSERT_TRUE(r.ok() && r.verified) << describe(r);
  EXPECT_EQ(r.totals.global_ld_requests, 512u + 128u);
  EXPECT_EQ(r.totals.global_ld_sectors, 2048u + 2048u);
  EXPECT_EQ(r.totals.global_st_requests, 128u);
  EXPECT_EQ(r.totals.global_st_sectors, 2048u);
  EXPECT_EQ(r.totals.shared_st_requests, 256u);
  EXPECT_EQ(r.totals.shared_ld_requests, 4096u);
  EXPECT_EQ(r.totals.shared_st_conflicts(), 0u);
  EXPECT_EQ(r.totals.shared_ld_conflicts(), 0u);
  const RunResult w = run("matmul", "warptiled", {{"n", 128}});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(r.totals.global_ld_sectors, w.totals.global_ld_sectors);
  EXPECT_EQ(r.totals.shared_ld_requests, w.totals.shared_ld_requests);
  EXPECT_EQ(r.totals.shared_ld_wavefronts, w.totals.shared_ld_wavefronts);
}

// prefetched at n = 128 (one block, 16 tiles of k): per warp and tile, one float4 of A
// (16 rows x 32 bytes: 16 sectors) and one of B (a 512-byte row: 16 sectors) = 8 x 16 x 2
// = 256 requests of 16 sectors, warptiled's sectors in 2.5 x fewer requests; in shared,
// four 4-byte stores of A (the two k halves 16 banks apart: one wavefront each) and one
// float4 row of B (4 wavefronts) = 640 stores, 1,024 wavefronts, no conflict; the
// fragment loads and C's stores are warptiled's. On 2 x 3 blocks (n = 384, the walk of 8
// tile rows cut short) it verifies with warptiled's counts scaled the same way.
TEST(SpeedRungs, MatmulPrefetchedCountsAtN128) {
  const RunResult r = run("matmul", "prefetched", {{"n", 128}});
  ASSERT_TRUE(r.ok() && r.verified) << describe(r);
  const RunResult w = run("matmul", "warptiled", {{"n", 128}});
  ASSERT_TRUE(w.ok() && w.verified) << describe(w);
  EXPECT_EQ(r.totals.global_ld_requests, 256u);
  EXPECT_EQ(r.totals.global_ld_sectors, 4096u);
  EXPECT_EQ(r.totals.global_ld_sectors, w.totals.global_ld_sectors);
  EXPECT_EQ(r.totals.global_st_requests, w.totals.global_st_requests);
  EXPECT_EQ(r.totals.global_st_sectors, w.totals.global_st_sectors);
  EXPECT_EQ(r.totals.shared_st_requests, 640u);
  EXPECT_EQ(r.totals.shared_st_wavefronts, 1024u);
  EXPECT_EQ(r.totals.shared_st_conflicts(), 0u);
  EXPECT_EQ(r.totals.shared_ld_requests, w.totals.shared_ld_requests);
  EXPECT_EQ(r.totals.shared_ld_wavefronts, w.totals.shared_ld_wavefronts);
  EXPECT_EQ(r.totals.shared_ld_conflicts(), 0u);
  for (long long n : {256LL, 384LL}) {
    const RunResult a = run("matmul", "prefetched", {{"n", n}});
    const RunResult b = run("matmul", "warptiled", {{"n", n}});
    ASSERT_TRUE(a.ok() && a.verified && b.ok()) << n << ": " << describe(a);
    EXPECT_EQ(a.totals.global_ld_sectors, b.totals.global_ld_sectors) << n;
    EXPECT_EQ(5 * a.totals.global_ld_requests, 2 * b.totals.global_ld_requests) << n;
    EXPECT_EQ(a.totals.shared_ld_wavefronts, b.totals.shared_ld_wavefronts) << n;
    EXPECT_EQ(a.totals.shared_st_conflicts(), 0u) << n;
  }
}

// The default, bk = 16 at warptiled's warp and thread tiles, prefetches the next tile in two
// stages of 8 k (the registers of bk = 8): every global and shared count equals the bk = 8
// shape's (the same loads, only regrouped), while the barriers halve: one per tile plus
// the first, per warp: 8 x (1 + 128/16) = 72 against 8 x (1 + 128/8) = 136.
TEST(SpeedRungs, MatmulTunedBk16StagesTheSameLoadsAtHalfTheBarriers) {
  const RunResult d = run("matmul", "tuned", {{"n", 128}});
  ASSERT_TRUE(d.ok() && d.verified) << describe(d);
  const RunResult r = run("matmul", "tuned", {{"n", 128}, {"bk", 8}});
  ASSERT_TRUE(r.ok() && r.verified) << describe(r);
  EXPECT_EQ(d.totals.global_ld_requests, r.totals.global_ld_requests);
  EXPECT_EQ(d.totals.global_ld_sectors, r.totals.global_ld_sectors);
  EXPECT_EQ(d.totals.global_st_sectors, r.totals.global_st_sectors);
  EXPECT_EQ(d.totals.shared_st_requests, 256u);
  EXPECT_EQ(d.totals.shared_ld_requests, 4096u);
  EXPECT_EQ(d.totals.shared_st_wavefronts, r.totals.shared_st_wavefronts);
  EXPECT_EQ(d.totals.shared_ld_wavefronts, r.totals.shared_ld_wavefronts);
  EXPECT_EQ(d.totals.shared_st_conflicts(), 0u);
  EXPECT_EQ(d.totals.shared_ld_conflicts(), 0u);
  EXPECT_EQ(d.totals.barriers, 72u);
  EXPECT_EQ(r.totals.barriers, 136u);
}

// Every compiled shape at n = 256: verified, every global access whole sectors (ideal),
// no bank conflict; bytes from global are A and B once per block tile row / column:
// (n / bn) x n^2 x 4 of A plus (n / bm) x n^2 x 4 of B. bk = 16 halves the barriers.
TEST(SpeedRungs, MatmulTunedEveryCompiledShape) {
  const long long shapes[][7] = {{128, 128, 8, 64, 32, 8, 8},   {128, 128, 16, 64, 32, 8, 8},
                                 {128, 128, 16, 32, 64, 8, 8},  {128, 128, 16, 64, 64, 8, 16},
                                 {128, 256, 8, 64, 64, 8, 16},  {256, 128, 8, 64, 64, 16, 8}};
  const char* knobs[] = {"bm", "bn", "bk", "wm", "wn", "tm", "tn"};
  const std::uint64_t n = 256;
  for (const auto& s : shapes) {
    Params p = {{"n", 256}};
    for (int i = 0; i < 7; ++i) p[knobs[i]] = s[i];
    SCOPED_TRACE(to_string(p));
    const RunResult r = run("matmul", "tuned", p);
    ASSERT_TRUE(r.ok() && r.verified) << describe(r);
    EXPECT_EQ(r.totals.global_ld_sectors, r.totals.global_ld_ideal_sectors);
    EXPECT_EQ(r.totals.global_st_sectors, r.totals.global_st_ideal_sectors);
    EXPECT_EQ(r.totals.global_ld_sectors, ((n / s[1]) + (n / s[0])) * n * n * 4 / 32);
    EXPECT_EQ(r.totals.global_st_sectors, n * n * 4 / 32);
    EXPECT_EQ(r.totals.shared_st_conflicts(), 0u);
    EXPECT_EQ(r.totals.shared_ld_conflicts(), 0u);
  }
}

// The group knob only renumbers blocks: at n = 384 (a 3 x 3 grid, so group 4 is a group
// cut short to the 3 tile rows there are) and n = 640 (5 x 5: groups of 4 rows, then 1) it
// verifies (a tile computed twice leaves another unwritten) with the default's counts.
TEST(SpeedRungs, MatmulWarptiledGroupKeepsResultsAndCounts) {
  for (long long n : {384, 640}) {
    const RunResult base = run("matmul", "warptiled", {{"n", n}});
    ASSERT_TRUE(base.ok() && base.verified) << describe(base);
    const Params p = {{"n", n}, {"group", 4}};
    SCOPED_TRACE(to_string(p));
    const RunResult r = run("matmul", "warptiled", p);
    ASSERT_TRUE(r.ok() && r.verified) << describe(r);
    EXPECT_EQ(r.totals.global_ld_requests, base.totals.global_ld_requests);
    EXPECT_EQ(r.totals.global_ld_sectors, base.totals.global_ld_sectors);
    EXPECT_EQ(r.totals.global_st_sectors, base.totals.global_st_sectors);
    EXPECT_EQ(r.totals.shared_ld_wavefronts, base.totals.shared_ld_wavefronts);
    EXPECT_EQ(r.totals.shared_st_wavefronts, base.totals.shared_st_wavefronts);
  }
  const RunResult bad = run("matmul", "warptiled", {{"n", 128}, {"group", 2}});
  EXPECT_FALSE(bad.ok());
}

// stages (cp.async, A untransposed) at n = 256, a 2 x 2 grid: verified at 2, 3 and 4 stages
// and with group 8; cp.async reads the sectors the register-staged default loads (whole
// sectors both: A two lanes a 32-byte row segment), the same shared load requests (8
// float4s of A per 4 steps of k instead of 2 a step) and no conflict on a load. Its shared
// side: B's rows at the ideal wavefronts, A's at twice (a quarter warp writes float4s
// 0,1,3,4,6,7,9,10 of the 3-float4 rows: groups of banks 1 twice), 1.5x in all.
TEST(SpeedRungs, MatmulWarptiledStagesVerifyWithTheSameTraffic) {
  const RunResult base = run("matmul", "warptiled", {{"n", 256}});
  ASSERT_TRUE(base.ok() && base.verified) << describe(base);
  for (auto [stages, group] : {std::pair{2LL, 1LL}, {3LL, 1LL}, {4LL, 1LL}, {3LL, 8LL}}) {
    const Params p = {{"n", 256}, {"stages", stages}, {"group", group}};
    SCOPED_TRACE(to_string(p));
    const RunResult r = run("matmul", "warptiled", p);
    ASSERT_TRUE(r.ok() && r.verified) << describe(r);
    EXPECT_EQ(r.totals.global_ld_sectors, 0u);
    EXPECT_EQ(r.totals.global_ldgsts_sectors, base.totals.global_ld_sectors);
    EXPECT_EQ(r.totals.global_st_sectors, base.totals.global_st_sectors);
    EXPECT_EQ(r.totals.shared_ld_requests, base.totals.shared_ld_requests);
    EXPECT_EQ(r.totals.shared_ld_conflicts(), 0u);
    EXPECT_EQ(2 * r.totals.shared_ldgsts_wavefronts, 3 * r.totals.shared_ldgsts_ideal);
  }
  const RunResult bad = run("matmul", "warptiled", {{"n", 256}, {"stages", 3}, {"group", 4}});
  EXPECT_NE(bad.error.find("stages=3 is compiled with group=1 or 8 only"), std::string::npos)
      << bad.error;
}

// vec4's block walk at n = 384, tile 32: a 12 x 12 grid, groups of 8 rows then 4 (cut
// short), and 128 = whole columns: verified, the default's counts; refused with tiles > 1.
TEST(SpeedRungs, TransposeVec4GroupKeepsResultsAndCounts) {
  const Params d = {{"n", 384}, {"tile", 32}, {"block_rows", 8}};
  const RunResult base = run("transpose", "vec4", d);
  ASSERT_TRUE(base.ok() && base.verified) << describe(base);
  for (long long group : {8, 32, 128}) {
    Params p = d;
    p["group"] = group;
    SCOPED_TRACE(to_string(p));
    const RunResult r = run("transpose", "vec4", p);
    ASSERT_TRUE(r.ok() && r.verified) << describe(r);
    EXPECT_EQ(r.totals.global_ld_sectors, base.totals.global_ld_sectors);
    EXPECT_EQ(r.totals.global_st_sectors, base.totals.global_st_sectors);
    EXPECT_EQ(r.totals.global_st_requests, base.totals.global_st_requests);
    EXPECT_EQ(r.totals.shared_st_conflicts(), 0u);
  }
  const RunResult bad = run("transpose", "vec4", {{"n", 256}, {"tile", 64}, {"tiles", 2}, {"group", 8}});
  EXPECT_NE(bad.error.find("group=8 is compiled for tiles=1 only"), std::string::npos) << bad.error;
}

// bulk at n = 64, tile 64, block_rows 8: vec4's loads and turned stores into a tile skewed
// 16 bytes every 4 rows (row r at r * 256 + 16 * (r / 4)), then 64 bulk copies of 256
// bytes and no global store instruction. Rows 4k..4k+3 start 16 (k mod 8) bytes into a
// 128-byte line: for odd k (half the rows) the copy engine's three pieces (112, 128 and 16
// bytes for k mod 8 = 1; 80, 128, 48 for 3; ...) touch 10 sectors; for even k 8. 32 x 8 + 32 x 10 = 576 = 1.125 x 512; DRAM gets the 512.
TEST(SpeedRungs, TransposeBulkCountsAtN64) {
  const RunResult r = run("transpose", "bulk", {{"n", 64}, {"tile", 64}, {"block_rows", 8}});
  ASSERT_TRUE(r.ok() && r.verified) << describe(r);
  EXPECT_EQ(r.totals.global_ld_requests, 32u);
  EXPECT_EQ(r.totals.global_ld_sectors, 512u);
  EXPECT_EQ(r.totals.global_st_requests, 0u);
  EXPECT_EQ(r.totals.global_st_sectors, 0u);
  EXPECT_EQ(r.totals.global_bulk_st_copies, 64u);
  EXPECT_EQ(r.totals.global_bulk_st_sectors, 576u);
  EXPECT_EQ(r.totals.global_bulk_st_dram_sectors, 512u);
  EXPECT_EQ(r.totals.shared_st_requests, 32u);
  EXPECT_EQ(r.totals.shared_st_wavefronts, 4u * 32u);
  EXPECT_EQ(r.totals.shared_st_conflicts(), 0u);
  EXPECT_EQ(r.totals.shared_ld_requests, 0u);  // the copy engine reads the tile
  EXPECT_EQ(r.totals.ncu().at("l1tex__m_l1tex2xbar_write_sectors_mem_global_op_tma_st.sum"), 576.0);
  EXPECT_EQ(sim::dram_bytes(r.totals), 2u * 64u * 64u * 4u);
}

// Every legal (tile, block_rows, group) at n = 256: verified, conflict-free, one copy per
// output row segment, 1.125 x its sectors (tile 32's 128-byte rows: 5 for 4 at odd phases).
TEST(SpeedRungs, TransposeBulkEveryShapeIsExactAndConflictFree) {
  const std::uint64_t n = 256;
  for (long long tile : {32, 64})
    for (long long rows : {2, 4, 8, 16})
      for (long long group : {1, 8}) {
        const Params p = {{"n", 256}, {"tile", tile}, {"block_rows", rows}, {"group", group}};
        SCOPED_TRACE(to_string(p));
        const RunResult r = run("transpose", "bulk", p);
        if (tile / 4 % rows != 0 || tile / 4 / rows > 4) {
          EXPECT_NE(r.error.find("block_rows=" + std::to_string(rows)), std::string::npos) << r.error;
          continue;
        }
        ASSERT_TRUE(r.ok() && r.verified) << describe(r);
        EXPECT_EQ(r.totals.global_ld_sectors, n * n * 4 / 32);
        EXPECT_EQ(r.totals.global_st_requests, 0u);
        EXPECT_EQ(r.totals.global_bulk_st_copies, n * (n / tile));
        EXPECT_EQ(r.totals.global_bulk_st_dram_sectors, n * n * 4 / 32);
        EXPECT_EQ(r.totals.global_bulk_st_sectors * 8, n * n * 4 / 32 * 9);
        EXPECT_EQ(r.totals.shared_st_conflicts(), 0u);
      }
}

// Shapes bulk cannot run are refused with one line naming the parameter.
TEST(SpeedRungs, TransposeBulkRefusesWhatItCannotRun) {
  RunResult r = run("transpose", "bulk", {{"n", 96}, {"tile", 64}});
  EXPECT_NE(r.error.find("n=96 is not a multiple of tile=64"), std::string::npos) << r.error;
  r = run("transpose", "bulk", {{"n", 64}, {"tile", 64}, {"block_rows", 2}});
  EXPECT_NE(r.error.find("at least tile/16=4"), std::string::npos) << r.error;
}

TEST(SpeedRungs, RefuseShapesWithOneLine) {
  RunResult r = run("matmul", "tuned", {{"n", 128}, {"wm", 32}});
  EXPECT_NE(r.error.find("is not a compiled shape (compiled: 128,128,16,64,32,8,8;"),
            std::string::npos)
      << r.error;
  r = run("matmul", "tuned", {{"n", 384}, {"bn", 256}, {"bk", 8}, {"wn", 64}, {"tn", 16}});
  EXPECT_NE(r.error.find("not a multiple of the block tile 128 x 256"), std::string::npos)
      << r.error;
  r = run("transpose", "vec4", {{"n", 96}, {"tile", 64}});
  EXPECT_NE(r.error.find("n=96 is not a multiple of tile=64"), std::string::npos) << r.error;
  r = run("transpose", "vec4", {{"n", 64}, {"tile", 64}, {"block_rows", 2}});
  EXPECT_NE(r.error.find("at least tile/16=4"), std::string::npos) << r.error;
  r = run("transpose", "vec4", {{"n", 128}, {"tile", 64}, {"tiles", 4}});
  EXPECT_NE(r.error.find("tiles=4 does not divide the 2 tiles of a column"), std::string::npos)
      << r.error;
  r = run("transpose", "vec4", {{"n", 256}, {"tile", 64}, {"tiles", 3}});
  EXPECT_NE(r.error.find("tiles=3 is not compiled"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace ws
