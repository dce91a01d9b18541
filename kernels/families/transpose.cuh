#pragma once
// Matrix transpose: out = in^T for an n x n float matrix. Every variant moves the same
// 2 * n^2 * 4 bytes; what changes is how each warp's accesses fall on sectors and banks.
// Bodies are the lesson's code: keep each access on its own line.
#include <cmath>
#include "kernels/dialect/registry.h"
#include "kernels/dialect/simt_tensor.h"  // bulk_store: one line, so the kernels keep their lines

WS_BEGIN_MODE

// Copy: the same launch shape as the transposes below, but every thread writes where
// it read. Both accesses of a warp are 32 consecutive floats (4 sectors per request),
// the ideal pattern. It is still not the fastest kernel of the family: its loop runs to
// blockDim.x, a run-time value, so it is not unrolled and each thread waits for one load
// at a time. Compare it with the tiled copy below, whose loops are unrolled.
struct TransposeCopy {
  Global<const float> in;
  Global<float> out;
  int n;
  WS_DEVICE void operator()(Thread& t) const {
    int x = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    int y = t.blockIdx.y * t.blockDim.x + t.threadIdx.y;
    for (int j = 0; j < int(t.blockDim.x); j += t.blockDim.y) {
      out((y + j) * n + x) = in((y + j) * n + x);
    }
  }
};

// Tiled copy: the copy routed through a shared tile, with the barrier a tiled
// transpose needs. Every element takes a round trip through shared memory and each
// block waits at the barrier, but the tile and its rows per thread are template
// parameters, so the loops are unrolled and each thread has all its loads in flight
// before the barrier (the plain copy above has one). Rows go in and out of the tile the
// same way, so there are no bank conflicts; this is the ceiling for the tiled
// transposes.
template <int TILE, int ROWS>
struct TransposeTiledCopy {
  Global<const float> in;
  Global<float> out;
  int n;
  // The shared tile the body carves; the plan launches with exactly this much.
  static constexpr std::uint32_t shared_bytes() { return TILE * TILE * sizeof(float); }
  WS_DEVICE void operator()(Thread& t) const {
    auto s = t.shared2d<float>(TILE, TILE, "tile");
    int x = t.blockIdx.x * TILE + t.threadIdx.x;
    int y = t.blockIdx.y * TILE + t.threadIdx.y;
    WS_UNROLL
    for (int j = 0; j < TILE; j += ROWS) {
      s(t.threadIdx.y + j, t.threadIdx.x) = in((y + j) * n + x);
    }
    t.syncthreads();
    WS_UNROLL
    for (int j = 0; j < TILE; j += ROWS) {
      out((y + j) * n + x) = s(t.threadIdx.y + j, t.threadIdx.x);
    }
  }
};

// Naive: each thread moves one element. The read of a warp is 32 consecutive floats
// (4 sectors); the write strides by n floats, so every lane lands in its own sector:
// 32 sectors per store request, 8x the bytes the store needs.
struct TransposeNaive {
  Global<const float> in;
  Global<float> out;
  int n;
  WS_DEVICE void operator()(Thread& t) const {
    int x = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    int y = t.blockIdx.y * t.blockDim.x + t.threadIdx.y;
    for (int j = 0; j < int(t.blockDim.x); j += t.blockDim.y) {
      out(x * n + (y + j)) = in((y + j) * n + x);
    }
  }
};

