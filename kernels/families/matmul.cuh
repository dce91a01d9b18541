#pragma once
// Matrix multiply C = A * B for row-major n x n FP32 matrices, from the naive loop to a
// register-blocked, vectorized kernel that gets close to cuBLAS. Every variant does the
// same 2 n^3 flops; what changes is how many bytes each flop costs: from global memory,
// from shared memory, or from registers. Bodies are the lesson's code: keep each access
// on its own line, and let each source access be exactly one memory instruction (where a
// variant vectorizes, it says so with float4 handles).
#include <cmath>

#include "kernels/dialect/registry.h"
#include "kernels/dialect/simt_tensor.h"
// Loop unrolling: on nvcc the register arrays of the blocked kernels must be indexed by
// constants only (else they spill to local memory), and the textbook loops must stay
// rolled so the compiler does not fuse four scalar shared loads into one 128-bit load.
// The host compiler needs neither.
WS_BEGIN_MODE

// Naive: one thread per element of C, reading a row of A and a column of B straight from
// global memory: two loads per multiply-add. Within a warp the A load is a broadcast and
// the B load is coalesced, and the caches catch much of the reuse, but every flop still
// waits on a load instruction.
struct MatmulNaive {
  Global<const float> a, b;
  Global<float> c;
  int n;
  WS_DEVICE void operator()(Thread& t) const {
    int row = t.blockIdx.y * t.blockDim.y + t.threadIdx.y;
    int col = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    float sum = 0.f;
    for (int k = 0; k < n; ++k) {
      sum += a(row * n + k) * b(k * n + col);
    }
    c(row * n + col) = sum;
  }
};

// Shared-memory tiles: a TILE x TILE block loads one tile of A and one of B per step
// (one element per thread each), then every thread reads 2 x TILE words of shared
// memory. Global traffic drops by a factor of TILE; the inner loop now costs two shared
// loads per multiply-add. The block is TILE x TILE threads, shown as it is: tile 4 is 16
// threads, half a warp left empty; tile 8 packs 4 tile rows into each warp; tile 32 is
// 1024 threads, the most a block may have. The k loop stays rolled so each shared read
// stays one 32-bit load.
template <int TILE>
struct MatmulTiled {
  Global<const float> a, b;
  Global<float> c;
  int n;
  static constexpr std::uint32_t kSharedBytes = 2 * TILE * TILE * sizeof(float);
  WS_DEVICE void operator()(Thread& t) const {
    auto as = t.shared2d<float>(TILE, TILE, "As");
    auto bs = t.shared2d<float>(TILE, TILE, "Bs");
    int tx = t.threadIdx.x;
    int ty = t.threadIdx.y;
    int row = t.blockIdx.y * TILE + ty;
    int col = t.blockIdx.x * TILE + tx;
    float sum = 0.f;
    for (int p = 0; p < n / TILE; ++p) {
      as(ty, tx) = a(row * n + p * TILE + tx);
      bs(ty, tx) = b((p * TILE + ty) * n + col);
      t.syncthreads();
      WS_NO_UNROLL
      for (int k = 0; k < TILE; ++k) {
        sum += as(ty, k) * bs(k, tx);
      }
      t.syncthreads();
    }
    c(row * n + col) = sum;
  }
};

// 1D register blocking: a 64 x 64 block tile from 512 threads, each computing a column
// of TM = 8 results. A value of B read from shared memory is kept in a register and used
// for 8 multiply-adds, so shared loads per multiply-add fall from 2 to 9/8. The eight
// A reads of a step are a broadcast (all lanes of a warp share a thread row).
struct MatmulReg1D {
  static constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
  static constexpr std::uint32_t kSharedBytes = (BM * BK + BK * BN) * sizeof(float);
  Global<const float> a, b;
  Global<float> c;
  int n;
  WS_DEVICE void operator()(Thread& t) const {
    auto as = t.shared2d<float>(BM, BK, "As");
    auto bs = t.shared2d<float>(BK, BN, "Bs");
    int tid = t.threadIdx.x;
    int trow = tid / BN;  // results in rows trow*TM .. trow*TM+TM-1 of the block tile
    int tcol = tid % BN;
    int arow = tid / BK;  // the 64 x 8 tile of A: one element per thread
    int acol = tid % BK;
    int brow = tid / BN;  // the 8 x 64 tile of B: one element per thread
    int bcol = tid % BN;
    int row0 = t.blockIdx.y * BM;
    int col0 = t.blockIdx.x * BN;
    float acc[TM] = {};
    for (int k0 = 0; k0 < n; k0 += BK) {
      as(arow, acol) = a((row0 + arow) * n + k0 + acol);
      bs(brow, bcol) = b((k0 + brow) * n + col0 + bcol);
      t.syncthreads();
      WS_NO_UNROLL
      for (int k = 0; k < BK; ++k) {
        float bv = bs(k, tcol);
        WS_UNROLL
        for (int m = 0; m < TM; ++m) {
          acc[m] += as(trow * TM + m, k) * bv;
        }
      }
      t.syncthreads();
    }
    WS_UNROLL
    for (int m = 0; m < TM; ++m) {
      c((row0 + trow * TM + m) * n + col0 + tcol) = acc[m];
    }
  }
};

// 2D register blocking: a 128 x 128 block tile from 256 threads, each computing an 8 x 8
// micro-tile. Per step of k a thread loads 8 values of A and 8 of B into registers and
// does 64 multiply-adds with them: 1/4 shared load per multiply-add. A thread's columns
// are 16 apart so that the 16 lanes of a thread row read 16 consecutive words of Bs.
// The A reads are broadcasts, but the two thread rows of a warp read words 64 apart,
// the same bank: a 2-way conflict that the next step removes by storing A transposed.
struct MatmulReg2D {
  static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  static constexpr std::uint32_t kSharedBytes = (BM * BK + BK * BN) * sizeof(float);
  Global<const float> a, b;
  Global<float> c;
  int n;
  WS_DEVICE void operator()(Thread& t) const {
    auto as = t.shared2d<float>(BM, BK, "As");
    auto bs = t.shared2d<float>(BK, BN, "Bs");
    int tid = t.threadIdx.x;
    int trow = tid / (BN / TN);  // rows trow*TM .. trow*TM+7
    int tcol = tid % (BN / TN);  // columns tcol, tcol+16, ..., tcol+112
    int arow = tid / BK;         // the 128 x 8 tile of A: 4 elements per thread
    int acol = tid % BK;
    int brow = tid / BN;         // the 8 x 128 tile of B: 4 elements per thread
    int bcol = tid % BN;
    int row0 = t.blockIdx.y * BM;
    int col0 = t.blockIdx.x * BN;
    float acc[TM][TN] = {};
    float am[TM];
    float bn[TN];
    for (int k0 = 0; k0 < n; k0 += BK) {
      WS_UNROLL
      for (int o = 0; o < BM; o += 32) {
        as(arow + o, acol) = a((row0 + arow + o) * n + k0 + acol);
      }
      WS_UNROLL
      for (int o = 0; o < BK; o += 2) {
        bs(brow + o, bcol) = b((k0 + brow + o) * n + col0 + bcol);
      }
      t.syncthreads();
      WS_NO_UNROLL
      for (int k = 0; k < BK; ++k) {
        WS_UNROLL
        for (int m = 0; m < TM; ++m) {
          am[m] = as(trow * TM + m, k);
        }
        WS_UNROLL
        for (int j = 0; j < TN; ++j) {
          bn[j] = bs(k, tcol + j * (BN / TN));
        }
        WS_UNROLL
        for (int m = 0; m < TM; ++m) {
          WS_UNROLL
          for (int j = 0; j < TN; ++j) {
            acc[m][j] += am[m] * bn[j];
          }
        }
      }
      t.syncthreads();
    }
    WS_UNROLL
    for (int m = 0; m < TM; ++m) {
      WS_UNROLL
      for (int j = 0; j < TN; ++j) {
        c((row0 + trow * TM + m) * n + col0 + tcol + j * (BN / TN)) = acc[m][j];
      }
    }
  }
};

