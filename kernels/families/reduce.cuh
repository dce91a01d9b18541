#pragma once
// Sum reduction of n ints, the classic sequence of seven steps and two more that reach
// the memory limit. In steps 1 to 9 each block writes the sum of its part to
// out[blockIdx.x] and the CPU adds those partial sums in verify(): only that first pass
// runs (and is timed), the pass over n elements that the lesson is about. Steps 10 and 11
// finish the sum on the GPU (a second pass, or atomics), so the time covers the whole job,
// as CUB's DeviceReduce::Sum does. Bodies are the lesson's code: keep each access on
// its own line, and keep the textbook's shape, since the counts are held against a
// profiler's.
#include <algorithm>

#include "kernels/dialect/registry.h"

WS_BEGIN_MODE

// What `tid % (2 * s)` costs every thread at every step: 2 * s is no constant, so the
// remainder is an unsigned division through a float reciprocal (I2F, MUFU.RCP, F2I and
// integer fix-ups). The fast build's SASS has 19 instructions on that line where the
// other steps' conditions have one compare: 18 more, which the trace cannot see unless
// the kernel states them (a test holds this to the recorded SASS).
inline constexpr unsigned kModuloWork = 18;

// 1. Interleaved addressing with modulo. In step s, the threads whose id is a multiple
// of 2s add their neighbour s away. Only every other thread works in the first step
// and fewer after, yet they are spread over every warp: most warps diverge at every
// step, and `%` is a slow instruction.
struct ReduceInterleavedModulo {
  Global<const int> in;
  Global<int> out;
  static constexpr std::uint32_t shared_bytes(unsigned block) { return block * sizeof(int); }
  WS_DEVICE void operator()(Thread& t) const {
    auto sdata = t.shared<int>(t.blockDim.x, "sdata");
    unsigned tid = t.threadIdx.x;
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    sdata(tid) = in(i);
    t.syncthreads();
    for (unsigned s = 1; s < t.blockDim.x; s *= 2) {
      t.work(kModuloWork);
      if (t.branch(tid % (2 * s) == 0)) {
        sdata(tid) += sdata(tid + s);
      }
      t.syncthreads();
    }
    if (tid == 0) {
      out(t.blockIdx.x) = sdata(0);
    }
  }
};

// 2. Interleaved addressing with a strided index. The working threads are now the first
// ones (thread j adds at index 2*s*j), so whole warps either work or skip: divergence is
// gone until fewer than 32 threads work. The price moves to shared memory: lanes 2s
// words apart hit the same banks, a 2-way conflict in the first step, 4-way in the
// second, and so on.
struct ReduceInterleavedStrided {
  Global<const int> in;
  Global<int> out;
  static constexpr std::uint32_t shared_bytes(unsigned block) { return block * sizeof(int); }
  WS_DEVICE void operator()(Thread& t) const {
    auto sdata = t.shared<int>(t.blockDim.x, "sdata");
    unsigned tid = t.threadIdx.x;
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    sdata(tid) = in(i);
    t.syncthreads();
    for (unsigned s = 1; s < t.blockDim.x; s *= 2) {
      unsigned index = 2 * s * tid;
      if (t.branch(index < t.blockDim.x)) {
        sdata(index) += sdata(index + s);
      }
      t.syncthreads();
    }
    if (tid == 0) {
      out(t.blockIdx.x) = sdata(0);
    }
  }
};

// 3. Sequential addressing. Step s folds the upper half of the live range onto the
// lower half: thread j adds sdata[j + s] to sdata[j]. Consecutive lanes read
// consecutive words, so there are no bank conflicts, and the working threads are still
// the first ones. Half the threads now idle from the very first step.
struct ReduceSequential {
  Global<const int> in;
  Global<int> out;
  static constexpr std::uint32_t shared_bytes(unsigned block) { return block * sizeof(int); }
  WS_DEVICE void operator()(Thread& t) const {
    auto sdata = t.shared<int>(t.blockDim.x, "sdata");
    unsigned tid = t.threadIdx.x;
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    sdata(tid) = in(i);
    t.syncthreads();
    for (unsigned s = t.blockDim.x / 2; s > 0; s >>= 1) {
      if (t.branch(tid < s)) {
        sdata(tid) += sdata(tid + s);
      }
      t.syncthreads();
    }
    if (tid == 0) {
      out(t.blockIdx.x) = sdata(0);
    }
  }
};

