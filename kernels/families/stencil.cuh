#pragma once
// Stencils: out[i] is the sum of in[i - radius] ... in[i + radius] (elements outside the
// array count as 0). Each input element is read by 2 radius + 1 threads. The first variant
// reads them all from global memory; the second stages the block's elements and a halo of
// `radius` on each side in shared memory, so each element comes from global memory about
// once.

#include "kernels/dialect/registry.h"

WS_BEGIN_MODE

// The baseline: every thread makes 2 radius + 1 loads, all but one shifted off the warp's
// sector boundaries.
struct StencilGlobal {
  Global<const int> in;
  Global<int> out;
  int n, radius;
  WS_DEVICE void operator()(Thread& t) const {
    int i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    int sum = 0;
    for (int k = -radius; k <= radius; ++k) {
      int j = i + k;
      if (t.branch(j >= 0 && j < n)) {
        sum += in(j);
      }
    }
    out(i) = sum;
  }
};

// Staged: the block's elements and a halo of `radius` on each side go into shared memory
// (the first `radius` threads also load one element of each halo), one barrier, then every
// thread sums from shared memory.
struct StencilSharedHalo {
  Global<const int> in;
  Global<int> out;
  int n, radius;
  WS_DEVICE void operator()(Thread& t) const {
    int b = t.blockDim.x;
    auto tile = t.shared<int>(b + 2 * radius, "tile");
    int tid = t.threadIdx.x;
    int i = t.blockIdx.x * b + tid;
    tile(radius + tid) = in(i);
    if (t.branch(tid < radius)) {
      int l = i - radius;
      int v = 0;
      if (t.branch(l >= 0)) {
        v = in(l);
      }
      tile(tid) = v;
      int r = i + b;
      v = 0;
      if (t.branch(r < n)) {
        v = in(r);
      }
      tile(radius + b + tid) = v;
    }
    t.syncthreads();
    int sum = 0;
    for (int k = -radius; k <= radius; ++k) {
      sum += tile(radius + tid + k);
    }
    out(i) = sum;
  }
};

namespace stencil_detail {

inline std::vector<ParamSpec> params() {
  return {
      {"n", 1 << 16, 32, 1 << 28, {}, "ints, one output each"},
      {"block", 256, 32, 1024, {}, "threads per block (a multiple of 32)"},
      {"radius", 3, 1, 32, {}, "neighbours on each side: 2 radius + 1 inputs an output"},
  };
}

inline std::string check(const Params& p) {
  const long long n = p.at("n"), block = p.at("block"), radius = p.at("radius");
  if (block % 32 != 0) return "block=" + std::to_string(block) + " is not a multiple of 32";
  if (n % block != 0)
    return "n=" + std::to_string(n) + " is not a multiple of block=" + std::to_string(block);
  if (radius > block) return "radius=" + std::to_string(radius) + " is larger than block=" + std::to_string(block);
  return "";
}

inline Plan plan(const Params& p, bool shared) {
  const long long n = p.at("n"), block = p.at("block"), radius = p.at("radius");
  Plan pl;
  pl.arrays = {{"in", 4, std::uint64_t(n), false, {Fill::IntRange, -1000, 1000}},
               {"out", 4, std::uint64_t(n), true}};
  LaunchCfg c;
  c.kernel = shared ? "stencil_shared_halo" : "stencil_global";
  c.grid = {unsigned(n / block), 1, 1};
  c.block = {unsigned(block), 1, 1};
  c.shared_bytes = shared ? std::uint32_t((block + 2 * radius) * 4) : 0;
  pl.launches = {c};
  pl.logical_bytes = 8.0 * double(n);
  return pl;
}

inline std::string verify(const HostArrays& h, const Params& p) {
  const long long n = p.at("n"), radius = p.at("radius");
  auto in = h.as<int>(0);
  auto out = h.as<int>(1);
  for (long long i = 0; i < n; ++i) {
    long long want = 0;
    for (long long j = std::max(0ll, i - radius); j <= std::min(n - 1, i + radius); ++j) want += in[std::size_t(j)];
    if (out[std::size_t(i)] != want)
      return "out[" + std::to_string(i) + "] = " + std::to_string(out[std::size_t(i)]) + ", expected " +
             std::to_string(want) + " (the sum of in[" + std::to_string(std::max(0ll, i - radius)) + ".." +
             std::to_string(std::min(n - 1, i + radius)) + "])";
  }
  return "";
}

}  // namespace stencil_detail

// @post appends the stencil variants to r in teaching order (from_global, shared_halo).
inline void add_stencil(Registry& r) {
  using namespace stencil_detail;
  r.family({.name = "stencil",
            .source_file = "kernels/families/stencil.cuh",
            .peers = {Peer::MemcpyD2D},
            .copy_bytes = [](const Params& p) { return 4.0 * double(p.at("n")); },
            .size_params = {"n", "block"},
            .timing = {{"n", 1 << 26}},
            .small = {{"n", 4096}},
            .bar_sizes = {{{"n", 1 << 24}}}});
  r.add({.info = {.name = "from_global",
                  .title = "Every neighbour from global memory",
                  .why = "The baseline: each thread loads its 2 radius + 1 neighbours itself, so "
                         "each element is requested 2 radius + 1 times and most requests start "
                         "off a sector boundary.",
                  .entry = "StencilGlobal",
                  .params = params(),
                  .check = check,
                  .plan = [](const Params& p) { return plan(p, false); },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0],
                    StencilGlobal{a.in<int>(0), a.out<int>(1), int(p.at("n")), int(p.at("radius"))});
         }});
  r.add({.info = {.name = "shared_halo",
                  .title = "A tile and its halo in shared memory",
                  .why = "Fewer requests than from_global: the block loads its elements and a halo "
                         "of radius on each side once, then reads the neighbours from shared "
                         "memory.",
                  .entry = "StencilSharedHalo",
                  .params = params(),
                  .check = check,
                  .plan = [](const Params& p) { return plan(p, true); },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0],
                    StencilSharedHalo{a.in<int>(0), a.out<int>(1), int(p.at("n")), int(p.at("radius"))});
         }});
}

WS_END_MODE
