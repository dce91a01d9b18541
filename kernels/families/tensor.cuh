#pragma once
// Tensor cores: C = A B with A and B in FP16 and C accumulated in FP32, by the warp-level
// mma.sync.m16n8k16 instruction. A is row-major; B is stored column-major (Bt[j][k] =
// B[k][j], the ".col" the instruction names), so both operands are rows of 16-byte
// chunks along k and one ldmatrix serves either. Every variant has the same block tile
// (128 x 128; 8 warps of 64 x 32, 4 x 4 mma tiles of 16 x 8, until the last rung's 4 of
// 64 x 64) and the same 2 n^3 FLOPs; what changes is how the fragments reach the registers:
// from global memory, through shared memory with ldmatrix (bank conflicts, then a swizzle
// without them), through a multi-stage cp.async pipeline that overlaps the copies with
// the mma, and last with wider warps, each fragment feeding more mma.
#include <cmath>
#include <vector>

#include "kernels/dialect/registry.h"
#include "kernels/dialect/simt_tensor.h"
#include "sim/half.h"

WS_BEGIN_MODE

namespace tensor_detail {

constexpr int BM = 128, BN = 128, BK = 32;  // block tile; BK halves = 4 chunks of 16 bytes
constexpr int KC = BK / 8;                  // chunks per tile row
constexpr int MT = 4, NT = 4;               // mma tiles per warp along m (16) and n (8)
constexpr int kThreads = 256;

// The chunk a tile row's logical chunk `c` is stored at. Swizzled, chunk c of row r goes to
// c ^ ((r / 2) % 4): the 8 rows one ldmatrix phase reads (one column of chunks, rows 64
// bytes apart, two to a 128-byte bank line) land on 8 different 16-byte bank groups.
template <bool SWIZZLE>
WS_DEVICE int chunk_at(int r, int c) {
  return SWIZZLE ? c ^ ((r >> 1) & 3) : c;
}

// The warp's fragments of one k16 step from shared tiles: A for its 4 m tiles, B for its 4
// n tiles (one ldmatrix .x4 covers two n tiles). Lane l names row l % 8 (+ 8 for lanes
// 8-15 of A, 16-31 of B) and the k chunk the fragment layout puts there (sim/mma.h).
template <bool SWIZZLE, class SA, class SB>
WS_DEVICE void load_fragments(Thread& t, const SA& as, const SB& bs, int abase, int bbase,
                              int wm, int wn, int kk, std::uint32_t (&af)[MT][4],
                              std::uint32_t (&bf)[NT][2]) {
  int l = t.lane();
  WS_UNROLL
  for (int mt = 0; mt < MT; ++mt) {
    int r = wm * 64 + mt * 16 + l % 8 + (l / 8) % 2 * 8;
    int c = kk * 2 + l / 16;
    ldmatrix_x4(t, af[mt], as, abase + r, chunk_at<SWIZZLE>(r, c));
  }
  WS_UNROLL
  for (int np = 0; np < NT / 2; ++np) {
    int r = wn * 32 + np * 16 + l % 8 + l / 16 * 8;
    int c = kk * 2 + (l / 8) % 2;
    std::uint32_t q[4];
    ldmatrix_x4(t, q, bs, bbase + r, chunk_at<SWIZZLE>(r, c));
    bf[2 * np][0] = q[0];
    bf[2 * np][1] = q[1];
    bf[2 * np + 1][0] = q[2];
    bf[2 * np + 1][1] = q[3];
  }
}

// The 16 mma of a k16 step: every A fragment against every B fragment.
WS_DEVICE void mma_all(Thread& t, float (&acc)[MT][NT][4], const std::uint32_t (&af)[MT][4],
                       const std::uint32_t (&bf)[NT][2]) {
  WS_UNROLL
  for (int mt = 0; mt < MT; ++mt) {
    WS_UNROLL
    for (int nt = 0; nt < NT; ++nt) {
      mma_16816(t, acc[mt][nt], af[mt], bf[nt]);
    }
  }
}

// C from the accumulators: element i of tile (mt, nt) is row g + 8 (i / 2), columns
// 2 t + (0, 1): one float2 store per pair, 8 rows x 32 bytes a warp, whole sectors.
template <class GC>
WS_DEVICE void store_c(Thread& t, const GC& c2, int n, int row0, int col0, int wm, int wn,
                       const float (&acc)[MT][NT][4]) {
  int g = t.lane() / 4;
  int q = t.lane() % 4;
  WS_UNROLL
  for (int mt = 0; mt < MT; ++mt) {
    WS_UNROLL
    for (int nt = 0; nt < NT; ++nt) {
      WS_UNROLL
      for (int h = 0; h < 2; ++h) {
        int row = row0 + wm * 64 + mt * 16 + g + 8 * h;
        int col = col0 + wn * 32 + nt * 8 + 2 * q;
        c2((std::int64_t(row) * n + col) / 2) = float2{acc[mt][nt][2 * h], acc[mt][nt][2 * h + 1]};
      }
    }
  }
}

}  // namespace tensor_detail