// 4. First add during load. Each block takes two blocks' worth of input and every
// thread adds its two elements while loading them, so no thread idles in the first
// step and half as many blocks are launched. The tree is unchanged.
struct ReduceFirstAdd {
  Global<const int> in;
  Global<int> out;
  static constexpr std::uint32_t shared_bytes(unsigned block) { return block * sizeof(int); }
  WS_DEVICE void operator()(Thread& t) const {
    auto sdata = t.shared<int>(t.blockDim.x, "sdata");
    unsigned tid = t.threadIdx.x;
    unsigned i = t.blockIdx.x * (t.blockDim.x * 2) + t.threadIdx.x;
    int a = in(i);
    int b = in(i + t.blockDim.x);
    sdata(tid) = a + b;
    t.syncthreads();
    for (unsigned s = t.blockDim.x / 2; s > 0; s >>= 1) {
      if (t.branch(tid < s)) {
        sdata(tid) += sdata(tid + s);
      }
      t.syncthreads();
    }
    if (tid == 0) {
      out(t.blockIdx.x) = sdata(0);
    }
  }
};

// The last six steps of a block's tree, done by warp 0 alone without __syncthreads.
// The textbook (pre-Volta) code relies on the 32 lanes running in lock-step through a
// volatile pointer. Since Volta, lanes of a warp are scheduled independently, so each
// step keeps the running sum in a register, reads its partner, syncs the warp, writes,
// and syncs again (NVIDIA's documented fix): one shared load and one shared store per
// step, where the volatile form reloads sdata[tid] as well.
template <class S>
WS_DEVICE void reduce_last_warp(Thread& t, const S& sdata, unsigned tid) {
  int v = sdata(tid);
  v += sdata(tid + 32);
  t.syncwarp();
  sdata(tid) = v;
  t.syncwarp();
  v += sdata(tid + 16);
  t.syncwarp();
  sdata(tid) = v;
  t.syncwarp();
  v += sdata(tid + 8);
  t.syncwarp();
  sdata(tid) = v;
  t.syncwarp();
  v += sdata(tid + 4);
  t.syncwarp();
  sdata(tid) = v;
  t.syncwarp();
  v += sdata(tid + 2);
  t.syncwarp();
  sdata(tid) = v;
  t.syncwarp();
  v += sdata(tid + 1);
  t.syncwarp();
  sdata(tid) = v;
}

// 5. Unrolled last warp. Once 32 or fewer threads work, they are all in warp 0: the
// loop's __syncthreads, its condition and its counter are pure overhead there. The loop
// stops at s = 64 and warp 0 does the last six steps straight-line (see
// reduce_last_warp for the __syncwarp that Volta and later need).
struct ReduceUnrollLastWarp {
  Global<const int> in;
  Global<int> out;
  static constexpr std::uint32_t shared_bytes(unsigned block) { return block * sizeof(int); }
  WS_DEVICE void operator()(Thread& t) const {
    auto sdata = t.shared<int>(t.blockDim.x, "sdata");
    unsigned tid = t.threadIdx.x;
    unsigned i = t.blockIdx.x * (t.blockDim.x * 2) + t.threadIdx.x;
    int a = in(i);
    int b = in(i + t.blockDim.x);
    sdata(tid) = a + b;
    t.syncthreads();
    for (unsigned s = t.blockDim.x / 2; s > 32; s >>= 1) {
      if (t.branch(tid < s)) {
        sdata(tid) += sdata(tid + s);
      }
      t.syncthreads();
    }
    if (t.branch(tid < 32)) {
      reduce_last_warp(t, sdata, tid);
    }
    if (tid == 0) {
      out(t.blockIdx.x) = sdata(0);
    }
  }
};

