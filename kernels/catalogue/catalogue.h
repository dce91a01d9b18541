#pragma once
// The catalogue's description of a variant, independent of any backend: its parameters,
// how it launches for given parameters, how its inputs are made and its output checked.
// Plain C++ (no CUDA): the CLI, the GUI and the lessons read it.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/model.h"
#include "sim/inputs.h"
#include "sim/trace.h"

namespace ws {

using Params = std::map<std::string, long long>;

struct ParamSpec {
  std::string name;
  long long def = 0;
  long long min = 0, max = 0;      // inclusive range, used when choices is empty
  std::vector<long long> choices;  // allowed values, when the range is not enough
  std::string help;
};

// The allowed values of a parameter that picks a template instance, written once: the
// ParamSpec lists list(), and dispatch() instantiates exactly these values, so a value
// added to the list gets its instance at compile time, and no value can fall through to
// a silent `default:` instance.
template <long long... V>
struct Choices {
  static_assert(sizeof...(V) > 0, "a parameter needs at least one allowed value");
  static std::vector<long long> list() { return {V...}; }
  static constexpr bool allows(long long v) { return ((v == V) || ...); }
  // Calls f.template operator()<v>() for the allowed v equal to `value`.
  // @post returns false (and calls nothing) iff `value` is not one of V...
  template <class F>
  static bool dispatch(long long value, F&& f) {
    return ((value == V && (f.template operator()<V>(), true)) || ...);
  }
};

// A library routine timed beside a family's kernels, same sizes, same run.
// CublasGemmEx: cublasGemmEx with FP16 inputs and FP32 accumulation (CUBLAS_COMPUTE_32F),
// the tensor cores' GEMM, beside the tensor family.
enum class Peer { MemcpyD2D, CubReduceSum, CublasSgemm, CublasGemmEx };
std::string_view to_string(Peer p);
// @post true for the routines measured in GFLOP/s (the GEMMs), false for GB/s ones.
constexpr bool peer_gflops(Peer p) { return p == Peer::CublasSgemm || p == Peer::CublasGemmEx; }

// Two parameters of a sweep: one along x, one line per value of the other ("" where none).
struct SweepAxes {
  std::string x, series;
};

// A sweep `warpscope record` measures: `variant` at `base`, parameter `x` over `values`.
struct RecordedSweep {
  std::string variant;
  Params base;
  std::string x;
  std::vector<long long> values;
};

// The change `warpscope latency` times for a family, as a student would make it in the
// window: its variant (empty: the family is not a latency case), run at the family's
// `timing` sizes on a GPU. On the emulator the selected block also runs at `timing` when
// block_at_timing (one block is milliseconds at any size); the rest at the defaults.
// With sweep_xs non-empty, a sweep of sweeps[0] over sweep_xs x sweep_ss is timed too.
struct LatencySpec {
  std::string variant;
  bool block_at_timing = false;
  std::vector<long long> sweep_xs, sweep_ss;
};

// Everything about a family that is not one variant's, declared once in its header: the
// app reads these instead of knowing families, variants or parameters by name.
struct FamilyInfo {
  std::string name;          // "transpose"
  std::string source_file;   // "kernels/families/transpose.cuh", the source of every variant
  std::vector<Peer> peers;   // library routines that put its numbers in context
  // The bytes the device-to-device copy (Peer::MemcpyD2D) moves beside a run at these
  // completed parameters: the data a perfect kernel reads once, half its logical bytes
  // (read + written). Every family with the copy among its peers declares it.
  std::function<double(const Params&)> copy_bytes;
  // The sweeps offered first: the first pair whose two parameters the variant has
  // (transpose: tile x pad). A variant with none of them gets default_sweep()'s rule.
  std::vector<SweepAxes> sweeps;
  // Parameters that size the problem: swept only around their current value, never the
  // first choice for x (the emulator would take minutes at the top of their range).
  std::vector<std::string> size_params;
  // Compare's default partner: the same variant with this 0/1 knob flipped ("": the
  // variant before this one, its baseline).
  std::string compare_flip;
  Params timing;  // sizes at which a GPU times it (beyond L2 where that matters)
  Params small;   // sizes at which the emulator runs every variant in a moment (tests)
  bool demo = false;  // the family the headless demo shows
  LatencySpec latency;
  // What `warpscope record` times for machines without a GPU, besides every variant at
  // its defaults and the lessons' steps: every variant at each of these sizes (the bars),
  // and these sweeps.
  std::vector<Params> bar_sizes;
  std::vector<RecordedSweep> recorded_sweeps;
};

// The peers of family f whose unit is a run's (GFLOP/s when gflops), in declared order.
// @post every peer returned is in f.peers and has peer_gflops(p) == gflops.
std::vector<Peer> peers_for(const FamilyInfo& f, bool gflops);

// The sweep offered first for variant v of family f.
// @post x is a parameter of v ("" only when v has none); series is "" or a parameter of v
//       other than x; a parameter of f.size_params is x only when v has nothing else.
struct VariantInfo;
SweepAxes default_sweep(const FamilyInfo& f, const VariantInfo& v);

// What the launching device allows. Defaults are an H100's (sim/model.h, sim::h100); the
// CUDA backend reads them off the device, the emulator uses these.
struct DeviceLimits {
  std::string name = "NVIDIA H100 (emulated limits)";
  int max_threads_per_block = int(sim::h100::kMaxThreadsPerBlock);
  Dim3 max_block = sim::h100::kMaxBlock;
  Dim3 max_grid = sim::h100::kMaxGrid;
  std::uint32_t max_shared_per_block = sim::h100::kMaxSharedPerBlock;              // no opt-in
  std::uint32_t max_shared_per_block_optin = sim::h100::kMaxSharedPerBlockOptin;  // opt-in
  int sm_count = int(sim::h100::kSmCount);
  int warp_size = 32;
};

struct LaunchCfg {
  std::string kernel;  // entry name shown to students and matched in ncu output
  Dim3 grid, block;
  std::uint32_t shared_bytes = 0;
  // Of shared_bytes, what the launch holds and its body never carves: only to lower the
  // blocks an SM holds (async_copy's extra_kb). The body carves shared_bytes - held_shared_bytes.
  std::uint32_t held_shared_bytes = 0;
};

struct ArraySpec {
  std::string name;
  std::uint32_t elem_bytes = 4;
  std::uint64_t count = 0;
  bool output = false;  // outputs are poisoned before a run and verified after
  InputGen gen{};       // inputs: how each 4-byte word is made from the seed (sim/inputs.h)
};

// What a correct output is, in a form a CPU reference (check_reference) and a GPU
// reference (the CUDA backend: a plain kernel, CUB or cuBLAS) both compute, so a large
// output is checked where it lies. Arrays are named by their index in the plan.
enum class RefKind : std::uint8_t {
  None = 0,   // no GPU reference: the output is copied back and checked by verify()
  Gather,     // out element i (elem bytes) == in element i * step + shift, exactly
  Transpose,  // out[x * n + y] == in[y * n + x] for an n x n float matrix, exactly
  BlockSums,  // out[k] == sum of the ints in[e] with (e / div) % groups == k, exactly
  Gemm,       // C == A B for n x n row-major floats, within 16 sqrt(n) ulp of sum |a||b|
  Histogram,  // out[k] == how many of the count uint32 words of in equal k, k < groups, exactly
  WeightedHistogram,  // out[k] == the sum of b[e] over the e with in[e] == k, wrapping at 2^32
  Smooth,     // out float e == sim::smooth(in[e], the same lane of the next float4 of its tile
              // of div float4s, wrapping, work), exactly (async_copy)
  GemmHalf,   // C == A B^T for n x n row-major halves A, B (B's row j is column j), within
              // ulps sqrt(n) ulp of sum |a||b| (tensor)
};
std::string_view to_string(RefKind k);

struct Reference {
  RefKind kind = RefKind::None;
  std::uint64_t count = 0;   // Gather: output elements; BlockSums, Histogram: input elements
  std::uint64_t n = 0;       // Transpose, Gemm, GemmHalf: the matrix side
  std::uint64_t step = 1, shift = 0;  // Gather
  std::uint32_t elem = 4;    // Gather: bytes per element
  std::uint64_t div = 1, groups = 0;  // BlockSums, Histogram (groups = elements of out); Smooth: div
  std::uint32_t work = 0;    // Smooth: rounds
  std::uint32_t ulps = 16;   // Gemm, GemmHalf: the tolerance's ulps (times sqrt(n))
  std::uint8_t a = 0, b = 1, out = 1;  // input arrays (b: Gemm's B) and the output array
};

// The outcome of a reference check: how many output elements are wrong and the first.
struct CheckResult {
  std::uint64_t mismatches = 0;
  std::int64_t first = -1;         // index of the first wrong output element, -1 if none
  double got = 0, want = 0;        // at `first`
  // "" when right, else "3 of 65536 elements wrong, first at out[17]: 0.5, expected 0.25"
  std::string message(const std::string& array) const;
};


// How one variant runs for given parameters.
struct Plan {
  std::vector<ArraySpec> arrays;    // global arrays; array i gets id i in the trace
  std::vector<LaunchCfg> launches;  // in order
  double logical_bytes = 0;         // bytes a perfect kernel must read + write
  double flops = 0;                 // for GFLOP/s kernels (matmul); 0 otherwise
  // Of `flops`, those the tensor cores do (mma.sync: 4,096 FLOPs a warp instruction, so
  // the emulator's cost estimate counts 32 lane events for them, not one a multiply-add).
  double mma_flops = 0;
  // For kernels timed by their arithmetic (instr): the rounds of the variant's operation
  // all threads run, counted in Gop/s; 0 otherwise. Bytes would misname what they time.
  double ops = 0;
  double work_rounds = 0;           // rounds of all marked work loops (WS_WORK), all threads
  Reference ref;                    // how the GPU checks the output (None: on the CPU)
  bool gflops() const { return flops > 0; }
  // What a throughput of this plan counts per second, and its unit.
  // @post unit() is "GFLOP/s" iff flops > 0, else "Gop/s" iff ops > 0, else "GB/s";
  //       work() is flops, ops or logical_bytes to match.
  std::string_view unit() const { return flops > 0 ? "GFLOP/s" : ops > 0 ? "Gop/s" : "GB/s"; }
  double work() const { return flops > 0 ? flops : ops > 0 ? ops : logical_bytes; }
};

// Host copies of a plan's arrays.
struct HostArrays {
  std::vector<std::vector<std::byte>> data;
  template <class T>
  std::span<T> as(std::size_t i) {
    return {reinterpret_cast<T*>(data.at(i).data()), data.at(i).size() / sizeof(T)};
  }
  template <class T>
  std::span<const T> as(std::size_t i) const {
    return {reinterpret_cast<const T*>(data.at(i).data()), data.at(i).size() / sizeof(T)};
  }
  static HostArrays allocate(const Plan& p);
};

// Registered by name (designated initializers) in the family's header; `family` and
// `source_file` are filled in from the family's FamilyInfo by the registry.
// Fills every input array of the plan from the seed with its InputGen (outputs are left
// for the backend to poison).
// @post word i of input array a == input_word(plan.arrays[a].gen, seed, a, i).
void fill_inputs(HostArrays& h, const Plan& plan, std::uint64_t seed);

// The CPU version of every reference kind (the GPU one is held equal to it by a gpu test).
// Gemm checks every element up to n = 512, above that 16 rows and 16 columns.
// @post mismatches == 0 iff the output equals the reference (within Gemm's tolerance) at
//       every element checked; first is the first wrong index in checking order.
CheckResult check_reference(const Reference& r, const HostArrays& h);

struct VariantInfo {
  std::string family;   // "transpose"
  std::string name;     // "tiled"
  std::string title;    // "Tiled through shared memory"
  std::string why;      // why it is faster or slower than the variant before it
  std::string source_file;  // "kernels/families/transpose.cuh"
  std::string entry;        // kernel struct name, "TransposeTiled": find it in the source
  std::vector<ParamSpec> params;
  // Extra constraints beyond the ranges ("tile must divide n"); "" when fine.
  std::function<std::string(const Params&)> check;
  std::function<Plan(const Params&)> plan;
  // Compares outputs with a CPU reference: "" when right, else what is wrong.
  std::function<std::string(const HostArrays&, const Params&)> verify;
};

// Defaults filled in, then every check: unknown names, ranges, the variant's own
// constraints, and the plan's launches against the device limits (threads per block,
// block and grid dimensions, shared memory).
// @post returns "" iff the launch can run on a device with `limits`; else one sentence
//       that names the parameter or the limit. `out` holds the completed parameters.
std::string validate(const VariantInfo& v, const Params& given, const DeviceLimits& limits,
                     Params& out);

// Parses "key=value" into p; "" on success, else the reason.
std::string parse_param(const std::string& kv, Params& p);

std::string to_string(const Params& p);   // "n=1024 tile=32"

// The parameter named `name` of v, or nullptr.
const ParamSpec* find_param(const VariantInfo& v, std::string_view name);

}  // namespace ws
