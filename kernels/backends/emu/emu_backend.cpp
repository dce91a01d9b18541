// The emulator backend: runs a catalogue variant on the SIMT emulator (sim/emulator.h)
// over host arrays, streams every warp event into the model's totals and into the kept
// blocks' traces, and checks the output against the CPU reference. Its times are
// modelled from the totals (sim::modelled_time_us), never measured.
#define WS_MODE_EMU
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <exception>
#include <new>

#include "kernels/backends/backend.h"
#include "kernels/backends/emu/lazy_arrays.h"
#include "kernels/dialect/registry.h"

namespace ws {
namespace {

// The emulator issues about 30 million lane events a second per core (2026-11-27, the
// 2-core machine; ten million before the native fibers). A run estimated above
// this many (half a minute) is refused with a message instead of appearing to hang. The
// estimate: a few events per thread, one per 4 bytes of logical traffic, one per
// multiply-add (the naive matmul's count; blocked ones do fewer; 32 per mma.sync), and the rounds of
// marked work loops at kWorkRoundsPerEvent rounds for the time of one event.
constexpr double kMaxLaneEvents = double(1ull << 28);
constexpr double kWorkRoundsPerEvent = 8;  // measured: ~5 ns a round, emulated + reference

}  // namespace

double estimated_lane_events(const Plan& plan) {
  double threads = 0;
  for (const auto& l : plan.launches) threads += double(l.grid.count()) * double(l.block.count());
  const double mma = std::min(plan.mma_flops, plan.flops);
  return 4 * threads + plan.logical_bytes / 4 + (plan.flops - mma) / 2 +
         mma / (sim::h100::kMmaFlops / 32) + plan.work_rounds / kWorkRoundsPerEvent;
}

std::string emulator_refusal(const Plan& plan) {
  // WS_EMU_MAX_LANE_EVENTS raises the limit for a patient caller (scripts/calibrate.py
  // on a machine with no GPU runs the calibration sizes, minutes each).
  double limit = kMaxLaneEvents;
  if (const char* env = std::getenv("WS_EMU_MAX_LANE_EVENTS"); env && *env) {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end == env || *end != '\0' || !(v > 0) || !std::isfinite(v))
      return "refused: WS_EMU_MAX_LANE_EVENTS='" + std::string(env) +
             "' is not a positive number of lane events";
    limit = v;
  }
  const double e = estimated_lane_events(plan);
  if (e <= limit) return "";
  return "too large to emulate in reasonable time (an estimated " +
         std::to_string((long long)(e / 1e6)) + " million lane events, the limit is " +
         std::to_string((long long)(limit / 1e6)) + " million): use a smaller size, or a GPU";
}

namespace {

// Counters per source site, per launch in launch order (the launch's totals are their
// sum, as on the GPU).
class PerLaunchSites : public TraceSink {
 public:
  void begin_launch(const LaunchInfo&) override {
    sites_.emplace_back();
    heat_.emplace_back();
  }
  void on_event(const WarpEvent& e) override {
    if (sites_.empty()) begin_launch({});
    sites_.back().on_event(e);
    heat_.back().on_event(e);
  }
  const std::vector<sim::SiteSink>& sites() const { return sites_; }
  // How each launch's global atomics spread over words (sim::AtomicHeat).
  const std::vector<sim::AtomicHeatSink>& heat() const { return heat_; }

 private:
  std::vector<sim::SiteSink> sites_;
  std::vector<sim::AtomicHeatSink> heat_;
};

std::string names_of(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string unknown_variant(const std::string& family, const std::string& variant) {
  std::vector<std::string> families, variants;
  for (const auto& v : emu::registry()) {
    if (std::find(families.begin(), families.end(), v.info.family) == families.end())
      families.push_back(v.info.family);
    if (v.info.family == family) variants.push_back(v.info.name);
  }
  if (variants.empty())
    return "unknown kernel family '" + family + "' (families: " + names_of(families) + ")";
  return "unknown variant '" + variant + "' of " + family + " (variants: " + names_of(variants) +
         ")";
}

class EmuBackend : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::Emu; }

