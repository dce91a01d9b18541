#pragma once
// Asynchronous copies: the same tiled kernel three ways, so the overlap of copy and
// compute is what changes. Each block walks `per_block` consecutive tiles of 1,024 floats
// (one float4 a thread); a thread reads its own float4 and its right neighbour's from the
// shared tile and runs `work` rounds of FMAs on them (a smoothing with a tunable cost),
// then stores its float4. With synchronous loads every tile waits for DRAM and then for
// the arithmetic, one after the other; with cp.async the next tiles are already on their
// way while this one is computed: double buffering keeps one tile in flight, a deeper
// pipeline STAGES - 1.
#include <cmath>
#include <cstring>

#include "kernels/dialect/registry.h"
#include "kernels/dialect/simt_tensor.h"
#include "sim/smooth.h"

WS_BEGIN_MODE

namespace async_detail {

constexpr int kThreads = 256;             // one float4 each: a tile is 1,024 floats
constexpr int kTile = kThreads;           // float4s a tile

// `work` rounds of x = x / 2 + y / 4 on each of the four lanes of a float4: the arithmetic
// a tile costs, between its copy and its store. fmaf on both sides, so the host reference
// (verify) is exact.
WS_HD inline float4 smooth(float4 x, float4 y, int work) {
  for (int r = 0; r < work; ++r) {
    x.x = sim::smooth_round(x.x, y.x);
    x.y = sim::smooth_round(x.y, y.y);
    x.z = sim::smooth_round(x.z, y.z);
    x.w = sim::smooth_round(x.w, y.w);
  }
  return x;
}

// The kernels' arithmetic as the trace states it (4 FMAs a round, t.work) and as the
// emulator's step limit counts it (WS_WORK), then the result.
WS_DEVICE float4 compute(Thread& t, float4 x, float4 y, int work) {
  t.work(unsigned(4 * work));
  WS_WORK(work);
  return smooth(x, y, work);
}

}  // namespace async_detail

// Synchronous: load the tile into shared memory (through registers), wait at the
// barrier, compute, store, wait again before the next tile overwrites the buffer. While
// the loads are in flight the warps have nothing to do.
struct AsyncSync {
  Global<const float4> in;
  Global<float4> out;
  int per_block, work;
  static constexpr std::uint32_t kSharedBytes = async_detail::kTile * sizeof(float4);
  WS_DEVICE void operator()(Thread& t) const {
    using namespace async_detail;
    auto s = t.shared2d<float4>(1, kTile, "tile");
    int tid = t.tid();
    for (int i = 0; i < per_block; ++i) {
      std::int64_t base = (std::int64_t(t.blockIdx.x) * per_block + i) * kTile;
      s(0, tid) = in(base + tid);
      t.syncthreads();
      float4 x = s(0, tid);
      float4 y = s(0, (tid + 1) % kTile);
      out(base + tid) = compute(t, x, y, work);
      t.syncthreads();
    }
  }
};

// cp.async with STAGES buffers (2: double buffering): tiles i + 1 .. i + STAGES - 1 are
// copied straight into shared memory while tile i is computed. One commit group a tile;
// wait_group STAGES - 2 retires the oldest, the barrier publishes it and tells every warp
// that the buffer refilled next has been read.
template <int STAGES>
struct AsyncPipelined {
  Global<const float4> in;
  Global<float4> out;
  int per_block, work;
  static constexpr std::uint32_t kSharedBytes = STAGES * async_detail::kTile * sizeof(float4);
  WS_DEVICE void operator()(Thread& t) const {
    using namespace async_detail;
    auto s = t.shared2d<float4>(STAGES, kTile, "tiles");
    int tid = t.tid();
    std::int64_t first = std::int64_t(t.blockIdx.x) * per_block * kTile;
    WS_UNROLL
    for (int i = 0; i < STAGES - 1; ++i) {
      if (i < per_block) cp_async16(t, s, i, tid, in, first + std::int64_t(i) * kTile + tid);
      cp_async_commit(t);
    }
    for (int i = 0; i < per_block; ++i) {
      cp_async_wait<STAGES - 2>(t);
      t.syncthreads();
      int next = i + STAGES - 1;
      if (next < per_block) cp_async16(t, s, next % STAGES, tid, in, first + std::int64_t(next) * kTile + tid);
      cp_async_commit(t);
      float4 x = s(i % STAGES, tid);
      float4 y = s(i % STAGES, (tid + 1) % kTile);
      out(first + std::int64_t(i) * kTile + tid) = compute(t, x, y, work);
    }
  }
};