namespace matmul_detail {

// The 128 x 8 tile of A, global -> registers: warps 0 and 1 each fetch 4 x 4 blocks of
// A (four float4 rows). Lanes 0-15 take k 0-3 of 16 consecutive row groups, lanes 16-31
// k 4-7, so one load instruction reads 16 rows x 32 bytes: 16 full sectors.
template <class GA>
WS_DEVICE void fetch_a(const GA& a4, int n, int tid, int row0, int k0, float4 (&ra)[4]) {
  int mb = (tid / 32) * 16 + tid % 16;  // row group: rows 4*mb .. 4*mb+3
  int kb = (tid % 32) / 16;             // k group: k 4*kb .. 4*kb+3
  WS_UNROLL
  for (int i = 0; i < 4; ++i) {
    ra[i] = a4(((row0 + mb * 4 + i) * n + k0) / 4 + kb);
  }
}

// Registers -> shared, transposed on the way: As[k][m/4] is a float4 of four consecutive
// rows m at one k, so the compute loop reads A with float4 loads along m. The 4 x 4 block
// a thread holds is turned in registers; a quarter warp stores 8 consecutive float4s of
// one row of As: 128 contiguous bytes, no bank conflict.
template <class SA>
WS_DEVICE void stash_a(const SA& as, int tid, int buf, const float4 (&ra)[4]) {
  int mb = (tid / 32) * 16 + tid % 16;
  int kb = (tid % 32) / 16;
  as(buf + kb * 4 + 0, mb) = float4{ra[0].x, ra[1].x, ra[2].x, ra[3].x};
  as(buf + kb * 4 + 1, mb) = float4{ra[0].y, ra[1].y, ra[2].y, ra[3].y};
  as(buf + kb * 4 + 2, mb) = float4{ra[0].z, ra[1].z, ra[2].z, ra[3].z};
  as(buf + kb * 4 + 3, mb) = float4{ra[0].w, ra[1].w, ra[2].w, ra[3].w};
}

}  // namespace matmul_detail

