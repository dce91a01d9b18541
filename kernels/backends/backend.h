#pragma once
// A backend runs a catalogue variant and gives back what every view needs: whether the
// output was right, the model's totals, the kept warp events of chosen blocks, and time
// (measured on the GPU, modelled on the emulator). No CUDA header here: the app and the
// GUI include this, and the CUDA backend hides behind make_cuda_backend().
#include <memory>
#include <string>
#include <vector>

#include "kernels/catalogue/catalogue.h"
#include "kernels/hardware/hardware.h"
#include "sim/emulator.h"
#include "sim/model.h"
#include "sim/provenance.h"
#include "sim/run_control.h"
#include "sim/trace.h"

namespace ws {

enum class BackendKind { Emu, Cuda };
std::string_view to_string(BackendKind k);

struct RunOptions {
  std::uint64_t seed = 1;
  bool totals = true;                   // model totals over the whole grid
  std::vector<std::uint32_t> keep_blocks = {0};  // blocks whose events are kept (may be empty)
  bool keep_all_blocks = false;
  bool timing = false;                  // CUDA: time the fast build; emu: modelled time
  int warmup = 3;
  int repeats = 10;                     // CUDA timing: median of at least this many runs
  // Cancel and progress (must outlive the run): a cancelled run stops within 100 ms (on
  // a GPU: after the kernels already queued) and comes back with cancelled set. Null:
  // the thread's control (ThreadControlScope), if any.
  RunControl* control = nullptr;
  // Emulator: answer a timed run only from a recording (make_recorded_backend), with an
  // error instead of emulating when there is none: for sizes chosen for the GPU's clock,
  // far too large to emulate. The CUDA backend ignores it.
  bool recorded_only = false;
  int hardware_runs = 0;                // CUDA: profile the fast build this many times with
                                        // CUPTI (0: off); emu: says there is no GPU
  bool hardware_lines = false;          // CUDA: also per-instruction counters (SASS metrics)
  // Run the fast build and check its output. Off, only the traced build runs (the GUI's
  // block and counter stages, whose output was verified by the measured stage before).
  bool verify = true;
};

struct LaunchTotals {
  LaunchCfg cfg;
  sim::Totals totals;
  sim::SiteList sites;  // the same counters per source site (line, array, kind)
  // Global loads a warp of the fast build keeps in flight (its recorded SASS); 0 unknown.
  unsigned loads_in_flight = 0;
  // How its global atomics spread over words: counted by the emulator only.
  sim::AtomicHeat heat;
};

struct Timing {
  // Where the time comes from: measured (CUDA events on this device), recorded (a
  // recording's device and date), modelled (sim/, with the part that bounds it); None when
  // nothing was timed. Every view and export derives its words from this value.
  sim::Provenance source;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  std::vector<double> samples_ms;
  double throughput = 0;   // plan.work() per second, in plan.unit()
  std::string unit;        // plan.unit(): "GB/s", "GFLOP/s" or "Gop/s"
};

// Where a run's counts (totals, launches) come from. Every count is the model's (the
// traced build's counters, under Nsight Compute's names); this says who counted them.
enum class CountsSource {
  Run,          // this run: the emulator's trace, or the GPU's traced build
  Recorded,     // counted when the configuration was recorded (Recording), not here
  NotRecorded,  // a recorded time whose counts the recording lacks; not counted here
};
std::string_view to_string(CountsSource s);

struct RunResult {
  std::string error;             // why it did not run ("" if it ran): validation, CUDA, emulator
  Params params;                 // completed parameters
  Plan plan;
  bool verified = false;         // output equals the reference (CPU, or GPU at large sizes)
  std::string verify_message;    // what was wrong when !verified
  std::vector<LaunchTotals> launches;
  sim::Totals totals;            // summed over launches
  std::vector<KeptLaunch> kept;  // events of the kept blocks, one entry per launch
  std::vector<sim::Problem> problems;  // emulator reports (race, out of bounds, deadlock)
  Timing timing;
  bool cancelled = false;        // stopped by RunOptions::control (error says so)
  int regs_per_thread = 0;       // the fast build's registers per thread (max over launches;
                                 // CUDA, or a recording); 0 when unknown
  bool rejected = false;         // refused before running: bad input (unknown variant,
                                 // invalid parameters, too large to emulate)
  HardwareCounters hardware;     // CUPTI's counters of the fast build (RunOptions::hardware_runs)
  CountsSource counts = CountsSource::Run;
  // With counts Recorded or NotRecorded: the recording's words, "model counts recorded on
  // NVIDIA H100 80GB HBM3, 2026-11-25" or "counts: not recorded (...)".
  std::string counts_label;
  // Student kernels (kernels/user/user_kernel.h): what the kernel printed (stdout and stderr,
  // bounded, shown as the kernel's), and what the sandbox could not enforce here.
  std::string kernel_output;
  std::string sandbox_note;
  bool ok() const { return error.empty() && verified && problems.empty(); }
};


// The parameters that size peer `p` like a run of `plan` with the variant's `params`:
// the copy moves what a perfect kernel reads and writes, so it is given as bytes=B (half
// the plan's logical bytes); CUB and cuBLAS take n from the variant's parameters.
// @post for Peer::MemcpyD2D the result is exactly {{"bytes", plan.logical_bytes / 2}};
//       for the other peers it equals `params`.
Params peer_params(Peer p, const Plan& plan, const Params& params);
// The same for a caller that holds only a variant's completed parameters: the copy's size
// as family `f` declares it (FamilyInfo::copy_bytes).
// @post for Peer::MemcpyD2D and f.copy_bytes set, the result is exactly
//       {{"bytes", f.copy_bytes(params)}}; otherwise it equals `params`.
Params peer_params(Peer p, const FamilyInfo& f, const Params& params);

struct PeerResult {
  Peer peer;
  std::string error;
  Timing timing;
};

struct DeviceInfo {
  std::string name;             // "NVIDIA H100 80GB HBM3" or "emulator"
  std::string driver, runtime;  // versions, "" on emu
  int sm_count = 0, cc_major = 0, cc_minor = 0;
  double mem_clock_mhz = 0, bus_width_bits = 0;
  double peak_gbps = 0;         // theoretical: 2 * clock * bus / 8
  double sm_clock_mhz = 0;      // maximum SM clock (0 on emu)
  double peak_gflops = 0;       // FP32: 2 x FP32 lanes per SM x SMs x SM clock
  std::uint64_t l2_bytes = 0;
  DeviceLimits limits;
};

// The theoretical peak's source: a data sheet, never a measurement or the model. On a GPU
// its own; on the emulator that of the device sim/'s model describes.
// @post source == Spec; device == d.name for Cuda, sim::h100::kProduct for Emu.
sim::Provenance peak_source(const DeviceInfo& d, BackendKind k);

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  virtual DeviceInfo device() const = 0;
  // Validates, runs, verifies. Never throws; failures come back in RunResult::error.
  virtual RunResult run(const std::string& family, const std::string& variant,
                        const Params& params, const RunOptions& opt) = 0;
  // Times a peer at the size of `plan` (bytes for memcpy/CUB, n for SGEMM).
  virtual PeerResult run_peer(Peer p, const Params& params, const RunOptions& opt) = 0;
  // The work run() is expected to take with these options, in a unit this backend's runs
  // share (the emulator: lane events; an answer from a recording: 1): the weight of the
  // run's phase in a command's progress bar (sim/progress.h), never a time shown.
  // @post > 0 (1 for what cannot be planned)
  virtual double expected_work(const std::string& family, const std::string& variant,
                               const Params& params, const RunOptions& opt) const;
  // Why run() would refuse this run before starting it ("" when it would run): a command
  // refuses at once instead of after the runs before it. The emulator: too large to
  // emulate (emulator_refusal), unless a recording answers it (make_recorded_backend).
  virtual std::string refusal(const std::string& family, const std::string& variant,
                              const Params& params, const RunOptions& opt) const;
};