namespace async_detail {

// extra_kb: shared memory a block holds beside its tiles and never touches, as a real
// kernel's other arrays would (a GEMM's second operand): it only lowers the blocks an SM
// holds, which is what decides whether other blocks can hide a block's wait for DRAM.
inline Plan plan(const Params& p, const char* kernel, std::uint32_t tile_bytes) {
  const long long n = p.at("n"), per = p.at("per_block");
  const std::uint32_t shared_bytes = tile_bytes + std::uint32_t(p.at("extra_kb")) * 1024u;
  Plan pl;
  pl.arrays = {{"in", 4, std::uint64_t(n), false, {Fill::UnitFloat}},
               {"out", 4, std::uint64_t(n), true}};
  LaunchCfg c;
  c.kernel = kernel;
  c.grid = {unsigned(n / (per * kTile * 4)), 1, 1};
  c.block = {kThreads, 1, 1};
  c.shared_bytes = shared_bytes;
  c.held_shared_bytes = shared_bytes - tile_bytes;
  pl.launches = {c};
  pl.logical_bytes = 2.0 * double(n) * 4.0;
  pl.work_rounds = double(n / 4) * double(p.at("work"));
  // Checked where it lies: on the CPU (verify) a point at 2^26 floats took 4.9 s.
  pl.ref.kind = RefKind::Smooth;
  pl.ref.count = std::uint64_t(n);
  pl.ref.div = kTile;
  pl.ref.work = std::uint32_t(p.at("work"));
  pl.ref.a = 0;
  pl.ref.out = 1;
  return pl;
}

// out = smooth(in[i], in[right neighbour in its tile]) for every float4, exactly.
inline std::string verify(const HostArrays& h, const Params& p) {
  const long long n = p.at("n");
  const int work = int(p.at("work"));
  auto in = h.as<float4>(0);
  auto out = h.as<float4>(1);
  for (long long i = 0; i < n / 4; ++i) {
    const long long tile = i / kTile, j = i % kTile;
    const float4 want = smooth(in[std::size_t(i)], in[std::size_t(tile * kTile + (j + 1) % kTile)], work);
    const float4 got = out[std::size_t(i)];
    if (std::memcmp(&want, &got, sizeof want) != 0)
      return "out float4 " + std::to_string(i) + " = (" + std::to_string(got.x) + ", ...), expected (" +
             std::to_string(want.x) + ", ...)";
  }
  return "";
}

inline std::vector<ParamSpec> params() {
  return {{"n", 1 << 22, 1 << 14, 1 << 28, {}, "floats (a multiple of 1,024 x per_block)"},
          {"per_block", 16, 1, 256, {}, "tiles each block walks"},
          {"work", 16, 0, 1024, {}, "FMA rounds per element: the compute each tile costs"},
          {"extra_kb", 0, 0, 192, {}, "KB of shared memory a block holds beside its tiles: fewer blocks an SM"}};
}
inline std::string check(const Params& p) {
  const long long n = p.at("n"), per = p.at("per_block");
  if (n % (per * kTile * 4) != 0)
    return "n=" + std::to_string(n) + " is not a multiple of 1024 x per_block=" +
           std::to_string(per * kTile * 4) + " (each block walks per_block tiles of 1,024 floats)";
  return "";
}

inline Global<const float4> in4(const Args& a, int i) {
  return {static_cast<const float4*>(a.ptr.at(i)), a.count.at(i) / 4, std::uint8_t(i)};
}
inline Global<float4> out4(const Args& a, int i) {
  return {static_cast<float4*>(a.ptr.at(i)), a.count.at(i) / 4, std::uint8_t(i)};
}

using Stages = Choices<3, 4, 6, 8>;

}  // namespace async_detail

