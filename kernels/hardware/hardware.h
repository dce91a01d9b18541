#pragma once
// The hardware's own counters beside the model: what CUPTI's range profiler read on the
// GPU for the fast build of a run (several passes, so the run-to-run spread shows), why
// they are missing when they are, and what kind each model-hardware difference is. No
// CUDA header here: the CLI, the GUI and CI use it; the CUPTI code that fills it lives in
// kernels/hardware/cupti_profiler.cpp, built only with the CUDA backend.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

// Why a run has no hardware counters.
enum class HardwareUnavailable {
  None,           // counters are present
  NotAsked,       // collection was off for this run
  NoCudaBuild,    // warpscope was built without the CUDA backend
  NoGpu,          // the run was on the emulator (no usable GPU)
  NotPermitted,   // CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (RmProfilingAdminOnly=1)
  NoCupti,        // libcupti / libnvperf_host could not be loaded or initialised
  Unsupported,    // the device or a metric is not supported by the profiler
  Busy,           // another profiling session holds the GPU's counters (ncu, a second warpscope)
  Failed,         // any other CUPTI failure (the message names the call)
};
std::string_view to_string(HardwareUnavailable u);

// @post one line for the metrics table and the CLI: why, and for NotPermitted how an
//       administrator enables the counters; "" for None.
std::string hardware_unavailable_text(HardwareUnavailable u, const std::string& detail);

// Per-instruction counters from CUPTI's SASS metrics (cupti_sass_metrics.h): one record
// per patched instruction of a function, summed over the GPU.
struct PcCounters {
  std::string function;  // mangled name, as in the recorded SASS
  std::uint32_t pc = 0;  // byte offset in the function (the recorded SASS's /*0040*/)
  std::map<std::string, double> values;
};

// The counters read per pass, by Nsight Compute metric name. The model's counters
// (sim::Totals::ncu() keys the profiler knows) plus DRAM bytes and achieved occupancy.
struct HardwareCounters {
  HardwareUnavailable unavailable = HardwareUnavailable::NotAsked;
  std::string detail;  // the failing call, the CUPTI error name, ...
  std::string device;  // the GPU the passes ran on
  std::vector<std::map<std::string, double>> passes;  // one map per profiled run
  std::vector<PcCounters> per_pc;  // RunOptions::hardware_lines: per instruction
  std::string per_pc_error;        // why per_pc is empty when it was asked for
  std::vector<std::string> sass_metric_names;  // the SASS metrics the chip offers
  bool ok() const { return unavailable == HardwareUnavailable::None && !passes.empty(); }
  bool has(const std::string& metric) const;
  // Over the passes. @post min <= median <= max; 0 when the metric is absent.
  double min(const std::string& metric) const;
  double max(const std::string& metric) const;
  double median(const std::string& metric) const;
  // The one-line reason shown when !ok().
  std::string why() const { return hardware_unavailable_text(unavailable, detail); }
};

// The metrics asked of CUPTI: the model's (global requests and sectors for loads, stores
// and atomics; shared wavefronts, conflicts and instructions), then the hardware-only ones.
const std::vector<std::string>& hardware_metrics();
// The hardware-only metrics (no model column): DRAM bytes read/written, achieved occupancy.
bool hardware_only(const std::string& metric);
extern const char* const kDramRead;       // "dram__bytes_read.sum"
extern const char* const kTensorPipeHmma;  // "smsp__inst_executed_pipe_tensor_op_hmma.sum"
extern const char* const kDramWrite;      // "dram__bytes_write.sum"
extern const char* const kAchievedOccupancy;  // "sm__warps_active.avg.pct_of_peak_sustained_active"

// What kind a model-hardware difference is. A difference gets a cause only where a probe or
// the SASS shows it; every other one is "not explained", with both figures, never a guess.
enum class DiffKind {
  Equal,         // hardware == model in every pass
  Arbitration,   // the hardware counts more on shared memory, by an amount that varies
                 // from pass to pass: arbitration with other warps, which a probe shows
                 // (one warp per SM meets the model exactly: docs/HARDWARE.md, 4)
  NotExplained,  // any other difference: the app cannot name its cause
  HardwareOnly,  // no model figure (DRAM bytes, occupancy)
  MmaPipeMoves,  // the tensor pipe's count exceeds mma.sync's by HFMA2.MMA, the compiler's
                 // register moves on the MMA pipe (docs/HARDWARE.md 9b), the same every run
  CompiledLoop,  // the hardware counts exactly the model plus what the recorded SASS adds
                 // (CompiledSurplus: a loop the compiler unrolled, docs/HARDWARE.md 9c)
};
std::string_view to_string(DiffKind k);

struct CounterDiff {
  std::string metric;
  bool modelled = false;  // the model has this metric
  double model = 0;
  double hw_min = 0, hw_median = 0, hw_max = 0;
  int passes = 0;
  double diff = 0;        // hw_median - model
  DiffKind kind = DiffKind::Equal;
  std::string explain;    // one sentence for the student
};

// What a kernel's compiled code counts beyond the source the model runs, derived from its
// recorded SASS (kernels/hardware/compiled.h): per Nsight Compute metric, the extra count,
// and one sentence saying what the compiler did.
struct CompiledSurplus {
  std::map<std::string, double> extra;
  std::string why;
};

// Model totals (sim::Totals::ncu()) against the hardware passes, in hardware_metrics()
// order, for every metric the hardware read.
// @post one entry per metric of hw.passes.front(); kind Equal iff every pass equals the
//       model; Arbitration iff a shared-memory metric is at or above the model in every
//       pass and the passes differ; HardwareOnly iff the model lacks the metric;
//       CompiledLoop iff surplus.extra holds the metric and every pass equals model + extra;
//       NotExplained otherwise, its explain naming both figures and no cause.
std::vector<CounterDiff> compare_counters(const std::map<std::string, double>& model,
                                          const HardwareCounters& hw,
                                          const CompiledSurplus& surplus = {});

// "arbitration with other warps; varies run to run; 3 runs: 143,893..144,413",
// "not explained: model 32,768, hardware 0; 3 runs: 0"
// @post starts with "not explained" iff d.kind == NotExplained.
std::string diff_summary(const CounterDiff& d);

// Theoretical occupancy of one launch on an SM from its block size, the registers per
// thread (from the recorded SASS) and its shared memory. Defaults are an H100's: 64 warps,
// 32 blocks, 65,536 registers (allocated per warp in units of 256) and 228 KB of shared
// memory (1 KB reserved per block) per SM.
struct Occupancy {
  int blocks_per_sm = 0, warps_per_sm = 0;
  double fraction = 0;   // warps_per_sm / max warps
  std::string limiter;   // "warps", "registers", "shared memory", "blocks"
};
struct SmLimits {
  int max_warps = 64, max_blocks = 32, registers = 65536, register_unit = 256;
  std::uint32_t shared_bytes = 233472, shared_reserved_per_block = 1024;
};
// @post blocks_per_sm = min over the four limits; fraction in [0, 1]; limiter names the
//       smallest limit (the first of warps, registers, shared memory, blocks on a tie).
Occupancy theoretical_occupancy(int threads_per_block, int registers_per_thread,
                                std::uint32_t shared_bytes_per_block, const SmLimits& sm = {});

}  // namespace ws
