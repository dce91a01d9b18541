#pragma once
// The memory and SIMT model: turns WarpEvents into what the student sees. Per-event
// analyses feed the GUI's maps; Totals accumulates a whole launch under Nsight Compute's
// metric names. No CUDA, no GUI here.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/access.h"
#include "sim/trace.h"

namespace ws::sim {

// An H100 SXM's numbers, written once. DeviceModel's defaults, the emulator's launch
// limits (DeviceLimits in kernels/catalogue/catalogue.h) and the reduction's one-wave grid read them;
// the CUDA backend reads a real device's limits instead.
namespace h100 {
inline constexpr const char* kName = "Hopper (sm_90)";
// The product whose data sheet gives kDramGbps and kFp32Gflops (as the CUDA runtime names it).
inline constexpr const char* kProduct = "NVIDIA H100 80GB HBM3";
inline constexpr unsigned kSmCount = 132;
inline constexpr unsigned kMaxThreadsPerSm = 2048;
inline constexpr unsigned kMaxThreadsPerBlock = 1024;
inline constexpr Dim3 kMaxBlock = {1024, 1024, 64};
inline constexpr Dim3 kMaxGrid = {2147483647u, 65535, 65535};
inline constexpr std::uint32_t kMaxSharedPerBlock = 48 * 1024;        // without opt-in
inline constexpr std::uint32_t kMaxSharedPerBlockOptin = 227 * 1024;  // cudaFuncSetAttribute
inline constexpr double kDramGbps = 3352.0;  // theoretical
// What the H100 streams at best: cudaMemcpy device-to-device of 1 GiB, measured
// (shared/reference/h100-anchors.md: 2986 GB/s, 89% of the theoretical figure).
inline constexpr double kCopyGbps = 2986.0;
inline constexpr double kFp32Gflops = 66900.0;
// Dense FP16 on the tensor cores with FP32 accumulate: the data sheet's 1,979 TFLOP/s is
// with 2:4 sparsity, half of it dense.
inline constexpr double kFp16TensorGflops = 989500.0;
// The FLOPs of one mma.sync.m16n8k16: 2 x 16 x 8 x 16.
inline constexpr double kMmaFlops = 4096.0;
inline constexpr double kSmClockGhz = 1.755;
}  // namespace h100

// The hardware parameters the model depends on (Hopper defaults). Another GPU overrides.
struct DeviceModel {
  std::string name = h100::kName;
  unsigned warp_size = 32;
  unsigned sector_bytes = 32;
  unsigned line_bytes = 128;
  unsigned shared_banks = 32;
  unsigned bank_bytes = 4;
  // Lanes served per shared pass for each access width: 4 B accesses by the whole warp,
  // 8 B per half-warp and 16 B per quarter-warp (128 bytes of lanes a pass). Measured on
  // the H100 (docs/HARDWARE.md, 3a): a shared *load* in which every two lanes 2k, 2k+1
  // that are both active read one address serves each pair as one lane, so a pass covers
  // twice these lanes (8 B: the warp, 16 B: a half-warp); analyze_shared applies that.
  unsigned lanes_per_shared_pass(unsigned bytes) const {
    return AccessModel{}.lanes_per_shared_pass(bytes);
  }
  // The unit sizes of the per-access analysis (sim/access.h), for host and device.
  unsigned fetch_bytes = 64;  // what the L2 reads from DRAM per load miss (AccessModel)
  AccessModel access() const {
    return {sector_bytes, line_bytes, shared_banks, bank_bytes, fetch_bytes};
  }
  // For the modelled time of emulated runs (never shown as measured). dram_gbps is the
  // theoretical peak that charts and "of peak" compare with; the modelled time streams
  // DRAM bytes at stream_gbps, the best rate measured on the device, because no kernel
  // reaches the theoretical figure.
  double dram_gbps = h100::kDramGbps;
  double stream_gbps = h100::kCopyGbps;
  double fp32_gflops = h100::kFp32Gflops;
  double tensor_gflops = h100::kFp16TensorGflops;
  double launch_overhead_us = 3.0;
  // A launch queued behind another in the same stream costs less: a one-thread launch
  // before a 134 MB streaming sum made it 1.92 us longer on the H100 (probe_inflight.cu),
  // so the later launches of a run are charged this instead of launch_overhead_us.
  double queued_launch_us = 1.9;
  // Little's law for DRAM reads: the rate a streaming kernel reaches depends on the bytes
  // its warps keep in flight. Measured on the H100 by probe_inflight.cu (1 GiB, grid-stride
  // sums whose warps issue 1 to 8 loads of 4 or 16 bytes a lane before adding, 16, 32 and
  // 64 warps an SM): at each amount in flight per SM, the mean of the configurations that
  // keep it (they agree within 5 %: the amount matters, not how it is split).
  // {bytes in flight per SM, GB/s}; non-decreasing in both.
  std::array<std::array<double, 2>, 7> read_gbps_by_bytes_in_flight = {{{2048, 701.1},
                                                                        {4096, 1312.3},
                                                                        {8192, 2191.4},
                                                                        {16384, 2788.3},
                                                                        {32768, 3047.4},
                                                                        {65536, 3054.6},
                                                                        {131072, 3127.2}}};
  // The L2, for runs whose arrays fit in it and for kernels that re-read what L1 does not
  // keep. Rates measured on the H100 by a probe (docs/CALIBRATION.md): float4 reads and
  // writes of a 16 MB buffer, 20 passes, every SM.
  std::uint64_t l2_bytes = 50ull << 20;
  double l2_read_gbps = 15197;
  double l2_write_gbps = 3718;
  // Latencies under load, measured on the H100 by the same probe with 64 warps on every SM,
  // each waiting on one coalesced 128-byte load (DRAM: 2 GB read in order; L2: 4 MB). A
  // kernel that cannot keep enough loads in flight is bound by these.
  double dram_latency_ns = 474;
  double l2_latency_ns = 188;
  // A round of shared load, add, shared store and __syncthreads in 256-thread blocks:
  // 30.5 ns for one block alone, 93.5 ns with 8 blocks on every SM, whose rounds share the
  // SM. A block's round takes the larger of the lone round and its SM's resident warps at
  // 93.5 / 64 ns each.
  double barrier_round_ns = 30.5;
  double barrier_round_per_warp_ns = 93.5 / 64;
  // Half of the probe's warp round (shared load, __syncwarp, shared store, __syncwarp:
  // 17.2 ns), the step of a warp-synchronous reduction.
  double warp_sync_ns = 8.6;
  // Atomics, measured on the H100 by tests/kernels/backends/cuda/probe_atomics.cu (docs/CALIBRATION.md).
  // Global (reductions, applied in the L2): 2^24 updates whose words are a hash of the thread
  // index over B words, as a histogram of even data makes them: {B words, G updates/s}.
  // Fewer words, fewer L2 slices and more waiting on each word; not monotonic at 32.
  std::array<std::array<double, 2>, 7> atomic_gups_by_words = {{{32, 4.468},
                                                                 {256, 3.886},
                                                                 {1024, 11.841},
                                                                 {4096, 36.308},
                                                                 {65536, 70.261},
                                                                 {1048576, 86.288},
                                                                 {16777216, 258.652}}};
  // One word updated by every request: 2.365 ns a request when each of a warp's lanes has
  // its own word of one line (all warps on that line), and each further lane of a request on
  // the same word 0.733 ns more (every lane on one word: 23.4 ns a request).
  double atomic_word_request_ns = 2.365;
  double atomic_word_lane_ns = 0.733;
  // Shared (ATOMS, on the SM): one wave of 8 blocks an SM, each lane 512 updates. Lanes on
  // words that a hash picks: 7.77 ns an instruction on each SM, whatever the number of
  // words (32 to 4096); 32 words of one bank: 0.513 ns a wavefront (16.4 ns an instruction).
  double shared_atomic_ns = 7.77;
  double shared_atomic_wavefront_ns = 0.513;
  // What one SM holds at once (Hopper): occupancy limits.
  unsigned max_warps_per_sm = h100::kMaxThreadsPerSm / 32;
  unsigned max_blocks_per_sm = 32;
  std::uint32_t shared_per_sm = 228 * 1024;
  std::uint32_t shared_reserved_per_block = 1024;
  std::uint32_t regs_per_sm = 65536;
  unsigned reg_alloc_unit = 256;  // registers are allocated per warp in these units
  // Each SM has 4 schedulers, each issuing one warp instruction per clock: the ceiling on
  // instructions, which divergence lowers by issuing both sides of a branch.
  unsigned schedulers_per_sm = 4;
  // The shared-memory pipe: each SM's banks serve one wavefront per clock, so a 32-way
  // conflict costs 32 clocks where a conflict-free access costs one.
  unsigned sm_count = h100::kSmCount;
  double sm_clock_ghz = h100::kSmClockGhz;
};


// How the global atomics of a launch spread over words. The L2 applies the updates of one
// word one after another, so the hottest word bounds the time however many others run
// beside it, and few words share few L2 slices. Not a per-event counter (it needs every
// event of the launch), so only the emulator's sink counts it; a GPU's traced counts and
// recordings leave it unknown, and the modelled time says so (TimeParts::outside_reach).
struct AtomicHeat {
  bool known = false;
  // Lanes of the scattered global atomics (every request but those whose lanes name
  // distinct words of one 128-byte line), and the distinct words they update.
  std::uint64_t global_updates = 0;
  std::uint64_t global_words = 0;
  // The hottest global word: the requests (warp instructions) that update it and their
  // lanes on it; hot_lanes_* is the word with the most lanes, hot_requests_* the word
  // with the most requests (usually the same word).
  std::uint64_t hot_lanes_requests = 0, hot_lanes = 0;
  std::uint64_t hot_requests = 0, hot_requests_lanes = 0;
};

// Accumulates AtomicHeat over the events it sees (one launch).
class AtomicHeatSink : public TraceSink {
 public:
  void on_event(const WarpEvent& e) override;
  // @post known; global_updates == the active lanes of the scattered global atomics seen
  //       (a request is coalesced iff its lanes name distinct words of one 128-byte line);
  //       global_words == distinct (array, word) pairs they name; hot_lanes == the most
  //       lanes of any request on one word, hot_requests == the most requests naming one.
  AtomicHeat heat() const;
  // Adds the counts of another part of the same launch (other blocks).
  void merge(const AtomicHeatSink& o);

