#pragma once
// Instruction throughput: kernels that load one value per thread, do `iters` rounds of one
// kind of arithmetic on it in registers, and store the result. Memory traffic is the same
// for every variant (4 bytes in, 4 out per thread), so the time difference is the cost of
// the instructions: integer division against shifts, the accurate sinf against the
// hardware's approximate __sinf, a chain of dependent multiply-adds against four
// independent chains, and a chain of warp shuffles. The trace shows the same two global
// accesses for each; only the clock sees the difference, so the lesson is timed.
#include <cmath>

#include "kernels/dialect/registry.h"

WS_BEGIN_MODE

// The hardware's approximate sine (one special-function instruction, MUFU.SIN) in the
// CUDA builds; the emulator has no such unit and uses the accurate one, which the CPU
// reference's tolerance covers.
WS_HD inline float instr_fast_sin(float x) {
#if defined(__CUDA_ARCH__)
  return __sinf(x);
#else
  return std::sin(x);
#endif
}

// One round of the integer step, written with / and %: the divisor is a kernel argument,
// so the compiler cannot turn it into a shift, and a 32-bit division is a sequence of
// about twenty instructions (a reciprocal estimate and its corrections).
WS_HD inline unsigned instr_div_step(unsigned x, unsigned d, unsigned k) {
  return x / d + (x % d) * 3u + k;
}
// The same step for a power-of-two divisor with a shift and a mask: two instructions.
WS_HD inline unsigned instr_shift_step(unsigned x, unsigned s, unsigned k) {
  return (x >> s) + (x & ((1u << s) - 1u)) * 3u + k;
}
// A multiply-add of the chains: x * x + c, one IMAD each. Not x * a + b: that step is
// affine, two of them are one (x * a^2 + (a*b + b)), and the compiler folded the unrolled
// chain into a few steps (measured on the H100: 2^30 source steps in 26 us). A square
// cannot be folded, so every step runs and waits for the one before.
WS_HD inline unsigned instr_mad(unsigned x) { return x * x + 1013904223u; }

// Integer division and modulo by a run-time divisor.
struct InstrDivMod {
  Global<const unsigned> in;
  Global<unsigned> out;
  int iters;
  unsigned d;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    unsigned x = in(i);  WS_WORK(iters);
    for (int k = 0; k < iters; ++k) {
      x = instr_div_step(x, d, unsigned(k));
    }
    out(i) = x;
  }
};

// The same arithmetic with a shift and a mask (d a power of two, s = log2 d).
struct InstrShiftMask {
  Global<const unsigned> in;
  Global<unsigned> out;
  int iters;
  unsigned s;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    unsigned x = in(i);  WS_WORK(iters);
    for (int k = 0; k < iters; ++k) {
      x = instr_shift_step(x, s, unsigned(k));
    }
    out(i) = x;
  }
};

// The accurate sine: sinf reduces the argument to [-pi/4, pi/4] and evaluates a
// polynomial, dozens of instructions (and a slow path for large arguments).
struct InstrSinf {
  Global<const float> in;
  Global<float> out;
  int iters;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    float x = in(i);  WS_WORK(iters);
    float acc = 0.f;
    for (int k = 0; k < iters; ++k) {
      acc += sinf(x + 0.001f * float(k));
    }
    out(i) = acc;
  }
};

// The hardware sine, __sinf: one MUFU instruction, on a unit that serves a quarter of a
// warp per cycle, with an absolute error near 2^-21 for arguments within [-pi, pi].
struct InstrFastSinf {
  Global<const float> in;
  Global<float> out;
  int iters;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    float x = in(i);  WS_WORK(iters);
    float acc = 0.f;
    for (int k = 0; k < iters; ++k) {
      acc += instr_fast_sin(x + 0.001f * float(k));
    }
    out(i) = acc;
  }
};