// The tree of a block of B threads with every step written out: B is a compile-time
// constant, so the `B >= ...` tests vanish and no loop remains.
template <unsigned B, class S>
WS_DEVICE void reduce_tree_unrolled(Thread& t, const S& sdata, unsigned tid) {
  if (B >= 1024) {
    if (t.branch(tid < 512)) {
      sdata(tid) += sdata(tid + 512);
    }
    t.syncthreads();
  }
  if (B >= 512) {
    if (t.branch(tid < 256)) {
      sdata(tid) += sdata(tid + 256);
    }
    t.syncthreads();
  }
  if (B >= 256) {
    if (t.branch(tid < 128)) {
      sdata(tid) += sdata(tid + 128);
    }
    t.syncthreads();
  }
  if (B >= 128) {
    if (t.branch(tid < 64)) {
      sdata(tid) += sdata(tid + 64);
    }
    t.syncthreads();
  }
  if (t.branch(tid < 32)) {
    reduce_last_warp(t, sdata, tid);
  }
}

// 6. Complete unroll. The block size becomes a template parameter (one instance per
// allowed size), so the whole tree is straight-line code: no loop counter, no
// comparisons at run time, only the adds and the barriers.
template <unsigned B>
struct ReduceCompleteUnroll {
  Global<const int> in;
  Global<int> out;
  static constexpr std::uint32_t shared_bytes(unsigned) { return B * sizeof(int); }
  WS_DEVICE void operator()(Thread& t) const {
    auto sdata = t.shared<int>(B, "sdata");
    unsigned tid = t.threadIdx.x;
    unsigned i = t.blockIdx.x * (B * 2) + t.threadIdx.x;
    int a = in(i);
    int b = in(i + B);
    sdata(tid) = a + b;
    t.syncthreads();
    reduce_tree_unrolled<B>(t, sdata, tid);
    if (tid == 0) {
      out(t.blockIdx.x) = sdata(0);
    }
  }
};

// 7. Multiple elements per thread. A fixed grid (one full wave of the GPU) walks the
// input with a grid-sized stride, each thread summing many pairs in a register before
// the tree. The tree and its barriers now run once per block of many thousand elements
// instead of once per 2 x B: the kernel's cost is its loads.
template <unsigned B>
struct ReduceMultipleElements {
  Global<const int> in;
  Global<int> out;
  unsigned n;
  static constexpr std::uint32_t shared_bytes(unsigned) { return B * sizeof(int); }
  WS_DEVICE void operator()(Thread& t) const {
    auto sdata = t.shared<int>(B, "sdata");
    unsigned tid = t.threadIdx.x;
    unsigned i = t.blockIdx.x * (B * 2) + t.threadIdx.x;
    unsigned grid_size = B * 2 * t.gridDim.x;
    int sum = 0;
    while (i < n) {
      sum += in(i);
      sum += in(i + B);
      i += grid_size;
    }
    sdata(tid) = sum;
    t.syncthreads();
    reduce_tree_unrolled<B>(t, sdata, tid);
    if (tid == 0) {
      out(t.blockIdx.x) = sdata(0);
    }
  }
};

// A warp's sum in five shuffles: each lane adds the value of the lane `offset` above
// it, through registers, with no shared memory and no barrier.
WS_DEVICE int reduce_warp_shuffle(Thread& t, int v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v += t.shfl_down_sync(WS_FULL_MASK, v, offset);
  }
  return v;
}

// 8. Warp shuffle. The same grid-stride loop, then each warp sums its registers with
// shuffles; only one value per warp goes through shared memory, and one barrier
// remains. The shared tree (ten steps, ten barriers for 1024 threads) is gone.
struct ReduceWarpShuffle {
  Global<const int> in;
  Global<int> out;
  unsigned n;
  static constexpr std::uint32_t shared_bytes(unsigned) { return 32 * sizeof(int); }
  WS_DEVICE void operator()(Thread& t) const {
    auto warp_sums = t.shared<int>(32, "warp_sums");
    unsigned i = t.blockIdx.x * (t.blockDim.x * 2) + t.threadIdx.x;
    unsigned grid_size = t.blockDim.x * 2 * t.gridDim.x;
    int sum = 0;
    while (i < n) {
      sum += in(i);
      sum += in(i + t.blockDim.x);
      i += grid_size;
    }
    sum = reduce_warp_shuffle(t, sum);
    if (t.lane() == 0) {
      warp_sums(t.warp()) = sum;
    }
    t.syncthreads();
    if (t.warp() == 0) {
      sum = 0;
      if (t.lane() < t.blockDim.x / 32) {
        sum = warp_sums(t.lane());
      }
      sum = reduce_warp_shuffle(t, sum);
      if (t.lane() == 0) {
        out(t.blockIdx.x) = sum;
      }
    }
  }
};

