#pragma once
// Histograms: n values in [0, bins), counted per bin. Many threads add to few counters,
// so the adds must be atomic, and threads that hit the same counter at once wait for each
// other. `skew` sends that percentage of the values to bin 0, from an even spread (0) to
// every value in one bin (100): the contention the student can dial up. The first variant
// adds straight into the global histogram; the second gives each block a private
// histogram in shared memory and merges it into the global one once at the end.

#include "kernels/dialect/registry.h"

WS_BEGIN_MODE

// Global atomics: one atomicAdd per value on the histogram in global memory. Each is a
// read-modify-write done in the L2 cache; 32 lanes on 32 different bins are 32 separate
// updates, and lanes on the same bin are serialised there.
struct HistGlobalAtomic {
  Global<const unsigned> in;
  Global<unsigned> hist;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    unsigned b = in(i);
    hist.atomic_add(b, 1u);
  }
};

// Privatised: the block counts into its own histogram in shared memory (atomics on the
// SM, far cheaper than in L2, and contended only within the block), walking the input
// with a grid-sized stride, then adds each non-zero bin to the global histogram: one
// global atomic per bin and block instead of one per value.
struct HistSharedAtomic {
  Global<const unsigned> in;
  Global<unsigned> hist;
  unsigned n, bins;
  WS_DEVICE void operator()(Thread& t) const {
    auto local = t.shared<unsigned>(bins, "local");
    for (unsigned b = t.threadIdx.x; b < bins; b += t.blockDim.x) {
      local(b) = 0u;
    }
    t.syncthreads();
    unsigned stride = t.blockDim.x * t.gridDim.x;
    for (unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x; i < n; i += stride) {
      unsigned b = in(i);
      local.atomic_add(b, 1u);
    }
    t.syncthreads();
    for (unsigned b = t.threadIdx.x; b < bins; b += t.blockDim.x) {
      unsigned c = local(b);
      if (t.branch(c != 0u)) {
        hist.atomic_add(b, c);
      }
    }
  }
};

// Sets the histogram to zero before the atomics add into it.
struct HistZero {
  Global<unsigned> hist;
  unsigned bins;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned b = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    if (b < bins) {
      hist(b) = 0u;
    }
  }
};

// Weighted and privatised: as HistSharedAtomic, but each value adds its weight, not 1.
// `atomicAdd(&local[b], 1)` compiles to ATOMS.POPC.INC: the lanes that name one bin add
// their count once. A weight differs from lane to lane, so this compiles to ATOMS.ADD, and
// lanes on one bin are applied one after another: skew costs this kernel in shared memory.
struct HistSharedWeighted {
  Global<const unsigned> in;
  Global<const unsigned> weight;
  Global<unsigned> hist;
  unsigned n, bins;
  WS_DEVICE void operator()(Thread& t) const {
    auto local = t.shared<unsigned>(bins, "local");
    for (unsigned b = t.threadIdx.x; b < bins; b += t.blockDim.x) {
      local(b) = 0u;
    }
    t.syncthreads();
    unsigned stride = t.blockDim.x * t.gridDim.x;
    for (unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x; i < n; i += stride) {
      unsigned b = in(i);
      unsigned w = weight(i);
      local.atomic_add_varying(b, w);
    }
    t.syncthreads();
    for (unsigned b = t.threadIdx.x; b < bins; b += t.blockDim.x) {
      unsigned c = local(b);
      if (t.branch(c != 0u)) {
        hist.atomic_add(b, c);
      }
    }
  }
};

namespace histogram_detail {

// The privatised variant launches one wave of an H100 (132 SMs x 2048 threads).
constexpr long long kWaveThreads = 132ll * 2048;

inline std::vector<ParamSpec> params() {
  return {
      {"n", 1 << 16, 32, 1 << 28, {}, "values to count"},
      {"bins", 256, 0, 0, {16, 32, 64, 128, 256, 512, 1024, 4096}, "bins of the histogram"},
      {"block", 256, 32, 1024, {}, "threads per block (a multiple of 32)"},
      {"skew", 0, 0, 100, {}, "percent of the values that fall in bin 0 (contention)"},
  };
}

inline std::string check(const Params& p) {
  const long long n = p.at("n"), block = p.at("block");
  if (block % 32 != 0) return "block=" + std::to_string(block) + " is not a multiple of 32";
  if (n % block != 0)
    return "n=" + std::to_string(n) + " is not a multiple of block=" + std::to_string(block);
  return "";
}

// The weights of the weighted variant: 1 to kMaxWeight.
constexpr int kMaxWeight = 15;

// `weighted`: the weighted variant (shared, with a weight array between in and hist).
inline Plan plan(const Params& p, bool shared, bool weighted = false) {
  const long long n = p.at("n"), bins = p.at("bins"), block = p.at("block");
  Plan pl;
  // Bin numbers: skew percent of them 0 (the hot bin), the rest uniform over the bins.
  pl.arrays = {{"in", 4, std::uint64_t(n), false, {Fill::Skewed, int(p.at("skew")), int(bins - 1)}}};
  if (weighted) pl.arrays.push_back({"weight", 4, std::uint64_t(n), false, {Fill::IntRange, 1, kMaxWeight}});
  pl.arrays.push_back({"hist", 4, std::uint64_t(bins), true});
  LaunchCfg z;
  z.kernel = "hist_zero";
  z.grid = {unsigned((bins + 255) / 256), 1, 1};
  z.block = {256, 1, 1};
  LaunchCfg c;
  c.kernel = weighted ? "hist_shared_weighted" : shared ? "hist_shared_atomic" : "hist_global_atomic";
  c.grid = {unsigned(shared ? std::min(kWaveThreads / block, n / block) : n / block), 1, 1};
  c.block = {unsigned(block), 1, 1};
  c.shared_bytes = shared ? std::uint32_t(bins * 4) : 0;
  pl.launches = {z, c};
  pl.logical_bytes = (weighted ? 8.0 : 4.0) * double(n) + 4.0 * double(bins);
  // Checked where it lies (a GPU reference): at 2^26 values the CPU check copied the 256 MB
  // input back and counted it for every run, 0.2 s a point of the window's skew x bins sweep
  // (the weighted variant's 512 MB, about 0.3 s a point, until it had a reference too).
  pl.ref.kind = weighted ? RefKind::WeightedHistogram : RefKind::Histogram;
  pl.ref.count = std::uint64_t(n);
  pl.ref.groups = std::uint64_t(bins);
  pl.ref.a = 0;
  pl.ref.b = 1;  // the weights (weighted only)
  pl.ref.out = weighted ? 2 : 1;
  return pl;
}

// `weighted`: bin b holds the sum of the weights of the values in b (unsigned, wrapping
// like the device's adds), else their count.
inline std::string verify_bins(const HostArrays& h, const Params& p, bool weighted) {
  const long long bins = p.at("bins");
  std::vector<unsigned> want(std::size_t(bins), 0);
  auto values = h.as<unsigned>(0);
  if (weighted) {
    auto w = h.as<unsigned>(1);
    for (std::size_t i = 0; i < values.size(); ++i) want[values[i]] += w[i];
  } else {
    for (unsigned v : values) ++want[v];
  }
  auto got = h.as<unsigned>(weighted ? 2 : 1);
  for (long long b = 0; b < bins; ++b)
    if (got[std::size_t(b)] != want[std::size_t(b)])
      return "bin " + std::to_string(b) + " counted " + std::to_string(got[std::size_t(b)]) +
             ", expected " + std::to_string(want[std::size_t(b)]);
  return "";
}

inline std::string verify(const HostArrays& h, const Params& p) { return verify_bins(h, p, false); }
inline std::string verify_weighted(const HostArrays& h, const Params& p) {
  return verify_bins(h, p, true);
}

}  // namespace histogram_detail

