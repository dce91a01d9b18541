#pragma once
// Scans: every block writes the inclusive prefix sums of its own `block` ints,
// out[i] = in[b] + ... + in[i] for the block's first element b. The serial variant has
// each thread add its own prefix from global memory (thread t makes t + 1 loads); Hillis
// and Steele's scan does it in log2(block) rounds in shared memory, each thread adding the
// value d places before its own, one barrier a round.

#include "kernels/dialect/registry.h"

WS_BEGIN_MODE

// The baseline: thread t of the block reads the t + 1 elements up to its own and adds
// them. Lanes of a warp run different trip counts, and every element is loaded by every
// later thread of its block.
struct ScanSerial {
  Global<const int> in;
  Global<int> out;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned base = t.blockIdx.x * t.blockDim.x;
    unsigned tid = t.threadIdx.x;
    int sum = 0;
    for (unsigned k = 0; t.branch(k <= tid); ++k) {
      sum += in(base + k);
    }
    out(base + tid) = sum;
  }
};

// Hillis and Steele: the block's values in shared memory, then log2(block) rounds; in
// round d every thread from d on adds the value d places before its own. The rounds
// alternate between two halves of the shared array, so a round reads only what the
// previous one wrote: one barrier a round, every element loaded once.
struct ScanHillisSteele {
  Global<const int> in;
  Global<int> out;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned n = t.blockDim.x;
    auto buf = t.shared<int>(2 * n, "buf");
    unsigned tid = t.threadIdx.x;
    unsigned i = t.blockIdx.x * n + tid;
    buf(tid) = in(i);
    t.syncthreads();
    unsigned src = 0;
    for (unsigned d = 1; d < n; d *= 2) {
      int v = buf(src + tid);
      if (t.branch(tid >= d)) {
        v += buf(src + tid - d);
      }
      buf(n - src + tid) = v;
      src = n - src;
      t.syncthreads();
    }
    out(i) = buf(src + tid);
  }
};

namespace scan_detail {

inline std::vector<ParamSpec> params() {
  return {
      {"n", 1 << 16, 32, 1 << 28, {}, "ints to scan"},
      {"block", 256, 32, 1024, {}, "threads per block, each block scans its own (a power of two)"},
  };
}

inline std::string check(const Params& p) {
  const long long n = p.at("n"), block = p.at("block");
  if (block & (block - 1)) return "block=" + std::to_string(block) + " is not a power of two";
  if (n % block != 0)
    return "n=" + std::to_string(n) + " is not a multiple of block=" + std::to_string(block);
  return "";
}

inline Plan plan(const Params& p, bool shared) {
  const long long n = p.at("n"), block = p.at("block");
  Plan pl;
  pl.arrays = {{"in", 4, std::uint64_t(n), false, {Fill::IntRange, -1000, 1000}},
               {"out", 4, std::uint64_t(n), true}};
  LaunchCfg c;
  c.kernel = shared ? "scan_hillis_steele" : "scan_serial";
  c.grid = {unsigned(n / block), 1, 1};
  c.block = {unsigned(block), 1, 1};
  c.shared_bytes = shared ? std::uint32_t(2 * block * 4) : 0;
  pl.launches = {c};
  pl.logical_bytes = 8.0 * double(n);
  return pl;
}

inline std::string verify(const HostArrays& h, const Params& p) {
  const long long n = p.at("n"), block = p.at("block");
  auto in = h.as<int>(0);
  auto out = h.as<int>(1);
  long long sum = 0;
  for (long long i = 0; i < n; ++i) {
    if (i % block == 0) sum = 0;
    sum += in[std::size_t(i)];
    if (out[std::size_t(i)] != sum)
      return "out[" + std::to_string(i) + "] = " + std::to_string(out[std::size_t(i)]) + ", expected " +
             std::to_string(sum) + " (the sum of block " + std::to_string(i / block) + "'s elements up to it)";
  }
  return "";
}

}  // namespace scan_detail

// @post appends the scan variants to r in teaching order (serial, hillis_steele).
inline void add_scan(Registry& r) {
  using namespace scan_detail;
  r.family({.name = "scan",
            .source_file = "kernels/families/scan.cuh",
            .peers = {Peer::MemcpyD2D},
            .copy_bytes = [](const Params& p) { return 4.0 * double(p.at("n")); },
            .size_params = {"n", "block"},
            .timing = {{"n", 1 << 26}},
            .small = {{"n", 4096}},
            .bar_sizes = {{{"n", 1 << 24}}}});
  r.add({.info = {.name = "serial",
                  .title = "Each thread its own prefix",
                  .why = "The baseline: thread t loads the t + 1 elements up to its own, so a "
                         "block of 256 loads 32,896 elements for its 256 outputs, and the lanes of a "
                         "warp loop different numbers of times.",
                  .entry = "ScanSerial",
                  .params = params(),
                  .check = check,
                  .plan = [](const Params& p) { return plan(p, false); },
                  .verify = verify},
         .launch = [](Launcher& L, const Params&, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], ScanSerial{a.in<int>(0), a.out<int>(1)});
         }});
  r.add({.info = {.name = "hillis_steele",
                  .title = "Hillis and Steele in shared memory",
                  .why = "Fewer loads than serial: every element is loaded once, then log2(block) "
                         "rounds add in shared memory, one barrier a round.",
                  .entry = "ScanHillisSteele",
                  .params = params(),
                  .check = check,
                  .plan = [](const Params& p) { return plan(p, true); },
                  .verify = verify},
         .launch = [](Launcher& L, const Params&, const Plan& pl, const Args& a) {
           L.launch(pl.launches[0], ScanHillisSteele{a.in<int>(0), a.out<int>(1)});
         }});
}

WS_END_MODE