// Tiled: a block stages a tile in shared memory, so both the global read and the global
// write are row-wise and coalesced (4 sectors per request). The price moves to shared
// memory: reading a tile column with `pad == 0` puts all 32 lanes in one bank, a 32-way
// conflict. `pad == 1` shifts each row by one bank and the conflict disappears. TILE and
// ROWS (= blockDim.y) are template parameters: with TILE / ROWS known, both loops are
// unrolled and a thread's TILE / ROWS loads are all in flight before the barrier.
template <int TILE, int ROWS>
struct TransposeTiled {
  Global<const float> in;
  Global<float> out;
  int n, pad;
  // The shared tile the body carves; the plan launches with exactly this much.
  static constexpr std::uint32_t shared_bytes(int pad) {
    return TILE * (TILE + pad) * sizeof(float);
  }
  WS_DEVICE void operator()(Thread& t) const {
    auto s = t.shared2d<float>(TILE, TILE + pad, "tile");
    int x = t.blockIdx.x * TILE + t.threadIdx.x;
    int y = t.blockIdx.y * TILE + t.threadIdx.y;
    WS_UNROLL
    for (int j = 0; j < TILE; j += ROWS) {
      s(t.threadIdx.y + j, t.threadIdx.x) = in((y + j) * n + x);
    }
    t.syncthreads();
    x = t.blockIdx.y * TILE + t.threadIdx.x;
    y = t.blockIdx.x * TILE + t.threadIdx.y;
    WS_UNROLL
    for (int j = 0; j < TILE; j += ROWS) {
      out((y + j) * n + x) = s(t.threadIdx.x, t.threadIdx.y + j);
    }
  }
};

// Diagonal: the tiled transpose with the blocks renumbered along diagonals. On GT200
// (the course slides), memory was split into a few partitions by address, and blocks
// running side by side hit the same partition ("partition camping"); walking the tiles
// diagonally spread them out. Hopper hashes addresses over its channels, so expect no
// gain over tiled: the counts are identical by construction, only the block order moves.
template <int TILE, int ROWS>
struct TransposeDiagonal {
  Global<const float> in;
  Global<float> out;
  int n, pad;
  // The shared tile the body carves; the plan launches with exactly this much.
  static constexpr std::uint32_t shared_bytes(int pad) {
    return TILE * (TILE + pad) * sizeof(float);
  }
  WS_DEVICE void operator()(Thread& t) const {
    auto s = t.shared2d<float>(TILE, TILE + pad, "tile");
    int by = t.blockIdx.x;
    int bx = (t.blockIdx.x + t.blockIdx.y) % t.gridDim.x;
    int x = bx * TILE + t.threadIdx.x;
    int y = by * TILE + t.threadIdx.y;
    WS_UNROLL
    for (int j = 0; j < TILE; j += ROWS) {
      s(t.threadIdx.y + j, t.threadIdx.x) = in((y + j) * n + x);
    }
    t.syncthreads();
    x = by * TILE + t.threadIdx.x;
    y = bx * TILE + t.threadIdx.y;
    WS_UNROLL
    for (int j = 0; j < TILE; j += ROWS) {
      out((y + j) * n + x) = s(t.threadIdx.x, t.threadIdx.y + j);
    }
  }
};