// mma from global memory: each lane loads its own fragment elements, two halves (4 bytes)
// at a time, straight from A and Bt. A warp's load covers 8 rows x 16 bytes: 8 sectors for
// 128 bytes, half of each sector unused, and every fragment is fetched by every warp that
// needs it (4 warps share an A tile, 2 a B tile) with no shared memory in between.
struct TensorGlobal {
  Global<const std::uint32_t> a2, b2;  // pairs of halves along k
  Global<float2> c2;
  int n;
  static constexpr std::uint32_t kSharedBytes = 0;
  WS_DEVICE void operator()(Thread& t) const {
    using namespace tensor_detail;
    int warp = t.warp();
    int wm = warp / 4;  // warps form 2 (m) x 4 (n)
    int wn = warp % 4;
    int g = t.lane() / 4;
    int q = t.lane() % 4;
    int row0 = t.blockIdx.y * BM;
    int col0 = t.blockIdx.x * BN;
    float acc[MT][NT][4] = {};
    std::uint32_t af[MT][4];
    std::uint32_t bf[NT][2];
    for (int k0 = 0; k0 < n; k0 += 16) {
      WS_UNROLL
      for (int mt = 0; mt < MT; ++mt) {
        std::int64_t r = row0 + wm * 64 + mt * 16 + g;
        af[mt][0] = a2((r * n + k0 + 2 * q) / 2);
        af[mt][1] = a2(((r + 8) * n + k0 + 2 * q) / 2);
        af[mt][2] = a2((r * n + k0 + 8 + 2 * q) / 2);
        af[mt][3] = a2(((r + 8) * n + k0 + 8 + 2 * q) / 2);
      }
      WS_UNROLL
      for (int nt = 0; nt < NT; ++nt) {
        std::int64_t j = col0 + wn * 32 + nt * 8 + g;
        bf[nt][0] = b2((j * n + k0 + 2 * q) / 2);
        bf[nt][1] = b2((j * n + k0 + 8 + 2 * q) / 2);
      }
      mma_all(t, acc, af, bf);
    }
    store_c(t, c2, n, row0, col0, wm, wn, acc);
  }
};

// Staged through shared memory: the block copies a 128 x 32 tile of A and of Bt into
// shared memory (16 bytes a lane, through registers), then each warp gathers its fragments
// with ldmatrix .x4, one instruction for four 8 x 8 matrices. With SWIZZLE off, a tile row
// is 64 bytes, so the 8 rows of one matrix fall on two bank groups: a 4-way conflict, 4
// wavefronts per phase where 1 would do. With it on (chunk_at), the same 8 rows hit 8
// different groups.
template <bool SWIZZLE>
struct TensorShared {
  Global<const int4> a8, b8;  // 8 halves a chunk
  Global<float2> c2;
  int n;
  static constexpr std::uint32_t kSharedBytes =
      (tensor_detail::BM + tensor_detail::BN) * tensor_detail::KC * sizeof(int4);
  WS_DEVICE void operator()(Thread& t) const {
    using namespace tensor_detail;
    auto as = t.shared2d<int4>(BM, KC, "As");
    auto bs = t.shared2d<int4>(BN, KC, "Bs");
    int tid = t.tid();
    int warp = t.warp();
    int wm = warp / 4;
    int wn = warp % 4;
    int row0 = t.blockIdx.y * BM;
    int col0 = t.blockIdx.x * BN;
    float acc[MT][NT][4] = {};
    std::uint32_t af[MT][4];
    std::uint32_t bf[NT][2];
    for (int k0 = 0; k0 < n; k0 += BK) {
      WS_UNROLL
      for (int h = 0; h < 2; ++h) {
        int r = (tid + h * kThreads) / KC;  // 8 lanes: 2 rows x 4 chunks, 128 bytes
        int c = (tid + h * kThreads) % KC;
        as(r, chunk_at<SWIZZLE>(r, c)) = a8((std::int64_t(row0 + r) * n + k0) / 8 + c);
        bs(r, chunk_at<SWIZZLE>(r, c)) = b8((std::int64_t(col0 + r) * n + k0) / 8 + c);
      }
      t.syncthreads();
      WS_UNROLL
      for (int kk = 0; kk < BK / 16; ++kk) {
        load_fragments<SWIZZLE>(t, as, bs, 0, 0, wm, wn, kk, af, bf);
        mma_all(t, acc, af, bf);
      }
      t.syncthreads();
    }
    store_c(t, c2, n, row0, col0, wm, wn, acc);
  }
};

// Multi-stage cp.async pipeline on the swizzled layout: STAGES shared buffers, the copies
// of tile kt + STAGES - 1 issued (cp.async: global to shared, no registers, no wait) before
// the mma of tile kt, so STAGES - 1 tiles are in flight while the tensor cores work. One
// commit group per tile; wait_group STAGES - 2 leaves the newer groups in flight, and the
// barrier after it both publishes the landed tile and tells every warp that the buffer
// about to be refilled has been read.
template <int STAGES>
struct TensorPipelined {
  Global<const int4> a8, b8;
  Global<float2> c2;
  int n;
  static constexpr std::uint32_t kSharedBytes =
      STAGES * (tensor_detail::BM + tensor_detail::BN) * tensor_detail::KC * sizeof(int4);
  template <class SA, class SB>
  WS_DEVICE void issue(Thread& t, const SA& as, const SB& bs, int stage, int k0, int row0,
                       int col0) const {
    using namespace tensor_detail;
    int tid = t.tid();
    WS_UNROLL
    for (int h = 0; h < 2; ++h) {
      int r = (tid + h * kThreads) / KC;
      int c = (tid + h * kThreads) % KC;
      cp_async16(t, as, stage * BM + r, chunk_at<true>(r, c), a8, (std::int64_t(row0 + r) * n + k0) / 8 + c);
      cp_async16(t, bs, stage * BN + r, chunk_at<true>(r, c), b8, (std::int64_t(col0 + r) * n + k0) / 8 + c);
    }
  }
  WS_DEVICE void operator()(Thread& t) const {
    using namespace tensor_detail;
    auto as = t.shared2d<int4>(STAGES * BM, KC, "As");
    auto bs = t.shared2d<int4>(STAGES * BN, KC, "Bs");
    int warp = t.warp();
    int wm = warp / 4;
    int wn = warp % 4;
    int row0 = t.blockIdx.y * BM;
    int col0 = t.blockIdx.x * BN;
    int tiles = n / BK;
    float acc[MT][NT][4] = {};
    std::uint32_t af[MT][4];
    std::uint32_t bf[NT][2];
    WS_UNROLL
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < tiles) issue(t, as, bs, s, s * BK, row0, col0);
      cp_async_commit(t);
    }
    for (int kt = 0; kt < tiles; ++kt) {
      cp_async_wait<STAGES - 2>(t);
      t.syncthreads();
      int next = kt + STAGES - 1;
      if (next < tiles) issue(t, as, bs, next % STAGES, next * BK, row0, col0);
      cp_async_commit(t);
      int stage = kt % STAGES;
      WS_UNROLL
      for (int kk = 0; kk < BK / 16; ++kk) {
        load_fragments<true>(t, as, bs, stage * BM, stage * BN, wm, wn, kk, af, bf);
        mma_all(t, acc, af, bf);
      }
    }
    store_c(t, c2, n, row0, col0, wm, wn, acc);
  }
};