// 9. Vector loads. The loop reads an int4 (16 bytes) per lane and instruction: a warp
// request now moves 512 bytes, a quarter as many load instructions and loop trips for
// the same data, so the memory system sees enough requests in flight to run at its
// limit (CUB's DeviceReduce does the same).
struct ReduceVectorLoad {
  Global<const int4> in;
  Global<int> out;
  unsigned n4;  // int4 elements
  static constexpr std::uint32_t shared_bytes(unsigned) { return 32 * sizeof(int); }
  WS_DEVICE void operator()(Thread& t) const {
    auto warp_sums = t.shared<int>(32, "warp_sums");
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    unsigned grid_size = t.blockDim.x * t.gridDim.x;
    int sum = 0;
    while (i < n4) {
      int4 v = in(i);
      sum += v.x + v.y + v.z + v.w;
      i += grid_size;
    }
    sum = reduce_warp_shuffle(t, sum);
    if (t.lane() == 0) {
      warp_sums(t.warp()) = sum;
    }
    t.syncthreads();
    if (t.warp() == 0) {
      sum = 0;
      if (t.lane() < t.blockDim.x / 32) {
        sum = warp_sums(t.lane());
      }
      sum = reduce_warp_shuffle(t, sum);
      if (t.lane() == 0) {
        out(t.blockIdx.x) = sum;
      }
    }
  }
};

// 10. The whole sum on the GPU, in two passes. The first pass is step 9; a second launch
// of one block adds the partial sums (one per block of the first: about a thousand) with
// the same warp shuffles and writes the total. This is what CUB's DeviceReduce::Sum does
// too, so the comparison with it is now like for like: both end with one number.
struct ReduceFinalPass {
  Global<const int> partial;
  Global<int> total;
  unsigned count;  // partial sums to add
  static constexpr std::uint32_t shared_bytes(unsigned) { return 32 * sizeof(int); }
  WS_DEVICE void operator()(Thread& t) const {
    auto warp_sums = t.shared<int>(32, "warp_sums");
    int sum = 0;
    for (unsigned i = t.threadIdx.x; i < count; i += t.blockDim.x) {
      sum += partial(i);
    }
    sum = reduce_warp_shuffle(t, sum);
    if (t.lane() == 0) {
      warp_sums(t.warp()) = sum;
    }
    t.syncthreads();
    if (t.warp() == 0) {
      sum = 0;
      if (t.lane() < t.blockDim.x / 32) {
        sum = warp_sums(t.lane());
      }
      sum = reduce_warp_shuffle(t, sum);
      if (t.lane() == 0) {
        total(0) = sum;
      }
    }
  }
};

// Sets the total to zero before the blocks add into it.
struct ReduceZero {
  Global<int> total;
  static constexpr std::uint32_t shared_bytes(unsigned) { return 0; }
  WS_DEVICE void operator()(Thread& t) const {
    if (t.threadIdx.x == 0) {
      total(0) = 0;
    }
  }
};

// 11. The whole sum in one pass with an atomic. Each block ends like step 9, then lane 0
// of warp 0 adds the block's sum into the total with one atomicAdd: about a thousand
// atomics on one address, spread over the kernel's run, so they cost next to nothing. A
// one-thread launch zeroes the total first.
struct ReduceAtomic {
  Global<const int4> in;
  Global<int> total;
  unsigned n4;  // int4 elements
  static constexpr std::uint32_t shared_bytes(unsigned) { return 32 * sizeof(int); }
  WS_DEVICE void operator()(Thread& t) const {
    auto warp_sums = t.shared<int>(32, "warp_sums");
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    unsigned grid_size = t.blockDim.x * t.gridDim.x;
    int sum = 0;
    while (i < n4) {
      int4 v = in(i);
      sum += v.x + v.y + v.z + v.w;
      i += grid_size;
    }
    sum = reduce_warp_shuffle(t, sum);
    if (t.lane() == 0) {
      warp_sums(t.warp()) = sum;
    }
    t.syncthreads();
    if (t.warp() == 0) {
      sum = 0;
      if (t.lane() < t.blockDim.x / 32) {
        sum = warp_sums(t.lane());
      }
      sum = reduce_warp_shuffle(t, sum);
      if (t.lane() == 0) {
        total.atomic_add(0, sum);
      }
    }
  }
};

