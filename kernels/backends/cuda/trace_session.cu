// The traced passes of one run (see trace_session.h).
#include "kernels/backends/cuda/trace_session.h"

#include <set>

namespace ws::cuda {

TraceSession::TraceSession(cudaStream_t s, const Buffers& b, const Plan& plan,
                           const VariantInfo& v, const RunOptions& opt)
    : stream_(s), buf_(b), plan_(plan), opt_(opt) {
  const std::set<std::uint32_t> ks(opt.keep_blocks.begin(), opt.keep_blocks.end());
  device_keep_ = opt.totals && !opt.keep_all_blocks && ks.size() <= std::size_t(kMaxKeptBlocks);
  keep_list_.assign(ks.begin(), ks.end());
  const std::size_t n = plan.launches.size();
  pending_.resize(n);
  per_block_.assign(n, 0);
  sites_.resize(n);
  arrays_seen_.assign(n, false);
  keep_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const LaunchCfg& c = plan.launches[i];
    const std::uint64_t blocks = c.grid.count();
    const std::uint32_t nb = std::uint32_t(std::min<std::uint64_t>(blocks, 0xFFFFFFFFull));
    if (opt.totals || opt.keep_all_blocks) {
      if (nb) pending_[i].push_back({0, nb});
    } else {
      for (std::uint32_t blk : ks) {
        if (blk >= nb) continue;
        if (!pending_[i].empty() && pending_[i].back().hi == blk)
          pending_[i].back().hi = blk + 1;
        else
          pending_[i].push_back({blk, blk + 1});
      }
    }
    LaunchInfo info;
    info.kernel = c.kernel;
    info.source_file = v.source_file;
    info.grid = c.grid;
    info.block = c.block;
    info.shared_bytes = c.shared_bytes;
    for (std::size_t a = 0; a < plan.arrays.size(); ++a) {
      const ArraySpec& s2 = plan.arrays[a];
      info.arrays.push_back(
          ArrayDesc{std::uint8_t(a), Space::Global, s2.name, s2.elem_bytes, s2.count, 0});
    }
    keep_.emplace_back(opt.keep_all_blocks ? std::vector<std::uint32_t>{} : opt.keep_blocks);
    keep_.back().begin_launch(info);
  }
}

bool TraceSession::done() const {
  for (const auto& q : pending_)
    if (!q.empty()) return false;
  return true;
}

int TraceSession::plan_pass() {
  current_.assign(pending_.size(), Range{0, 0});
  int last = -1;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    if (pending_[i].empty()) continue;
    Range r = pending_[i].front();
    pending_[i].pop_front();
    if (!device_keep_) {
      std::uint32_t chunk = 1;  // until one block's events are known
      if (per_block_[i] > 0)
        chunk = std::uint32_t(
            std::max<unsigned long long>(1, (buf_.capacity * 9 / 10) / per_block_[i]));
      if (r.hi - r.lo > chunk) {
        pending_[i].push_front({r.lo + chunk, r.hi});
        r.hi = r.lo + chunk;
      }
    }
    current_[i] = r;
    last = int(i);
  }
  last_ = last;
  return last;
}

bool TraceSession::before(int index, const LaunchCfg&, TraceCtl& ctl, std::string& error) {
  if (index > last_) return false;
  const Range r = current_.at(index);
  ctl.events = buf_.events;
  ctl.count = buf_.count;
  ctl.capacity = buf_.capacity;
  ctl.block_lo = r.lo;
  ctl.block_hi = r.hi;
  ctl.arrays = buf_.arrays;
  ctl.fault = buf_.fault;
  ctl.sites = opt_.totals ? buf_.sites : nullptr;
  ctl.sites_full = buf_.sites_full;
  ctl.batch = opt_.totals ? buf_.batch : nullptr;
  ctl.batch_n = buf_.batch_n;
  ctl.batch_slots = buf_.batch_slots;
  const sim::AccessModel m = sim::DeviceModel{}.access();
  ctl.sector_bytes = m.sector_bytes;
  ctl.line_bytes = m.line_bytes;
  ctl.shared_banks = m.shared_banks;
  ctl.bank_bytes = m.bank_bytes;
  ctl.fetch_bytes = m.fetch_bytes;
  ctl.keep_all = device_keep_ ? 0u : 1u;
  ctl.keep_n = device_keep_ ? std::uint32_t(keep_list_.size()) : 0u;
  for (std::size_t k = 0; k < keep_list_.size() && k < std::size_t(kMaxKeptBlocks); ++k)
    ctl.keep[k] = keep_list_[k];
  try {
    check(cudaMemsetAsync(buf_.count, 0, sizeof(unsigned long long), stream_),
          "cudaMemsetAsync(trace count)");
    check(cudaMemsetAsync(buf_.fault, 0, sizeof(DeviceFault), stream_),
          "cudaMemsetAsync(trace fault)");
    check(cudaMemsetAsync(buf_.arrays, 0, sizeof(SharedArrayRec) * kMaxSharedArrays, stream_),
          "cudaMemsetAsync(shared array table)");
    if (opt_.totals) {
      check(cudaMemsetAsync(buf_.sites, 0, sizeof(SiteSlot) * kSiteShards * kSiteSlots, stream_),
            "cudaMemsetAsync(site counters)");
      check(cudaMemsetAsync(buf_.sites_full, 0, sizeof(unsigned), stream_),
            "cudaMemsetAsync(site counters)");
      if (buf_.batch)
        check(cudaMemsetAsync(buf_.batch_n, 0, sizeof(std::uint32_t) * buf_.batch_slots, stream_),
              "cudaMemsetAsync(counting batches)");
    }
  } catch (const Failure& f) {
    error = f.what;
    return false;
  }
  return true;
}

