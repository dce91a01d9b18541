#pragma once
// Control divergence: a warp issues one instruction for all its lanes, so when lanes of
// one warp take different sides of a branch, the warp runs both sides one after the
// other, each with only its own lanes active. The first three variants do the same work
// per element (an integer hash of `work` rounds, a different hash on each side) and
// differ only in the branch condition; the branch is marked (t.branch) so the trace
// records, per warp, which lanes took it. Loads and stores stay outside the branches:
// each side would otherwise store to the same address, and the compiler would merge the
// two stores into one, no longer the instruction the source shows. The fourth variant is
// the boundary check of a tiled matrix multiply on a size that is not a multiple of the
// tile.
#include <cmath>

#include "kernels/dialect/registry.h"

WS_BEGIN_MODE

// The two sides' work: integer hashes, exact on the CPU; WS_WORK marks each loop for the
// emulator's step count (simt.h). Their instructions per round, as the nvcc PTX shows
// them, are stated to the trace with t.work: the even side about 1 (the compiler folds
// four rounds of the multiply-add into one, the loop test takes the rest), the odd side 3
// (shift, xor, multiply): the model issues both sides of a divergent branch at their masks.
constexpr unsigned kEvenInstrPerRound = 1, kOddInstrPerRound = 3;

WS_HD inline unsigned diverge_even_work(unsigned v, int work) {  WS_WORK(work);
  for (int r = 0; r < work; ++r) {
    v = v * 1664525u + 1013904223u;
  }
  return v;
}
WS_HD inline unsigned diverge_odd_work(unsigned v, int work) {  WS_WORK(work);
  for (int r = 0; r < work; ++r) {
    v = (v ^ (v >> 13)) * 0x5bd1e995u;
  }
  return v;
}

// Odd and even lanes: `threadIdx.x % 2 == 0` splits every warp in half, so every warp
// runs both hashes back to back with 16 lanes each: the SIMD efficiency of the work is
// 50% and the kernel takes about twice as long as it would without the branch.
struct DivergeOddEven {
  Global<const unsigned> in;
  Global<unsigned> out;
  int work;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    unsigned v = in(i);
    if (t.branch(t.threadIdx.x % 2 == 0)) {
      t.work(kEvenInstrPerRound * unsigned(work));
      v = diverge_even_work(v, work);
    } else {
      t.work(kOddInstrPerRound * unsigned(work));
      v = diverge_odd_work(v, work);
    }
    out(i) = v;
  }
};

// A threshold: `threadIdx.x < k` splits only the warp that contains thread k (when k is
// not a multiple of 32). Warps wholly below or above k take one side; only that one warp
// pays for both. With k = 16, warp 0 of each block diverges and the others do not.
struct DivergeLessThan {
  Global<const unsigned> in;
  Global<unsigned> out;
  int work;
  unsigned k;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    unsigned v = in(i);
    if (t.branch(t.threadIdx.x < k)) {
      t.work(kEvenInstrPerRound * unsigned(work));
      v = diverge_even_work(v, work);
    } else {
      t.work(kOddInstrPerRound * unsigned(work));
      v = diverge_odd_work(v, work);
    }
    out(i) = v;
  }
};

// Warp-aligned: `(threadIdx.x / 32) % 2 == 0` gives the same half-and-half split of the
// threads as odd/even, but whole warps fall on one side. No warp diverges, every
// instruction runs with 32 lanes, and the kernel runs about twice as fast as odd/even.
struct DivergeWarpAligned {
  Global<const unsigned> in;
  Global<unsigned> out;
  int work;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    unsigned v = in(i);
    if (t.branch((t.threadIdx.x / 32) % 2 == 0)) {
      t.work(kEvenInstrPerRound * unsigned(work));
      v = diverge_even_work(v, work);
    } else {
      t.work(kOddInstrPerRound * unsigned(work));
      v = diverge_odd_work(v, work);
    }
    out(i) = v;
  }
};