std::unique_ptr<Backend> make_emu_backend();
// The emulator's cost estimate of a plan in lane events: a few per thread, one per 4
// bytes, one per multiply-add, and marked work-loop rounds (8 to an event). Whole-grid
// emulator runs estimated above 2^28 (about half a minute) are refused.
// @post grows with plan.work_rounds (a work loop can no longer make a run look free)
double estimated_lane_events(const Plan& plan);
// A launch's shape for the model: its blocks, threads, shared bytes, the registers when
// known, and the bytes of every array of the plan.
// @post blocks == cfg.grid.count(); footprint_bytes == sum of plan.arrays' elem_bytes * count.
sim::LaunchShape launch_shape(const Plan& plan, const LaunchCfg& cfg, int regs_per_thread = 0);
// The same with the warp syncs on a block's path, from the launch's sites: each __syncwarp
// site counts ceil(its executions per block / warps per block), exact when every warp runs
// it alike or one warp runs it once (a reduction's last warp).
// @post == launch_shape(plan, l.cfg, regs) but for warp_syncs and loads_in_flight
//       (== l.loads_in_flight).
sim::LaunchShape launch_shape(const Plan& plan, const LaunchTotals& l, int regs_per_thread = 0);
// What the model makes of a run, launch by launch: the plan's FLOPs shared equally among
// its launches, each launch modelled with its own shape; a launch after the first is
// queued behind it and costs queued_launch_us instead of launch_overhead_us.
struct ModelledRun {
  sim::TimeParts parts;         // each part summed over launches (parts.bound(): the run's bound)
  double us = 0;                // sum over launches of each launch's total
  std::uint64_t dram_bytes = 0; // sum over launches of sim::dram_bytes
  unsigned loads_in_flight = 0; // the most of any launch (0 unknown: no recorded SASS)
};
// @post us == sum over launches i of sim::modelled_time_us(totals, flops / launches, m_i,
//       launch_shape(plan, launch, regs)), m_0 = {} and m_i = {} with launch_overhead_us
//       = queued_launch_us for i > 0.
ModelledRun modelled_run(const Plan& plan, const std::vector<LaunchTotals>& launches,
                         int regs_per_thread = 0);