// The last rung is written after the others, so their lines (to which the recorded SASS,
// times and trace fixtures are keyed) stay where they were.
namespace tensor_detail {

constexpr int kThreads64 = 128;  // 4 warps: 2 (m) x 2 (n) of 64 x 64

// The B fragments of 4 n tiles at column wn * 32 of the warp's tile: load_fragments's B half,
// for the right half of a 64 x 64 warp, whose A fragments load_fragments already brought.
template <class SB>
WS_DEVICE void load_b_fragments(Thread& t, const SB& bs, int bbase, int wn, int kk,
                                std::uint32_t (&bf)[NT][2]) {
  int l = t.lane();
  WS_UNROLL
  for (int np = 0; np < NT / 2; ++np) {
    int r = wn * 32 + np * 16 + l % 8 + l / 16 * 8;
    int c = kk * 2 + (l / 8) % 2;
    std::uint32_t q[4];
    ldmatrix_x4(t, q, bs, bbase + r, chunk_at<true>(r, c));
    bf[2 * np][0] = q[0];
    bf[2 * np][1] = q[1];
    bf[2 * np + 1][0] = q[2];
    bf[2 * np + 1][1] = q[3];
  }
}

}  // namespace tensor_detail

// The pipeline with 4 warps of 64 x 64 instead of 8 of 64 x 32 (same tiles, swizzle and
// stages). A warp's tile is two 64 x 32 halves sharing their A fragments, so each A fragment
// feeds 8 mma instead of 4: 8 ldmatrix a k16 step for 32 mma (pipelined: 6 for 16). The
// price is 128 accumulators a thread: 244 registers (ptxas -v, sm_90, no spills), so two
// blocks an SM (8 warps) where pipelined fits two of 8 warps.
template <int STAGES>
struct TensorWarp64 {
  Global<const int4> a8, b8;
  Global<float2> c2;
  int n;
  static constexpr std::uint32_t kSharedBytes = TensorPipelined<STAGES>::kSharedBytes;
  // 128 threads copy a 128 x 32 tile of each operand: 4 chunks of 16 bytes each a tile.
  template <class SA, class SB>
  WS_DEVICE void issue(Thread& t, const SA& as, const SB& bs, int stage, int k0, int row0,
                       int col0) const {
    using namespace tensor_detail;
    int tid = t.tid();
    WS_UNROLL
    for (int h = 0; h < BM * KC / kThreads64; ++h) {
      int r = (tid + h * kThreads64) / KC;
      int c = (tid + h * kThreads64) % KC;
      cp_async16(t, as, stage * BM + r, chunk_at<true>(r, c), a8, (std::int64_t(row0 + r) * n + k0) / 8 + c);
      cp_async16(t, bs, stage * BN + r, chunk_at<true>(r, c), b8, (std::int64_t(col0 + r) * n + k0) / 8 + c);
    }
  }
  WS_DEVICE void operator()(Thread& t) const {
    using namespace tensor_detail;
    auto as = t.shared2d<int4>(STAGES * BM, KC, "As");
    auto bs = t.shared2d<int4>(STAGES * BN, KC, "Bs");
    int warp = t.warp();
    int wm = warp / 2;      // warps form 2 (m) x 2 (n)
    int wn = warp % 2 * 2;  // the left half's column, in 32s: 0 or 2
    int row0 = t.blockIdx.y * BM;
    int col0 = t.blockIdx.x * BN;
    int tiles = n / BK;
    float acc[2][MT][NT][4] = {};
    std::uint32_t af[MT][4];
    std::uint32_t bf[2][NT][2];
    WS_UNROLL
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < tiles) issue(t, as, bs, s, s * BK, row0, col0);
      cp_async_commit(t);
    }
    for (int kt = 0; kt < tiles; ++kt) {
      cp_async_wait<STAGES - 2>(t);
      t.syncthreads();
      int next = kt + STAGES - 1;
      if (next < tiles) issue(t, as, bs, next % STAGES, next * BK, row0, col0);
      cp_async_commit(t);
      int stage = kt % STAGES;
      WS_UNROLL
      for (int kk = 0; kk < BK / 16; ++kk) {
        load_fragments<true>(t, as, bs, stage * BM, stage * BN, wm, wn, kk, af, bf[0]);
        load_b_fragments(t, bs, stage * BN, wn + 1, kk, bf[1]);
        mma_all(t, acc[0], af, bf[0]);
        mma_all(t, acc[1], af, bf[1]);
      }
    }
    store_c(t, c2, n, row0, col0, wm, wn, acc[0]);
    store_c(t, c2, n, row0, col0, wm, wn + 1, acc[1]);
  }
};