// One chain: each multiply-add needs the result of the one before, so a warp waits the
// latency of an IMAD between its instructions. With many warps per scheduler another warp
// fills the wait; with one, the wait is the time.
struct InstrDependent {
  Global<const unsigned> in;
  Global<unsigned> out;
  int iters;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    unsigned x = in(i);  WS_WORK(iters);
    for (int k = 0; k < iters; ++k) {
      x = instr_mad(x);
    }
    out(i) = x;
  }
};

// Four chains of a quarter the length: the same multiply-adds, but four are independent
// at every moment, so one warp can issue a new one every cycle (instruction-level
// parallelism) instead of waiting for the last.
struct InstrIndependent {
  Global<const unsigned> in;
  Global<unsigned> out;
  int iters;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    unsigned x = in(i);  WS_WORK(iters);
    unsigned a = x, b = x ^ 1u, c = x ^ 2u, e = x ^ 3u;
    for (int k = 0; k < iters; k += 4) {
      a = instr_mad(a);
      b = instr_mad(b);
      c = instr_mad(c);
      e = instr_mad(e);
    }
    out(i) = a ^ b ^ c ^ e;
  }
};

// A chain of warp shuffles: each lane adds the value of the lane beside it, and the next
// shuffle needs that sum. A shuffle goes through the same crossbar as shared memory: its
// latency is several times an IMAD's.
struct InstrShuffle {
  Global<const unsigned> in;
  Global<unsigned> out;
  int iters;
  WS_DEVICE void operator()(Thread& t) const {
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    unsigned x = in(i);
    for (int k = 0; k < iters; ++k) {
      x += t.shfl_xor_sync(WS_FULL_MASK, x, 1 + (k & 15));
    }
    out(i) = x;
  }
};