  DeviceInfo device() const override {
    DeviceInfo d;
    d.name = "emulator";
    d.limits = DeviceLimits{};
    d.sm_count = d.limits.sm_count;
    d.peak_gbps = sim::DeviceModel{}.dram_gbps;
    d.peak_gflops = sim::DeviceModel{}.fp32_gflops;
    return d;
  }

  RunResult run(const std::string& family, const std::string& variant, const Params& params,
                const RunOptions& opt) override {
    RunResult res;
    // The run's control, or the one of this thread (a GUI worker's job); the CPU
    // reference's work loops see it through the scope.
    RunOptions o = opt;
    if (!o.control) o.control = thread_control();
    ThreadControlScope scope(o.control);
    if (opt.hardware_runs > 0) {
      res.hardware.unavailable = HardwareUnavailable::NoGpu;
      res.hardware.detail = "the emulator has a model, not counters";
    }
    try {
      run_checked(family, variant, params, o, res);
    } catch (const RunCancelled&) {
      res.cancelled = true;
    } catch (const std::bad_alloc&) {
      res.error = "not enough host memory for the arrays of " + family + "/" + variant + " (" +
                  to_string(res.params) + ")";
    } catch (const std::exception& e) {
      res.error = std::string("the emulator failed: ") + e.what();
    }
    if (res.cancelled) {
      res.error = "cancelled";
      res.verified = false;
    }
    return res;
  }

  std::string refusal(const std::string& family, const std::string& variant,
                      const Params& params, const RunOptions& opt) const override {
    const VariantInfo* v = find_variant(family, variant);
    Params done;
    if (!v || !validate(*v, params, DeviceLimits{}, done).empty()) return "";  // run() says why
    const bool whole = opt.totals || opt.timing || opt.keep_all_blocks || opt.keep_blocks.empty();
    if (!whole) return "";
    const std::string why = emulator_refusal(v->plan(done));
    return why.empty() ? "" : family + "/" + variant + " with " + to_string(done) + " is " + why;
  }

  PeerResult run_peer(Peer p, const Params&, const RunOptions&) override {
    PeerResult r;
    r.peer = p;
    r.error = "peers need a GPU: " + std::string(to_string(p)) + " cannot run on the emulator";
    return r;
  }