// Issue 25's candidates for >= 0.5 of cuBLAS: the pipeline at other block tiles, k depths
// and warp tiles, with the blocks taken in groups of tile rows, behind pipelined's `shape`
// knob (shape 0, the default, is TensorPipelined itself). Written after the rungs, so their
// lines (the recorded SASS, times and traces) stay where they were.
namespace tensor_detail {

// The swizzle of a tile whose rows are KC_ chunks: chunk_at's for 64-byte rows; for 128-byte
// rows (BK 64) chunk c of row r goes to c ^ (r % 8), so the 8 rows an ldmatrix phase reads
// land on 8 different 16-byte bank groups.
template <int KC_>
WS_DEVICE int chunk_swz(int r, int c) {
  return KC_ == 4 ? chunk_at<true>(r, c) : c ^ (r & 7);
}

// load_fragments on tiles of KC_ chunks a row: A of the warp's 4 m tiles (rows wm * 64..),
// B of 4 n tiles (columns wn * 32..), for k16 step kk.
template <int KC_, class SA>
WS_DEVICE void frag_a(Thread& t, const SA& as, int abase, int wm, int kk,
                      std::uint32_t (&af)[MT][4]) {
  int l = t.lane();
  WS_UNROLL
  for (int mt = 0; mt < MT; ++mt) {
    int r = wm * 64 + mt * 16 + l % 8 + (l / 8) % 2 * 8;
    int c = kk * 2 + l / 16;
    ldmatrix_x4(t, af[mt], as, abase + r, chunk_swz<KC_>(r, c));
  }
}
template <int KC_, class SB>
WS_DEVICE void frag_b(Thread& t, const SB& bs, int bbase, int wn, int kk,
                      std::uint32_t (&bf)[NT][2]) {
  int l = t.lane();
  WS_UNROLL
  for (int np = 0; np < NT / 2; ++np) {
    int r = wn * 32 + np * 16 + l % 8 + l / 16 * 8;
    int c = kk * 2 + (l / 8) % 2;
    std::uint32_t q[4];
    ldmatrix_x4(t, q, bs, bbase + r, chunk_swz<KC_>(r, c));
    bf[2 * np][0] = q[0];
    bf[2 * np][1] = q[1];
    bf[2 * np + 1][0] = q[2];
    bf[2 * np + 1][1] = q[3];
  }
}

// The tile (tm, tn) of the bid-th block of a gx x gy grid: grouped, `group` tile rows at a
// time, down the rows of a group before the next column, so the blocks resident together
// share A and B panels in L2 (group 0: launch order, row by row).
WS_DEVICE void grouped_tile(int bid, int gx, int gy, int group, int& tm, int& tn) {
  if (group <= 0) {
    tm = bid / gx;
    tn = bid % gx;
    return;
  }
  int first = bid / (group * gx) * group;
  int rows = gy - first < group ? gy - first : group;
  int in = bid % (group * gx);
  tm = first + in % rows;
  tn = in / rows;
}
WS_DEVICE void block_tile(const Thread& t, int group, int& tm, int& tn) {
  int gx = int(t.gridDim.x);
  grouped_tile(int(t.blockIdx.y) * gx + int(t.blockIdx.x), gx, int(t.gridDim.y), group, tm, tn);
}

}  // namespace tensor_detail

// The pipeline at a BM_ x BN_ block tile, BK_ k a stage, warps of 64 x WN_ (WN_ 64: two
// 32-column halves sharing their A fragments, as warp64), blocks in groups of `group`
// tile rows. A bigger block tile fetches fewer bytes from L2 per mma (128 x 256: 3/4 of
// 128 x 128's) and a deeper stage passes half the barriers per mma.
template <int BM_, int BN_, int BK_, int WN_, int STAGES>
struct TensorPipelinedShape {
  static constexpr int KC_ = BK_ / 8;
  static constexpr int kWarpsN = BN_ / WN_;
  static constexpr int kThreadsS = BM_ / 64 * kWarpsN * 32;
  static constexpr int kHalves = WN_ / 32;
  Global<const int4> a8, b8;
  Global<float2> c2;
  int n, group;  // group: tile rows a group of blocks spans (block_tile)
  static constexpr std::uint32_t kSharedBytes = STAGES * (BM_ + BN_) * KC_ * sizeof(int4);
  template <class SA, class SB>
  WS_DEVICE void issue(Thread& t, const SA& as, const SB& bs, int stage, int kc0, int row0,
                       int col0) const {
    using namespace tensor_detail;
    int tid = t.tid();
    // Chunk indices in 32 bits (at most 8192 x 1024) from the k chunk kc0: no 64-bit
    // division a copy, and no 64-bit bases held across the loop (BK 64 spilled with them).
    WS_UNROLL
    for (int h = 0; h < BM_ * KC_ / kThreadsS; ++h) {
      int r = (tid + h * kThreadsS) / KC_;
      int c = (tid + h * kThreadsS) % KC_;
      cp_async16(t, as, stage * BM_ + r, chunk_swz<KC_>(r, c), a8, (row0 + r) * (n / 8) + kc0 + c);
    }
    WS_UNROLL
    for (int h = 0; h < BN_ * KC_ / kThreadsS; ++h) {
      int r = (tid + h * kThreadsS) / KC_;
      int c = (tid + h * kThreadsS) % KC_;
      cp_async16(t, bs, stage * BN_ + r, chunk_swz<KC_>(r, c), b8, (col0 + r) * (n / 8) + kc0 + c);
    }
  }
  WS_DEVICE void operator()(Thread& t) const {
    using namespace tensor_detail;
    auto as = t.shared2d<int4>(STAGES * BM_, KC_, "As");
    auto bs = t.shared2d<int4>(STAGES * BN_, KC_, "Bs");
    int warp = t.warp();
    int wm = warp / kWarpsN;
    int wn = warp % kWarpsN * kHalves;  // in 32 columns
    int tm = 0;
    int tn = 0;
    block_tile(t, group, tm, tn);
    int row0 = tm * BM_;
    int col0 = tn * BN_;
    int tiles = n / BK_;
    float acc[kHalves][MT][NT][4] = {};
    std::uint32_t af[MT][4];
    std::uint32_t bf[kHalves][NT][2];
    WS_UNROLL
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < tiles) issue(t, as, bs, s, s * KC_, row0, col0);
      cp_async_commit(t);
    }
    for (int kt = 0; kt < tiles; ++kt) {
      cp_async_wait<STAGES - 2>(t);
      t.syncthreads();
      int next = kt + STAGES - 1;
      if (next < tiles) issue(t, as, bs, next % STAGES, next * KC_, row0, col0);
      cp_async_commit(t);
      int stage = kt % STAGES;
      WS_UNROLL
      for (int kk = 0; kk < BK_ / 16; ++kk) {
        frag_a<KC_>(t, as, stage * BM_, wm, kk, af);
        WS_UNROLL
        for (int h = 0; h < kHalves; ++h) frag_b<KC_>(t, bs, stage * BN_, wn + h, kk, bf[h]);
        WS_UNROLL
        for (int h = 0; h < kHalves; ++h) mma_all(t, acc[h], af, bf[h]);
      }
    }
    WS_UNROLL
    for (int h = 0; h < kHalves; ++h) store_c(t, c2, n, row0, col0, wm, wn + h, acc[h]);
  }
};