namespace instr_detail {

enum class Kind { DivMod, ShiftMask, Sinf, FastSinf, Dependent, Independent, Shuffle };

inline bool is_float(Kind k) { return k == Kind::Sinf || k == Kind::FastSinf; }

inline std::vector<ParamSpec> params(Kind k) {
  std::vector<ParamSpec> ps = {
      {"n", 1 << 16, 32, 1 << 26, {}, "threads, one value each"},
      {"block", 256, 32, 1024, {}, "threads per block (a multiple of 32)"},
      {"iters", 64, 4, 4096, {}, "rounds of the instruction per thread (a multiple of 4)"},
  };
  if (k == Kind::DivMod || k == Kind::ShiftMask)
    ps.push_back({"div", 16, 0, 0, {2, 4, 8, 16, 32, 64, 128, 256}, "the divisor (a power of two)"});
  return ps;
}

inline std::string check(const Params& p) {
  const long long n = p.at("n"), block = p.at("block");
  if (block % 32 != 0) return "block=" + std::to_string(block) + " is not a multiple of 32";
  if (n % block != 0)
    return "n=" + std::to_string(n) + " is not a multiple of block=" + std::to_string(block);
  if (p.at("iters") % 4 != 0)
    return "iters=" + std::to_string(p.at("iters")) + " is not a multiple of 4";
  return "";
}

// Floats in [-3, 3) for the sines, any bits for the integer kinds.
inline Plan plan(const Params& p, const char* kernel, Kind k) {
  const long long n = p.at("n"), block = p.at("block");
  Plan pl;
  const InputGen gen = is_float(k) ? InputGen{Fill::FloatRange, -3, 3} : InputGen{Fill::Bits};
  pl.arrays = {{"in", 4, std::uint64_t(n), false, gen}, {"out", 4, std::uint64_t(n), true}};
  LaunchCfg c;
  c.kernel = kernel;
  c.grid = {unsigned(n / block), 1, 1};
  c.block = {unsigned(block), 1, 1};
  pl.launches = {c};
  pl.logical_bytes = 8.0 * double(n);
  pl.ops = pl.work_rounds = double(n) * double(p.at("iters"));  // every thread's loop; timed in Gop/s
  return pl;
}

inline unsigned log2u(long long d) {
  unsigned s = 0;
  while ((1ll << s) < d) ++s;
  return s;
}

// Every element up to 2^16 threads; above that the warps of a 2^16-element sample spread
// over the whole array (the reference costs n x iters operations, a sine each for sinf).
inline bool checked(long long i, long long n) {
  constexpr long long kAll = 1 << 16;
  if (n <= kAll) return true;
  const long long warps = n / 32, step = warps / (kAll / 32);
  return (i / 32) % step == 0;
}

inline std::string verify(const HostArrays& h, const Params& p, Kind k) {
  const long long n = p.at("n"), block = p.at("block");
  const int iters = int(p.at("iters"));
  if (is_float(k)) {
    auto in = h.as<float>(0);
    auto out = h.as<float>(1);
    // __sinf's absolute error grows with the argument (|x| <= 3.3 here): 2^-19 per call
    // covers it; sinf and the emulator are far closer.
    const double tol = iters * std::ldexp(1.0, -19) + 1e-5 * iters;
    for (long long i = 0; i < n; ++i) {
      if (!checked(i, n)) continue;
      double ref = 0;
      for (int r = 0; r < iters; ++r) ref += std::sin(double(in[std::size_t(i)] + 0.001f * float(r)));
      if (!(std::fabs(out[std::size_t(i)] - ref) <= tol))
        return "out[" + std::to_string(i) + "] = " + std::to_string(out[std::size_t(i)]) +
               ", expected " + std::to_string(ref);
    }
    return "";
  }
  auto in = h.as<unsigned>(0);
  auto out = h.as<unsigned>(1);
  const unsigned d = k == Kind::DivMod || k == Kind::ShiftMask ? unsigned(p.at("div")) : 1u;
  for (long long i = 0; i < n; ++i) {
    if (!checked(i, n)) continue;
    unsigned x = in[std::size_t(i)], want = 0;
    switch (k) {
      case Kind::DivMod:
      case Kind::ShiftMask:
        for (int r = 0; r < iters; ++r) x = instr_div_step(x, d, unsigned(r));
        want = x;
        break;
      case Kind::Dependent:
        for (int r = 0; r < iters; ++r) x = instr_mad(x);
        want = x;
        break;
      case Kind::Independent: {
        unsigned a = x, b = x ^ 1u, c = x ^ 2u, e = x ^ 3u;
        for (int r = 0; r < iters; r += 4) {
          a = instr_mad(a);
          b = instr_mad(b);
          c = instr_mad(c);
          e = instr_mad(e);
        }
        want = a ^ b ^ c ^ e;
        break;
      }
      case Kind::Shuffle: {
        // The warp's 32 values evolve together: simulate the warp of element i.
        const long long w0 = i / 32 * 32;
        (void)block;
        unsigned v[32];
        for (int l = 0; l < 32; ++l) v[l] = in[std::size_t(w0 + l)];
        for (int r = 0; r < iters; ++r) {
          unsigned nv[32];
          for (int l = 0; l < 32; ++l) nv[l] = v[l] + v[l ^ (1 + (r & 15))];
          for (int l = 0; l < 32; ++l) v[l] = nv[l];
        }
        for (int l = 0; l < 32; ++l)
          if (out[std::size_t(w0 + l)] != v[l])
            return "out[" + std::to_string(w0 + l) + "] = " + std::to_string(out[std::size_t(w0 + l)]) +
                   ", expected " + std::to_string(v[l]);
        i = w0 + 31;
        continue;
      }
      default: break;
    }
    if (out[std::size_t(i)] != want)
      return "out[" + std::to_string(i) + "] = " + std::to_string(out[std::size_t(i)]) +
             ", expected " + std::to_string(want);
  }
  return "";
}

struct Def {
  const char* name;
  const char* title;
  const char* why;
  const char* entry;
  const char* kernel;
  Kind kind;
  void (*launch)(Launcher&, const Params&, const Plan&, const Args&);
};

}  // namespace instr_detail

