#include "app/cli/record.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <filesystem>
#include <ostream>

#include "app/cli/cli.h"
#include "app/cli/report.h"
#include "app/cli/util.h"

namespace ws::cli {

namespace {

}  // namespace

std::vector<RecordTarget> standard_targets() { return standard_record_targets(); }

double timing_spread(const Timing& t) {
  return t.median_ms > 0 ? (t.max_ms - t.min_ms) / t.median_ms : 0;
}

bool needs_steadier(const Timing& t) {
  return t.median_ms > 0 && t.median_ms < kSteadyMs && timing_spread(t) > kSteadySpread;
}

std::string recording_slug(const std::string& name) {
  std::string s;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      s += char(std::tolower(static_cast<unsigned char>(c)));
    else if (!s.empty() && s.back() != '-')
      s += '-';
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s.empty() ? "gpu" : s;
}

namespace {

// One configuration to time, completed and validated.
struct RecordJob {
  const VariantInfo* v;
  Params p;
  std::string source;
};

// The targets completed and de-duplicated first, so the count in the progress lines is
// right. "" or the first target that does not validate, with where it came from.
std::string complete_jobs(const std::vector<RecordTarget>& targets, const DeviceLimits& limits,
                          std::vector<RecordJob>& jobs) {
  for (const auto& t : targets) {
    const VariantInfo* v = find_variant(t.family, t.variant);
    Params done;
    std::string why = v ? validate(*v, t.params, limits, done)
                        : "unknown variant " + t.family + "/" + t.variant;
    if (!why.empty())
      return t.source + ": " + t.family + "/" + t.variant + " " + params_text(t.params) + ": " + why;
    bool dup = false;
    for (const auto& j : jobs) dup = dup || (j.v == v && j.p == done);
    if (!dup) jobs.push_back({v, done, t.source});
  }
  return "";
}

// One configuration timed and counted. Its counts come from the traced build; where that
// fails (a trace too large for the device, say) the time is kept and `counted` is false.
// Short runs run again with more repeats until their spread is small (or the cap).
RunResult measure(Backend& backend, const RecordJob& j, const RunOptions& ro, std::ostream& err,
                  bool& counted) {
  RunResult r = backend.run(j.v->family, j.v->name, j.p, ro);
  counted = true;
  if (!r.error.empty() && !r.cancelled) {
    RunOptions time_only = ro;
    time_only.totals = false;
    RunResult t = backend.run(j.v->family, j.v->name, j.p, time_only);
    if (t.error.empty()) {
      err << " (counts not traced: " << r.error << ")";
      r = std::move(t);
      counted = false;
    }
  }
  if (!r.error.empty() || !r.verified) {
    err << " " << (r.error.empty() ? "WRONG: " + r.verify_message : "FAILED: " + r.error) << "\n";
    return r;
  }
  int repeats = ro.repeats;
  for (int round = 0; round < kSteadyRounds && needs_steadier(r.timing); ++round) {
    RunOptions more = ro;
    more.totals = false;
    more.repeats = repeats *= 2;
    RunResult again = backend.run(j.v->family, j.v->name, j.p, more);
    if (again.error.empty() && again.verified && timing_spread(again.timing) < timing_spread(r.timing))
      r.timing = again.timing;
  }
  err << " " << fmt(r.timing.median_ms) << " ms, spread " << fmt(timing_spread(r.timing) * 100) << " %"
      << (repeats > ro.repeats ? " (up to " + std::to_string(repeats) + " repeats)" : "") << "\n";
  return r;
}

}  // namespace

int record(Backend& backend, const RecordOptions& opt, std::ostream& out, std::ostream& err) {
  if (backend.kind() != BackendKind::Cuda) {
    err << "warpscope: record needs a GPU: it measures; the emulator only models "
           "(use --backend cuda on a machine with an NVIDIA GPU)\n";
    return kExitUsage;
  }
  std::vector<RecordTarget> targets;
  for (const auto& f : opt.lessons) {
    if (!opt.lesson_timed) {
      err << "warpscope: this warpscope was built without lessons (they need libmd4c-dev); "
             "record with --lessons none, or rebuild\n";
      return kExitUsage;
    }
    std::string why;
    if (!opt.lesson_timed(f, targets, why)) {
      err << "warpscope: " << why << "\n";
      return kExitUsage;
    }
  }
  if (opt.standard)
    for (auto& t : standard_targets()) targets.push_back(std::move(t));
  if (!opt.families.empty())
    std::erase_if(targets, [&](const RecordTarget& t) {
      return std::find(opt.families.begin(), opt.families.end(), t.family) == opt.families.end();
    });

  Recording rec;
  rec.device = backend.device();
  rec.date = iso8601_utc(std::time(nullptr));
  rec.tool = opt.tool;
  const std::string path = opt.out.empty()
                               ? "assets/recordings/" + recording_slug(rec.device.name) + ".json"
                               : opt.out;
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent)) {
    err << "warpscope: directory " << parent.string() << " does not exist\n";
    return kExitUsage;
  }

  std::vector<RecordJob> jobs;
  if (std::string why = complete_jobs(targets, rec.device.limits, jobs); !why.empty()) {
    err << "warpscope: " << why << "\n";
    return kExitUsage;
  }

  int failed = 0;
  bool written = false;
  // Every configuration is traced too: its counts (the model's counters, counted on the
  // device) are recorded with its time, so a machine without a GPU shows both at sizes
  // far too large to emulate. On the H100 the traced build of the largest (matmul at
  // n = 4096) counts in about a second.
  RunOptions ro;
  ro.timing = true;
  ro.totals = true;
  ro.repeats = opt.repeats;
  ro.keep_blocks.clear();
  auto peer_once = [&](Peer p, const Params& pp) -> const RecordedPeer* {
    if (const RecordedPeer* have = rec.find_peer(p, pp)) return have;
    PeerResult r = backend.run_peer(p, pp, ro);
    if (!r.error.empty()) {
      err << "  peer " << to_string(p) << " " << params_text(pp) << ": " << r.error << "\n";
      return nullptr;
    }
    rec.peers.push_back({p, pp, r.timing});
    return &rec.peers.back();
  };
  // Warm the GPU first: the first configurations of a cold session ran at ramping clocks.
  if (backend.kind() != BackendKind::Emu && !jobs.empty()) {
    RunOptions warm = ro;
    warm.totals = false;
    warm.repeats = kWarmRepeats;
    PeerResult w = backend.run_peer(Peer::MemcpyD2D, {{"bytes", kWarmBytes}}, warm);
    err << "warm-up: " << kWarmRepeats << " copies of " << (kWarmBytes >> 20) << " MiB"
        << (w.error.empty() ? "" : " failed (" + w.error + "); timing cold") << "\n";
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const RecordJob& j = jobs[i];
    const Plan plan = j.v->plan(j.p);
    err << "[" << i + 1 << "/" << jobs.size() << "] " << j.v->family << "/" << j.v->name << " "
        << params_text(j.p) << " (" << j.source << ") ..." << std::flush;
    bool counted = true;
    RunResult r = measure(backend, j, ro, err, counted);
    if (!r.error.empty() || !r.verified) {
      ++failed;
      if (!r.error.empty()) continue;
    }
    RecordedRun x;
    x.family = j.v->family;
    x.variant = j.v->name;
    x.params = j.p;
    x.verified = r.verified;
    x.timing = r.timing;
    x.regs_per_thread = r.regs_per_thread;
    x.source_hash = family_source_hash(j.v->source_file);
    if (counted) x.totals = r.totals;
    if (counted && r.launches.size() == plan.launches.size())
      for (const LaunchTotals& l : r.launches) x.launch_totals.push_back(l.totals);
    for (Peer p : peers_for(x.family, plan.gflops())) {
      const RecordedPeer* rp = peer_once(p, peer_params(p, plan, j.p));
      if (rp && p == Peer::MemcpyD2D) x.copy_gbps = rp->timing.throughput;
    }
    rec.runs.push_back(std::move(x));
    // After every configuration, so that a run cut short keeps what it measured. The
    // first write refuses an existing file unless --force; later ones replace our own.
    std::string why;
    if (!write_text(path, recording_json(rec), out, why, written || opt.force)) {
      err << "warpscope: " << why << "\n";
      return kExitFailed;
    }
    written = true;
  }
  std::string why;
  if (!write_text(path, recording_json(rec), out, why, written || opt.force)) {
    err << "warpscope: " << why << "\n";
    return kExitFailed;
  }
  out << "recorded " << rec.runs.size() << " configurations and " << rec.peers.size()
      << " peer runs on " << rec.device.name << " to " << path
      << (failed ? " (" + std::to_string(failed) + " failed or wrong)" : std::string()) << "\n";
  return failed ? kExitFailed : kExitOk;
}

}  // namespace ws::cli
