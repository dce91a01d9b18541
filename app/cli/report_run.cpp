// The run engine: backends and the catalogue, --set and the configurations, the runs and
// their derived columns (fractions, speedups). The outputs are report_format.cpp.
#include "app/cli/report.h"

#include "io/atomic_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <unistd.h>

#include "kernels/backends/run_meta.h"

namespace ws::cli {

// ---------------------------------------------------------------- backends, catalogue

std::unique_ptr<Backend> open_backend(const std::string& name, std::string& notice,
                                      std::string& err) {
  return make_backend(name, notice, err);
}

std::vector<std::string> family_names() {
  std::vector<std::string> out;
  for (const auto& v : catalogue())
    if (std::find(out.begin(), out.end(), v.family) == out.end()) out.push_back(v.family);
  return out;
}

std::vector<const VariantInfo*> family_variants(const std::string& family) {
  std::vector<const VariantInfo*> out;
  for (const auto& v : catalogue())
    if (v.family == family) out.push_back(&v);
  return out;
}

namespace {

std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

}  // namespace

const VariantInfo* lookup(const std::string& family, const std::string& variant,
                          std::string& err) {
  const auto vs = family_variants(family);
  if (vs.empty()) {
    err = "unknown kernel '" + family + "' (kernels: " + join(family_names()) + ")";
    return nullptr;
  }
  for (const auto* v : vs)
    if (v->name == variant) return v;
  std::vector<std::string> names;
  for (const auto* v : vs) names.push_back(v->name);
  err = "kernel " + family + " has no variant '" + variant + "' (variants: " + join(names) + ")";
  return nullptr;
}

bool parse_sets(const std::vector<std::string>& sets, Params& out, std::string& err) {
  for (const auto& s : sets) {
    Params one;
    const std::string why = parse_param(s, one);
    if (!why.empty()) {
      err = "bad --set '" + s + "': " + why;
      return false;
    }
    // Two values for one name is a mistake to point out, not a silent "last one wins".
    for (const auto& [k, v] : one)
      if (auto it = out.find(k); it != out.end() && s.rfind(k + "=", 0) == 0) {
        err = "--set " + k + " is given twice (" + std::to_string(it->second) + " and " +
              std::to_string(v) + "): give it once";
        return false;
      }
    out.insert(one.begin(), one.end());
  }
  return true;
}

std::string params_text(const Params& p) {
  std::string s;
  for (const auto& [k, v] : p) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s;
}

namespace {

bool declares(const VariantInfo& v, const std::string& key) {
  for (const auto& ps : v.params)
    if (ps.name == key) return true;
  return false;
}

}  // namespace

bool make_configs(const std::vector<const VariantInfo*>& variants, const Params& sets,
                  const std::vector<Sweep>& sweeps, const DeviceLimits& limits,
                  std::vector<Config>& out, std::string& err) {
  out.clear();
  if (variants.empty()) {
    err = "no variant to run";
    return false;
  }
  std::set<std::string> seen;
  for (const auto& sw : sweeps) {
    if (!seen.insert(sw.key).second) {
      err = "--sweep " + sw.key + " is given twice (list all its values in one --sweep)";
      return false;
    }
  }
  if (variants.size() > 1) {
    // A key nobody declares is a typo, not a parameter of some other variant.
    std::vector<std::string> keys;
    for (const auto& [k, v] : sets) keys.push_back(k);
    for (const auto& sw : sweeps) keys.push_back(sw.key);
    for (const auto& k : keys) {
      bool any = false;
      for (const auto* v : variants) any = any || declares(*v, k);
      if (!any) {
        err = "no variant of " + variants[0]->family + " has a parameter '" + k + "'";
        return false;
      }
    }
  }
  for (const auto* v : variants) {
    std::vector<Sweep> mine;
    Params base;
    for (const auto& [k, val] : sets)
      if (variants.size() == 1 || declares(*v, k)) base[k] = val;
    for (const auto& sw : sweeps)
      if (variants.size() == 1 || declares(*v, sw.key)) mine.push_back(sw);
    std::set<Params> done;
    for (const auto& given : expand_sweeps(base, mine)) {
      Config c;
      c.variant = v;
      c.given = given;
      const std::string why = validate(*v, given, limits, c.completed);
      if (!why.empty()) {
        err = v->family + "/" + v->name + (given.empty() ? "" : " " + params_text(given)) +
              ": " + why;
        return false;
      }
      if (!done.insert(c.completed).second) continue;
      c.plan = v->plan(c.completed);
      out.push_back(std::move(c));
    }
  }
  return true;
}

// ---------------------------------------------------------------- running

std::string BenchRow::status() const {
  if (failed()) return "FAILED";
  if (!result.verified) return "WRONG";
  if (!result.problems.empty()) return "PROBLEM";
  return "ok";
}

std::string BenchRow::message() const {
  if (failed()) return result.error;
  if (!result.verified)
    return result.verify_message.empty() ? "output differs from the CPU reference"
                                         : result.verify_message;
  if (!result.problems.empty()) return result.problems.front().message;
  return "";
}

bool BenchReport::any_bad() const {
  for (const auto& r : rows)
    if (r.failed() || r.wrong()) return true;
  return false;
}

bool BenchReport::modelled() const {
  for (const auto& r : rows)
    if (!r.failed() && r.result.timing.source.is(sim::Source::Modelled)) return true;
  return false;
}

std::vector<sim::Provenance> BenchReport::sources() const {
  std::vector<sim::Provenance> out;
  for (const auto& r : rows)
    if (!r.failed()) out.push_back(r.result.timing.source);
  return out;
}

std::string BenchReport::unit() const {
  for (const auto& r : rows)
    if (!r.result.timing.unit.empty()) return r.result.timing.unit;
  for (const auto& r : rows) return std::string(r.cfg.plan.unit());
  return "GB/s";
}

// Sizes of one peer that differ by under 1% (a reduction's partial sums) are one size.
bool same_size(double a, double b) { return std::fabs(a - b) <= 0.01 * std::max(a, b); }

std::vector<Peer> peers_for(const std::string& family, bool gflops) {
  const FamilyInfo* f = find_family(family);
  return f ? ws::peers_for(*f, gflops) : std::vector<Peer>{};
}

namespace {

std::string progress_label(const Config& c) {
  return c.variant->family + "/" + c.variant->name + " " + params_text(c.completed);
}

}  // namespace

RunOptions bench_run_options(const Backend& backend, const BenchOptions& opt) {
  RunOptions ro;
  ro.timing = true;
  ro.repeats = opt.repeats;
  ro.totals = opt.totals || backend.kind() == BackendKind::Emu;
  ro.keep_blocks = {};
  return ro;
}

namespace {

// One peer timed at one size.
struct PeerJob {
  Peer peer;
  std::size_t row;  // the configuration whose size it has
  double size;
};

// The peers to time, one per distinct size: after the kernels, so they see the same warm
// device. A reduction's plans differ by their partial sums (under 1% of the bytes), which
// is the same copy, timed once.
std::vector<PeerJob> peer_jobs(const Backend& backend, const std::string& family,
                               const std::vector<Config>& configs, const BenchOptions& opt) {
  std::vector<PeerJob> out;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Plan& plan = configs[i].plan;
    const bool gf = plan.gflops();
    const double size = gf ? plan.flops : plan.logical_bytes;
    for (Peer p : peers_for(family, gf)) {
      if (!opt.peers && p != Peer::MemcpyD2D) continue;
      // The emulator has no peers to time: ask only when the user asked for the list.
      if (!opt.peers && backend.kind() == BackendKind::Emu) continue;
      bool have = false;
      for (const PeerJob& j : out) have = have || (j.peer == p && same_size(j.size, size));
      if (!have) out.push_back({p, i, size});
    }
  }
  return out;
}

}  // namespace