// Shape 2's tile (128 x 128 x BK_, 8 warps of 64 x 32) with a leaner inner loop: what a
// lane's ldmatrix and cp.async name repeats every stage, so it is worked out once. The
// swizzled chunks depend only on the lane and kk (rows of a fragment differ by multiples of
// 8), the stages rotate by a compare instead of a modulo, and each copy's global index
// moves by BK_ / 8 a tile instead of being rebuilt from the row. SPREAD issues the next
// tile's copies a share per kk step instead of all before the first; DBUF loads kk + 1's
// fragments before kk's mma (two fragment sets).
template <int BK_, int STAGES, bool SPREAD, bool DBUF>
struct TensorPipelinedLean {
  static constexpr int BM_ = 128, BN_ = 128, KC_ = BK_ / 8, KS = BK_ / 16;
  static constexpr int kThreadsS = 256;
  static constexpr int kCopies = BM_ * KC_ / kThreadsS;  // of A and of B, a thread a tile
  static constexpr int kPerStep = SPREAD ? (kCopies + KS - 1) / KS : kCopies;
  Global<const int4> a8, b8;
  Global<float2> c2;
  int n, group;
  static constexpr std::uint32_t kSharedBytes = STAGES * (BM_ + BN_) * KC_ * sizeof(int4);

  // Copies [h0, h1) of a thread's share of a tile into the stage at rows `srow`: row
  // tid / KC_ + h * (threads / KC_), chunk tid % KC_ (swizzled the same for every h).
  template <class SA, class SB>
  WS_DEVICE void issue(Thread& t, const SA& as, const SB& bs, int srow, int scol, int ga,
                       int gb, int gstep, int h0, int h1) const {
    WS_UNROLL
    for (int h = 0; h < kCopies; ++h) {
      if (h < h0 || h >= h1) continue;
      const int r = srow + h * (kThreadsS / KC_);
      cp_async16(t, as, r, scol, a8, ga + h * gstep);
      cp_async16(t, bs, r, scol, b8, gb + h * gstep);
    }
  }
  template <class SA, class SB>
  WS_DEVICE void frags(Thread& t, const SA& as, const SB& bs, int arow, int brow,
                       int acol, int bcol, int kk,
                       std::uint32_t (&af)[tensor_detail::MT][4],
                       std::uint32_t (&bf)[tensor_detail::NT][2]) const {
    using namespace tensor_detail;
    WS_UNROLL
    for (int mt = 0; mt < MT; ++mt) ldmatrix_x4(t, af[mt], as, arow + mt * 16, acol ^ kk * 2);
    WS_UNROLL
    for (int np = 0; np < NT / 2; ++np) {
      std::uint32_t q[4];
      ldmatrix_x4(t, q, bs, brow + np * 16, bcol ^ kk * 2);
      bf[2 * np][0] = q[0];
      bf[2 * np][1] = q[1];
      bf[2 * np + 1][0] = q[2];
      bf[2 * np + 1][1] = q[3];
    }
  }
  WS_DEVICE void operator()(Thread& t) const {
    using namespace tensor_detail;
    auto as = t.shared2d<int4>(STAGES * BM_, KC_, "As");
    auto bs = t.shared2d<int4>(STAGES * BN_, KC_, "Bs");
    const int l = t.lane(), tid = t.tid(), warp = t.warp();
    int tm = 0;
    int tn = 0;
    block_tile(t, group, tm, tn);
    const int tiles = n / BK_;
    // The lane's ldmatrix rows in stage 0 (m tile 0, n pair 0) and swizzled chunks at kk 0:
    // the swizzles XOR the chunk with a function of the row, and chunk kk * 2 + b is
    // (kk * 2) ^ b, so kk's chunk is kk 0's ^ kk * 2 (one LOP, no registers held per kk).
    const int arow = warp / 4 * 64 + l % 8 + (l / 8) % 2 * 8;
    const int brow = warp % 4 * 32 + l % 8 + l / 16 * 8;
    const int acol = chunk_swz<KC_>(arow, l / 16);
    const int bcol = chunk_swz<KC_>(brow, (l / 8) % 2);
    // The thread's copies: its row and swizzled chunk in a stage, its chunk index in A and Bt
    // (32 bits: at most 8192 x 1024), moved along k a tile at a time.
    const int crow = tid / KC_, scol = chunk_swz<KC_>(crow, tid % KC_);
    const int gstep = kThreadsS / KC_ * (n / 8);
    int ga = (tm * BM_ + crow) * (n / 8) + tid % KC_;
    int gb = (tn * BN_ + crow) * (n / 8) + tid % KC_;
    float acc[MT][NT][4] = {};
    std::uint32_t af[DBUF ? 2 : 1][MT][4];
    std::uint32_t bf[DBUF ? 2 : 1][NT][2];
    WS_UNROLL
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < tiles) issue(t, as, bs, s * BM_ + crow, scol, ga, gb, gstep, 0, kCopies);
      ga += KC_;
      gb += KC_;
      cp_async_commit(t);
    }
    int rd = 0;                   // the stage read this tile, in rows
    int wr = (STAGES - 1) * BM_;  // the stage refilled this tile
    for (int kt = 0; kt < tiles; ++kt) {
      cp_async_wait<STAGES - 2>(t);
      t.syncthreads();
      const bool more = kt + STAGES - 1 < tiles;
      if (DBUF) frags(t, as, bs, rd + arow, rd + brow, acol, bcol, 0, af[0], bf[0]);
      WS_UNROLL
      for (int kk = 0; kk < KS; ++kk) {
        if (more && kk * kPerStep < kCopies)
          issue(t, as, bs, wr + crow, scol, ga, gb, gstep, kk * kPerStep, kk * kPerStep + kPerStep);
        if (DBUF) {
          if (kk + 1 < KS)
            frags(t, as, bs, rd + arow, rd + brow, acol, bcol, kk + 1, af[(kk + 1) % 2],
                  bf[(kk + 1) % 2]);
        } else {
          frags(t, as, bs, rd + arow, rd + brow, acol, bcol, kk, af[0], bf[0]);
        }
        mma_all(t, acc, af[DBUF ? kk % 2 : 0], bf[DBUF ? kk % 2 : 0]);
      }
      cp_async_commit(t);
      ga += KC_;
      gb += KC_;
      rd = rd == (STAGES - 1) * BM_ ? 0 : rd + BM_;
      wr = wr == (STAGES - 1) * BM_ ? 0 : wr + BM_;
    }
    store_c(t, c2, n, tm * BM_, tn * BN_, warp / 4, warp % 4, acc);
  }
};

