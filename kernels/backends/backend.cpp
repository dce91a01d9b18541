// Backend-independent pieces: names, the catalogue listing, the choice of backend, and
// the model's time of a run.
#define WS_MODE_EMU
#include "kernels/backends/backend.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "kernels/hardware/recording.h"
#include "kernels/dialect/registry.h"
#include "kernels/hardware/sass.h"
#if defined(WS_HAVE_CUDA)
#include "kernels/backends/cuda/cuda_backend.h"
#endif

namespace ws {

std::string_view to_string(BackendKind k) {
  switch (k) {
    case BackendKind::Emu: return "emu";
    case BackendKind::Cuda: return "cuda";
  }
  return "unknown";
}

std::string_view to_string(CountsSource s) {
  switch (s) {
    case CountsSource::Run: return "counted by this run";
    case CountsSource::Recorded: return "recorded model counts";
    case CountsSource::NotRecorded: return "counts not recorded";
  }
  return "unknown";
}

double Backend::expected_work(const std::string& family, const std::string& variant,
                              const Params& params, const RunOptions& opt) const {
  const VariantInfo* v = find_variant(family, variant);
  Params done;
  if (!v || !validate(*v, params, device().limits, done).empty()) return 1;
  // A whole-grid run's cost grows with its lane events; one of its kept blocks alone
  // costs that block's share.
  const Plan plan = v->plan(done);
  const double whole = 1 + estimated_lane_events(plan);
  const bool only_kept = !opt.totals && !opt.timing && !opt.keep_all_blocks && !opt.keep_blocks.empty();
  if (!only_kept) return whole;
  unsigned long long blocks = 0;
  for (const auto& l : plan.launches) blocks += l.grid.count();
  return 1 + whole * double(opt.keep_blocks.size()) / double(std::max(1ull, blocks));
}

std::string Backend::refusal(const std::string&, const std::string&, const Params&,
                             const RunOptions&) const {
  return "";
}

Params peer_params(Peer p, const Plan& plan, const Params& params) {
  if (p == Peer::MemcpyD2D) return {{"bytes", static_cast<long long>(plan.logical_bytes / 2)}};
  return params;
}

Params peer_params(Peer p, const FamilyInfo& f, const Params& params) {
  if (p == Peer::MemcpyD2D && f.copy_bytes)
    return {{"bytes", static_cast<long long>(f.copy_bytes(params))}};
  return params;
}

std::unique_ptr<Backend> make_cuda_backend(std::string& why) {
#if defined(WS_HAVE_CUDA)
  return cuda::make_backend(why);
#else
  why = "this build has no CUDA backend (nvcc was not found at configure time)";
  return nullptr;
#endif
}

namespace {
// A recording that was named or shipped but could not be loaded (truncated, a directory,
// times that are not times): an error naming the file, never a silent fall back to
// modelled times. "" when a recording loaded or none was looked for.
std::string recording_problem(const Recording*& rec) {
  std::string why;
  rec = default_recording(&why);
  if (rec || why.empty()) return "";
  return why + " (fix it, or set WARPSCOPE_RECORDING=none to run without recorded times)";
}
}  // namespace

std::unique_ptr<Backend> make_best_backend(std::string& notice) {
  std::string why;
  if (auto b = make_cuda_backend(why)) {
    notice.clear();
    return b;
  }
  const Recording* rec = nullptr;
  if (std::string bad = recording_problem(rec); !bad.empty()) {
    notice = bad;
    return nullptr;
  }
  notice = "running on the emulator (times are modelled, not measured" +
           (rec ? ", except at the configurations " + sim::long_label(rec->source()) + " in " + rec->path +
                      (rec->stale_families().empty()
                           ? std::string()
                           : "; not for " + rec->stale_families() +
                                 ", whose source changed since it was recorded")
                : std::string()) +
           "): " + why;
  return make_recorded_backend(make_emu_backend(), rec);
}

std::unique_ptr<Backend> make_backend(const std::string& name, std::string& notice,
                                      std::string& error) {
  notice.clear();
  error.clear();
  if (name == "auto") {
    auto b = make_best_backend(notice);
    if (!b) error = notice.empty() ? "no backend could be opened" : notice;
    return b;
  }
  if (name == "emu") {
    // Asked for by name: no notice, so bad input stays one line; every row and label
    // already says whether its time is recorded or modelled.
    const Recording* rec = nullptr;
    if (std::string bad = recording_problem(rec); !bad.empty()) {
      error = bad;
      return nullptr;
    }
    return make_recorded_backend(make_emu_backend(), rec);
  }
  if (name == "cuda") {
    std::string why;
    auto b = make_cuda_backend(why);
    if (!b)
      error = "the cuda backend is not available: " +
              (why.empty() ? std::string("no usable CUDA device") : why) +
              " (use --backend emu for the emulator)";
    return b;
  }
  error = "unknown backend '" + name + "' (choose auto, emu or cuda)";
  return nullptr;
}

const std::vector<VariantInfo>& catalogue() {
  static const std::vector<VariantInfo> list = [] {
    std::vector<VariantInfo> out;
    for (const auto& v : emu::registry()) out.push_back(v.info);
    return out;
  }();
  return list;
}

const std::vector<FamilyInfo>& families() { return emu::registry().families(); }

const FamilyInfo* find_family(const std::string& family) {
  for (const FamilyInfo& f : families())
    if (f.name == family) return &f;
  return nullptr;
}

const VariantInfo* find_variant(const std::string& family, const std::string& variant) {
  for (const auto& v : catalogue())
    if (v.family == family && v.name == variant) return &v;
  return nullptr;
}

std::vector<std::string> kernel_instances(const std::string& family, const std::string& variant,
                                          const Params& completed) {
  std::vector<std::string> out;
  const emu::Variant* v = emu::find(family, variant);
  if (!v) return out;
  const Plan plan = v->info.plan(completed);
  struct : TraceSink {
    void on_event(const WarpEvent&) override {}
  } none;
  emu::Launcher L(none, {}, v->info.source_file);
  std::vector<std::string> mangled;
  L.names_only(&mangled);
  emu::Args args;
  for (const ArraySpec& a : plan.arrays) {
    args.ptr.push_back(nullptr);
    args.count.push_back(a.count);
  }
  v->launch(L, completed, plan, args);
  for (const std::string& m : mangled)
    out.push_back(sass::instance_of("ws_entry<" + sass::demangle(m) + ">"));
  return out;
}

// The model's time of a run, for every backend: the emulator's timing, and `metrics`,
// which holds a traced GPU run's counts against its measured time.
sim::LaunchShape launch_shape(const Plan& plan, const LaunchCfg& cfg, int regs_per_thread) {
  sim::LaunchShape s;
  s.blocks = cfg.grid.count();
  s.threads_per_block = unsigned(cfg.block.count());
  s.shared_bytes = cfg.shared_bytes;
  s.regs_per_thread = regs_per_thread;
  for (const ArraySpec& a : plan.arrays) s.footprint_bytes += std::uint64_t(a.elem_bytes) * a.count;
  return s;
}

sim::LaunchShape launch_shape(const Plan& plan, const LaunchTotals& l, int regs_per_thread) {
  sim::LaunchShape s = launch_shape(plan, l.cfg, regs_per_thread);
  s.loads_in_flight = l.loads_in_flight;
  s.heat = l.heat;
  const std::uint64_t warps = (l.cfg.block.count() + 31) / 32;
  if (s.blocks == 0 || warps == 0) return s;
  for (const sim::SiteTotals& site : l.sites)
    if (site.kind == EventKind::WarpSync) {
      const std::uint64_t per_block = (site.totals.events + s.blocks - 1) / s.blocks;
      s.warp_syncs += (per_block + warps - 1) / warps;
    }
  return s;
}

ModelledRun modelled_run(const Plan& plan, const std::vector<LaunchTotals>& launches,
                         int regs_per_thread) {
  const double share = plan.flops / double(std::max<std::size_t>(1, launches.size()));
  ModelledRun r;
  sim::DeviceModel m;
  for (const auto& l : launches) {
    const sim::LaunchShape shape = launch_shape(plan, l, regs_per_thread);
    const sim::TimeParts p = sim::modelled_time_parts(l.totals, share, m, shape);
    m.launch_overhead_us = m.queued_launch_us;  // the next launch queues behind this one
    r.parts.dram_us += p.dram_us;
    r.parts.in_flight_us += p.in_flight_us;
    r.loads_in_flight = std::max(r.loads_in_flight, l.loads_in_flight);
    r.parts.compute_us += p.compute_us;
    r.parts.l1_us += p.l1_us;
    r.parts.issue_us += p.issue_us;
    r.parts.l2_us += p.l2_us;
    r.parts.latency_us += p.latency_us;
    r.parts.atomic_us += p.atomic_us;
    if (r.parts.outside_reach.empty()) r.parts.outside_reach = p.outside_reach;
    r.parts.launch_us += p.launch_us;
    r.dram_bytes += sim::dram_bytes(l.totals, m, shape);
    r.us += p.total_us();
  }
  return r;
}

std::vector<unsigned> recorded_loads_in_flight(const std::string& family, const std::string& variant,
                                               const Params& completed) {
  const VariantInfo* v = find_variant(family, variant);
  if (!v) return {};
  const std::vector<std::string> instances = kernel_instances(family, variant, completed);
  // One parse of a family's SASS per process; the GUI's worker asks from its own thread.
  static std::mutex mu;
  static std::map<std::string, sass::Loaded> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(family);
  if (it == cache.end()) {
    std::vector<std::string> roots;
    for (const auto& r : source_roots()) roots.push_back(r.string());
    it = cache.emplace(family, sass::load_family(family, v->source_file, roots)).first;
  }
  std::vector<unsigned> out(instances.size(), 0);
  const sass::Loaded& l = it->second;
  if (!l.error.empty() || l.stale) return out;
  for (std::size_t i = 0; i < instances.size(); ++i)
    if (const sass::Function* f = l.listing.find_instance(instances[i]))
      out[i] = sass::widest_load_batch(*f).loads;
  return out;
}

void attach_loads_in_flight(std::vector<LaunchTotals>& launches, const std::string& family,
                            const std::string& variant, const Params& completed) {
  const std::vector<unsigned> n = recorded_loads_in_flight(family, variant, completed);
  for (std::size_t i = 0; i < launches.size() && i < n.size(); ++i)
    if (launches[i].loads_in_flight == 0) launches[i].loads_in_flight = n[i];
}

sim::Provenance peak_source(const DeviceInfo& d, BackendKind k) {
  return sim::Provenance::spec(k == BackendKind::Emu ? std::string(sim::h100::kProduct) : d.name);
}

void set_throughput(Timing& t, const Plan& plan) {
  t.unit = std::string(plan.unit());
  t.throughput = t.median_ms > 0 ? plan.work() / (t.median_ms * 1e6) : 0;
}

Timing modelled_timing(const Plan& plan, const std::vector<LaunchTotals>& launches,
                       int regs_per_thread) {
  const ModelledRun m = modelled_run(plan, launches, regs_per_thread);
  const double us = m.us;
  Timing t;
  t.source = sim::Provenance::modelled(m.parts.bound());
  t.median_ms = t.min_ms = t.max_ms = us / 1000.0;
  t.samples_ms = {t.median_ms};
  set_throughput(t, plan);
  return t;
}

Peer library_peer(const std::string& family, bool gflops) {
  if (const FamilyInfo* f = find_family(family))
    for (Peer p : peers_for(*f, gflops))
      if (p != Peer::MemcpyD2D) return p;
  return gflops ? Peer::CublasSgemm : Peer::CubReduceSum;
}

}  // namespace ws