// Vec4: 16-byte accesses on both global sides and TILE x TILE tiles (64: 256-byte row
// segments, 16 KB of a block in flight). A thread reads a 4 x 4 block of the input as
// four float4 rows, turns it in registers, and stores it as four float4 columns of the
// output tile; the write side reads float4 rows of that tile. Shared stays conflict-free
// without padding, by an XOR swizzle: the float4 at (row r, column q) lives at column
// q ^ (r/4 % 8), so the 8 lanes of a quarter warp, which store rows 4p + c of 8 different
// p, land on 8 different groups of 4 banks. Each thread has its (TILE/4) / ROWS blocks'
// loads, 64 bytes each, in flight before the first store. With TILES > 1 a block turns
// TILES tiles down one column of blocks, and the next tile's loads are issued before this
// tile's write-out: no bubble between a block's read and write phases. GROUP > 1 (the
// group knob) renumbers the blocks first (walk).
template <int TILE, int ROWS, int TILES = 1, int GROUP = 1>
struct TransposeVec4 {
  Global<const float4> in4;
  Global<float4> out4;
  int n;
  static constexpr int Q = TILE / 4;     // float4s per tile row
  static constexpr int NB = Q / ROWS;    // 4 x 4 blocks per thread
  static constexpr std::uint32_t shared_bytes() { return TILE * TILE * sizeof(float); }
  WS_DEVICE void operator()(Thread& t) const {
    walk(t);
    auto s = t.shared2d<float4>(TILE, Q, "tile");
    int p = t.threadIdx.x;  // this thread's float4 column of the input tile
    int x4 = t.blockIdx.x * Q + p;
    float4 r[NB][4];
    load(t, r, x4, t.blockIdx.y * TILES * TILE);
    WS_UNROLL
    for (int k = 0; k < TILES; ++k) {
      if (k > 0) t.syncthreads();  // the previous tile's write-out has read shared
      WS_UNROLL
      for (int j = 0; j < NB; ++j) {
        int q = (t.threadIdx.y + j * ROWS) ^ (p % 8);
        s(4 * p + 0, q) = float4{r[j][0].x, r[j][1].x, r[j][2].x, r[j][3].x};
        s(4 * p + 1, q) = float4{r[j][0].y, r[j][1].y, r[j][2].y, r[j][3].y};
        s(4 * p + 2, q) = float4{r[j][0].z, r[j][1].z, r[j][2].z, r[j][3].z};
        s(4 * p + 3, q) = float4{r[j][0].w, r[j][1].w, r[j][2].w, r[j][3].w};
      }
      t.syncthreads();
      int by = t.blockIdx.y * TILES + k;  // this tile's row of tiles
      if (k + 1 < TILES) load(t, r, x4, (by + 1) * TILE);
      int c = t.threadIdx.x;  // this thread's float4 column of the output tile
      int y = t.blockIdx.x * TILE;
      WS_UNROLL
      for (int j = 0; j < TILE / ROWS; ++j) {
        int row = t.threadIdx.y + j * ROWS;
        out4((y + row) * (n / 4) + by * Q + c) = s(row, c ^ (row / 4 % 8));
      }
    }
  }
  // Renumbers this block (t.blockIdx, as the body sees it) so that consecutive blocks
  // walk GROUP rows of blocks column by column (matmul's block rasterization, here for
  // the writes): blocks resident together then write side by side along output rows
  // instead of a tile's height apart. GROUP = 1 leaves the launch order; the last group
  // is cut short to the rows left.
  WS_DEVICE static void walk(Thread& t) {
    if constexpr (GROUP > 1) {
      int id = t.blockIdx.y * t.gridDim.x + t.blockIdx.x;
      int per = GROUP * t.gridDim.x;  // blocks in one group of GROUP rows
      int first = id / per * GROUP;
      int rows = t.gridDim.y - first < GROUP ? t.gridDim.y - first : GROUP;
      t.blockIdx.y = first + id % per % rows;
      t.blockIdx.x = id % per / rows;
    }
  }
  // The thread's NB blocks of 4 x 4 of the tile whose first input row is y, into r.
  WS_DEVICE void load(Thread& t, float4 (&r)[NB][4], int x4, int y) const {
    WS_UNROLL
    for (int j = 0; j < NB; ++j) {
      int q = t.threadIdx.y + j * ROWS;  // input rows 4q .. 4q+3
      WS_UNROLL
      for (int i = 0; i < 4; ++i) {
        r[j][i] = in4((y + 4 * q + i) * (n / 4) + x4);
      }
    }
  }
};