namespace tensor_detail {

// pipelined's `shape` knob (issue 25's candidates): block tile rows, columns, k a stage and
// warp tile columns. Shape 0 is TensorPipelined at `stages`; the others are
// TensorPipelinedShape (6-8: TensorPipelinedLean) at 3 or 4 stages, blocks in groups of
// kShapeGroup tile rows (shape 1: shape 0's tiles in that order, its cp.async addresses
// without shape 0's 64-bit division; a wave of 128 x 128 tiles then spans 16 rows x 16
// columns, not 8 x 32).
using Shapes = Choices<0, 1, 2, 3, 4, 5, 6, 7, 8>;
using ShapeStages = Choices<3, 4>;
constexpr int kShapeGroup = 16;
constexpr int kShapeDims[9][4] = {{128, 128, 32, 32}, {128, 128, 32, 32}, {128, 128, 64, 32},
                                  {128, 256, 32, 32}, {128, 256, 32, 64}, {128, 256, 64, 32},
                                  {128, 128, 64, 32}, {128, 128, 64, 32}, {128, 128, 64, 32}};
constexpr int kFirstLean = 6;  // shapes 6-8: shape 2's tile, TensorPipelinedLean
template <long long SH, int S>
using ShapeKernel = std::conditional_t<
    (SH < kFirstLean),
    TensorPipelinedShape<kShapeDims[SH][0], kShapeDims[SH][1], kShapeDims[SH][2],
                         kShapeDims[SH][3], S>,
    TensorPipelinedLean<kShapeDims[SH][2], S, (SH >= 7), (SH >= 8)>>;

// The blocks an SM a shape is compiled for (its __launch_bounds__): as many as 128 registers
// a thread and the SM's 228 KB of shared memory (1 KB a block reserved) allow; 1 for the
// 64 x 64 warps, which need more than 128.
template <class K>
constexpr int shape_min_blocks(int warp_n) {
  const int by_regs = 65536 / (K::kThreadsS * 128);
  const int by_shared = int(228 * 1024 / (K::kSharedBytes + 1024));
  return warp_n == 64 ? 1 : by_regs < by_shared ? by_regs : by_shared;
}

}  // namespace tensor_detail

// The fast build's entries of the shapes, register-capped by their __launch_bounds__ where
// the compiler would take 130 to 168 registers and so lose a block an SM or, at 512
// threads, not launch.
#if defined(WS_MODE_FAST)
#define WS_TENSOR_SHAPE_ENTRY(SH, S)                                                        \
  template <>                                                                               \
  __global__ void __launch_bounds__(                                                        \
      tensor_detail::ShapeKernel<SH, S>::kThreadsS,                                         \
      tensor_detail::shape_min_blocks<tensor_detail::ShapeKernel<SH, S>>(                   \
          tensor_detail::kShapeDims[SH][3]))                                                \
      ws_entry<tensor_detail::ShapeKernel<SH, S>>(tensor_detail::ShapeKernel<SH, S> k) {   \
    Thread t;                                                                              \
    k(t);                                                                                  \
  }
WS_TENSOR_SHAPE_ENTRY(1, 3)
WS_TENSOR_SHAPE_ENTRY(1, 4)
WS_TENSOR_SHAPE_ENTRY(2, 3)
WS_TENSOR_SHAPE_ENTRY(2, 4)
WS_TENSOR_SHAPE_ENTRY(3, 3)
WS_TENSOR_SHAPE_ENTRY(3, 4)
WS_TENSOR_SHAPE_ENTRY(4, 3)
WS_TENSOR_SHAPE_ENTRY(4, 4)
WS_TENSOR_SHAPE_ENTRY(5, 3)
WS_TENSOR_SHAPE_ENTRY(5, 4)
WS_TENSOR_SHAPE_ENTRY(6, 3)
WS_TENSOR_SHAPE_ENTRY(6, 4)
WS_TENSOR_SHAPE_ENTRY(7, 3)
WS_TENSOR_SHAPE_ENTRY(7, 4)
WS_TENSOR_SHAPE_ENTRY(8, 3)
WS_TENSOR_SHAPE_ENTRY(8, 4)
#undef WS_TENSOR_SHAPE_ENTRY
#endif