// @post appends the histogram variants to r in teaching order (global_atomic,
//       shared_atomic, shared_weighted).
inline void add_histogram(Registry& r) {
  using namespace histogram_detail;
  r.family({.name = "histogram",
            .source_file = "kernels/families/histogram.cuh",
            .peers = {Peer::MemcpyD2D},
            .copy_bytes = [](const Params& p) { return 2.0 * double(p.at("n")) + 2.0 * double(p.at("bins")); },
            // The contention question alone: skew over its 8 points. Left to default_sweep,
            // the bins' 8 choices made it 64 runs at 2^26 values (issue 26's slow window).
            .sweeps = {{"skew", ""}},
            .size_params = {"n", "block"},
            .timing = {{"n", 1 << 26}},
            .small = {{"n", 4096}, {"bins", 64}},
            .latency = {.sweep_xs = {0, 1, 2, 4, 8, 16, 32, 64}},
            .bar_sizes = {{{"n", 1 << 24}}},
            .recorded_sweeps = {{"global_atomic", {{"n", 1 << 24}}, "skew", {0, 50, 100}},
                                {"shared_atomic", {{"n", 1 << 24}}, "skew", {0, 50, 100}},
                                {"shared_weighted", {{"n", 1 << 24}}, "skew", {0, 50, 100}}}});
  r.add({.info = {.name = "global_atomic",
                  .title = "Global atomics",
                  .why = "The baseline: one atomicAdd in L2 per value; lanes and warps on the "
                         "same bin wait for each other, so few bins or skewed data are slow.",
                  .entry = "HistGlobalAtomic",
                  .params = params(),
                  .check = check,
                  .plan = [](const Params& p) { return plan(p, false); },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], HistZero{a.out<unsigned>(1), unsigned(p.at("bins"))});
           L.launch(pl.launches[1], HistGlobalAtomic{a.in<unsigned>(0), a.out<unsigned>(1)});
         }});
  r.add({.info = {.name = "shared_atomic",
                  .title = "Per-block histograms in shared memory",
                  .why = "Faster than global atomics (138x at 2^26 values and 256 bins on the "
                         "H100): each block counts in shared memory, where atomics are cheap and "
                         "contended only within the block, then merges one add per bin.",
                  .entry = "HistSharedAtomic",
                  .params = params(),
                  .check = check,
                  .plan = [](const Params& p) { return plan(p, true); },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], HistZero{a.out<unsigned>(1), unsigned(p.at("bins"))});
           L.launch(pl.launches[1],
                    HistSharedAtomic{a.in<unsigned>(0), a.out<unsigned>(1), unsigned(p.at("n")),
                                     unsigned(p.at("bins"))});
         }});
  r.add({.info = {.name = "shared_weighted",
                  .title = "Per-block histograms of weights",
                  .why = "Slower than shared_atomic where values crowd into few bins: each "
                         "value adds its own weight, so lanes on one bin cannot be combined "
                         "into one add (ATOMS.ADD, not ATOMS.POPC.INC) and are applied one "
                         "after another; with values spread evenly it costs about the same.",
                  .entry = "HistSharedWeighted",
                  .params = params(),
                  .check = check,
                  .plan = [](const Params& p) { return plan(p, true, true); },
                  .verify = verify_weighted},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], HistZero{a.out<unsigned>(2), unsigned(p.at("bins"))});
           L.launch(pl.launches[1],
                    HistSharedWeighted{a.in<unsigned>(0), a.in<unsigned>(1), a.out<unsigned>(2),
                                       unsigned(p.at("n")), unsigned(p.at("bins"))});
         }});
}

WS_END_MODE