 private:
  struct Word {
    std::uint64_t requests = 0, lanes = 0, scattered = 0;
  };
  std::unordered_map<std::uint64_t, Word> words_;
};

// One global access of a warp.
struct GlobalAccess {
  unsigned requests = 0;          // 1 per warp instruction with any active lane
  unsigned sectors = 0;           // distinct 32 B sectors touched
  unsigned lines = 0;             // distinct 128 B lines touched
  unsigned ideal_sectors = 0;     // ceil(bytes requested / 32): perfectly coalesced
  std::uint64_t bytes_requested = 0;  // active lanes x bytes
  std::uint64_t bytes_moved = 0;      // sectors x 32
  unsigned fetches = 0;               // DRAM fetches a miss costs (DeviceModel::fetch_bytes)
  std::uint64_t fetch_bytes = 0;      // fetches x the fetch unit
  std::vector<std::uint64_t> sector_ids;  // sorted distinct sector numbers (offset / 32)
  std::array<std::int32_t, 32> lane_sector{};  // index into sector_ids per lane; -1 inactive
};
// @post sectors == sector_ids.size(); ideal_sectors <= sectors (for accesses within
//       sector-aligned arrays); bytes_moved == 32 * sectors; requests == (mask != 0);
//       fetches == global_core's; fetch_bytes == fetches * access().fetch_unit().
GlobalAccess analyze_global(const WarpEvent& e, const DeviceModel& m = {});

// One shared access of a warp.
struct SharedAccess {
  unsigned wavefronts = 0;        // passes the bank array needs
  unsigned ideal_wavefronts = 0;  // passes with no conflict (1 per group of lanes served)
  unsigned conflicts = 0;         // wavefronts - ideal_wavefronts
  unsigned max_degree = 0;        // most distinct words one bank serves in one pass
  std::array<std::int32_t, 32> lane_bank{};     // first bank of each lane; -1 inactive
  std::array<unsigned, 32> bank_words{};        // distinct words per bank (max over passes)
  bool broadcast = false;         // some word was read by more than one lane
};
// Passes are runs of lanes_per_shared_pass(bytes) consecutive lanes, of twice that for a
// SharedLoad whose active lane pairs (2k, 2k+1) each read one offset (capped at 32).
// @post wavefronts = sum over passes of max(1, max distinct words in any bank) for
//       passes with an active lane; ideal_wavefronts = number of those passes;
//       conflicts = wavefronts - ideal_wavefronts.
SharedAccess analyze_shared(const WarpEvent& e, const DeviceModel& m = {});

// Whole-launch totals (the counters are sim/access.h's, shared with the device).
// Keys of ncu() are Nsight Compute metric names.
struct Totals : Counters {
  void add(const WarpEvent& e, const DeviceModel& m = {});
  void merge(const Totals& o);
  std::uint64_t shared_ld_conflicts() const { return shared_ld_wavefronts - shared_ld_ideal; }
  std::uint64_t shared_st_conflicts() const { return shared_st_wavefronts - shared_st_ideal; }
  // lane_instructions / (32 * warp_instructions), 1 when nothing issued
  double simd_efficiency() const;