void TraceSession::after(int index, const LaunchCfg& cfg, std::string& error) {
  try {
    drain(index, cfg);
  } catch (const Failure& f) {
    error = f.what.empty() ? "stopped at a fault of the traced build" : f.what;
  }
}

std::vector<KeptLaunch> TraceSession::kept() {
  std::vector<KeptLaunch> out;
  for (auto& k : keep_)
    if (!k.launches().empty()) out.push_back(std::move(k.launches().front()));
  return out;
}

void TraceSession::drain(int index, const LaunchCfg& cfg) {
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (traced launch)");
  unsigned long long count = 0;
  DeviceFault fault{};
  check(cudaMemcpy(&count, buf_.count, sizeof count, cudaMemcpyDeviceToHost),
        "cudaMemcpy(trace count)");
  check(cudaMemcpy(&fault, buf_.fault, sizeof fault, cudaMemcpyDeviceToHost),
        "cudaMemcpy(trace fault)");
  const Range r = current_.at(index);
  if (fault.kind != 0) {
    problems_.push_back(to_problem(fault, cfg));
    throw Failure{""};  // stops the passes; the problem says why
  }
  if (!arrays_seen_[index]) {
    SharedArrayRec recs[kMaxSharedArrays];
    check(cudaMemcpy(recs, buf_.arrays, sizeof recs, cudaMemcpyDeviceToHost),
          "cudaMemcpy(shared array table)");
    for (const SharedArrayRec& a : recs) {
      if (a.elem_bytes == 0) continue;
      ArrayDesc d{a.id, Space::Shared, std::string(a.name), a.elem_bytes, a.count, a.offset,
                    a.cols};
      keep_[index].on_array(d);
    }
    arrays_seen_[index] = true;
  }
  const std::uint32_t blocks = r.hi - r.lo;
  if (count > buf_.capacity) {
    if (blocks == 1 || device_keep_)
      throw Failure{(device_keep_ ? "the kept blocks of " : "block " + std::to_string(r.lo) + " of ") +
                    describe(cfg) + " write " + std::to_string(count) +
                    " warp events, more than the trace buffer's " + std::to_string(buf_.capacity)};
    // Retry the range in smaller chunks, sized from the events it asked for; its site
    // counters are dropped (the next pass clears them) so no block counts twice.
    per_block_[index] = std::max(per_block_[index], (count + blocks - 1) / blocks);
    pending_[index].push_front(r);
    return;
  }
  if (!device_keep_) {
    per_block_[index] = std::max(per_block_[index], (count + blocks - 1) / std::max(blocks, 1u));
    if (per_block_[index] == 0) per_block_[index] = 1;
  }
  if (opt_.totals) {
    unsigned full = 0;
    check(cudaMemcpy(&full, buf_.sites_full, sizeof full, cudaMemcpyDeviceToHost),
          "cudaMemcpy(site counters)");
    if (full)
      throw Failure{describe(cfg) + " has more than " + std::to_string(kSiteSlots) +
                    " distinct source sites; the device's counter table holds no more"};
    slots_.resize(std::size_t(kSiteShards) * kSiteSlots);
    check(cudaMemcpy(slots_.data(), buf_.sites, slots_.size() * sizeof(SiteSlot),
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy(site counters)");
    sim::SiteList got;
    for (const SiteSlot& s : slots_) {
      if (s.tag == 0) continue;
      const std::uint32_t key = s.tag - 1;
      sim::SiteTotals t;
      t.line = std::uint16_t(key >> 16);
      t.array = std::uint8_t(key >> 8);
      t.kind = EventKind(key & 0xFFu);
      static_cast<sim::Counters&>(t.totals) = s.counts;
      got.push_back(t);
    }
    sites_[index].merge(got);
  }
  host_.resize(count);
  if (count)
    check(cudaMemcpy(host_.data(), buf_.events, count * sizeof(WarpEvent), cudaMemcpyDeviceToHost),
          "cudaMemcpy(trace events)");
  for (const WarpEvent& e : host_) keep_[index].on_event(e);
}

sim::Problem TraceSession::to_problem(const DeviceFault& f, const LaunchCfg& cfg) const {
  sim::Problem p;
  p.line = std::uint16_t(f.line);
  p.block = f.block;
  p.thread = f.thread;
  if (FaultKind(f.kind) == FaultKind::Deadlock) {
    p.kind = sim::ProblemKind::Deadlock;
    p.message = "line " + std::to_string(f.line) + ": the lanes of a warp of block " +
                std::to_string(f.block) + " wait for each other (" +
                to_string(FaultKind::Deadlock) +
                "): a collective names lanes that exited or wait at a barrier";
    return p;
  }
  if (FaultKind(f.kind) == FaultKind::SharedOverflow) {
    p.kind = sim::ProblemKind::SharedOverflow;
    p.message = "line " + std::to_string(f.line) + ": shared arrays need " +
                std::to_string(f.index) + " bytes but " + cfg.kernel + " was launched with " +
                std::to_string(f.extent) + " (block " + std::to_string(f.block) + ")";
    return p;
  }
  p.kind = sim::ProblemKind::OutOfBounds;
  std::string name = "#" + std::to_string(f.array);
  if (!f.shared && f.array < plan_.arrays.size()) name = "'" + plan_.arrays[f.array].name + "'";
  p.message = "line " + std::to_string(f.line) + ": " + (f.shared ? "shared" : "global") +
              " index " + std::to_string(f.index) + " is outside array " + name + " of " +
              std::to_string(f.extent) + " elements (block " + std::to_string(f.block) +
              ", thread " + std::to_string(f.thread) + ")";
  return p;
}

}  // namespace ws::cuda