namespace tensor_detail {

inline Plan plan(const Params& p, const char* kernel, std::uint32_t shared_bytes,
                 unsigned threads = kThreads) {
  const long long n = p.at("n");
  Plan pl;
  const auto nn = std::uint64_t(n * n);
  pl.arrays = {{"A", 2, nn, false, {Fill::HalfUnit}},
               {"Bt", 2, nn, false, {Fill::HalfUnit}},
               {"C", 4, nn, true}};
  LaunchCfg c;
  c.kernel = kernel;
  c.grid = {unsigned(n / BN), unsigned(n / BM), 1};
  c.block = {threads, 1, 1};
  c.shared_bytes = shared_bytes;
  pl.launches = {c};
  pl.logical_bytes = 2.0 * double(n) * double(n) * 2.0 + double(n) * double(n) * 4.0;
  pl.flops = 2.0 * double(n) * double(n) * double(n);
  pl.mma_flops = pl.flops;
  // Checked on the device (cuBLAS's GemmEx from the same halves; on the CPU a point at
  // n = 4096 took 1.2 s): the tolerance of verify below.
  pl.ref.kind = RefKind::GemmHalf;
  pl.ref.n = std::uint64_t(n);
  pl.ref.ulps = 64;
  pl.ref.a = 0;
  pl.ref.b = 1;
  pl.ref.out = 2;
  return pl;
}

// C[i][j] against sum over k of A[i][k] Bt[j][k] in double, from the halves. Every element
// up to n = 512, above that 16 whole rows and 16 whole columns. The inputs are exact in FP16
// and their products in FP32, so what is left is the FP32 accumulation (in an order the
// tensor cores choose): 64 sqrt(n) ulps of sum |a b|, far below what a wrong tile, a
// swapped fragment or a lost k step costs (the sum of 16 or more terms).
inline std::string verify(const HostArrays& h, const Params& p) {
  const long long n = p.at("n");
  auto A = h.as<sim::half_bits>(0);
  auto B = h.as<sim::half_bits>(1);
  auto C = h.as<float>(2);
  std::vector<float> a(A.size()), b(B.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = sim::half_to_float(A[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = sim::half_to_float(B[i]);
  const double ulp = std::ldexp(1.0, -23);
  auto check = [&](long long i, long long j) -> std::string {
    double ref = 0, mag = 0;
    const float* ar = a.data() + i * n;
    const float* br = b.data() + j * n;
    for (long long k = 0; k < n; ++k) {
      const double x = double(ar[k]) * double(br[k]);
      ref += x;
      mag += std::fabs(x);
    }
    const double got = C[std::size_t(i * n + j)];
    const double tol = 64.0 * std::sqrt(double(n)) * ulp * mag + 1e-6;
    if (!(std::fabs(got - ref) <= tol))
      return "C[" + std::to_string(i) + "][" + std::to_string(j) + "] = " + std::to_string(got) +
             ", expected " + std::to_string(ref);
    return "";
  };
  if (n <= 512) {
    for (long long i = 0; i < n; ++i)
      for (long long j = 0; j < n; ++j)
        if (auto e = check(i, j); !e.empty()) return e;
    return "";
  }
  for (long long s = 0; s < 16; ++s) {
    const long long line = (s * (n - 1)) / 15;
    for (long long j = 0; j < n; ++j) {
      if (auto e = check(line, j); !e.empty()) return e;
      if (auto e = check(j, line); !e.empty()) return e;
    }
  }
  return "";
}

inline ParamSpec n_param() {
  return {"n", 1024, 128, 8192, {}, "matrix side (halves), a multiple of 128"};
}
inline std::string check_n(const Params& p) {
  const long long n = p.at("n");
  if (n % BM != 0)
    return "n=" + std::to_string(n) + " is not a multiple of the block tile=128 (the block tile must divide n)";
  return "";
}

// The plan's FP16 arrays seen as T (2 halves, or 8 a chunk); C as float pairs.
template <class T>
Global<const T> halves_as(const Args& a, int i) {
  return {static_cast<const T*>(a.ptr.at(i)), a.count.at(i) * 2 / sizeof(T), std::uint8_t(i)};
}
inline Global<float2> c_pairs(const Args& a, int i) {
  return {static_cast<float2*>(a.ptr.at(i)), a.count.at(i) / 2, std::uint8_t(i)};
}

// 16 KB a stage: 3 stages fill the 48 KB a block has without opting in; 4 (64 KB) opt in.
using Stages = Choices<2, 3, 4>;

// The plan and launch of a pipelined kernel K<STAGES> (pipelined, warp64) at p's stages.
template <template <int> class K>
Plan staged_plan(const Params& p, const char* kernel, unsigned threads) {
  std::uint32_t bytes = 0;
  Stages::dispatch(p.at("stages"), [&]<long long S>() { bytes = K<int(S)>::kSharedBytes; });
  return plan(p, kernel, bytes, threads);
}
template <template <int> class K>
void staged_launch(Launcher& L, const Params& p, const Plan& pl, const Args& a) {
  auto A = halves_as<int4>(a, 0);
  auto B = halves_as<int4>(a, 1);
  auto C = c_pairs(a, 2);
  const int n = int(p.at("n"));
  with_choice<Stages>(L, "stages", p.at("stages"), [&]<long long S>() {
    L.launch(pl.launches[0], K<int(S)>{A, B, C, n});
  });
}
inline ParamSpec stages_param() {
  return {"stages", 3, 0, 0, Stages::list(), "shared buffers: tiles in flight + 1"};
}

inline ParamSpec shape_param() {
  return {"shape", 0, 0, 0, Shapes::list(),
          "block tile, k a stage, warp tile: 0 = 128x128x32, warps 64x32 (8); 1 = 0 in groups "
          "of 16 tile rows; 2 = 128x128x64; 3 = 128x256x32 (16 warps); 4 = 128x256x32, warps "
          "64x64 (8); 5 = 128x256x64 (16 warps); 6 = 2 with the lane's ldmatrix and cp.async "
          "addresses worked out once; 7 = 6 issuing the next tile's copies a quarter per k16 "
          "step; 8 = 7 with kk + 1's fragments loaded before kk's mma; 1-8 grouped, at 3 or 4 "
          "stages"};
}

inline std::string pipelined_check(const Params& p) {
  const long long sh = p.at("shape");
  if (sh == 0) return check_n(p);
  if (!ShapeStages::allows(p.at("stages")))
    return "shape=" + std::to_string(sh) + " is compiled at stages=3 and 4 only";
  const long long n = p.at("n"), bm = kShapeDims[sh][0], bn = kShapeDims[sh][1];
  if (n % bm != 0 || n % bn != 0)
    return "n=" + std::to_string(n) + " is not a multiple of the block tile " +
           std::to_string(bm) + " x " + std::to_string(bn) + " (the block tile must divide n)";
  return "";
}

// @post shape 0: staged_plan's; else the shape's threads, shared bytes and grid.
inline Plan pipelined_plan(const Params& p) {
  const long long sh = p.at("shape");
  if (sh == 0) return staged_plan<TensorPipelined>(p, "tensor_pipelined", kThreads);
  Plan pl;
  Shapes::dispatch(sh, [&]<long long SH>() {
    if constexpr (SH > 0)
      ShapeStages::dispatch(p.at("stages"), [&]<long long S>() {
        using K = ShapeKernel<SH, int(S)>;
        pl = plan(p, "tensor_pipelined", K::kSharedBytes, unsigned(K::kThreadsS));
      });
  });
  const auto n = unsigned(p.at("n"));
  pl.launches.at(0).grid = {n / unsigned(kShapeDims[sh][1]), n / unsigned(kShapeDims[sh][0]), 1};
  return pl;
}

inline void pipelined_launch(Launcher& L, const Params& p, const Plan& pl, const Args& a) {
  const long long sh = p.at("shape");
  if (sh == 0) return staged_launch<TensorPipelined>(L, p, pl, a);
  auto A = halves_as<int4>(a, 0);
  auto B = halves_as<int4>(a, 1);
  auto C = c_pairs(a, 2);
  const int n = int(p.at("n"));
  with_choice<Shapes>(L, "shape", sh, [&]<long long SH>() {
    if constexpr (SH > 0)
      with_choice<ShapeStages>(L, "stages", p.at("stages"), [&]<long long S>() {
        L.launch(pl.launches[0], ShapeKernel<SH, int(S)>{A, B, C, n, kShapeGroup});
      });
  });
}

}  // namespace tensor_detail


// @post appends the tensor family and its variants to r in teaching order (global memory
//       to the cp.async pipeline, then its 64 x 64 warps).
inline void add_tensor(Registry& r) {
  using namespace tensor_detail;
  r.family({.name = "tensor",
            .source_file = "kernels/families/tensor.cuh",
            .peers = {Peer::CublasGemmEx},
            .sweeps = {{"stages", ""}},
            .size_params = {"n"},
            .timing = {{"n", 4096}},
            .small = {{"n", 128}},
            .bar_sizes = {{{"n", 4096}}},
            .recorded_sweeps = {{"pipelined", {{"n", 4096}}, "stages", {2, 3}},
                                {"warp64", {{"n", 4096}}, "stages", {2, 3}}}});
  r.add({.info = {.name = "mma_global",
                  .title = "mma.sync from global memory",
                  .why = "The tensor-core baseline: each lane loads its own fragment elements, "
                         "4 bytes at a time, from global memory; half of every sector is "
                         "wasted and no warp shares what it fetched.",
                  .entry = "TensorGlobal",
                  .params = {n_param()},
                  .check = check_n,
                  .plan = [](const Params& p) { return plan(p, "tensor_mma_global", 0); },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0],
                    TensorGlobal{halves_as<std::uint32_t>(a, 0), halves_as<std::uint32_t>(a, 1),
                                 c_pairs(a, 2), int(p.at("n"))});
         }});
  r.add({.info = {.name = "ldmatrix",
                  .title = "Staged in shared memory, ldmatrix",
                  .why = "Faster: 16-byte coalesced copies into shared memory feed every warp "
                         "of the block, and one ldmatrix loads four 8 x 8 fragments; but its "
                         "64-byte rows put 4 of 8 rows on the same banks, a 4-way conflict.",
                  .entry = "TensorShared",
                  .params = {n_param()},
                  .check = check_n,
                  .plan = [](const Params& p) {
                    return plan(p, "tensor_ldmatrix", TensorShared<false>::kSharedBytes);
                  },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0],
                    TensorShared<false>{halves_as<int4>(a, 0), halves_as<int4>(a, 1),
                                        c_pairs(a, 2), int(p.at("n"))});
         }});
  r.add({.info = {.name = "swizzled",
                  .title = "ldmatrix on a swizzled (XOR) layout",
                  .why = "Faster: the chunk of each row is XORed with its row pair, so the 8 "
                         "rows an ldmatrix phase reads fall on 8 different bank groups: one "
                         "wavefront instead of four, at no cost in memory.",
                  .entry = "TensorShared",
                  .params = {n_param()},
                  .check = check_n,
                  .plan = [](const Params& p) {
                    return plan(p, "tensor_swizzled", TensorShared<true>::kSharedBytes);
                  },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0],
                    TensorShared<true>{halves_as<int4>(a, 0), halves_as<int4>(a, 1),
                                       c_pairs(a, 2), int(p.at("n"))});
         }});
  r.add({.info = {.name = "pipelined",
                  .title = "Multi-stage cp.async pipeline",
                  .why = "Faster: cp.async copies the next STAGES - 1 tiles straight into shared "
                         "memory while the tensor cores work on this one, so the load latency "
                         "hides behind the mma and no registers hold the copies.",
                  .entry = "TensorPipelined",
                  .params = {n_param(), stages_param(), shape_param()},
                  .check = pipelined_check,
                  .plan = pipelined_plan,
                  .verify = verify},
         .launch = pipelined_launch});
  r.add({.info = {.name = "warp64",
                  .title = "Pipelined, 64 x 64 warp tiles",
                  .why = "Slower on the H100 (0.94x pipelined): 4 warps of 64 x 64 instead of "
                         "8 of 64 x 32, so each A fragment an ldmatrix brings feeds 8 mma "
                         "instead of 4 (a third fewer shared-memory wavefronts per mma), but "
                         "128 accumulators a thread (250 registers) leave 8 warps an SM to hide "
                         "each ldmatrix's and mma's latency: the wavefronts were not the limit.",
                  .entry = "TensorWarp64",
                  .params = {n_param(), stages_param()},
                  .check = check_n,
                  .plan = [](const Params& p) {
                    return staged_plan<TensorWarp64>(p, "tensor_warp64", kThreads64);
                  },
                  .verify = verify},
         .launch = staged_launch<TensorWarp64>});
}

WS_END_MODE