// Bulk: vec4's loads and turn, but the turned tile leaves shared memory through the copy
// engine (TMA): after a barrier, one thread per output row hands it the row's TILE * 4
// bytes (cp.async.bulk), so no lane issues a global store and the writes stream from
// shared memory to the L2 while the block's warps are already done. A bulk copy reads a
// shared row as one run, so the tile cannot be swizzled inside its rows; it is skewed
// instead, 16 bytes after every 4 output rows, which keeps the turned stores conflict-free
// (the 8 lanes of a quarter warp write rows 4p + i of 8 different p). The price: the copy
// engine cuts a row where its shared source crosses a 128-byte line, and a row starting 16
// or 48 bytes into a line is written as 10 sectors where 8 hold it (1.125 x the bytes to
// the L2; the L2 merges them before DRAM).
template <int TILE, int ROWS, int GROUP = 1>
struct TransposeBulk {
  Global<const float4> in4;
  Global<float4> out4;
  int n;
  static constexpr int Q = TILE / 4;   // float4s per tile row
  static constexpr int NB = Q / ROWS;  // 4 x 4 blocks per thread
  // TILE / 4 groups of 4 output rows, each group followed by one float4 of skew.
  static constexpr std::uint32_t shared_bytes() { return (TILE / 4) * (4 * Q + 1) * 16; }
  WS_DEVICE void operator()(Thread& t) const {
    TransposeVec4<TILE, ROWS, 1, GROUP>::walk(t);
    // Output row r of the tile is row r / 4 of `s`, from column r % 4 * Q.
    auto s = t.shared2d<float4>(TILE / 4, 4 * Q + 1, "tile");
    int p = t.threadIdx.x;  // this thread's float4 column of the input tile
    int x4 = t.blockIdx.x * Q + p;
    int y = t.blockIdx.y * TILE;
    float4 r[NB][4];
    WS_UNROLL
    for (int j = 0; j < NB; ++j) {
      int q = t.threadIdx.y + j * ROWS;  // input rows 4q .. 4q+3
      WS_UNROLL
      for (int i = 0; i < 4; ++i) {
        r[j][i] = in4((y + 4 * q + i) * (n / 4) + x4);
      }
    }
    WS_UNROLL
    for (int j = 0; j < NB; ++j) {
      int q = t.threadIdx.y + j * ROWS;
      s(p, 0 * Q + q) = float4{r[j][0].x, r[j][1].x, r[j][2].x, r[j][3].x};
      s(p, 1 * Q + q) = float4{r[j][0].y, r[j][1].y, r[j][2].y, r[j][3].y};
      s(p, 2 * Q + q) = float4{r[j][0].z, r[j][1].z, r[j][2].z, r[j][3].z};
      s(p, 3 * Q + q) = float4{r[j][0].w, r[j][1].w, r[j][2].w, r[j][3].w};
    }
    bulk_fence(t);  // the stores above, visible to the copy engine after the barrier
    t.syncthreads();
    for (int row = t.threadIdx.y * Q + t.threadIdx.x; row < TILE; row += Q * ROWS) {
      bulk_store<Q>(t, out4, (t.blockIdx.x * TILE + row) * (n / 4) + t.blockIdx.y * Q, s, row / 4,
                    row % 4 * Q);
    }
    bulk_commit(t);
    bulk_wait_read<0>(t);  // the block's shared memory must outlive the copies' reads
  }
};