  // Nsight Compute names: l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum, ...
  // @post each value is the field ncu counts; op_ld's requests and sectors include LDGSTS's
  std::map<std::string, double> ncu() const;
  // Plain words: "sectors per request (loads)", "shared conflicts (loads)", ...
  std::vector<std::pair<std::string, double>> plain() const;
};

// A sink that accumulates Totals over everything it sees (the streamed mode).
class TotalsSink : public TraceSink {
 public:
  explicit TotalsSink(DeviceModel m = {}) : model_(std::move(m)) {}
  void on_event(const WarpEvent& e) override { totals_.add(e, model_); }
  const Totals& totals() const { return totals_; }

 private:
  DeviceModel model_;
  Totals totals_;
};

// The counters of one source site (line, array, kind) over a launch: what the source
// view shows beside a line, and `metrics --by-line` prints.
struct SiteTotals {
  std::uint16_t line = 0;
  std::uint8_t array = kNoArray;
  EventKind kind = EventKind::GlobalLoad;
  Totals totals;
};
// Sites in (line, array, kind) order.
using SiteList = std::vector<SiteTotals>;

// Accumulates per-site counters over everything it sees (the emulator's per-line mode).
class SiteSink : public TraceSink {
 public:
  explicit SiteSink(DeviceModel m = {}) : model_(m.access()) {}
  void on_event(const WarpEvent& e) override;
  // @post sorted by (line, array, kind); the sum of every site's totals equals the
  //       totals of the events seen.
  SiteList sites() const;
  void merge(const SiteList& o);