// Boundary checks (the course's example: 16 x 16 tiles over a 100 x 100 matrix). The
// tiled multiply loads zeros where a tile hangs over the edge, and only threads inside
// the matrix store. The checks diverge only in warps that straddle the edge: for n = 100
// and TILE = 16, the last phase of every block and the edge blocks. Most warps never
// diverge, so the checks cost little, which is the point of the example.
template <int TILE>
struct DivergeBoundary {
  Global<const float> a, b;
  Global<float> c;
  int n;
  // The two shared tiles the body carves; the plan launches with exactly this much.
  static constexpr std::uint32_t shared_bytes() { return 2 * TILE * TILE * sizeof(float); }
  WS_DEVICE void operator()(Thread& t) const {
    auto as = t.shared2d<float>(TILE, TILE, "As");
    auto bs = t.shared2d<float>(TILE, TILE, "Bs");
    int tx = t.threadIdx.x;
    int ty = t.threadIdx.y;
    int row = t.blockIdx.y * TILE + ty;
    int col = t.blockIdx.x * TILE + tx;
    float sum = 0.f;
    for (int p = 0; p < (n + TILE - 1) / TILE; ++p) {
      float av = 0.f;
      if (t.branch(row < n && p * TILE + tx < n)) {
        av = a(row * n + p * TILE + tx);
      }
      as(ty, tx) = av;
      float bv = 0.f;
      if (t.branch(p * TILE + ty < n && col < n)) {
        bv = b((p * TILE + ty) * n + col);
      }
      bs(ty, tx) = bv;
      t.syncthreads();
      WS_NO_UNROLL
      for (int k = 0; k < TILE; ++k) {
        sum += as(ty, k) * bs(k, tx);
      }
      t.syncthreads();
    }
    if (t.branch(row < n && col < n)) {
      c(row * n + col) = sum;
    }
  }
};

