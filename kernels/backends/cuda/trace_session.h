#pragma once
// The traced passes of one run. With whole-grid totals asked for, the grid runs traced in
// one pass: every block is scheduled as the emulator schedules it and counted on the
// device per source site (simt_cuda.h, ws_count), and only the kept blocks (at most
// kMaxKeptBlocks) write events to copy back. Without totals, or when every block is kept,
// the traced range is walked in chunks that fit the event buffer and the events stream to
// the host (the counters still accumulate on the device).
#include <deque>
#include <vector>

#include "kernels/backends/cuda/common.h"
#include "sim/model.h"

namespace ws::cuda {

class TraceSession : public TraceHooks {
 public:
  struct Buffers {
    WarpEvent* events;
    unsigned long long* count;
    unsigned long long capacity;
    SharedArrayRec* arrays;
    DeviceFault* fault;
    SiteSlot* sites;     // kSiteShards x kSiteSlots
    unsigned* sites_full;
    WarpEvent* batch;    // kBatch events per warp slot, or null (count one at a time)
    std::uint32_t* batch_n;
    std::uint32_t batch_slots;
  };

  TraceSession(cudaStream_t s, const Buffers& b, const Plan& plan, const VariantInfo& v,
               const RunOptions& opt);

  bool done() const;
  // Picks this pass's range for every launch that still has blocks to trace. Returns
  // the last launch the pass must run (earlier ones run untraced if they have none).
  int plan_pass();

  bool before(int index, const LaunchCfg& cfg, TraceCtl& ctl, std::string& error) override;
  void after(int index, const LaunchCfg& cfg, std::string& error) override;

  std::vector<sim::Problem>& problems() { return problems_; }
  std::vector<KeptLaunch> kept();
  // The device's per-site counters of launch i, and their sum.
  sim::SiteList sites(std::size_t i) const { return sites_[i].sites(); }

 private:
  struct Range {
    std::uint32_t lo, hi;
  };
  void drain(int index, const LaunchCfg& cfg);
  sim::Problem to_problem(const DeviceFault& f, const LaunchCfg& cfg) const;

  cudaStream_t stream_;
  Buffers buf_;
  const Plan& plan_;
  const RunOptions& opt_;
  bool device_keep_ = false;  // one whole-grid pass, kept blocks listed in the control block
  std::vector<std::uint32_t> keep_list_;
  std::vector<std::deque<Range>> pending_;
  std::vector<unsigned long long> per_block_;  // most events one block has asked for
  std::vector<Range> current_;
  int last_ = -1;
  std::vector<sim::SiteSink> sites_;
  std::vector<KeepSink> keep_;
  std::vector<bool> arrays_seen_;
  std::vector<WarpEvent> host_;
  std::vector<SiteSlot> slots_;
  std::vector<sim::Problem> problems_;
};

}  // namespace ws::cuda