 private:
  static void run_checked(const std::string& family, const std::string& variant,
                          const Params& params, const RunOptions& opt, RunResult& res) {
    const emu::Variant* v = emu::find(family, variant);
    if (!v) {
      res.error = unknown_variant(family, variant);
      res.rejected = true;
      return;
    }
    if (opt.recorded_only) {
      res.error = "no recording of " + family + "/" + variant + " at these parameters";
      return;
    }
    res.error = validate(v->info, params, DeviceLimits{}, res.params);
    res.rejected = !res.error.empty();
    if (res.rejected) return;
    res.plan = v->info.plan(res.params);

    // Whole-grid runs are needed for totals, modelled time and verification; without
    // them only the kept blocks are emulated, which is what a huge grid needs.
    const bool whole = opt.totals || opt.timing || opt.keep_all_blocks || opt.keep_blocks.empty();
    unsigned long long max_grid = 0;
    for (const auto& l : res.plan.launches) max_grid = std::max(max_grid, l.grid.count());
    sim::EmuOptions eo;
    if (!whole) {
      // Each launch keeps the kept blocks its grid has (simt_emu.h's Launcher).
      for (auto b : opt.keep_blocks)
        if (b < max_grid) eo.only_blocks.push_back(b);
      if (eo.only_blocks.empty()) {
        res.error = "none of the blocks to keep is in the grid of " +
                    std::to_string(max_grid) + " blocks";
        return;
      }
    } else if (std::string why = emulator_refusal(res.plan); !why.empty()) {
      res.error = family + "/" + variant + " with " + to_string(res.params) + " is " + why;
      res.rejected = true;
      return;
    }

    double progress_total = 0;  // blocks, over every launch
    if (opt.control) {
      for (const auto& l : res.plan.launches)
        progress_total += eo.only_blocks.empty() ? double(l.grid.count())
                                                 : double(eo.only_blocks.size());
      eo.control = opt.control;
      eo.progress_stage = "preparing the arrays";
      opt.control->start(progress_total, eo.progress_stage);
    }
    throw_if_cancelled();
    // A run of the kept blocks only is not verified, so its arrays are made where those
    // blocks touch them: a one-block trace of a huge grid costs what the block reads.
    HostArrays h;
    std::unique_ptr<LazyArrays> lazy;
    if (whole) {
      h = HostArrays::allocate(res.plan);
      fill_inputs(h, res.plan, opt.seed);
    } else {
      lazy = std::make_unique<LazyArrays>(res.plan, opt.seed);
      eo.lazy = lazy.get();
    }
    emu::Args args;
    std::vector<ArrayDesc> arrays;
    for (std::size_t i = 0; i < res.plan.arrays.size(); ++i) {
      const ArraySpec& s = res.plan.arrays[i];
      // Poisoned outputs: a kernel that skips an element leaves NaN / -1 behind.
      if (s.output && !lazy) std::memset(h.data[i].data(), 0xFF, h.data[i].size());
      args.ptr.push_back(lazy ? static_cast<void*>(lazy->data(i)) : h.data[i].data());
      args.count.push_back(s.count);
      ArrayDesc d;
      d.id = std::uint8_t(i);
      d.space = Space::Global;
      d.name = s.name;
      d.elem_bytes = s.elem_bytes;
      d.count = s.count;
      arrays.push_back(d);
    }

    // A whole-grid run emulates its blocks on every core (sim::EmuOptions::threads): the
    // sinks see what one core gives them (tests/sim/test_emulator.cpp holds them equal).
    if (whole) eo.threads = sim::emu_threads();
    PerLaunchSites totals;
    std::unique_ptr<KeepSink> keep;
    std::vector<TraceSink*> sinks = {&totals};
    if (opt.keep_all_blocks)
      keep = std::make_unique<KeepSink>();
    else if (!opt.keep_blocks.empty())
      keep = std::make_unique<KeepSink>(opt.keep_blocks);
    if (keep) sinks.push_back(keep.get());
    TeeSink tee(sinks);
    emu::Launcher launcher(tee, arrays, v->info.source_file, eo);
    v->launch(launcher, res.params, res.plan, args);
    if (!launcher.error().empty()) {
      res.error = launcher.error();
      return;
    }
    const sim::EmuResult& er = launcher.result();
    if (er.cancelled) throw RunCancelled{};
    res.problems = er.problems;
    if (keep) res.kept = std::move(keep->launches());

    for (std::size_t i = 0; i < totals.sites().size(); ++i) {
      LaunchTotals lt;
      if (i < res.plan.launches.size()) lt.cfg = res.plan.launches[i];
      lt.sites = totals.sites()[i].sites();
      if (i < totals.heat().size()) lt.heat = totals.heat()[i].heat();
      for (const sim::SiteTotals& st : lt.sites) lt.totals.merge(st.totals);
      res.totals.merge(lt.totals);
      res.launches.push_back(lt);
    }

    if (!er.ok || !res.problems.empty()) {
      res.verify_message = "not verified: the emulator reported " +
                           std::to_string(res.problems.size()) + " problem(s)";
    } else if (!whole) {
      res.verify_message = "not verified: only " + std::to_string(eo.only_blocks.size()) +
                           " of " + std::to_string(max_grid) +
                           " blocks were emulated (totals off)";
    } else {
      if (opt.control)
        opt.control->report(progress_total, progress_total, "checking the result on the CPU");
      res.verify_message = v->info.verify(h, res.params);
      res.verified = res.verify_message.empty();
    }

    attach_loads_in_flight(res.launches, family, variant, res.params);
    if (opt.timing && whole && res.launches.size() == res.plan.launches.size())
      res.timing = modelled_timing(res.plan, res.launches, res.regs_per_thread);
  }
};

}  // namespace

std::unique_ptr<Backend> make_emu_backend() { return std::make_unique<EmuBackend>(); }

}  // namespace ws