namespace divergence_detail {

enum class Cond { OddEven, LessThan, WarpAligned };

using Tiles = Choices<8, 16, 32>;

inline std::vector<ParamSpec> params(Cond c) {
  std::vector<ParamSpec> ps = {
      {"n", 1 << 18, 32, 1 << 28, {}, "threads, one element each"},
      {"block", 256, 1, 4096, {}, "threads per block"},
      {"work", 64, 0, 1 << 16, {}, "hash rounds per element: the work inside the branch"},
  };
  if (c == Cond::LessThan)
    ps.push_back({"k", 16, 1, 1023, {}, "threads below k take the first side (1 to block-1: both sides run)"});
  return ps;
}

inline std::string check(const Params& p) {
  const long long n = p.at("n"), block = p.at("block");
  if (n % block != 0)
    return "n=" + std::to_string(n) + " is not a multiple of block=" + std::to_string(block);
  return "";
}

// A threshold at 0 or at the block size is no branch at all: every thread takes one side.
inline std::string check_less_than(const Params& p) {
  if (std::string e = check(p); !e.empty()) return e;
  if (p.at("k") >= p.at("block"))
    return "k=" + std::to_string(p.at("k")) + " must be below block=" +
           std::to_string(p.at("block")) + ", or every thread takes the first side";
  return "";
}

inline Plan plan(const Params& p, const char* kernel) {
  const long long n = p.at("n"), block = p.at("block");
  Plan pl;
  pl.arrays = {{"in", 4, std::uint64_t(n), false, {Fill::Bits}},
               {"out", 4, std::uint64_t(n), true}};
  LaunchCfg c;
  c.kernel = kernel;
  c.grid = {unsigned(n / block), 1, 1};
  c.block = {unsigned(block), 1, 1};
  pl.launches = {c};
  pl.logical_bytes = 8.0 * double(n);
  pl.work_rounds = double(n) * double(p.at("work"));  // every thread hashes once
  return pl;
}

inline std::string verify(const HostArrays& h, const Params& p, Cond c) {
  const long long n = p.at("n"), block = p.at("block");
  const int work = int(p.at("work"));
  auto in = h.as<unsigned>(0);
  auto out = h.as<unsigned>(1);
  for (long long i = 0; i < n; ++i) {
    const long long tx = i % block;
    bool first = false;
    switch (c) {
      case Cond::OddEven: first = tx % 2 == 0; break;
      case Cond::LessThan: first = tx < p.at("k"); break;
      case Cond::WarpAligned: first = (tx / 32) % 2 == 0; break;
    }
    const unsigned want = first ? diverge_even_work(in[std::size_t(i)], work)
                                : diverge_odd_work(in[std::size_t(i)], work);
    if (out[std::size_t(i)] != want)
      return "out[" + std::to_string(i) + "] = " + std::to_string(out[std::size_t(i)]) +
             ", expected " + std::to_string(want) + " (the " + (first ? "first" : "second") +
             " side of the branch)";
  }
  return "";
}

inline Plan boundary_plan(const Params& p) {
  const long long n = p.at("n"), tile = p.at("tile");
  const unsigned blocks = unsigned((n + tile - 1) / tile);
  Plan pl;
  const auto nn = std::uint64_t(n * n);
  pl.arrays = {{"A", 4, nn, false, {Fill::UnitFloat}},
               {"B", 4, nn, false, {Fill::UnitFloat}},
               {"C", 4, nn, true}};
  LaunchCfg c;
  c.kernel = "diverge_boundary";
  c.grid = {blocks, blocks, 1};
  c.block = {unsigned(tile), unsigned(tile), 1};
  Tiles::dispatch(tile, [&]<long long T>() { c.shared_bytes = DivergeBoundary<T>::shared_bytes(); });
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

// Every element up to n = 512, above that 16 whole rows and columns spread over C (each
// crosses every tile row or column); FP32 rounding tolerance as in matmul.cuh.
inline std::string boundary_verify(const HostArrays& h, const Params& p) {
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
    if (!(std::fabs(got - ref) <= 16.0 * std::sqrt(double(n)) * ulp * mag + 1e-6))
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

}  // namespace divergence_detail

// @post appends the divergence family and its variants to r in teaching order (odd_even,
//       less_than, warp_aligned, boundary).
inline void add_divergence(Registry& r) {
  using namespace divergence_detail;
  r.family({.name = "divergence",
            .source_file = "kernels/families/divergence.cuh",
            .peers = {Peer::MemcpyD2D},
            .copy_bytes = [](const Params& p) { return 4.0 * double(p.at("n")); },
            .size_params = {"n", "block"},
            .timing = {},  // timed at its defaults: the work in the branch is the point
            .small = {{"n", 128}, {"block", 64}}});
  r.add({.info = {.name = "odd_even",
                  .title = "Odd and even lanes",
                  .why = "The worst split: every warp has lanes on both sides, so every warp runs "
                         "both sides one after the other, each at half width.",
                  .entry = "DivergeOddEven",
                  .params = params(Cond::OddEven),
                  .check = check,
                  .plan = [](const Params& p) { return plan(p, "diverge_odd_even"); },
                  .verify = [](const HostArrays& h, const Params& p) {
                    return verify(h, p, Cond::OddEven);
                  }},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], DivergeOddEven{a.in<unsigned>(0), a.out<unsigned>(1),
                                                   int(p.at("work"))});
         }});
  r.add({.info = {.name = "less_than",
                  .title = "Threads below k",
                  .why = "Faster than odd/even: only the warp holding thread k is split; the "
                         "other warps run one side at full width.",
                  .entry = "DivergeLessThan",
                  .params = params(Cond::LessThan),
                  .check = check_less_than,
                  .plan = [](const Params& p) { return plan(p, "diverge_less_than"); },
                  .verify = [](const HostArrays& h, const Params& p) {
                    return verify(h, p, Cond::LessThan);
                  }},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], DivergeLessThan{a.in<unsigned>(0), a.out<unsigned>(1),
                                                    int(p.at("work")), unsigned(p.at("k"))});
         }});
  r.add({.info = {.name = "warp_aligned",
                  .title = "Warp-aligned split",
                  .why = "As fast as no branch at all: the same half-and-half split as "
                         "odd/even, but by whole warps, so no warp diverges.",
                  .entry = "DivergeWarpAligned",
                  .params = params(Cond::WarpAligned),
                  .check = check,
                  .plan = [](const Params& p) { return plan(p, "diverge_warp_aligned"); },
                  .verify = [](const HostArrays& h, const Params& p) {
                    return verify(h, p, Cond::WarpAligned);
                  }},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], DivergeWarpAligned{a.in<unsigned>(0), a.out<unsigned>(1),
                                                       int(p.at("work"))});
         }});
  r.add({.info = {.name = "boundary",
                  .title = "Boundary checks in a tiled multiply",
                  .why = "Cheap divergence: the bounds checks of a tiled multiply on a size "
                         "that is not a multiple of the tile split only the warps on the "
                         "matrix's edge.",
                  .entry = "DivergeBoundary",
                  .params = {{"n", 100, 1, 2048, {}, "matrix side (any size)"},
                             {"tile", 16, 0, 0, Tiles::list(),
                              "tile side: the block is tile x tile threads"}},
                  .check = nullptr,
                  .plan = boundary_plan,
                  .verify = boundary_verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           const LaunchCfg& c = pl.launches[0];
           auto A = a.in<float>(0);
           auto B = a.in<float>(1);
           auto C = a.out<float>(2);
           const int n = int(p.at("n"));
           with_choice<Tiles>(L, "tile", p.at("tile"), [&]<long long T>() {
             L.launch(c, DivergeBoundary<T>{A, B, C, n});
           });
         }});
}

WS_END_MODE
