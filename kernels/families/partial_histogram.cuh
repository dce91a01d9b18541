#pragma once
// Per-block histograms: n values in [0, bins), each block counting the values of its
// grid-stride share into a row of its own, partial[block][bin]; the CPU adds the rows.
// One launch and no global counter shared between blocks, so no zeroing pass: each block
// writes every bin of its row. The first variant counts with atomics on its row in global
// memory (L2 read-modify-writes); the second counts in shared memory and stores the row
// once.

#include "kernels/dialect/registry.h"

WS_BEGIN_MODE

// Global atomics on the block's own row: one atomicAdd in L2 per value, after zeroing
// the row.
struct PartialHistGlobal {
  Global<const unsigned> in;
  Global<unsigned> partial;
  unsigned n, bins;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned row = t.blockIdx.x * bins;
    for (unsigned b = t.threadIdx.x; b < bins; b += t.blockDim.x) {
      partial(row + b) = 0u;
    }
    t.syncthreads();
    unsigned stride = t.blockDim.x * t.gridDim.x;
    for (unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x; i < n; i += stride) {
      partial.atomic_add(row + in(i), 1u);
    }
  }
};

// Privatised: the block counts into shared memory (atomics on the SM), then stores its
// row, one coalesced store per bin.
struct PartialHistShared {
  Global<const unsigned> in;
  Global<unsigned> partial;
  unsigned n, bins;
  WS_DEVICE void operator()(Thread& t) const {
    auto local = t.shared<unsigned>(bins, "local");
    for (unsigned b = t.threadIdx.x; b < bins; b += t.blockDim.x) {
      local(b) = 0u;
    }
    t.syncthreads();
    unsigned stride = t.blockDim.x * t.gridDim.x;
    for (unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x; i < n; i += stride) {
      local.atomic_add(in(i), 1u);
    }
    t.syncthreads();
    for (unsigned b = t.threadIdx.x; b < bins; b += t.blockDim.x) {
      partial(t.blockIdx.x * bins + b) = local(b);
    }
  }
};

namespace partial_histogram_detail {

inline std::vector<ParamSpec> params() {
  return {
      {"n", 1 << 16, 32, 1 << 28, {}, "values to count"},
      {"bins", 256, 0, 0, {16, 32, 64, 128, 256, 512, 1024, 4096}, "bins of the histogram"},
      {"block", 256, 32, 1024, {}, "threads per block (a multiple of 32)"},
      {"private_rows", 64, 1, 1024, {}, "blocks, each counting into its own row"},
      {"skew", 0, 0, 100, {}, "percent of the values that fall in bin 0 (contention)"},
  };
}

inline std::string check(const Params& p) {
  const long long block = p.at("block");
  if (block % 32 != 0) return "block=" + std::to_string(block) + " is not a multiple of 32";
  if (p.at("private_rows") * p.at("bins") > (1ll << 24)) return "private_rows x bins is more than 2^24 counters";
  return "";
}

inline Plan plan(const Params& p, bool shared) {
  const long long n = p.at("n"), bins = p.at("bins"), block = p.at("block"), blocks = p.at("private_rows");
  Plan pl;
  pl.arrays = {{"in", 4, std::uint64_t(n), false, {Fill::Skewed, int(p.at("skew")), int(bins - 1)}},
               {"partial", 4, std::uint64_t(blocks * bins), true}};
  LaunchCfg c;
  c.kernel = shared ? "partial_hist_shared" : "partial_hist_global";
  c.grid = {unsigned(blocks), 1, 1};
  c.block = {unsigned(block), 1, 1};
  c.shared_bytes = shared ? std::uint32_t(bins * 4) : 0;
  pl.launches = {c};
  pl.logical_bytes = 4.0 * double(n) + 4.0 * double(blocks * bins);
  return pl;
}

inline std::string verify(const HostArrays& h, const Params& p) {
  const long long bins = p.at("bins"), blocks = p.at("private_rows");
  std::vector<unsigned> want(std::size_t(bins), 0), got(std::size_t(bins), 0);
  for (unsigned v : h.as<unsigned>(0)) ++want[v];
  auto part = h.as<unsigned>(1);
  for (long long k = 0; k < blocks; ++k)
    for (long long b = 0; b < bins; ++b) got[std::size_t(b)] += part[std::size_t(k * bins + b)];
  for (long long b = 0; b < bins; ++b)
    if (got[std::size_t(b)] != want[std::size_t(b)])
      return "bin " + std::to_string(b) + " counted " + std::to_string(got[std::size_t(b)]) +
             " over the blocks' rows, expected " + std::to_string(want[std::size_t(b)]);
  return "";
}

}  // namespace partial_histogram_detail

// @post appends the per-block histogram variants to r in teaching order (global_atomic, shared_atomic).
inline void add_partial_histogram(Registry& r) {
  using namespace partial_histogram_detail;
  r.family({.name = "partial_histogram",
            .source_file = "kernels/families/partial_histogram.cuh",
            .peers = {Peer::MemcpyD2D},
            .copy_bytes = [](const Params& p) {
              return 2.0 * double(p.at("n")) + 2.0 * double(p.at("private_rows") * p.at("bins"));
            },
            // The rows question alone (9 runs): left to default_sweep, rows x the bins' 8
            // choices made 72 runs of 2^26 values, each checked on the host (issue 26).
            .sweeps = {{"private_rows", ""}},
            .size_params = {"n", "block"},
            .timing = {{"n", 1 << 26}},
            .small = {{"n", 4096}, {"bins", 64}, {"private_rows", 8}},
            .bar_sizes = {{{"n", 1 << 24}}}});
  r.add({.info = {.name = "global_atomic",
                  .title = "Per-block rows, global atomics",
                  .why = "The baseline: every value is an atomicAdd on the block's row in global "
                         "memory, a read-modify-write in L2.",
                  .entry = "PartialHistGlobal",
                  .params = params(),
                  .check = check,
                  .plan = [](const Params& p) { return plan(p, false); },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], PartialHistGlobal{a.in<unsigned>(0), a.out<unsigned>(1), unsigned(p.at("n")),
                                                      unsigned(p.at("bins"))});
         }});
  r.add({.info = {.name = "shared_atomic",
                  .title = "Per-block rows counted in shared memory",
                  .why = "Fewer global accesses than global_atomic: the block counts with shared-memory "
                         "atomics and stores its row once.",
                  .entry = "PartialHistShared",
                  .params = params(),
                  .check = check,
                  .plan = [](const Params& p) { return plan(p, true); },
                  .verify = verify},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], PartialHistShared{a.in<unsigned>(0), a.out<unsigned>(1), unsigned(p.at("n")),
                                                      unsigned(p.at("bins"))});
         }});
}

WS_END_MODE