// @post appends the async_copy family and its variants to r in teaching order
//       (synchronous, double-buffered, deeper pipeline).
inline void add_async_copy(Registry& r) {
  using namespace async_detail;
  r.family({.name = "async_copy",
            .source_file = "kernels/families/async_copy.cuh",
            .peers = {Peer::MemcpyD2D},
            .copy_bytes = [](const Params& p) { return double(p.at("n")) * 4.0; },
            .sweeps = {{"work", ""}, {"stages", ""}, {"extra_kb", ""}},
            .size_params = {"n"},
            .timing = {{"n", 1 << 26}},
            .small = {{"n", 1 << 14}, {"per_block", 4}},
            // Full SMs (8 blocks each) and one block an SM (120 KB held beside the tiles):
            // where other blocks hide a block's wait, and where only cp.async can.
            .bar_sizes = {{{"n", 1 << 26}}, {{"n", 1 << 26}, {"extra_kb", 120}}},
            .recorded_sweeps = {{"pipeline", {{"n", 1 << 26}}, "stages", {3, 4, 6, 8}},
                                {"pipeline", {{"n", 1 << 26}, {"extra_kb", 120}}, "stages", {3, 4, 6, 8}}}});
  r.add({.info = {.name = "sync",
                  .title = "Synchronous tile loads",
                  .why = "The baseline: each tile is loaded, waited for at the barrier, then "
                         "computed; copy and arithmetic take turns, never overlap. With 8 "
                         "blocks an SM the others' loads fill a block's wait; with one "
                         "(extra_kb=120) nothing does.",
                  .entry = "AsyncSync",
                  .params = params(),
                  .check = check,
                  .plan = [](const Params& p) { return plan(p, "async_sync", AsyncSync::kSharedBytes); },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], AsyncSync{in4(a, 0), out4(a, 1), int(p.at("per_block")),
                                              int(p.at("work"))});
         }});
  r.add({.info = {.name = "double_buffer",
                  .title = "cp.async double buffering",
                  .why = "Faster when few blocks share an SM (extra_kb): cp.async fetches the "
                         "next tile into the second buffer while this one is computed, so its "
                         "latency hides behind the work. With full SMs other blocks hid it already.",
                  .entry = "AsyncPipelined",
                  .params = params(),
                  .check = check,
                  .plan = [](const Params& p) {
                    return plan(p, "async_double_buffer", AsyncPipelined<2>::kSharedBytes);
                  },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], AsyncPipelined<2>{in4(a, 0), out4(a, 1),
                                                      int(p.at("per_block")), int(p.at("work"))});
         }});
  std::vector<ParamSpec> deep = params();
  deep.push_back({"stages", 4, 0, 0, Stages::list(), "shared buffers: tiles in flight + 1"});
  r.add({.info = {.name = "pipeline",
                  .title = "Deeper cp.async pipeline",
                  .why = "Faster when one tile of work is shorter than DRAM's latency and few "
                         "blocks share an SM: STAGES - 1 tiles in flight keep more bytes moving "
                         "per SM, as more blocks would.",
                  .entry = "AsyncPipelined",
                  .params = deep,
                  .check = check,
                  .plan = [](const Params& p) {
                    std::uint32_t bytes = 0;
                    Stages::dispatch(p.at("stages"), [&]<long long S>() {
                      bytes = AsyncPipelined<int(S)>::kSharedBytes;
                    });
                    return plan(p, "async_pipeline", bytes);
                  },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           const LaunchCfg& c = pl.launches[0];
           with_choice<Stages>(L, "stages", p.at("stages"), [&]<long long S>() {
             L.launch(c, AsyncPipelined<int(S)>{in4(a, 0), out4(a, 1), int(p.at("per_block")),
                                                int(p.at("work"))});
           });
         }});
}

WS_END_MODE