// @post appends the instr variants to r in teaching order: div_mod, shift_mask, sinf,
//       fast_sinf, dependent, independent, shuffle.
inline void add_instr(Registry& r) {
  using namespace instr_detail;
  const Def defs[] = {
      {"div_mod", "Division and modulo", "The baseline: a 32-bit / and % by a run-time divisor "
       "are each a sequence of about twenty instructions.",
       "InstrDivMod", "instr_div_mod", Kind::DivMod,
       [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
         L.launch(pl.launches[0], InstrDivMod{a.in<unsigned>(0), a.out<unsigned>(1),
                                              int(p.at("iters")), unsigned(p.at("div"))});
       }},
      {"shift_mask", "Shift and mask", "Faster than div_mod: for a power-of-two divisor, >> "
       "and & give the same result in one instruction each.",
       "InstrShiftMask", "instr_shift_mask", Kind::ShiftMask,
       [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
         L.launch(pl.launches[0], InstrShiftMask{a.in<unsigned>(0), a.out<unsigned>(1),
                                                 int(p.at("iters")), log2u(p.at("div"))});
       }},
      {"sinf", "Accurate sinf", "Slow: sinf's range reduction and polynomial are dozens of "
       "instructions per call.",
       "InstrSinf", "instr_sinf", Kind::Sinf,
       [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
         L.launch(pl.launches[0], InstrSinf{a.in<float>(0), a.out<float>(1), int(p.at("iters"))});
       }},
      {"fast_sinf", "Hardware __sinf", "Faster than sinf: one special-function instruction, "
       "less accurate (about 2^-21 absolute within [-pi, pi]).",
       "InstrFastSinf", "instr_fast_sinf", Kind::FastSinf,
       [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
         L.launch(pl.launches[0],
                  InstrFastSinf{a.in<float>(0), a.out<float>(1), int(p.at("iters"))});
       }},
      {"dependent", "One dependent chain", "Latency-bound when warps are few: each multiply-add "
       "waits for the one before. With a full SM other warps hide the wait and it runs at the "
       "integer units' rate.",
       "InstrDependent", "instr_dependent", Kind::Dependent,
       [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
         L.launch(pl.launches[0],
                  InstrDependent{a.in<unsigned>(0), a.out<unsigned>(1), int(p.at("iters"))});
       }},
      {"independent", "Four independent chains", "The same multiply-adds in four independent "
       "chains, ready to issue back to back: faster than dependent when one warp per "
       "scheduler leaves nothing else to issue, the same when the SM is full.",
       "InstrIndependent", "instr_independent", Kind::Independent,
       [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
         L.launch(pl.launches[0],
                  InstrIndependent{a.in<unsigned>(0), a.out<unsigned>(1), int(p.at("iters"))});
       }},
      {"shuffle", "A chain of warp shuffles", "Slower than the integer chains: shuffles cannot "
       "be folded, each needs the one before, and an SM completes about half a warp-wide "
       "shuffle per clock (measured on the H100).",
       "InstrShuffle", "instr_shuffle", Kind::Shuffle,
       [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
         L.launch(pl.launches[0],
                  InstrShuffle{a.in<unsigned>(0), a.out<unsigned>(1), int(p.at("iters"))});
       }},
  };
  r.family({.name = "instr",
            .source_file = "kernels/families/instr.cuh",
            .peers = {},
            .size_params = {"n", "block"},
            .timing = {{"n", 1 << 22}, {"iters", 256}},
            .small = {{"n", 1024}, {"iters", 8}},
            .bar_sizes = {{{"n", 1 << 22}, {"iters", 256}}}});
  for (const Def& d : defs) {
    const Kind k = d.kind;
    const char* kernel = d.kernel;
    r.add({.info = {.name = d.name,
                    .title = d.title,
                    .why = d.why,
                    .entry = d.entry,
                    .params = params(k),
                    .check = check,
                    .plan = [kernel, k](const Params& p) { return plan(p, kernel, k); },
                    .verify = [k](const HostArrays& h, const Params& p) { return verify(h, p, k); }},
           .launch = d.launch});
  }
}

WS_END_MODE
