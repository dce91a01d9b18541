// Hardware counters beside the model: reasons, statistics over passes, kinds of difference.
#include "kernels/hardware/hardware.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ws {

const char* const kDramRead = "dram__bytes_read.sum";
const char* const kTensorPipeHmma = "smsp__inst_executed_pipe_tensor_op_hmma.sum";
const char* const kDramWrite = "dram__bytes_write.sum";
const char* const kAchievedOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";

std::string_view to_string(HardwareUnavailable u) {
  switch (u) {
    case HardwareUnavailable::None: return "none";
    case HardwareUnavailable::NotAsked: return "not asked";
    case HardwareUnavailable::NoCudaBuild: return "no CUDA build";
    case HardwareUnavailable::NoGpu: return "no GPU";
    case HardwareUnavailable::NotPermitted: return "not permitted";
    case HardwareUnavailable::NoCupti: return "no CUPTI";
    case HardwareUnavailable::Unsupported: return "unsupported";
    case HardwareUnavailable::Busy: return "busy";
    case HardwareUnavailable::Failed: return "failed";
  }
  return "unknown";
}

std::string hardware_unavailable_text(HardwareUnavailable u, const std::string& detail) {
  const std::string d = detail.empty() ? "" : " (" + detail + ")";
  switch (u) {
    case HardwareUnavailable::None: return "";
    case HardwareUnavailable::NotAsked:
      return "hardware counters were not collected for this run (turn collection on)";
    case HardwareUnavailable::NoCudaBuild:
      return "no hardware counters: this build of warpscope has no CUDA backend" + d;
    case HardwareUnavailable::NoGpu:
      return "no hardware counters: the run was on the emulator, there is no usable GPU" + d;
    case HardwareUnavailable::NotPermitted:
      return "no hardware counters: the driver lets only administrators read GPU counters" + d +
             "; an administrator enables them with the nvidia kernel-module option "
             "NVreg_RestrictProfilingToAdminUsers=0 (in /etc/modprobe.d, then reboot), or runs "
             "warpscope as root";
    case HardwareUnavailable::NoCupti:
      return "no hardware counters: CUPTI (libcupti.so.13 and libnvperf_host.so from the CUDA "
             "toolkit) could not be loaded" + d;
    case HardwareUnavailable::Unsupported:
      return "no hardware counters: the profiler does not support this GPU or a metric" + d;
    case HardwareUnavailable::Busy:
      return "no hardware counters: another profiler (Nsight Compute, or a second warpscope) "
             "is reading the GPU's counters; try again when it has finished" + d;
    case HardwareUnavailable::Failed: return "no hardware counters: CUPTI failed" + d;
  }
  return "no hardware counters";
}

const std::vector<std::string>& hardware_metrics() {
  static const std::vector<std::string> m = {
      "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
      "smsp__sass_inst_executed_op_shared_ld.sum",
      "smsp__sass_inst_executed_op_shared_st.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
      "smsp__sass_inst_executed_op_shared_atom.sum",
      // cp.async (LDGSTS) and mma.sync (HMMA): a chip that lacks one leaves it out, named
      "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
      "smsp__inst_executed_pipe_tensor_op_hmma.sum",
      // cp.async.bulk's stores (TMA): the copy engine's sectors to the L2
      "l1tex__m_l1tex2xbar_write_sectors_mem_global_op_tma_st.sum",
      kDramRead,
      kDramWrite,
      kAchievedOccupancy,
  };
  return m;
}

bool hardware_only(const std::string& metric) {
  return metric == kDramRead || metric == kDramWrite || metric == kAchievedOccupancy;
}

bool HardwareCounters::has(const std::string& metric) const {
  return !passes.empty() && passes.front().count(metric);
}

namespace {

std::vector<double> values(const HardwareCounters& h, const std::string& metric) {
  std::vector<double> v;
  for (const auto& p : h.passes) {
    auto it = p.find(metric);
    if (it != p.end()) v.push_back(it->second);
  }
  std::sort(v.begin(), v.end());
  return v;
}

std::string count_text(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e18) {
    std::string digits = std::to_string((long long)std::fabs(v)), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (i && (digits.size() - i) % 3 == 0) out += ',';
      out += digits[i];
    }
    return v < 0 ? "-" + out : out;
  }
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

bool is_shared(const std::string& m) { return m.find("mem_shared") != std::string::npos; }

}  // namespace