namespace reduce_detail {

// Grid-stride variants launch one full wave of an H100 (132 SMs x 2048 threads, from
// sim::h100): enough blocks to fill the GPU, few enough that each thread sums many elements.
constexpr long long kWaveThreads = 1ll * sim::h100::kSmCount * sim::h100::kMaxThreadsPerSm;

// Block sizes, each a template instance of the kernels that take it as a parameter.
using Blocks = Choices<64, 128, 256, 512, 1024>;

enum class Shape {
  OnePerThread,  // block b reduces elements [b*B, (b+1)*B)
  TwoPerThread,  // block b reduces elements [2*b*B, 2*(b+1)*B)
  GridStride,    // pairs of B elements, chunk c goes to block c % grid
  GridStrideVec, // int4 vectors, vector v goes to block (v / B) % grid
  TwoPass,       // GridStrideVec, then one block adds the partial sums: out = {total}
  Atomic         // zero the total, then GridStrideVec blocks atomically add into it
};

// The variants that leave one number, the whole sum, in their last array.
inline bool complete(Shape s) { return s == Shape::TwoPass || s == Shape::Atomic; }

inline long long grid_of(const Params& p, Shape s) {
  const long long n = p.at("n"), b = p.at("block");
  const long long wave = kWaveThreads / b;
  switch (s) {
    case Shape::OnePerThread: return n / b;
    case Shape::TwoPerThread: return n / (2 * b);
    case Shape::GridStride: return std::min(wave, n / (2 * b));
    case Shape::GridStrideVec:
    case Shape::TwoPass:
    case Shape::Atomic: return std::min(wave, (n / 4 + b - 1) / b);
  }
  return 1;
}

// Values in [-7, 7]: a block's sum stays far from the int range even for the largest n;
// the CPU adds the block sums in 64 bits.
constexpr InputGen kIn{Fill::IntRange, -7, 7};

// Threads of the second pass: one block, as wide as the first pass's blocks.
constexpr unsigned kFinalBlock = 1024;

// The shared bytes of a kernel for a block size, from the kernel struct (a template's
// instance for that size).
using SharedBytes = std::uint32_t (*)(long long block);

inline Plan plan(const Params& p, Shape s, const char* kernel, SharedBytes shared) {
  const long long n = p.at("n"), b = p.at("block");
  const long long grid = grid_of(p, s);
  Plan pl;
  LaunchCfg c;
  c.kernel = kernel;
  c.grid = {unsigned(grid), 1, 1};
  c.block = {unsigned(b), 1, 1};
  c.shared_bytes = shared(b);
  if (s == Shape::TwoPass) {
    // The partials start as values the first pass must overwrite; a few blocks' run (a trace
    // fixture) still sums them without int overflow, UB in the emulator (found by UBSan).
    pl.arrays = {{"in", 4, std::uint64_t(n), false, kIn},
                 {"partial", 4, std::uint64_t(grid), false, {Fill::IntRange, -65536, 65536}},
                 {"total", 4, 1, true}};
    LaunchCfg f;
    f.kernel = "reduce_final_pass";
    f.grid = {1, 1, 1};
    f.block = {kFinalBlock, 1, 1};
    f.shared_bytes = ReduceFinalPass::shared_bytes(kFinalBlock);
    pl.launches = {c, f};
    pl.logical_bytes = 4.0 * double(n) + 4.0;
    return pl;
  }
  if (s == Shape::Atomic) {
    pl.arrays = {{"in", 4, std::uint64_t(n), false, kIn}, {"total", 4, 1, true}};
    LaunchCfg z;
    z.kernel = "reduce_zero";
    z.grid = {1, 1, 1};
    z.block = {32, 1, 1};
    pl.launches = {z, c};
    pl.logical_bytes = 4.0 * double(n) + 4.0;
    return pl;
  }
  pl.arrays = {{"in", 4, std::uint64_t(n), false, kIn}, {"out", 4, std::uint64_t(grid), true}};
  pl.launches = {c};
  pl.logical_bytes = 4.0 * double(n) + 4.0 * double(grid);
  // Block k's partial sum covers the elements whose block under this shape is k.
  pl.ref.kind = RefKind::BlockSums;
  pl.ref.count = std::uint64_t(n);
  pl.ref.groups = std::uint64_t(grid);
  switch (s) {
    case Shape::OnePerThread: pl.ref.div = std::uint64_t(b); break;
    case Shape::TwoPerThread:
    case Shape::GridStride: pl.ref.div = std::uint64_t(2 * b); break;
    case Shape::GridStrideVec: pl.ref.div = std::uint64_t(4 * b); break;
    case Shape::TwoPass:
    case Shape::Atomic: break;  // returned above
  }
  return pl;
}

inline std::string check(const Params& p, Shape s) {
  const long long n = p.at("n"), b = p.at("block");
  if (s == Shape::OnePerThread) {
    if (n % b != 0)
      return "n=" + std::to_string(n) + " is not a multiple of block=" + std::to_string(b);
  } else if (s == Shape::GridStrideVec || complete(s)) {
    if (n % 4 != 0)
      return "n=" + std::to_string(n) + " is not a multiple of 4 (the kernel reads int4)";
  } else if (n % (2 * b) != 0) {
    return "n=" + std::to_string(n) + " is not a multiple of 2 x block = " +
           std::to_string(2 * b) + " (each thread adds two elements at a time)";
  }
  return "";
}

inline std::string verify(const HostArrays& h, const Params& p, Shape s) {
  const long long n = p.at("n"), b = p.at("block");
  const long long grid = grid_of(p, s);
  auto in = h.as<int>(0);
  if (complete(s)) {
    long long total = 0;
    for (long long e = 0; e < n; ++e) total += in[std::size_t(e)];
    const int got = h.as<int>(s == Shape::TwoPass ? 2 : 1)[0];
    if (got != int(total))
      return "the total is " + std::to_string(got) + ", expected " + std::to_string(total);
    return "";
  }
  auto out = h.as<int>(1);
  std::vector<long long> want(std::size_t(grid), 0);
  for (long long e = 0; e < n; ++e) {
    long long blk = 0;
    switch (s) {
      case Shape::OnePerThread: blk = e / b; break;
      case Shape::TwoPerThread: blk = e / (2 * b); break;
      case Shape::GridStride: blk = (e / (2 * b)) % grid; break;
      default: blk = (e / 4 / b) % grid; break;
    }
    want[std::size_t(blk)] += in[std::size_t(e)];
  }
  long long total = 0, got_total = 0;
  for (long long k = 0; k < grid; ++k) {
    total += want[std::size_t(k)];
    got_total += out[std::size_t(k)];
    if (out[std::size_t(k)] != want[std::size_t(k)])
      return "block " + std::to_string(k) + " summed to " + std::to_string(out[std::size_t(k)]) +
             ", expected " + std::to_string(want[std::size_t(k)]);
  }
  if (got_total != total)
    return "the partial sums add to " + std::to_string(got_total) + ", expected " +
           std::to_string(total);
  return "";
}

inline std::vector<ParamSpec> params() {
  return {
      {"n", 1 << 19, 1024, 1 << 29, {}, "ints to add"},
      {"block", 256, 0, 0, Blocks::list(), "threads per block (a power of two)"},
  };
}

// One instance per allowed block size: the template parameter is the block size.
template <template <unsigned> class K, class... Extra>
void launch_sized(Launcher& L, const Params& p, const Plan& pl, const Args& a, Extra... extra) {
  const LaunchCfg& c = pl.launches[0];
  with_choice<Blocks>(L, "block", p.at("block"), [&]<long long B>() {
    L.launch(c, K<B>{a.in<int>(0), a.out<int>(1), extra...});
  });
}

template <class K>
std::uint32_t shared_of(long long block) {
  return K::shared_bytes(unsigned(block));
}
template <template <unsigned> class K>
std::uint32_t shared_of_sized(long long block) {
  std::uint32_t b = 0;
  Blocks::dispatch(block, [&]<long long B>() { b = K<B>::shared_bytes(unsigned(B)); });
  return b;
}

struct Step {
  const char* name;
  const char* title;
  const char* why;
  const char* entry;
  const char* kernel;
  Shape shape;
  SharedBytes shared;
  void (*launch)(Launcher&, const Params&, const Plan&, const Args&);
};

}  // namespace reduce_detail

