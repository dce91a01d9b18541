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
#include <vector>

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

// What the launching device allows. Defaults are an H100's; the CUDA backend reads them
// off the device, the emulator uses these.
struct DeviceLimits {
  std::string name = "NVIDIA H100 (emulated limits)";
  int max_threads_per_block = 1024;
  Dim3 max_block = {1024, 1024, 64};
  Dim3 max_grid = {2147483647u, 65535, 65535};
  std::uint32_t max_shared_per_block = 48 * 1024;         // without opt-in
  std::uint32_t max_shared_per_block_optin = 227 * 1024;  // with cudaFuncSetAttribute
  int sm_count = 132;
  int warp_size = 32;
};

struct LaunchCfg {
  std::string kernel;  // entry name shown to students and matched in ncu output
  Dim3 grid, block;
  std::uint32_t shared_bytes = 0;
};

struct ArraySpec {
  std::string name;
  std::uint32_t elem_bytes = 4;
  std::uint64_t count = 0;
  bool output = false;  // outputs are poisoned before a run and verified after
};

// How one variant runs for given parameters.
struct Plan {
  std::vector<ArraySpec> arrays;    // global arrays; array i gets id i in the trace
  std::vector<LaunchCfg> launches;  // in order
  double logical_bytes = 0;         // bytes a perfect kernel must read + write
  double flops = 0;                 // for GFLOP/s kernels (matmul); 0 otherwise
  double work_rounds = 0;           // rounds of all marked work loops (WS_WORK), all threads
  bool gflops() const { return flops > 0; }
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

struct VariantInfo {
  std::string family;   // "transpose"
  std::string name;     // "tiled"
  std::string title;    // "Tiled through shared memory"
  std::string why;      // why it is faster or slower than the variant before it
  std::string source_file;  // "kernels/transpose.cuh"
  std::string entry;        // kernel struct name, "TransposeTiled": find it in the source
  std::vector<ParamSpec> params;
  // Extra constraints beyond the ranges ("tile must divide n"); "" when fine.
  std::function<std::string(const Params&)> check;
  std::function<Plan(const Params&)> plan;
  // Fills the inputs from a seed (outputs are poisoned by the backend).
  std::function<void(HostArrays&, const Params&, std::uint64_t seed)> init;
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

}  // namespace ws