BenchReport run_bench(Backend& backend, const std::string& family, std::vector<Config> configs,
                      const BenchOptions& opt) {
  BenchReport r;
  r.family = family;
  r.date = iso8601_utc(std::time(nullptr));
  r.kind = backend.kind();
  r.device = backend.device();
  r.repeats = opt.repeats;
  r.show_peers = opt.peers;

  const RunOptions ro = bench_run_options(backend, opt);
  const std::vector<PeerJob> peers = peer_jobs(backend, family, configs, opt);

  // One bar for the command: each run weighted by the work it is expected to take; a
  // peer as much as the heaviest run on a GPU (it is timed alike), nothing on the
  // emulator (recorded, or refused at once).
  RunControl* ctl = thread_control();
  if (ctl) {
    std::vector<Phase> phases;
    double heaviest = 1;
    for (const Config& c : configs) {
      phases.push_back({progress_label(c),
                        backend.expected_work(c.variant->family, c.variant->name, c.completed, ro)});
      heaviest = std::max(heaviest, phases.back().weight);
    }
    for (const PeerJob& j : peers)
      phases.push_back({"peer " + std::string(to_string(j.peer)),
                        backend.kind() == BackendKind::Emu ? 1 : heaviest});
    ctl->plan(std::move(phases));
  }

  const std::size_t total = configs.size();
  for (std::size_t i = 0; i < total; ++i) {
    if (cancelled(thread_control())) {
      r.cancelled = true;
      return r;
    }
    BenchRow row;
    row.cfg = std::move(configs[i]);
    if (opt.progress)
      *opt.progress << "[" << i + 1 << "/" << total << "] " << progress_label(row.cfg) << " ..."
                    << std::flush;
    if (ctl) ctl->enter(i);
    row.result = backend.run(row.cfg.variant->family, row.cfg.variant->name, row.cfg.completed,
                             ro);
    if (opt.progress) {
      if (row.failed() || row.wrong())
        *opt.progress << " " << row.status() << "\n";
      else
        *opt.progress << " " << fmt(row.result.timing.median_ms) << " ms ("
                      << sim::short_label(row.result.timing.source) << ")\n";
    }
    if (row.result.cancelled) {
      if (opt.progress) *opt.progress << " interrupted\n";
      r.cancelled = true;
      return r;
    }
    if (ctl) ctl->finish(i);
    r.rows.push_back(std::move(row));
  }

  for (std::size_t k = 0; k < peers.size(); ++k) {
    const PeerJob& j = peers[k];
    const BenchRow& row = r.rows[j.row];
    if (opt.progress)
      *opt.progress << "[peer] " << to_string(j.peer) << " " << params_text(row.cfg.completed)
                    << " ..." << std::flush;
    if (ctl) ctl->enter(total + k);
    PeerRow pr;
    pr.peer = j.peer;
    pr.params = row.cfg.completed;
    pr.size = j.size;
    pr.result = backend.run_peer(j.peer, peer_params(j.peer, row.cfg.plan, row.cfg.completed), ro);
    if (ctl) ctl->finish(total + k);
    if (opt.progress) {
      if (!pr.result.error.empty())
        *opt.progress << " unavailable: " << pr.result.error << "\n";
      else
        *opt.progress << " " << fmt(pr.result.timing.median_ms) << " ms\n";
    }
    r.peers.push_back(std::move(pr));
  }
  derive(r);
  return r;
}