namespace transpose_detail {

using Tiles = Choices<8, 16, 32>;
// block_rows: a power of two dividing the tile (check() makes sure), so one of these.
using Rows = Choices<1, 2, 4, 8, 16, 32>;

inline Plan plan(const Params& p, const char* kernel, std::uint32_t shared_bytes) {
  const long long n = p.at("n"), tile = p.at("tile"), rows = p.at("block_rows");
  Plan pl;
  pl.arrays = {{"in", 4, std::uint64_t(n * n), false, {Fill::UnitFloat}},
               {"out", 4, std::uint64_t(n * n), true}};
  LaunchCfg c;
  c.kernel = kernel;
  c.grid = {unsigned(n / tile), unsigned(n / tile), 1};
  c.block = {unsigned(tile), unsigned(rows), 1};
  c.shared_bytes = shared_bytes;
  pl.launches = {c};
  pl.logical_bytes = 2.0 * double(n) * double(n) * 4.0;
  // A copy gathers out[i] = in[i]; a transpose swaps the indices.
  const bool copy = std::string_view(kernel).find("copy") != std::string_view::npos;
  pl.ref.kind = copy ? RefKind::Gather : RefKind::Transpose;
  pl.ref.count = std::uint64_t(n * n);
  pl.ref.n = std::uint64_t(n);
  return pl;
}

// The shared bytes of kernel K's instance for this tile, from K itself.
template <template <int, int> class K, class... A>
std::uint32_t tile_shared_bytes(const Params& p, A... a) {
  std::uint32_t b = 0;
  Tiles::dispatch(p.at("tile"), [&]<long long T>() { b = K<T, 1>::shared_bytes(a...); });
  return b;
}

inline std::string check(const Params& p) {
  const long long n = p.at("n"), tile = p.at("tile"), rows = p.at("block_rows");
  if (n % tile != 0)
    return "n=" + std::to_string(n) + " is not a multiple of tile=" + std::to_string(tile) +
           " (the tile must divide n)";
  if (tile % rows != 0)
    return "block_rows=" + std::to_string(rows) + " does not divide tile=" +
           std::to_string(tile) + " (each thread moves tile/block_rows elements)";
  return "";
}

inline std::string verify(const HostArrays& h, const Params& p) {
  const long long n = p.at("n");
  auto in = h.as<float>(0);
  auto out = h.as<float>(1);
  for (long long y = 0; y < n; ++y)
    for (long long x = 0; x < n; ++x)
      if (out[x * n + y] != in[y * n + x])
        return "out[" + std::to_string(x) + "][" + std::to_string(y) + "] = " +
               std::to_string(out[x * n + y]) + ", expected " + std::to_string(in[y * n + x]);
  return "";
}

inline std::string verify_copy(const HostArrays& h, const Params& p) {
  const long long n = p.at("n");
  auto in = h.as<float>(0);
  auto out = h.as<float>(1);
  for (long long i = 0; i < n * n; ++i)
    if (out[i] != in[i])
      return "out[" + std::to_string(i / n) + "][" + std::to_string(i % n) + "] = " +
             std::to_string(out[i]) + ", expected " + std::to_string(in[i]);
  return "";
}

inline std::vector<ParamSpec> params(bool with_pad, long long rows_def, long long pad_def = 0) {
  std::vector<ParamSpec> ps = {
      {"n", 1024, 32, 16384, {}, "matrix side (floats)"},
      {"tile", 32, 0, 0, Tiles::list(), "tile side: threads per block in x"},
      {"block_rows", rows_def, 1, 32, {}, "threads per block in y; each does tile/block_rows rows"},
  };
  if (with_pad) ps.push_back({"pad", pad_def, 0, 2, {}, "extra floats per shared row"});
  return ps;
}

// One instance per (tile, block_rows) the parameters allow: the kernel's loops are then
// unrolled (see TransposeTiled).
template <template <int, int> class K, class... Extra>
void launch_tiled(Launcher& L, const Params& p, const Plan& pl, const Args& a, Extra... extra) {
  const LaunchCfg& c = pl.launches[0];
  with_choice<Tiles>(L, "tile", p.at("tile"), [&]<long long T>() {
    with_choice<Rows>(L, "block_rows", p.at("block_rows"), [&]<long long R>() {
      if constexpr (R <= T)
        L.launch(c, K<T, R>{a.in<float>(0), a.out<float>(1), extra...});
      else
        L.refuse("block_rows=" + std::to_string(R) + " exceeds tile=" + std::to_string(T));
    });
  });
}

// Vec4's tiles and its thread rows: at most 4 blocks of 4 x 4 per thread (their 64
// registers are the loads in flight), so block_rows >= tile/16.
using VecTiles = Choices<32, 64>;
// Vec4's block walk: rows of blocks per group (1 = launch order; 128 at n = 8192, tile 64:
// whole columns of blocks).
using VecGroups = Choices<1, 8, 32, 128>;

inline std::string check_vec4(const Params& p) {
  const long long n = p.at("n"), tile = p.at("tile"), rows = p.at("block_rows");
  if (n % tile != 0)
    return "n=" + std::to_string(n) + " is not a multiple of tile=" + std::to_string(tile) +
           " (the tile must divide n)";
  if ((tile / 4) % rows != 0 || tile / 4 / rows > 4)
    return "block_rows=" + std::to_string(rows) + " must divide tile/4=" +
           std::to_string(tile / 4) + " and be at least tile/16=" + std::to_string(tile / 16) +
           " (each thread turns tile/4/block_rows blocks of 4 x 4, at most 4)";
  if (const long long k = p.at("tiles"); k == 3)
    return "tiles=3 is not compiled: a block turns 1, 2 or 4 tiles";
  if (p.at("tiles") != 1 && p.at("group") != 1)
    return "group=" + std::to_string(p.at("group")) +
           " is compiled for tiles=1 only (the walk renumbers blocks of one tile)";
  if (const long long k = p.at("tiles"); (n / tile) % k != 0)
    return "tiles=" + std::to_string(k) + " does not divide the " + std::to_string(n / tile) +
           " tiles of a column (n/tile): each block turns tiles tiles of one column";
  return "";
}

inline Plan plan_vec4(const Params& p) {
  Plan pl = plan(p, "transpose_vec4", std::uint32_t(p.at("tile") * p.at("tile") * 4));
  pl.launches[0].block.x = unsigned(p.at("tile") / 4);
  pl.launches[0].grid.y /= unsigned(p.at("tiles"));
  return pl;
}

inline Global<const float4> in4(const Args& a, int i) {
  return {static_cast<const float4*>(a.ptr.at(i)), a.count.at(i) / 4, std::uint8_t(i)};
}
inline Global<float4> out4(const Args& a, int i) {
  return {static_cast<float4*>(a.ptr.at(i)), a.count.at(i) / 4, std::uint8_t(i)};
}

inline void launch_vec4(Launcher& L, const Params& p, const Plan& pl, const Args& a) {
  const LaunchCfg& c = pl.launches[0];
  with_choice<VecTiles>(L, "tile", p.at("tile"), [&]<long long T>() {
    with_choice<Choices<2, 4, 8, 16>>(L, "block_rows", p.at("block_rows"), [&]<long long R>() {
      if constexpr ((T / 4) % R == 0 && T / 4 / R <= 4)
        with_choice<Choices<1, 2, 4>>(L, "tiles", p.at("tiles"), [&]<long long K>() {
          if constexpr (K == 1)  // the walk is compiled for one tile a block only
            with_choice<VecGroups>(L, "group", p.at("group"), [&]<long long G>() {
              L.launch(c, TransposeVec4<T, R, 1, int(G)>{in4(a, 0), out4(a, 1), int(p.at("n"))});
            });
          else if (p.at("group") != 1)
            L.refuse(check_vec4(p));
          else
            L.launch(c, TransposeVec4<T, R, K>{in4(a, 0), out4(a, 1), int(p.at("n"))});
        });
      else
        L.refuse(check_vec4(p));
    });
  });
}

inline std::string check_bulk(const Params& p) {
  const long long n = p.at("n"), tile = p.at("tile"), rows = p.at("block_rows");
  if (n % tile != 0)
    return "n=" + std::to_string(n) + " is not a multiple of tile=" + std::to_string(tile) +
           " (the tile must divide n)";
  if ((tile / 4) % rows != 0 || tile / 4 / rows > 4)
    return "block_rows=" + std::to_string(rows) + " must divide tile/4=" +
           std::to_string(tile / 4) + " and be at least tile/16=" + std::to_string(tile / 16) +
           " (each thread turns tile/4/block_rows blocks of 4 x 4, at most 4)";
  return "";
}

inline Plan plan_bulk(const Params& p) {
  const long long tile = p.at("tile");
  Plan pl = plan(p, "transpose_bulk", std::uint32_t((tile / 4) * (tile + 1) * 16));
  pl.launches[0].block.x = unsigned(tile / 4);
  return pl;
}

inline void launch_bulk(Launcher& L, const Params& p, const Plan& pl, const Args& a) {
  const LaunchCfg& c = pl.launches[0];
  with_choice<VecTiles>(L, "tile", p.at("tile"), [&]<long long T>() {
    with_choice<Choices<2, 4, 8, 16>>(L, "block_rows", p.at("block_rows"), [&]<long long R>() {
      if constexpr ((T / 4) % R == 0 && T / 4 / R <= 4)
        with_choice<VecGroups>(L, "group", p.at("group"), [&]<long long G>() {
          L.launch(c, TransposeBulk<T, R, int(G)>{in4(a, 0), out4(a, 1), int(p.at("n"))});
        });
      else
        L.refuse(check_bulk(p));
    });
  });
}

}  // namespace transpose_detail