// Vectorized: the 2D-blocked kernel with every access widened to 16 bytes. Global loads
// of A and B and stores of C are float4; A is stored transposed in shared memory (turned
// in registers on the way, see stash_a) so that a thread's 8 values of A are two float4
// loads along a row of As, as its 8 values of B are two float4 loads along a row of Bs.
// Four times fewer load instructions. What is left: a thread's 8 columns are contiguous,
// so in a quarter warp 8 lanes read float4s 32 bytes apart, a 2-way bank conflict on
// every Bs read, and each C store touches twice the sectors it needs.
struct MatmulVectorized {
  static constexpr int BM = 128, BN = 128, BK = 8;
  static constexpr std::uint32_t kSharedBytes = (BK * (BM / 4) + BK * (BN / 4)) * sizeof(float4);
  Global<const float4> a4, b4;
  Global<float4> c4;
  int n;
  WS_DEVICE void operator()(Thread& t) const {
    auto as = t.shared2d<float4>(BK, BM / 4, "As");  // transposed: As[k][m/4]
    auto bs = t.shared2d<float4>(BK, BN / 4, "Bs");
    int tid = t.threadIdx.x;
    int trow = tid / 16;  // rows 8*trow .. 8*trow+7
    int tcol = tid % 16;  // columns 8*tcol .. 8*tcol+7
    int row0 = t.blockIdx.y * BM;
    int col0 = t.blockIdx.x * BN;
    float acc[8][8] = {};
    float4 ra[4];
    for (int k0 = 0; k0 < n; k0 += BK) {
      if (tid < 64) {
        matmul_detail::fetch_a(a4, n, tid, row0, k0, ra);
        matmul_detail::stash_a(as, tid, 0, ra);
      }
      bs(tid / 32, tid % 32) = b4(((k0 + tid / 32) * n + col0) / 4 + tid % 32);
      t.syncthreads();
      WS_UNROLL
      for (int k = 0; k < BK; ++k) {
        float4 a0 = as(k, trow * 2);
        float4 a1 = as(k, trow * 2 + 1);
        float4 b0 = bs(k, tcol * 2);
        float4 b1 = bs(k, tcol * 2 + 1);
        float am[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        float bn[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
        WS_UNROLL
        for (int i = 0; i < 8; ++i) {
          WS_UNROLL
          for (int j = 0; j < 8; ++j) {
            acc[i][j] += am[i] * bn[j];
          }
        }
      }
      t.syncthreads();
    }
    WS_UNROLL
    for (int i = 0; i < 8; ++i) {
      int base = ((row0 + trow * 8 + i) * n + col0) / 4 + tcol * 2;
      c4(base) = float4{acc[i][0], acc[i][1], acc[i][2], acc[i][3]};
      c4(base + 1) = float4{acc[i][4], acc[i][5], acc[i][6], acc[i][7]};
    }
  }
};

// Warp-tiled and double-buffered, the fastest step. Three changes to the vectorized
// kernel. (1) Lanes are laid out by warp: a warp owns a 64 x 32 part of the block tile,
// and a thread's 8 x 8 results are four 4 x 4 pieces 32 rows and 16 columns apart. A
// quarter warp then reads 2 float4s of As (a broadcast) and 4 consecutive float4s of Bs:
// no bank conflicts, and each C store covers 8 rows x 64 bytes, 16 full sectors.
// (2) Two shared buffers: the global loads of the next tile are issued into registers
// before the multiply-adds of this one, so their latency hides behind 512 FMAs per
// thread, and one barrier per tile suffices (a buffer is rewritten only after the
// barrier that ends the step that read it). (3) Registers decide how many blocks share
// an SM: every thread now gathers one float4 of As itself, four rows of A at one k with
// four 4-byte loads (8 lanes cover a 32-byte row segment, so each load is still whole
// sectors), instead of holding a 4 x 4 block. That keeps the kernel near 120 registers,
// two blocks per SM. As rows are padded by one float4 so the 8 rows a quarter warp
// writes start 4 banks apart instead of on the same bank.
template <int GROUP = 1> struct MatmulWarpTiled {  // GROUP: the group knob, see grouped()
  static constexpr int BM = 128, BN = 128, BK = 8;
  static constexpr std::uint32_t kSharedBytes =
      (2 * BK * (BM / 4 + 1) + 2 * BK * (BN / 4)) * sizeof(float4);
  Global<const float> a;
  Global<const float4> b4;
  Global<float4> c4;
  int n;
  WS_DEVICE void operator()(Thread& t) const {
    auto as = t.shared2d<float4>(2 * BK, BM / 4 + 1, "As");  // [buffer * BK + k][m/4]
    auto bs = t.shared2d<float4>(2 * BK, BN / 4, "Bs");
    int tid = t.threadIdx.x;
    int warp = tid / 32;
    int lane = tid % 32;
    int wm4 = (warp / 4) * 16;     // the warp's first row / 4: warps form 2 x 4
    int wn4 = (warp % 4) * 8;      // the warp's first column / 4
    int lm = lane / 4;             // rows 4*lm .. +3 and 32 + 4*lm .. +3 of the warp tile
    int ln = lane % 4;             // columns 4*ln .. +3 and 16 + 4*ln .. +3
    int ak = tid % BK;             // this thread's As element: k = ak, rows 4*am .. +3
    int am = tid / BK;
    int bk = tid / 32;             // this thread's Bs element: row bk, float4 column bc
    int bc = tid % 32;
    int row0 = grouped(t).y * BM;
    int col0 = grouped(t).x * BN;
    float acc[8][8] = {};
    float4 ra;
    float4 rb;
    ra.x = a((row0 + am * 4 + 0) * n + ak);
    ra.y = a((row0 + am * 4 + 1) * n + ak);
    ra.z = a((row0 + am * 4 + 2) * n + ak);
    ra.w = a((row0 + am * 4 + 3) * n + ak);
    rb = b4((bk * n + col0) / 4 + bc);
    as(ak, am) = ra;
    bs(bk, bc) = rb;
    t.syncthreads();
    for (int k0 = 0; k0 < n; k0 += BK) {
      int cur = (k0 / BK) % 2 * BK;
      int next = BK - cur;
      bool more = k0 + BK < n;
      if (more) {
        ra.x = a((row0 + am * 4 + 0) * n + k0 + BK + ak);
        ra.y = a((row0 + am * 4 + 1) * n + k0 + BK + ak);
        ra.z = a((row0 + am * 4 + 2) * n + k0 + BK + ak);
        ra.w = a((row0 + am * 4 + 3) * n + k0 + BK + ak);
        rb = b4(((k0 + BK + bk) * n + col0) / 4 + bc);
      }
      WS_UNROLL
      for (int k = 0; k < BK; ++k) {
        float4 a0 = as(cur + k, wm4 + lm);
        float4 a1 = as(cur + k, wm4 + 8 + lm);
        float4 b0 = bs(cur + k, wn4 + ln);
        float4 b1 = bs(cur + k, wn4 + 4 + ln);
        float am8[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        float bn8[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
        WS_UNROLL
        for (int i = 0; i < 8; ++i) {
          WS_UNROLL
          for (int j = 0; j < 8; ++j) {
            acc[i][j] += am8[i] * bn8[j];
          }
        }
      }
      if (more) {
        as(next + ak, am) = ra;
        bs(next + bk, bc) = rb;
      }
      t.syncthreads();
    }
    WS_UNROLL
    for (int i = 0; i < 8; ++i) {
      int row = row0 + wm4 * 4 + (i / 4) * 32 + lm * 4 + i % 4;
      int base = (row * n + col0) / 4 + wn4 + ln;
      c4(base) = float4{acc[i][0], acc[i][1], acc[i][2], acc[i][3]};
      c4(base + 4) = float4{acc[i][4], acc[i][5], acc[i][6], acc[i][7]};
    }
  }
  // The block's place in the grid of tiles. GROUP = 1: blockIdx, the launch order (row by
  // row). GROUP > 1 (block rasterization): the blocks renumbered so that consecutive ones
  // walk GROUP tile rows column by column; the blocks resident together (about 2 x 132 on
  // the H100) then cover a few tile columns x GROUP tile rows, so fewer distinct rows of
  // A and columns of B pass through L2. The last group is cut short to the rows left.
  WS_DEVICE static Dim3 grouped(const Thread& t) {
    if constexpr (GROUP == 1) {
      return t.blockIdx;
    } else {
      unsigned id = t.blockIdx.y * t.gridDim.x + t.blockIdx.x;
      unsigned per = GROUP * t.gridDim.x;  // blocks in one group of GROUP tile rows
      unsigned first = id / per * GROUP;
      unsigned rows = t.gridDim.y - first < GROUP ? t.gridDim.y - first : GROUP;
      return Dim3{id % per / rows, first + id % per % rows, 1};
    }
  }
};

namespace matmul_detail {
// Component c (a constant once unrolled) of v.
WS_DEVICE float lane_of(const float4& v, int c) {
  return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w;
}
}  // namespace matmul_detail

// warptiled's stages knob (> 0): the same block, warp and thread tiles, but each tile goes
// global -> shared by cp.async, STAGES tiles in flight, no registers staging it. cp.async
// copies 16 bytes as they are, so A stays untransposed (As[m][k/4]) and a thread reads
// its 8 rows as 8 float4s along k, then uses each for 4 steps of k. Its rows are 8 apart
// (lm + 8i), so the 8 rows a warp reads at once are consecutive, and As rows are padded
// to 3 float4s: consecutive rows start 3 groups of 4 banks apart, 8 rows on 8 different
// groups. GROUP: as warptiled's.
template <int STAGES, int GROUP = 1>
struct MatmulWarpTiledAsync {
  static constexpr int BM = 128, BN = 128, BK = 8, AQ = BK / 4 + 1;
  static constexpr std::uint32_t kSharedBytes =
      STAGES * (BM * AQ + BK * (BN / 4)) * sizeof(float4);
  Global<const float4> a4, b4;
  Global<float4> c4;
  int n;
  WS_DEVICE void operator()(Thread& t) const {
    auto as = t.shared2d<float4>(STAGES * BM, AQ, "As");  // [stage * BM + m][k/4]
    auto bs = t.shared2d<float4>(STAGES * BK, BN / 4, "Bs");
    int tid = t.threadIdx.x;
    int warp = tid / 32;
    int lane = tid % 32;
    int wm = (warp / 4) * 64;  // the warp's first row: warps form 2 x 4
    int wn4 = (warp % 4) * 8;  // the warp's first column / 4
    int lm = lane / 4;         // rows lm, lm + 8, ..., lm + 56 of the warp tile
    int ln = lane % 4;         // columns 4*ln .. +3 and 16 + 4*ln .. +3
    int row0 = MatmulWarpTiled<GROUP>::grouped(t).y * BM;
    int col0 = MatmulWarpTiled<GROUP>::grouped(t).x * BN;
    int tiles = n / BK;
    float acc[8][8] = {};
    WS_UNROLL
    for (int i = 0; i < STAGES - 1; ++i) {
      if (i < tiles) issue(t, as, bs, i, i * BK, tid, row0, col0);
      cp_async_commit(t);
    }
    for (int it = 0; it < tiles; ++it) {
      cp_async_wait<STAGES - 2>(t);
      t.syncthreads();  // tile it is in; every warp is done with the buffer refilled next
      int next = it + STAGES - 1;
      if (next < tiles) issue(t, as, bs, next % STAGES, next * BK, tid, row0, col0);
      cp_async_commit(t);
      int sa = it % STAGES * BM;
      int sb = it % STAGES * BK;
      WS_UNROLL
      for (int kq = 0; kq < BK / 4; ++kq) {
        float4 av[8];
        WS_UNROLL
        for (int i = 0; i < 8; ++i) {
          av[i] = as(sa + wm + lm + 8 * i, kq);
        }
        WS_UNROLL
        for (int kk = 0; kk < 4; ++kk) {
          float4 b0 = bs(sb + kq * 4 + kk, wn4 + ln);
          float4 b1 = bs(sb + kq * 4 + kk, wn4 + 4 + ln);
          float bn8[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
          WS_UNROLL
          for (int i = 0; i < 8; ++i) {
            float am = matmul_detail::lane_of(av[i], kk);
            WS_UNROLL
            for (int j = 0; j < 8; ++j) {
              acc[i][j] += am * bn8[j];
            }
          }
        }
      }
    }
    WS_UNROLL
    for (int i = 0; i < 8; ++i) {
      int row = row0 + wm + lm + 8 * i;
      int base = (row * n + col0) / 4 + wn4 + ln;
      c4(base) = float4{acc[i][0], acc[i][1], acc[i][2], acc[i][3]};
      c4(base + 4) = float4{acc[i][4], acc[i][5], acc[i][6], acc[i][7]};
    }
  }
  // Tile k0 into stage st: A's 128 x 8 as 256 float4s (two lanes a row: whole sectors),
  // B's 8 x 128 as 256 float4s (a warp one row, 512 bytes).
  template <class SA, class SB>
  WS_DEVICE void issue(Thread& t, const SA& as, const SB& bs, int st, int k0, int tid, int row0,
                       int col0) const {
    cp_async16(t, as, st * BM + tid / 2, tid % 2, a4, ((row0 + tid / 2) * n + k0) / 4 + tid % 2);
    cp_async16(t, bs, st * BK + tid / 32, tid % 32, b4, ((k0 + tid / 32) * n + col0) / 4 + tid % 32);
  }
};

// Prefetched: warptiled's block, warp and thread tiles with three changes its SASS asked
// for, each measured on the H100 (docs/BENCHMARKS.md): (1) A read as one float4 along k per
// thread, turned on its way into shared by four 4-byte stores, instead of four scalar loads
// down a column; (2) the next step's fragments loaded while this step's multiply-adds run
// (two register sets), the next tile's first fragments right after the tile's one barrier;
// (3) the loop over tiles unrolled by two with the last pair apart, so the buffer a step
// reads is a constant and no `more` test sits in the loop. Blocks walk 8 tile rows
// (warptiled's group=8). As rows are padded by 4 floats: the two k halves a warp stores
// land 16 banks apart. Bs as warptiled's.
struct MatmulPrefetched {
  static constexpr int BM = 128, BN = 128, BK = 8, AP = BM + 4;
  static constexpr std::uint32_t kSharedBytes = (2 * BK * AP + 2 * BK * BN) * sizeof(float);
  Global<const float4> a4, b4;
  Global<float4> c4;
  int n;
  template <int V>
  using Const = std::integral_constant<int, V>;
  WS_DEVICE void operator()(Thread& t) const {
    auto as = t.shared2d<float>(2 * BK, AP, "As");  // [buffer * BK + k][m]
    auto as4 = as.template view<float4>();
    auto bs = t.shared2d<float4>(2 * BK, BN / 4, "Bs");
    const int tid = t.threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int fa = (warp / 4) * 16 + lane / 4;  // float4 column of As: rows 4*lm .. +3 of the warp's 64
    const int fb = (warp % 4) * 8 + lane % 4;   // float4 column of Bs: columns 4*ln .. +3 of its 32
    const Dim3 g = MatmulWarpTiled<8>::grouped(t);
    const int row0 = int(g.y) * BM, col0 = int(g.x) * BN;
    const int q = n / 4;  // float4s a row
    // This thread's float4 of A (row tid/2, k 4*(tid%2) .. +3) and of B (row tid/32), moved
    // on by one tile of k after each load. 32-bit (n <= 8192): at 64 bits the two indices
    // took the registers the H100 build needed, and it spilled (0.93 of cuBLAS, not 0.96).
    int ga = (row0 + tid / 2) * q + tid % 2;
    int gb = (tid / 32) * q + col0 / 4 + tid % 32;
    float4 sa, sb;
    auto load_global = [&]() {
      sa = a4(ga);
      sb = b4(gb);
      ga += BK / 4;
      gb += BK * q;
    };
    // A's float4 as a column of As (four 4-byte stores), B's as a float4 of Bs.
    auto store_shared = [&](int buf) {
      const int m = tid / 2, k = buf * BK + tid % 2 * 4;
      as(k + 0, m) = sa.x;
      as(k + 1, m) = sa.y;
      as(k + 2, m) = sa.z;
      as(k + 3, m) = sa.w;
      bs(buf * BK + tid / 32, tid % 32) = sb;
    };
    // Step k's fragments: rows 4*lm .. +3 and 32 + 4*lm .. +3, columns 4*ln .. +3 and 16 + 4*ln .. +3.
    auto load_frag = [&](int buf, int k, float4& a0, float4& a1, float4& b0, float4& b1) {
      a0 = as4(buf * BK + k, fa);
      a1 = as4(buf * BK + k, fa + 8);
      b0 = bs(buf * BK + k, fb);
      b1 = bs(buf * BK + k, fb + 4);
    };
    float acc[8][8];
    WS_UNROLL
    for (int i = 0; i < 8; ++i) {
      WS_UNROLL
      for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
    }
    load_global();
    store_shared(0);
    t.syncthreads();
    float4 fra[2][2], frb[2][2];
    load_frag(0, 0, fra[0][0], fra[0][1], frb[0][0], frb[0][1]);
    // One tile from buffer cur; MORE (1): the next tile loaded meanwhile into the other,
    // stored and fenced by the tile's one barrier before its last step.
    auto tile = [&](int cur, auto more_tag) {
      constexpr bool more = decltype(more_tag)::value == 1;
      const int nxt = cur ^ 1;
      if constexpr (more) load_global();
      WS_UNROLL
      for (int k = 0; k < BK; ++k) {
        if constexpr (more) {
          if (k == BK - 1) {
            store_shared(nxt);
            t.syncthreads();  // the other buffer is full; every warp is done with it since the last
          }
        }
        if (k < BK - 1) {
          load_frag(cur, k + 1, fra[(k + 1) & 1][0], fra[(k + 1) & 1][1], frb[(k + 1) & 1][0],
                    frb[(k + 1) & 1][1]);
        } else if constexpr (more) {
          load_frag(nxt, 0, fra[0][0], fra[0][1], frb[0][0], frb[0][1]);
        }
        outer(acc, fra[k & 1][0], fra[k & 1][1], frb[k & 1][0], frb[k & 1][1]);
      }
    };
    const int tiles = n / BK;  // even: n is a multiple of 128
    int tt = 0;
    for (; tt + 2 < tiles; tt += 2) {
      tile(0, Const<1>{});
      tile(1, Const<1>{});
    }
    tile(0, Const<1>{});
    tile(1, Const<0>{});
    WS_UNROLL
    for (int i = 0; i < 8; ++i) {
      const int row = row0 + (warp / 4) * 64 + (i / 4) * 32 + (lane / 4) * 4 + i % 4;
      const std::int64_t base = std::int64_t(row) * q + col0 / 4 + fb;
      c4(base) = float4{acc[i][0], acc[i][1], acc[i][2], acc[i][3]};
      c4(base + 4) = float4{acc[i][4], acc[i][5], acc[i][6], acc[i][7]};
    }
  }
  // acc += a x b for one step of k (a: the thread's 8 rows, b: its 8 columns).
  WS_DEVICE static void outer(float (&acc)[8][8], const float4& a0, const float4& a1,
                              const float4& b0, const float4& b1) {
    const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
    const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
    WS_UNROLL
    for (int i = 0; i < 8; ++i) {
      WS_UNROLL
      for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  }
};
// Capped at 128 registers for two blocks an SM, as the H100 measurement was built.
#if defined(WS_MODE_FAST)
template <>
__global__ void __launch_bounds__(256, 2) ws_entry<MatmulPrefetched>(MatmulPrefetched k) {
  Thread t;
  k(t);
}
#endif

// Tuned: the warp-tiled kernel with its shape as knobs (the sweep picks them), every loop
// over the tile unrolled. Block tile BM x BN x BK, warp tile WM x WN, thread tile TM x TN
// as (TM/4) x (TN/4) pieces of 4 x 4, the pieces LM = WM/TM rows and LN = WN/TN columns
// of lanes apart (LM x LN = 32), so a quarter warp reads consecutive float4s of As and Bs:
// no bank conflict at any listed shape. Per step of k a thread loads TM/4 + TN/4 float4s
// and does TM x TN multiply-adds: 8 x 8 is 4 FMAs per shared load, 8 x 16 is 5.3. BK = 16
// halves the barriers per flop. As in warptiled, the next tile goes
// global -> registers -> the other buffer while this one's multiply-adds run, one barrier
// per tile; but in stages of 8 k: a stage's loads are issued before 8 steps of k and
// stored after them, so the prefetch holds bk=8's registers at any BK (holding a whole
// BK=16 tile took 153 registers: one 256-thread block per SM). A is gathered four
// rows at one k (whole sectors: BK consecutive lanes read BK consecutive floats) and
// stored transposed, its rows padded by one float4 so a quarter warp's 8 rows of k
// start on 8 different groups of 4 banks.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
struct MatmulTuned {
  static constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
  static constexpr int LM = WM / TM, LN = WN / TN;  // lanes along m and n
  static constexpr int kLoadsA = (BM / 4) * BK / kThreads;  // As float4s per thread
  static constexpr int kLoadsB = BK * (BN / 4) / kThreads;  // Bs float4s per thread
  static constexpr int kStages = BK / 8;  // prefetch stages per tile, 8 steps of k each
  static constexpr int kStageA = kLoadsA / kStages, kStageB = kLoadsB / kStages;
  static_assert(LM * LN == 32 && TM % 4 == 0 && TN % 4 == 0 && BM % WM == 0 && BN % WN == 0);
  static_assert(kLoadsA >= 1 && kLoadsA * kThreads == (BM / 4) * BK);
  static_assert(kLoadsB >= 1 && kLoadsB * kThreads == BK * (BN / 4) && BK % 8 == 0);
  static_assert(kStageA * kStages == kLoadsA && kStageB * kStages == kLoadsB && kStageA >= 1);
  static constexpr std::uint32_t kSharedBytes =
      (2 * BK * (BM / 4 + 1) + 2 * BK * (BN / 4)) * sizeof(float4);
  Global<const float> a;
  Global<const float4> b4;
  Global<float4> c4;
  int n;
  // As element e's float4 (k = e % BK, rows 4 * (e / BK) .. +3) of the tile at k0.
  WS_DEVICE float4 load_a(int row0, int k0, int e) const {
    int r = row0 + e / BK * 4, k = k0 + e % BK;
    return float4{a(r * n + k), a((r + 1) * n + k), a((r + 2) * n + k), a((r + 3) * n + k)};
  }
  WS_DEVICE void operator()(Thread& t) const {
    auto as = t.shared2d<float4>(2 * BK, BM / 4 + 1, "As");  // [buffer * BK + k][m/4]
    auto bs = t.shared2d<float4>(2 * BK, BN / 4, "Bs");
    int tid = t.threadIdx.x;
    int warp = tid / 32;
    int lane = tid % 32;
    int wm4 = (warp / (BN / WN)) * (WM / 4);  // the warp's first row / 4
    int wn4 = (warp % (BN / WN)) * (WN / 4);  // the warp's first column / 4
    int lm = lane / LN;  // rows 4*lm .. +3 of each piece
    int ln = lane % LN;  // columns 4*ln .. +3 of each piece
    int row0 = t.blockIdx.y * BM;
    int col0 = t.blockIdx.x * BN;
    float acc[TM][TN] = {};
    WS_UNROLL
    for (int l = 0; l < kLoadsA; ++l) {
      int e = tid + l * kThreads;
      as(e % BK, e / BK) = load_a(row0, 0, e);
    }
    WS_UNROLL
    for (int l = 0; l < kLoadsB; ++l) {
      int e = tid + l * kThreads;  // Bs element: row e / (BN/4), float4 column e % (BN/4)
      bs(e / (BN / 4), e % (BN / 4)) = b4(((e / (BN / 4)) * n + col0) / 4 + e % (BN / 4));
    }
    t.syncthreads();
    for (int k0 = 0; k0 < n; k0 += BK) {
      int cur = (k0 / BK) % 2 * BK;
      int next = BK - cur;
      bool more = k0 + BK < n;
      WS_UNROLL
      for (int s = 0; s < kStages; ++s) {
        float4 ra[kStageA];
        float4 rb[kStageB];
        if (more) {
          WS_UNROLL
          for (int l = 0; l < kStageA; ++l) ra[l] = load_a(row0, k0 + BK, tid + (s * kStageA + l) * kThreads);
          WS_UNROLL
          for (int l = 0; l < kStageB; ++l) {
            int e = tid + (s * kStageB + l) * kThreads;
            rb[l] = b4(((k0 + BK + e / (BN / 4)) * n + col0) / 4 + e % (BN / 4));
          }
        }
        WS_UNROLL
        for (int k = s * 8; k < s * 8 + 8; ++k) {
          float4 af[TM / 4];
          float4 bf[TN / 4];
          WS_UNROLL
          for (int i = 0; i < TM / 4; ++i) {
            af[i] = as(cur + k, wm4 + i * LM + lm);
          }
          WS_UNROLL
          for (int j = 0; j < TN / 4; ++j) {
            bf[j] = bs(cur + k, wn4 + j * LN + ln);
          }
          WS_UNROLL
          for (int i = 0; i < TM; ++i) {
            float av = i % 4 == 0 ? af[i / 4].x : i % 4 == 1 ? af[i / 4].y : i % 4 == 2 ? af[i / 4].z : af[i / 4].w;
            WS_UNROLL
            for (int j = 0; j < TN; ++j) {
              float bv = j % 4 == 0 ? bf[j / 4].x : j % 4 == 1 ? bf[j / 4].y : j % 4 == 2 ? bf[j / 4].z : bf[j / 4].w;
              acc[i][j] += av * bv;
            }
          }
        }
        if (more) {  // the other buffer: nobody reads it before the barrier
          WS_UNROLL
          for (int l = 0; l < kStageA; ++l) {
            int e = tid + (s * kStageA + l) * kThreads;
            as(next + e % BK, e / BK) = ra[l];
          }
          WS_UNROLL
          for (int l = 0; l < kStageB; ++l) {
            int e = tid + (s * kStageB + l) * kThreads;
            bs(next + e / (BN / 4), e % (BN / 4)) = rb[l];
          }
        }
      }
      t.syncthreads();
    }
    WS_UNROLL
    for (int i = 0; i < TM; ++i) {
      int row = row0 + wm4 * 4 + (i / 4) * LM * 4 + lm * 4 + i % 4;
      WS_UNROLL
      for (int j = 0; j < TN / 4; ++j) {
        c4((row * n + col0) / 4 + wn4 + j * LN + ln) =
            float4{acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]};
      }
    }
  }
};

namespace matmul_detail {

inline Plan plan(const Params& p, const char* kernel, Dim3 block, long long tile_m,
                 long long tile_n, std::uint32_t shared_bytes) {
  const long long n = p.at("n");
  Plan pl;
  const auto nn = std::uint64_t(n * n);
  pl.arrays = {{"A", 4, nn, false, {Fill::UnitFloat}},
               {"B", 4, nn, false, {Fill::UnitFloat}},
               {"C", 4, nn, true}};
  LaunchCfg c;
  c.kernel = kernel;
  c.grid = {unsigned(n / tile_n), unsigned(n / tile_m), 1};
  c.block = block;
  c.shared_bytes = shared_bytes;
  pl.launches = {c};
  pl.logical_bytes = 3.0 * double(n) * double(n) * 4.0;
  pl.flops = 2.0 * double(n) * double(n) * double(n);
  pl.ref.kind = RefKind::Gemm;  // C (array 2) = A (0) B (1)
  pl.ref.n = std::uint64_t(n);
  pl.ref.a = 0;
  pl.ref.b = 1;
  pl.ref.out = 2;
  return pl;
}

// `what` names the size n must be a multiple of: "tile", or "the block tile".
inline std::string check_multiple(const Params& p, long long m, const std::string& what) {
  const long long n = p.at("n");
  if (n % m != 0)
    return "n=" + std::to_string(n) + " is not a multiple of " + what + "=" + std::to_string(m) +
           " (" + (what.rfind("the ", 0) == 0 ? what : "the " + what) + " must divide n)";
  return "";
}

// Every element up to n = 512; above, 16 whole rows and 16 whole columns spread over C
// (every tile row and column of any variant is crossed), so a 4096^3 check stays well
// under a second. FP32 rounding grows like sqrt(n): the tolerance is 16 sqrt(n) ulps of
// the sum of |a||b|, far below what one wrong or missing term costs.
inline std::string verify(const HostArrays& h, const Params& p) {
  const long long n = p.at("n");
  auto A = h.as<float>(0);
  auto B = h.as<float>(1);
  auto C = h.as<float>(2);
  const double ulp = std::ldexp(1.0, -23);
  auto check = [&](long long i, long long j) -> std::string {
    double ref = 0, mag = 0;
    for (long long k = 0; k < n; ++k) {
      const double x = A[std::size_t(i * n + k)], y = B[std::size_t(k * n + j)];
      ref += x * y;
      mag += std::fabs(x * y);
    }
    const double got = C[std::size_t(i * n + j)];
    const double tol = 16.0 * std::sqrt(double(n)) * ulp * mag + 1e-6;
    if (!(std::fabs(got - ref) <= tol))
      return "C[" + std::to_string(i) + "][" + std::to_string(j) + "] = " +
             std::to_string(got) + ", expected " + std::to_string(ref);
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

inline ParamSpec n_param(long long min) {
  return {"n", 128, min, 8192, {}, "matrix side (floats)"};
}
using Tiles = Choices<4, 8, 16, 32>;
// warptiled's block rasterization: tile rows per group (1 = launch order, the default).
using WarpGroups = Choices<1, 4, 8, 16>;

inline ParamSpec tile_param() {
  return {"tile", 16, 0, 0, Tiles::list(), "tile side: the block is tile x tile threads"};
}

// The plan's float arrays seen four floats at a time.
inline Global<const float4> in4(const Args& a, int i) {
  return {static_cast<const float4*>(a.ptr.at(i)), a.count.at(i) / 4, std::uint8_t(i)};
}
inline Global<float4> out4(const Args& a, int i) {
  return {static_cast<float4*>(a.ptr.at(i)), a.count.at(i) / 4, std::uint8_t(i)};
}

inline std::string warptiled_check(const Params& p) {
  if (p.at("stages") != 0 && p.at("group") != 1 && p.at("group") != 8)
    return "stages=" + std::to_string(p.at("stages")) + " is compiled with group=1 or 8 only";
  return check_multiple(p, 128, "the block tile");
}

// The shapes of `tuned` that are compiled (each is a kernel of its own in every build):
// bm bn bk wm wn tm tn. The first is the default; bk, the one knob with listed values,
// runs at each of them from the default (the others are ranges: check refuses the rest).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
struct TunedShape {
  static constexpr long long knobs[7] = {BM, BN, BK, WM, WN, TM, TN};
  using Kernel = MatmulTuned<BM, BN, BK, WM, WN, TM, TN>;
};
template <class... S>
struct TunedShapeList {
  // @post f(s) for the shapes in order until one returns true; true iff one did.
  template <class F>
  static bool any(F&& f) { return (f(S{}) || ...); }
};
// The default: warptiled's shape at BK 16, 126 registers (two blocks per SM), half the barriers.
using TunedDefault = TunedShape<128, 128, 16, 64, 32, 8, 8>;
using TunedShapes = TunedShapeList<TunedDefault,
                                   TunedShape<128, 128, 8, 64, 32, 8, 8>,   // warptiled's shape
                                   TunedShape<128, 128, 16, 32, 64, 8, 8>,  // lanes 4 x 8
                                   TunedShape<128, 128, 16, 64, 64, 8, 16>, // 128 threads, 8 x 16
                                   TunedShape<128, 256, 8, 64, 64, 8, 16>,  // 256 threads, 8 x 16
                                   TunedShape<256, 128, 8, 64, 64, 16, 8>>; // 256 threads, 16 x 8
inline constexpr const char* kTunedKnobs[7] = {"bm", "bn", "bk", "wm", "wn", "tm", "tn"};

// Calls f(Shape{}) for the compiled shape whose knobs p sets.
// @post returns false (and calls nothing) iff no compiled shape has p's knobs.
template <class F>
bool tuned_dispatch(const Params& p, F&& f) {
  auto match = [&](auto s) {
    for (int i = 0; i < 7; ++i)
      if (p.at(kTunedKnobs[i]) != decltype(s)::knobs[i]) return false;
    return true;
  };
  return TunedShapes::any([&](auto s) { return match(s) && (f(s), true); });
}

inline std::string tuned_shapes_list() {
  std::string out;
  TunedShapes::any([&](auto s) {
    std::string k;
    for (long long v : decltype(s)::knobs) k += (k.empty() ? "" : ",") + std::to_string(v);
    out += (out.empty() ? "" : "; ") + k;
    return false;
  });
  return out;
}

inline std::vector<ParamSpec> tuned_params() {
  using D = TunedDefault;
  return {n_param(128),
          {"bm", D::knobs[0], 64, 256, {}, "block tile rows (a compiled shape: see check)"},
          {"bn", D::knobs[1], 64, 256, {}, "block tile columns"},
          {"bk", D::knobs[2], 0, 0, {8, 16}, "block tile depth: k per barrier"},
          {"wm", D::knobs[3], 32, 128, {}, "warp tile rows"},
          {"wn", D::knobs[4], 32, 128, {}, "warp tile columns"},
          {"tm", D::knobs[5], 4, 16, {}, "thread tile rows (results per thread: tm x tn)"},
          {"tn", D::knobs[6], 4, 16, {}, "thread tile columns"}};
}

inline std::string tuned_check(const Params& p) {
  if (!tuned_dispatch(p, [](auto) {})) {
    std::string got;
    for (const char* k : kTunedKnobs) got += (got.empty() ? "" : ",") + std::to_string(p.at(k));
    return "bm,bn,bk,wm,wn,tm,tn = " + got + " is not a compiled shape (compiled: " +
           tuned_shapes_list() + ")";
  }
  const long long n = p.at("n"), bm = p.at("bm"), bn = p.at("bn");
  if (n % bm != 0 || n % bn != 0)
    return "n=" + std::to_string(n) + " is not a multiple of the block tile " +
           std::to_string(bm) + " x " + std::to_string(bn) + " (the block tile must divide n)";
  return "";
}

inline Plan tuned_plan(const Params& p) {
  Plan pl;
  tuned_dispatch(p, [&](auto s) {
    using K = typename decltype(s)::Kernel;
    pl = plan(p, "matmul_tuned", {unsigned(K::kThreads), 1, 1}, s.knobs[0], s.knobs[1],
              K::kSharedBytes);
  });
  return pl;
}

}  // namespace matmul_detail

// @post appends the matmul family and its variants to r in teaching order (naive to
//       warptiled, then tuned: warptiled's warp and thread tiles at bk=16, as knobs).
inline void add_matmul(Registry& r) {
  using namespace matmul_detail;
  r.family({.name = "matmul",
            .source_file = "kernels/families/matmul.cuh",
            .peers = {Peer::CublasSgemm},
            .size_params = {"n"},
            .timing = {{"n", 4096}},
            .small = {{"n", 128}},
            .latency = {.variant = "warptiled"},
            .bar_sizes = {{{"n", 4096}}},
            .recorded_sweeps = {{"tiled", {{"n", 4096}}, "tile", {8, 16, 32}}}});
  r.add({.info = {.name = "naive",
                  .title = "Naive",
                  .why = "The baseline: every multiply-add issues two global loads.",
                  .entry = "MatmulNaive",
                  .params = {n_param(16), tile_param()},
                  .check = [](const Params& p) { return check_multiple(p, p.at("tile"), "tile"); },
                  .plan = [](const Params& p) {
                    const unsigned tl = unsigned(p.at("tile"));
                    return plan(p, "matmul_naive", {tl, tl, 1}, tl, tl, 0);
                  },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], MatmulNaive{a.in<float>(0), a.in<float>(1),
                                                a.out<float>(2), int(p.at("n"))});
         }});
  r.add({.info = {.name = "tiled",
                  .title = "Shared-memory tiles",
                  .why = "Faster than naive: each element loaded from global memory is reused "
                         "TILE times from shared memory; bigger tiles, more reuse.",
                  .entry = "MatmulTiled",
                  .params = {n_param(16), tile_param()},
                  .check = [](const Params& p) { return check_multiple(p, p.at("tile"), "tile"); },
                  .plan = [](const Params& p) {
                    const unsigned tl = unsigned(p.at("tile"));
                    std::uint32_t bytes = 0;
                    Tiles::dispatch(tl, [&]<long long T>() { bytes = MatmulTiled<T>::kSharedBytes; });
                    return plan(p, "matmul_tiled", {tl, tl, 1}, tl, tl, bytes);
                  },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           const LaunchCfg& c = pl.launches[0];
           auto A = a.in<float>(0);
           auto B = a.in<float>(1);
           auto C = a.out<float>(2);
           const int n = int(p.at("n"));
           with_choice<Tiles>(L, "tile", p.at("tile"), [&]<long long T>() {
             L.launch(c, MatmulTiled<T>{A, B, C, n});
           });
         }});
  r.add({.info = {.name = "reg_1d",
                  .title = "1D register blocking (64 x 64, 8 per thread)",
                  .why = "Faster than tiles: each B value read from shared memory serves 8 "
                         "results held in registers, so shared loads per multiply-add drop from "
                         "2 to 9/8.",
                  .entry = "MatmulReg1D",
                  .params = {n_param(64)},
                  .check = [](const Params& p) { return check_multiple(p, 64, "the block tile"); },
                  .plan = [](const Params& p) {
                    return plan(p, "matmul_reg_1d", {512, 1, 1}, 64, 64, MatmulReg1D::kSharedBytes);
                  },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], MatmulReg1D{a.in<float>(0), a.in<float>(1),
                                                a.out<float>(2), int(p.at("n"))});
         }});
  r.add({.info = {.name = "reg_2d",
                  .title = "2D register blocking (128 x 128, 8 x 8 per thread)",
                  .why = "Faster: an 8 x 8 micro-tile per thread turns 16 shared loads into 64 "
                         "multiply-adds (1/4 load per FMA); A's reads still have a 2-way "
                         "conflict.",
                  .entry = "MatmulReg2D",
                  .params = {n_param(128)},
                  .check = [](const Params& p) { return check_multiple(p, 128, "the block tile"); },
                  .plan = [](const Params& p) {
                    return plan(p, "matmul_reg_2d", {256, 1, 1}, 128, 128,
                                MatmulReg2D::kSharedBytes);
                  },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], MatmulReg2D{a.in<float>(0), a.in<float>(1),
                                                a.out<float>(2), int(p.at("n"))});
         }});
  r.add({.info = {.name = "vectorized",
                  .title = "Vectorized (float4, A transposed)",
                  .why = "Faster: float4 loads and stores everywhere and A stored transposed, "
                         "four times fewer load instructions; a 2-way conflict on B remains.",
                  .entry = "MatmulVectorized",
                  .params = {n_param(128)},
                  .check = [](const Params& p) { return check_multiple(p, 128, "the block tile"); },
                  .plan = [](const Params& p) {
                    return plan(p, "matmul_vectorized", {256, 1, 1}, 128, 128,
                                MatmulVectorized::kSharedBytes);
                  },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], MatmulVectorized{in4(a, 0), in4(a, 1), out4(a, 2),
                                                     int(p.at("n"))});
         }});
  r.add({.info = {.name = "warptiled",
                  .title = "Warp-tiled, double-buffered",
                  .why = "Faster: lanes laid out by warp remove the last bank conflicts and "
                         "halve the C sectors; two shared buffers overlap the next tile's loads "
                         "with the multiply-adds; few enough registers for two blocks per SM.",
                  .entry = "MatmulWarpTiled",
                  .params = {n_param(128),
                             {"group", 1, 0, 0, WarpGroups::list(),
                              "tile rows a run of consecutive blocks walks (1: launch order)"},
                             {"stages", 0, 0, 0, {0, 2, 3, 4},
                              "0: tiles staged through registers; 2-4: cp.async, tiles in flight"}},
                  .check = warptiled_check,
                  .plan = [](const Params& p) {
                    std::uint32_t bytes = MatmulWarpTiled<>::kSharedBytes;
                    if (p.at("stages") != 0)
                      Choices<2, 3, 4>::dispatch(p.at("stages"), [&]<long long S>() {
                        bytes = MatmulWarpTiledAsync<int(S)>::kSharedBytes;
                      });
                    return plan(p, "matmul_warptiled", {256, 1, 1}, 128, 128, bytes);
                  },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           if (const long long st = p.at("stages"); st != 0) {
             with_choice<Choices<2, 3, 4>>(L, "stages", st, [&]<long long S>() {
               with_choice<Choices<1, 8>>(L, "group", p.at("group"), [&]<long long G>() {
                 L.launch(pl.launches[0], MatmulWarpTiledAsync<int(S), int(G)>{
                                              in4(a, 0), in4(a, 1), out4(a, 2), int(p.at("n"))});
               });
             });
             return;
           }
           with_choice<WarpGroups>(L, "group", p.at("group"), [&]<long long G>() {
             L.launch(pl.launches[0], MatmulWarpTiled<int(G)>{a.in<float>(0), in4(a, 1),
                                                              out4(a, 2), int(p.at("n"))});
           });
         }});
  r.add({.info = {.name = "prefetched",
                  .title = "Warp-tiled, fragments prefetched",
                  .why = "Fastest: warptiled's tiles with A read as one float4 and turned in "
                         "shared, the next step's fragments loaded under this step's "
                         "multiply-adds, and a loop with no test in it; blocks walk 8 tile rows.",
                  .entry = "MatmulPrefetched",
                  .params = {n_param(128)},
                  .check = [](const Params& p) { return check_multiple(p, 128, "the block tile"); },
                  .plan = [](const Params& p) {
                    return plan(p, "matmul_prefetched", {256, 1, 1}, 128, 128,
                                MatmulPrefetched::kSharedBytes);
                  },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], MatmulPrefetched{in4(a, 0), in4(a, 1), out4(a, 2),
                                                     int(p.at("n"))});
         }});
  r.add({.info = {.name = "tuned",
                  .title = "Tuned warp tile (shape as knobs)",
                  .why = "Not faster than warptiled on the H100 (its recorded bars): bk=16 "
                         "halves the barriers and still fits two blocks per SM, bigger thread "
                         "tiles do more FMAs per shared load, yet none gains; what cuBLAS has "
                         "beyond this is instruction scheduling in the SASS, not tile shape.",
                  .entry = "MatmulTuned",
                  .params = tuned_params(),
                  .check = tuned_check,
                  .plan = tuned_plan,
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           const bool ok = tuned_dispatch(p, [&](auto s) {
             using K = typename decltype(s)::Kernel;
             L.launch(pl.launches[0], K{a.in<float>(0), in4(a, 1), out4(a, 2), int(p.at("n"))});
           });
           if (!ok) L.refuse(tuned_check(p));
         }});
}

WS_END_MODE