// @post appends the reduce family and its variants to r, in the order of the lesson
//       (steps 1 to 11).
inline void add_reduce(Registry& r) {
  using namespace reduce_detail;
  r.family({.name = "reduce",
            .source_file = "kernels/families/reduce.cuh",
            .peers = {Peer::MemcpyD2D, Peer::CubReduceSum},
            // The ints read once and the one sum written (the variants that leave partial
            // sums per block write a little more: within 5 %).
            .copy_bytes = [](const Params& p) { return 2.0 * double(p.at("n")) + 2.0; },
            .size_params = {"n"},
            .timing = {{"n", 1 << 28}},
            .small = {{"n", 8192}},
            .latency = {.variant = "vector_load"},
            .bar_sizes = {{{"n", 1 << 26}}},
            .recorded_sweeps = {{"vector_load", {{"n", 1 << 26}}, "block", {64, 128, 256, 512, 1024}}}});
  const Step steps[] = {
      {"interleaved_modulo", "1. Interleaved addressing, modulo",
       "The baseline tree: threads whose id is a multiple of 2s work, so every warp diverges "
       "at every step.",
       "ReduceInterleavedModulo", "reduce_interleaved_modulo", Shape::OnePerThread, shared_of<ReduceInterleavedModulo>,
       [](Launcher& L, const Params&, const Plan& pl, const Args& a) {
         L.launch(pl.launches[0], ReduceInterleavedModulo{a.in<int>(0), a.out<int>(1)});
       }},
      {"interleaved_strided", "2. Interleaved addressing, strided index",
       "Faster: the working threads are packed into the first warps, so warps no longer "
       "diverge; but the strided index makes 2-, 4-, 8-way... bank conflicts.",
       "ReduceInterleavedStrided", "reduce_interleaved_strided", Shape::OnePerThread, shared_of<ReduceInterleavedStrided>,
       [](Launcher& L, const Params&, const Plan& pl, const Args& a) {
         L.launch(pl.launches[0], ReduceInterleavedStrided{a.in<int>(0), a.out<int>(1)});
       }},
      {"sequential", "3. Sequential addressing",
       "Faster: consecutive lanes read consecutive words, so the bank conflicts are gone; "
       "but half the threads idle from the first step.",
       "ReduceSequential", "reduce_sequential", Shape::OnePerThread, shared_of<ReduceSequential>,
       [](Launcher& L, const Params&, const Plan& pl, const Args& a) {
         L.launch(pl.launches[0], ReduceSequential{a.in<int>(0), a.out<int>(1)});
       }},
      {"first_add", "4. First add during load",
       "Faster: each thread adds two elements while loading, so no thread idles in the "
       "first step and half as many blocks run.",
       "ReduceFirstAdd", "reduce_first_add", Shape::TwoPerThread, shared_of<ReduceFirstAdd>,
       [](Launcher& L, const Params&, const Plan& pl, const Args& a) {
         L.launch(pl.launches[0], ReduceFirstAdd{a.in<int>(0), a.out<int>(1)});
       }},
      {"unroll_last_warp", "5. Unrolled last warp",
       "Faster: the last six steps run in warp 0 alone, straight-line, with __syncwarp "
       "instead of __syncthreads and no loop overhead.",
       "ReduceUnrollLastWarp", "reduce_unroll_last_warp", Shape::TwoPerThread, shared_of<ReduceUnrollLastWarp>,
       [](Launcher& L, const Params&, const Plan& pl, const Args& a) {
         L.launch(pl.launches[0], ReduceUnrollLastWarp{a.in<int>(0), a.out<int>(1)});
       }},
      {"complete_unroll", "6. Complete unroll",
       "Faster: with the block size a template parameter the whole tree is straight-line "
       "code, no loop and no run-time tests.",
       "ReduceCompleteUnroll", "reduce_complete_unroll", Shape::TwoPerThread,
       shared_of_sized<ReduceCompleteUnroll>,
       [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
         launch_sized<ReduceCompleteUnroll>(L, p, pl, a);
       }},
      {"multiple_elements", "7. Multiple elements per thread",
       "Faster: one wave of blocks strides over the input, each thread summing many "
       "elements in a register; the tree runs once per many thousand elements.",
       "ReduceMultipleElements", "reduce_multiple_elements", Shape::GridStride,
       shared_of_sized<ReduceMultipleElements>,
       [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
         launch_sized<ReduceMultipleElements>(L, p, pl, a, unsigned(p.at("n")));
       }},
      {"warp_shuffle", "8. Warp shuffle",
       "Faster: warps sum through register shuffles; one value per warp goes through "
       "shared memory and one barrier is left.",
       "ReduceWarpShuffle", "reduce_warp_shuffle", Shape::GridStride, shared_of<ReduceWarpShuffle>,
       [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
         L.launch(pl.launches[0],
                  ReduceWarpShuffle{a.in<int>(0), a.out<int>(1), unsigned(p.at("n"))});
       }},
      {"vector_load", "9. Vector loads (int4)",
       "Faster: 16-byte loads move four times the data per instruction, enough requests in "
       "flight to reach the memory limit (CUB's speed).",
       "ReduceVectorLoad", "reduce_vector_load", Shape::GridStrideVec, shared_of<ReduceVectorLoad>,
       [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
         Global<const int4> in4{static_cast<const int4*>(a.ptr.at(0)), a.count.at(0) / 4, 0};
         L.launch(pl.launches[0], ReduceVectorLoad{in4, a.out<int>(1), unsigned(p.at("n") / 4)});
       }},
      {"two_pass", "10. Whole sum, second pass",
       "Slower than 9 by one tiny launch: a second kernel of one block adds the partial sums "
       "on the GPU, so the result is the whole sum, like CUB's.",
       "ReduceFinalPass", "reduce_vector_load", Shape::TwoPass, shared_of<ReduceVectorLoad>,
       [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
         Global<const int4> in4{static_cast<const int4*>(a.ptr.at(0)), a.count.at(0) / 4, 0};
         L.launch(pl.launches[0], ReduceVectorLoad{in4, a.out<int>(1), unsigned(p.at("n") / 4)});
         L.launch(pl.launches[1],
                  ReduceFinalPass{a.in<int>(1), a.out<int>(2), unsigned(pl.launches[0].grid.x)});
       }},
      {"atomic", "11. Whole sum, atomics",
       "As fast as 10: each block adds its sum into the total with one atomicAdd, a "
       "thousand atomics in all, after a one-thread launch zeroes the total.",
       "ReduceAtomic", "reduce_atomic", Shape::Atomic, shared_of<ReduceAtomic>,
       [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
         Global<const int4> in4{static_cast<const int4*>(a.ptr.at(0)), a.count.at(0) / 4, 0};
         L.launch(pl.launches[0], ReduceZero{a.out<int>(1)});
         L.launch(pl.launches[1], ReduceAtomic{in4, a.out<int>(1), unsigned(p.at("n") / 4)});
       }},
  };
  for (const Step& s : steps) {
    const Shape shape = s.shape;
    const SharedBytes shared = s.shared;
    const char* kernel = s.kernel;
    r.add({.info = {.name = s.name,
                    .title = s.title,
                    .why = std::string(s.why) +
                           (complete(shape) ? " Timed: every launch, to the whole sum."
                                            : " Timed: the first pass; the CPU adds the block sums."),
                    .entry = s.entry,
                    .params = params(),
                    .check = [shape](const Params& p) { return check(p, shape); },
                    .plan = [shape, kernel, shared](const Params& p) {
                      return plan(p, shape, kernel, shared);
                    },
                    .verify = [shape](const HostArrays& h, const Params& p) {
                      return verify(h, p, shape);
                    }},
           .launch = s.launch});
  }
}

WS_END_MODE