// @post appends the transpose family and its variants to r in teaching order (copy,
//       tiled_copy, naive, tiled, diagonal, vec4, bulk).
inline void add_transpose(Registry& r) {
  using namespace transpose_detail;
  r.family({.name = "transpose",
            .source_file = "kernels/families/transpose.cuh",
            .peers = {Peer::MemcpyD2D},
            .copy_bytes = [](const Params& p) { return 4.0 * double(p.at("n")) * double(p.at("n")); },
            .sweeps = {{"tile", "pad"}},
            .size_params = {"n"},
            .compare_flip = "pad",
            .timing = {{"n", 8192}},
            .small = {{"n", 64}},
            .demo = true,
            .latency = {.variant = "tiled", .block_at_timing = true,
                        .sweep_xs = {8, 16, 32}, .sweep_ss = {0, 1, 2}},
            .bar_sizes = {{{"n", 8192}}, {{"n", 8192}, {"pad", 1}}},
            .recorded_sweeps = {{"naive", {{"n", 8192}}, "block_rows", {8, 16, 32}},
                                {"tiled", {{"n", 8192}, {"pad", 1}}, "block_rows", {1, 2, 4, 8, 16, 32}},
                                {"tiled_copy", {{"n", 8192}}, "block_rows", {1, 2, 4, 8, 16, 32}}}});
  r.add({.info = {.name = "copy",
                  .title = "Copy (no transpose)",
                  .why = "Not a transpose: the same launch copying rows to rows, both accesses "
                         "coalesced, one load in flight per thread (the loop is not unrolled).",
                  .entry = "TransposeCopy",
                  .params = params(false, 8),
                  .check = check,
                  .plan = [](const Params& p) { return plan(p, "transpose_copy", 0); },
                  .verify = verify_copy},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0],
                    TransposeCopy{a.in<float>(0), a.out<float>(1), int(p.at("n"))});
         }});
  r.add({.info = {.name = "tiled_copy",
                  .title = "Copy through a shared tile",
                  .why = "Faster than the plain copy despite the round trip through shared "
                         "memory and the barrier: its loops are unrolled, so every load of a "
                         "thread is in flight at once. The ceiling for the tiled transposes.",
                  .entry = "TransposeTiledCopy",
                  .params = params(false, 8),
                  .check = check,
                  .plan =
                      [](const Params& p) {
                        return plan(p, "transpose_tiled_copy",
                                    tile_shared_bytes<TransposeTiledCopy>(p));
                      },
                  .verify = verify_copy},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           launch_tiled<TransposeTiledCopy>(L, p, pl, a, int(p.at("n")));
         }});
  r.add({.info = {.name = "naive",
                  .title = "Naive",
                  .why = "The baseline: coalesced reads, but each store of a warp is spread "
                         "over 32 sectors.",
                  .entry = "TransposeNaive",
                  .params = params(false, 32),
                  .check = check,
                  .plan = [](const Params& p) { return plan(p, "transpose_naive", 0); },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0],
                    TransposeNaive{a.in<float>(0), a.out<float>(1), int(p.at("n"))});
         }});
  r.add({.info = {.name = "tiled",
                  .title = "Tiled in shared memory",
                  .why = "Faster than naive: both global accesses are coalesced; with pad=0 the "
                         "column read of the tile is a 32-way bank conflict, pad=1 removes it.",
                  .entry = "TransposeTiled",
                  .params = params(true, 8),
                  .check = check,
                  .plan =
                      [](const Params& p) {
                        return plan(p, "transpose_tiled",
                                    tile_shared_bytes<TransposeTiled>(p, int(p.at("pad"))));
                      },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           launch_tiled<TransposeTiled>(L, p, pl, a, int(p.at("n")), int(p.at("pad")));
         }});
  r.add({.info = {.name = "diagonal",
                  .title = "Tiled, blocks in diagonal order",
                  .why = "The padded tiled transpose with blocks walked along diagonals, the "
                         "cure for partition camping on old GPUs; on Hopper it brings no gain "
                         "over tiled.",
                  .entry = "TransposeDiagonal",
                  .params = params(true, 8, 1),
                  .check = check,
                  .plan =
                      [](const Params& p) {
                        return plan(p, "transpose_diagonal",
                                    tile_shared_bytes<TransposeDiagonal>(p, int(p.at("pad"))));
                      },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           launch_tiled<TransposeDiagonal>(L, p, pl, a, int(p.at("n")), int(p.at("pad")));
         }});
  r.add({.info = {.name = "vec4",
                  .title = "Wide tiles, float4, swizzled",
                  .why = "Faster than tiled: 16-byte accesses on both global sides and 64-wide "
                         "tiles put four times the bytes in flight per load; the turn happens "
                         "in registers, and an XOR swizzle keeps shared conflict-free.",
                  .entry = "TransposeVec4",
                  .params = {{"n", 1024, 64, 16384, {}, "matrix side (floats)"},
                             {"tile", 64, 0, 0, VecTiles::list(), "tile side (floats)"},
                             {"block_rows", 8, 2, 16, {}, "threads per block in y; the block is tile/4 x block_rows"},
                             {"tiles", 1, 1, 4, {}, "tiles per block (1, 2 or 4), down one column; the next one's loads overlap this one's stores"},
                             {"group", 1, 0, 0, VecGroups::list(), "rows of blocks a run of consecutive blocks walks column by column (1: launch order)"}},
                  .check = check_vec4,
                  .plan = plan_vec4,
                  .verify = verify},
         .launch = launch_vec4});
  r.add({.info = {.name = "bulk",
                  .title = "Rows out by the copy engine (TMA)",
                  .why = "Faster than vec4: the turned tile leaves shared memory by bulk copies "
                         "(cp.async.bulk), one thread handing the copy engine each output row, so "
                         "no lane stores and the writes stream on after the warps are done. Rows "
                         "are skewed, not swizzled: at tile 64 the engine sends 1.125 x the "
                         "bytes to the L2 in sectors.",
                  .entry = "TransposeBulk",
                  .params = {{"n", 1024, 64, 16384, {}, "matrix side (floats)"},
                             {"tile", 64, 0, 0, VecTiles::list(), "tile side (floats)"},
                             {"block_rows", 16, 2, 16, {}, "threads per block in y; the block is tile/4 x block_rows"},
                             {"group", 128, 0, 0, VecGroups::list(), "rows of blocks a run of consecutive blocks walks column by column (1: launch order; 128: whole columns at n = 8192)"}},
                  .check = check_bulk,
                  .plan = plan_bulk,
                  .verify = verify},
         .launch = launch_bulk});
}

WS_END_MODE