double HardwareCounters::min(const std::string& metric) const {
  auto v = values(*this, metric);
  return v.empty() ? 0 : v.front();
}
double HardwareCounters::max(const std::string& metric) const {
  auto v = values(*this, metric);
  return v.empty() ? 0 : v.back();
}
double HardwareCounters::median(const std::string& metric) const {
  auto v = values(*this, metric);
  if (v.empty()) return 0;
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string_view to_string(DiffKind k) {
  switch (k) {
    case DiffKind::Equal: return "equal";
    case DiffKind::Arbitration: return "arbitration";
    case DiffKind::NotExplained: return "not explained";
    case DiffKind::HardwareOnly: return "hardware only";
    case DiffKind::MmaPipeMoves: return "HFMA2.MMA moves";
    case DiffKind::CompiledLoop: return "compiled loop";
  }
  return "unknown";
}

std::vector<CounterDiff> compare_counters(const std::map<std::string, double>& model,
                                          const HardwareCounters& hw, const CompiledSurplus& surplus) {
  std::vector<CounterDiff> out;
  if (hw.passes.empty()) return out;
  for (const std::string& m : hardware_metrics()) {
    if (!hw.has(m)) continue;
    CounterDiff d;
    d.metric = m;
    d.passes = int(hw.passes.size());
    d.hw_min = hw.min(m);
    d.hw_max = hw.max(m);
    d.hw_median = hw.median(m);
    auto it = model.find(m);
    d.modelled = it != model.end() && !hardware_only(m);
    if (!d.modelled) {
      d.kind = DiffKind::HardwareOnly;
      d.explain = m == kAchievedOccupancy
                      ? "Achieved occupancy: the average share of the SM's warp slots that held "
                        "a warp while the SM was busy; the model has no scheduler, so no figure."
                      : "Bytes the DRAM served (misses of the 50 MB L2): the model counts L1 "
                        "sectors, not DRAM traffic. Arrays smaller than the L2 were just "
                        "uploaded through it, so they may barely reach DRAM.";
      out.push_back(d);
      continue;
    }
    d.model = it->second;
    d.diff = d.hw_median - d.model;
    const bool varies = d.hw_min != d.hw_max;
    if (d.hw_min == d.model && d.hw_max == d.model) {
      d.kind = DiffKind::Equal;
      d.explain = "The hardware counted exactly what the model computes from the trace.";
    } else if (const auto extra = surplus.extra.find(m);
               extra != surplus.extra.end() && !varies && d.hw_min == d.model + extra->second) {
      d.kind = DiffKind::CompiledLoop;
      d.explain = surplus.why + " The model runs the source's loop: " + count_text(d.model) +
                  "; with what the compiled loop adds, " + count_text(d.model + extra->second) +
                  ", the hardware's count in every run.";
    } else if (m == kTensorPipeHmma && !varies && d.hw_min > d.model) {
      d.kind = DiffKind::MmaPipeMoves;
      d.explain = "The hardware's tensor-pipe count includes HFMA2.MMA: a half-precision "
                  "multiply-add the compiler issues on the MMA pipe to set a register (to 0, "
                  "say), visible in the SASS beside the source. The model counts mma.sync's "
                  "HMMA only; the difference is the same in every run.";
    } else if (d.hw_min >= d.model && varies && is_shared(m)) {
      d.kind = DiffKind::Arbitration;
      d.explain = "The hardware counts a few more shared-memory wavefronts than the "
                  "instructions need, by an amount that changes between identical runs: other "
                  "warps on the same SM compete for the shared-memory pipeline. The model is "
                  "exact per instruction; with one warp per SM the hardware meets it "
                  "(docs/HARDWARE.md, section 6).";
    } else {
      // Below the model, or above it outside shared memory, or the same in every run: no
      // probe and no rule of the model names a cause, so none is given.
      d.kind = DiffKind::NotExplained;
      d.explain = "Not explained: the model counts " + count_text(d.model) + ", the hardware " +
                  (varies ? count_text(d.hw_min) + " to " + count_text(d.hw_max) + " over " +
                                std::to_string(d.passes) + " runs"
                          : count_text(d.hw_median)) +
                  ". Neither a probe nor the SASS names the cause; the per-line counters "
                  "(--lines) show on which source line they part.";
    }
    out.push_back(d);
  }
  return out;
}

std::string diff_summary(const CounterDiff& d) {
  const std::string runs = std::to_string(d.passes) + (d.passes == 1 ? " run: " : " runs: ") +
                           count_text(d.hw_min) +
                           (d.hw_min == d.hw_max ? "" : ".." + count_text(d.hw_max));
  switch (d.kind) {
    case DiffKind::Equal: return "equal; " + runs;
    case DiffKind::Arbitration:
      return "arbitration with other warps; varies run to run; " + runs;
    case DiffKind::NotExplained:
      return "not explained: model " + count_text(d.model) + ", hardware " +
             count_text(d.hw_median) + "; " + runs;
    case DiffKind::HardwareOnly: return "hardware only; " + runs;
    case DiffKind::MmaPipeMoves:
      return "HFMA2.MMA register moves on the tensor pipe: model " + count_text(d.model) +
             ", hardware " + count_text(d.hw_median) + "; " + runs;
    case DiffKind::CompiledLoop:
      return "the compiler's unrolled loop (SASS): model " + count_text(d.model) + ", hardware " +
             count_text(d.hw_median) + "; " + runs;
  }
  return runs;
}

Occupancy theoretical_occupancy(int threads_per_block, int registers_per_thread,
                                std::uint32_t shared_bytes_per_block, const SmLimits& sm) {
  Occupancy o;
  if (threads_per_block <= 0) return o;
  const int warps = (threads_per_block + 31) / 32;
  const int by_warps = sm.max_warps / warps;
  // A resource the launch does not use limits nothing.
  int by_regs = 1 << 30;
  if (registers_per_thread > 0) {
    const int per_warp = (registers_per_thread * 32 + sm.register_unit - 1) / sm.register_unit * sm.register_unit;
    by_regs = sm.registers / (per_warp * warps);
  }
  int by_shared = 1 << 30;
  if (shared_bytes_per_block > 0)
    by_shared = int(sm.shared_bytes / (shared_bytes_per_block + sm.shared_reserved_per_block));
  const std::pair<int, const char*> limits[] = {
      {by_warps, "warps"}, {by_regs, "registers"}, {by_shared, "shared memory"}, {sm.max_blocks, "blocks"}};
  o.blocks_per_sm = limits[0].first;
  o.limiter = limits[0].second;
  for (const auto& [n, name] : limits)
    if (n < o.blocks_per_sm) {
      o.blocks_per_sm = n;
      o.limiter = name;
    }
  o.blocks_per_sm = std::max(o.blocks_per_sm, 0);
  o.warps_per_sm = o.blocks_per_sm * warps;
  o.fraction = double(o.warps_per_sm) / double(sm.max_warps);
  return o;
}

}  // namespace ws