void derive(BenchReport& r) {
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    auto& row = r.rows[i];
    const auto& t = row.result.timing;
    const bool good = !row.failed() && row.result.verified;
    const bool gf = row.cfg.plan.gflops();
    const bool bytes = row.cfg.plan.unit() == "GB/s";  // a copy and the DRAM peak compare bytes
    row.copy_gbps = row.frac_copy = row.frac_peak = row.speedup = kNaN;
    row.copy_source = {};
    row.frac_copy_note.clear();
    row.speedup_note.clear();
    if (bytes) {
      for (const auto& p : r.peers)
        if (p.peer == Peer::MemcpyD2D && same_size(p.size, row.cfg.plan.logical_bytes) &&
            p.result.error.empty() && p.result.timing.throughput > 0) {
          row.copy_gbps = p.result.timing.throughput;
          row.copy_source = p.result.timing.source;
        }
    }
    // A share or a speedup across two sources keeps its value and says so (sim::ratio).
    auto share = [&](double peer, const sim::Provenance& src) {
      const sim::SourcedRatio q = sim::ratio(t.throughput, t.source, peer, src);
      row.frac_copy = q.value;
      row.frac_copy_note = q.note;
    };
    if (good && t.throughput > 0) {
      if (bytes && row.copy_gbps > 0) share(row.copy_gbps, row.copy_source);
      // The peak is the data sheet's: a fraction of it is the usual figure, not a mix.
      if (bytes && r.device.peak_gbps > 0) row.frac_peak = t.throughput / r.device.peak_gbps;
      // The device's GFLOP/s peak is FP32's: no fraction of it for tensor-core FLOPs.
      if (gf && r.device.peak_gflops > 0 && row.cfg.plan.mma_flops == 0)
        row.frac_peak = t.throughput / r.device.peak_gflops;
      if (gf) {
        for (const auto& p : r.peers)
          if (peer_gflops(p.peer) && same_size(p.size, row.cfg.plan.flops) &&
              p.result.error.empty() && p.result.timing.throughput > 0)
            share(p.result.timing.throughput, p.result.timing.source);
      }
    }
    if (i > 0 && good && t.median_ms > 0) {
      const auto& prev = r.rows[i - 1];
      if (!prev.failed() && prev.result.verified && prev.result.timing.median_ms > 0) {
        const sim::SourcedRatio q =
            sim::ratio(prev.result.timing.median_ms, prev.result.timing.source, t.median_ms, t.source);
        row.speedup = q.value;
        row.speedup_note = q.note;
      }
    }
  }
}

}  // namespace ws::cli