 private:
  AccessModel model_;
  std::map<std::uint32_t, Totals> by_key_;
};

// The sites of one source line added together, per line in order.
// @post one entry per distinct line of `sites`, each the merge of that line's totals.
std::vector<std::pair<std::uint16_t, Totals>> by_line(const SiteList& sites);
// Merges `o` into `into`, site by site (both sorted; the result stays sorted).
void merge_sites(SiteList& into, const SiteList& o);

// Divergence of one warp over a kept trace: the mask of each event in order.
struct MaskHistory {
  std::uint32_t block = 0;
  std::uint16_t warp = 0;
  std::vector<std::uint32_t> masks;   // one per event
  std::vector<std::uint16_t> lines;
  std::vector<EventKind> kinds;
  std::vector<std::uint32_t> ballots; // Branch events: true lanes; else 0
  std::vector<std::uint32_t> counts;  // warp instructions each event stands for (Work: n)
  double simd_efficiency() const;     // active lanes / 32, weighted by counts
};
// @post result.masks.size() == number of events of (block, warp) in `events`, in order.
MaskHistory mask_history(const std::vector<WarpEvent>& events, std::uint32_t block,
                         std::uint16_t warp);

// What the model needs of one launch besides its counts: how many blocks wait on latency
// together, what lies on a block's path, and whether the arrays fit in L2. A zero field
// is unknown and leaves its part out.
struct LaunchShape {
  std::uint64_t blocks = 0;
  unsigned threads_per_block = 0;
  std::uint32_t shared_bytes = 0;     // per block
  int regs_per_thread = 0;            // the fast build's, when known (a GPU run or a recording)
  std::uint64_t footprint_bytes = 0;  // bytes of every global array the launch can touch
  std::uint64_t warp_syncs = 0;       // __syncwarp on the path of a block's slowest warp
  // Global load instructions a warp keeps in flight before it waits on one: the fast
  // build's, from its recorded SASS (sass::widest_load_batch); 0 unknown.
  unsigned loads_in_flight = 0;
  // How the launch's global atomics spread over words (the emulator's AtomicHeatSink).
  AtomicHeat heat;
};
// Blocks one SM holds at once, limited by warps, blocks, shared memory and (when known)
// registers.
// @post 0 when threads_per_block == 0 or one block exceeds an SM's warps, shared memory or
//       registers; else min of the four limits (each floor(SM's amount / block's)), >= 1.
unsigned resident_blocks(const LaunchShape& s, const DeviceModel& m = {});

// The parts of a modelled time, in microseconds. Each is a lower bound on the kernel's
// time; the model takes the largest.
struct TimeParts {
  double dram_us = 0;     // DRAM bytes (dram_bytes) at stream_gbps, or in_flight_us if longer
  double in_flight_us = 0;  // in_flight_us(t, s, m), shown beside dram_us (not a part of its own)
  double compute_us = 0;  // FLOPs at peak: the tensor cores' (Mma events), the rest FP32
  double l1_us = 0;       // the L1 data pipe: shared wavefronts and global load lines, one an SM clock
  double issue_us = 0;    // warp instructions at schedulers_per_sm per SM clock
  double l2_us = 0;       // load sectors at l2_read_gbps, store, atomic and bulk-store sectors at l2_write_gbps
  double latency_us = 0;  // blocks waiting on a load and their barriers, resident_blocks at a time
  double atomic_us = 0;   // atomic_us(t, s, m): updates in the L2 and on the SMs' shared memory
  double launch_us = 0;   // launch overhead
  // Why the time may be far from the device's, when the model knows it lacks a term for
  // this launch; "" otherwise. Shown beside the modelled time.
  std::string outside_reach;
  double total_us() const;
  // "dram", "l1", "issue", "l2", "latency", "atomic", "compute": the largest part (the bound)
  const char* bound() const;
};
// DRAM bytes the model streams: the loads' fetches of m.fetch_bytes, the stores' and atomics'
// sectors. Totals recorded before fetches were counted (loads with sectors, no fetches)
// stream their load sectors instead. When every array of the launch fits in L2 together,
// DRAM moves each byte at most once.
// @post == min(S, s.footprint_bytes) when 0 < s.footprint_bytes <= m.l2_bytes, else S, where
//       S = access().fetch_unit() * global_ld_fetches (or sector_bytes * global_ld_sectors when
//       global_ld_fetches == 0) + sector_bytes * (global_st_sectors + global_red_sectors +
//       global_bulk_st_dram_sectors).
std::uint64_t dram_bytes(const Totals& t, const DeviceModel& m = {}, const LaunchShape& s = {});

// The DRAM read rate that `bytes_per_sm` bytes in flight on every SM sustain: the probe's
// curve (read_gbps_by_bytes_in_flight), linear between its points, proportional below
// the first (Little's law at that point's latency), flat above the last.
// @post 0 when bytes_per_sm <= 0; equal to the curve at its points; non-decreasing.
double dram_read_gbps(double bytes_per_sm, const DeviceModel& m = {});

// Little's law for a launch's DRAM reads: its warps keep s.loads_in_flight loads in flight
// each, of the DRAM bytes a load request costs on average, as many warps an SM as it holds
// (fewer when the grid does not fill the GPU); the reads go at the rate that sustains.
// @post 0 when s.loads_in_flight == 0, no load requests, the arrays fit in L2 or
//       resident_blocks(s) == 0; else R / dram_read_gbps(F) / 1000 with R the load bytes
//       of dram_bytes and F = min(blocks, sm_count * resident_blocks) * warps per block /
//       sm_count * loads_in_flight * R / global_ld_requests.
double in_flight_us(const Totals& t, const LaunchShape& s, const DeviceModel& m = {});

// The latency part: a block's path is one load's latency (L2's when the arrays fit in it,
// DRAM's otherwise; none without loads), one barrier round per __syncthreads of each of
// its warps, its warp syncs, and its bank conflicts' extra wavefronts at one an SM clock
// (the probe's rounds had none); resident_blocks(s) blocks an SM walk their paths
// together (Little's law). A round ends when every resident warp has issued its part:
// the probe's round, or the warp instructions between barriers at the schedulers' rate
// (work a kernel states, like a division, lengthens it), whichever is longer.
// @post 0 when s.blocks == 0 or resident_blocks(s) == 0; else
//       blocks / min(blocks, sm_count * resident_blocks) * (load latency + barriers / warps
//       * round + warp_syncs * warp_sync_ns + conflicts / blocks / sm_clock_ghz) / 1000,
//       round = max(barrier_round_ns, resident warps an SM * barrier_round_per_warp_ns,
//       warps an SM holds * warp_instructions / barriers / schedulers_per_sm / sm_clock_ghz),
//       the warps an SM holds = min(resident_blocks, ceil(blocks / sm_count)) * warps per block,
//       conflicts = shared wavefronts - ideal (loads and stores).
double latency_us(const Totals& t, const LaunchShape& s, const DeviceModel& m = {});

// The G updates/s of global atomics spread evenly over `words` words: the probe's curve
// (atomic_gups_by_words), linear in log2(words) between its points, flat outside them.
// @post > 0 for every words >= 0; == the curve's value at each of its points.
double atomic_gups(double words, const DeviceModel& m = {});

// The atomics' part: the L2 applying the global updates, and the SMs their shared ones.
// @post == max(G, S) / 1000 where S = max(shared_atom_requests * shared_atomic_ns,
//       shared_atom_wavefronts * shared_atomic_wavefront_ns) / sm_count, and G = 0 unless
//       s.heat.known, else max(heat.global_updates / atomic_gups(heat.global_words), the
//       hottest word's requests * atomic_word_request_ns + its further lanes *
//       atomic_word_lane_ns) in ns.
double atomic_us(const Totals& t, const LaunchShape& s, const DeviceModel& m = {});

// @post every part >= 0; launch_us == max(0, m.launch_overhead_us); latency_us == latency_us(t, s, m);
//       in_flight_us == in_flight_us(t, s, m);
//       dram_us == max(dram_bytes(t, m, s) / stream_gbps / 1000, in_flight_us);
//       atomic_us == atomic_us(t, s, m); outside_reach != "" iff the launch has global
//       atomics and s.heat is unknown, or its stores touch more than 4 times their ideal
//       sectors (the naive transpose's: docs/CALIBRATION.md).
TimeParts modelled_time_parts(const Totals& t, double flops, const DeviceModel& m = {},
                              const LaunchShape& s = {});

// Modelled time for an emulated run, a roofline: the largest of DRAM bytes at the
// measured streaming rate, the L1 data pipe's wavefronts (shared wavefronts and global
// load lines) at one per SM clock, FLOPs at peak, warp
// instructions at the schedulers' issue rate, L2 sectors at its measured rates and the
// latency of the blocks' paths; plus launch overhead. Labelled "modelled" wherever shown.
// @post >= launch_overhead_us; grows with DRAM bytes, shared wavefronts, flops
//       and warp instructions (so with divergent work).
double modelled_time_us(const Totals& t, double flops, const DeviceModel& m = {},
                        const LaunchShape& s = {});

}  // namespace ws::sim