// The loads a warp keeps in flight in each launch of a catalogue variant, from the fast
// build's recorded SASS (sass::widest_load_batch of each launch's kernel instance): what
// the model's DRAM part needs to apply Little's law. 0 for a launch whose SASS is not
// recorded, or recorded from another source (stale).
// @post size() == the number of the plan's launches, or 0 for an unknown variant.
std::vector<unsigned> recorded_loads_in_flight(const std::string& family, const std::string& variant,
                                               const Params& completed);
// Sets each launch's loads_in_flight from recorded_loads_in_flight where it is 0.
void attach_loads_in_flight(std::vector<LaunchTotals>& launches, const std::string& family,
                            const std::string& variant, const Params& completed);
// The throughput and unit of a time of `plan`: its work() over median_ms, in its unit().
// Every backend (and a recorded time, whose stored unit may predate a family's own) goes
// through it, so a family's unit has one home: its plan.
// @post t.unit == plan.unit(); t.throughput == plan.work() / (t.median_ms * 1e6), 0 when
//       median_ms <= 0.
void set_throughput(Timing& t, const Plan& plan);
// The modelled time of an emulated run (modelled_run), as a Timing.
// @post source == sim::Provenance::modelled(modelled_run(...).parts.bound());
//       median_ms == modelled_run(plan, launches, regs).us / 1000.
Timing modelled_timing(const Plan& plan, const std::vector<LaunchTotals>& launches,
                       int regs_per_thread = 0);
// Why the emulator refuses to run `plan` over the whole grid ("" when it fits): the
// sentence RunResult::error carries, so a command can refuse before its first run.
std::string emulator_refusal(const Plan& plan);
// nullptr with `why` set when there is no CUDA build, no GPU, or too old a driver.
std::unique_ptr<Backend> make_cuda_backend(std::string& why);
// CUDA when it works, else the emulator; `notice` says why it fell back.
std::unique_ptr<Backend> make_best_backend(std::string& notice);
// The one backend factory, by name: "auto" (make_best_backend), "emu", or "cuda".
// @post non-null iff `error` is empty; "cuda" without a usable GPU and an unknown name
//       give nullptr with `error` saying why in one line; after "auto" fell back to the
//       emulator, `notice` says why.
std::unique_ptr<Backend> make_backend(const std::string& name, std::string& notice,
                                      std::string& error);

// The catalogue, from the emulator's registry (present in every build).
const std::vector<VariantInfo>& catalogue();
const VariantInfo* find_variant(const std::string& family, const std::string& variant);
// The families in teaching order, each as its header declares it.
const std::vector<FamilyInfo>& families();
const FamilyInfo* find_family(const std::string& family);
// The library routine a family is held to ("ratio library"): its first declared peer of
// that unit other than the copy (the tensor family: cuBLAS GemmEx), else SGEMM or CUB.
// @post peer_gflops(result) == gflops.
Peer library_peer(const std::string& family, bool gflops);

// The kernel structs, template arguments included, that a variant launches with these
// (completed) parameters, one per launch: {"TransposeTiled<32, 8>"}. They name the fast
// build's functions in the recorded SASS (sass::Function::instance). Runs nothing.
// @post one name per launch of the variant's plan; empty for an unknown variant.
std::vector<std::string> kernel_instances(const std::string& family, const std::string& variant,
                                          const Params& completed);

}  // namespace ws
