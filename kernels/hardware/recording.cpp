// Recordings: reading and writing assets/recordings/<gpu>.json, and the emulator backend
// that answers timed runs at recorded configurations with the recorded measurement.
// Index (search for "[SECTION] <name>"):
//   JSON of parameters, timings and totals
//   Recordings: lookup, staleness, writing and reading
//   The shipped recordings, by device name
//   The recorded backend: the emulator's counts, the recording's times
//   What `record` times
#include "kernels/hardware/recording.h"
#include "io/data_paths.h"
#include "io/json_whole.h"
#include "io/read_file.h"

#include "kernels/hardware/sass.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <utility>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

namespace ws {

namespace {

using json = nlohmann::json;
constexpr int kFormat = 1;

// [SECTION] JSON of parameters, timings and totals
json params_json(const Params& p) {
  json j = json::object();
  for (const auto& [k, v] : p) j[k] = v;
  return j;
}
using io::whole;
using io::whole_or;

Params params_of(const json& j) {
  if (!j.is_object()) throw std::runtime_error("params is not an object");
  Params p;
  for (const auto& [k, v] : j.items()) p[k] = whole<long long>(v, "parameter " + k);
  return p;
}

json timing_json(const Timing& t) {
  return {{"median_ms", t.median_ms}, {"min_ms", t.min_ms}, {"max_ms", t.max_ms},
          {"repeats", t.samples_ms.size()}, {"throughput", t.throughput}, {"unit", t.unit}};
}
// A recorded time is a measurement of one launch sequence: positive, finite, and below an
// hour (kMaxRecordedMs); -1, 0 or 1e308 would be shown as "-1 GB/s" or "3e306 % of peak".
constexpr double kMaxRecordedMs = 3.6e6;
double time_of(const json& j, const char* key, double otherwise, bool required) {
  if (!j.contains(key)) {
    if (required) throw std::runtime_error(std::string("timing has no ") + key);
    return otherwise;
  }
  const json& v = j.at(key);
  if (!v.is_number()) throw std::runtime_error(std::string(key) + " is not a number");
  const double ms = v.get<double>();
  if (!std::isfinite(ms) || !(ms > 0) || ms > kMaxRecordedMs) {
    char b[160];
    std::snprintf(b, sizeof b, "%s %.6g is not a time (a positive number of milliseconds, at most %.0f)",
                  key, ms, kMaxRecordedMs);
    throw std::runtime_error(b);
  }
  return ms;
}
// A rate or count beside the times: finite and not negative.
double rate_of(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return 0.0;
  const json& v = j.at(key);
  if (!v.is_number()) throw std::runtime_error(std::string(key) + " is not a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0) throw std::runtime_error(std::string(key) + " is negative or not finite");
  return x;
}
Timing timing_of(const json& j, const sim::Provenance& source) {
  if (!j.is_object()) throw std::runtime_error("timing is not an object");
  Timing t;
  t.source = source;
  t.median_ms = time_of(j, "median_ms", 0, true);
  // A spread of 0 is "not measured" (peers timed once): the median stands for it.
  auto spread = [&](const char* key) {
    return j.contains(key) && j.at(key).is_number() && j.at(key).get<double>() == 0.0
               ? t.median_ms
               : time_of(j, key, t.median_ms, false);
  };
  t.min_ms = spread("min_ms");
  t.max_ms = spread("max_ms");
  if (!(t.min_ms <= t.median_ms && t.median_ms <= t.max_ms))
    throw std::runtime_error("min_ms, median_ms and max_ms are not in order");
  t.samples_ms = {t.median_ms};
  t.throughput = rate_of(j, "throughput");
  t.unit = j.value("unit", std::string());
  return t;
}

// The model's totals field by field (what load_recording reads back).
#define WS_TOTALS_FIELDS(X)                                                                  \
  X(global_ld_requests) X(global_ld_sectors) X(global_ld_ideal_sectors) X(global_st_requests) \
  X(global_st_sectors) X(global_st_ideal_sectors) X(global_bytes_requested)                  \
  X(global_bytes_moved)                                                                        \
  X(shared_ld_requests) X(shared_ld_wavefronts) X(shared_ld_ideal) X(shared_st_requests)      \
  X(shared_st_wavefronts) X(shared_st_ideal) X(shared_atom_requests) X(events)                \
  X(active_lane_sum) X(branches) X(divergent_branches) X(barriers)

json totals_json(const sim::Totals& t) {
  json j;
#define X(f) j[#f] = t.f;
  WS_TOTALS_FIELDS(X)
  X(warp_instructions) X(lane_instructions) X(global_ld_fetches) X(global_ld_lines)
  X(global_red_requests) X(global_red_sectors) X(shared_atom_wavefronts)
  X(global_ldgsts_requests) X(global_ldgsts_sectors) X(shared_ldgsts_wavefronts)
  X(shared_ldgsts_ideal) X(tensor_instructions)
  X(global_bulk_st_copies) X(global_bulk_st_sectors) X(global_bulk_st_dram_sectors)
#undef X
  return j;
}
sim::Totals totals_of(const json& j) {
  sim::Totals t;
#define X(f) t.f = whole<std::uint64_t>(j.at(#f), #f);
  WS_TOTALS_FIELDS(X)
#undef X
  // Recordings made before Work events (t.work) counted one instruction per event.
  t.warp_instructions = whole_or(j, "warp_instructions", t.events);
  t.lane_instructions = whole_or(j, "lane_instructions", t.active_lane_sum);
  // Recordings made before DRAM fetches were counted: sim::dram_bytes falls back to sectors.
  t.global_ld_fetches = whole_or(j, "global_ld_fetches", std::uint64_t{0});
  // ...and before their lines were: the L1 part then sees the shared wavefronts only.
  t.global_ld_lines = whole_or(j, "global_ld_lines", std::uint64_t{0});
  // Recordings made before reductions were told from atomics call them global_atom_*: every
  // atomic of the dialect was already a reduction (its atomic_add had no used result).
  t.global_red_requests = whole_or(j, "global_red_requests", whole_or(j, "global_atom_requests", std::uint64_t{0}));
  t.global_red_sectors = whole_or(j, "global_red_sectors", whole_or(j, "global_atom_sectors", std::uint64_t{0}));
  // ...and before shared atomics' passes were counted: 0, the L1 part leaves them out.
  t.shared_atom_wavefronts = whole_or(j, "shared_atom_wavefronts", std::uint64_t{0});
  // ...and before cp.async and mma.sync were kept (their counts read 0 from those files:
  // `metrics` then showed a tensor kernel with no HMMA; record again to have them).
  t.global_ldgsts_requests = whole_or(j, "global_ldgsts_requests", std::uint64_t{0});
  t.global_ldgsts_sectors = whole_or(j, "global_ldgsts_sectors", std::uint64_t{0});
  t.shared_ldgsts_wavefronts = whole_or(j, "shared_ldgsts_wavefronts", std::uint64_t{0});
  t.shared_ldgsts_ideal = whole_or(j, "shared_ldgsts_ideal", std::uint64_t{0});
  t.tensor_instructions = whole_or(j, "tensor_instructions", std::uint64_t{0});
  // ...and before bulk stores (cp.async.bulk) were.
  t.global_bulk_st_copies = whole_or(j, "global_bulk_st_copies", std::uint64_t{0});
  t.global_bulk_st_sectors = whole_or(j, "global_bulk_st_sectors", std::uint64_t{0});
  t.global_bulk_st_dram_sectors = whole_or(j, "global_bulk_st_dram_sectors", std::uint64_t{0});
  return t;
}

std::string peer_name(Peer p) {
  switch (p) {
    case Peer::MemcpyD2D: return "memcpy";
    case Peer::CubReduceSum: return "cub";
    case Peer::CublasSgemm: return "cublas";
    case Peer::CublasGemmEx: return "cublas_gemmex";
  }
  return "?";
}

}  // namespace

sim::Provenance Recording::source() const { return sim::Provenance::recorded(device.name, date); }

// [SECTION] Recordings: lookup, staleness, writing and reading
std::string Recording::counts_label() const {
  return "model counts recorded on " + device.name + ", " + date.substr(0, 10);
}

const RecordedRun* Recording::find(const std::string& family, const std::string& variant,
                                   const Params& complete) const {
  for (const auto& r : runs)
    if (r.family == family && r.variant == variant && r.params == complete)
      return is_stale(r) ? nullptr : &r;
  return nullptr;
}

bool Recording::is_stale(const RecordedRun& r) const {
  if (r.source_hash.empty()) return false;
  const FamilyInfo* f = find_family(r.family);
  if (!f) return false;
  static std::mutex mu;
  static std::map<std::string, std::string> now;  // source file -> its hash, read once
  std::lock_guard<std::mutex> lock(mu);
  auto it = now.find(f->source_file);
  if (it == now.end()) it = now.emplace(f->source_file, family_source_hash(f->source_file)).first;
  return !it->second.empty() && it->second != r.source_hash;
}

std::string Recording::stale_families() const {
  std::vector<std::string> fams;
  for (const auto& r : runs)
    if (std::find(fams.begin(), fams.end(), r.family) == fams.end() && is_stale(r))
      fams.push_back(r.family);
  std::string out;
  for (const auto& f : fams) out += (out.empty() ? "" : ", ") + f;
  return out;
}

std::vector<std::filesystem::path> source_roots() {
  std::vector<std::filesystem::path> roots;
  for (const std::string& r : paths::header_roots()) roots.emplace_back(r);
  return roots;
}

std::string family_source_hash(const std::string& source_file) {
  namespace fs = std::filesystem;
  for (const fs::path& root : source_roots()) {
    std::error_code ec;
    const fs::path p = root / source_file;
    if (!fs::is_regular_file(p, ec)) continue;
    const io::ReadResult text = io::read_file(p.string(), io::kDefaultReadCap, "kernel header");
    if (!text.ok) continue;
    char b[32];  // FNV-1a 64, the hash the recorded SASS is keyed by
    std::snprintf(b, sizeof b, "%016llx", (unsigned long long)sass::fnv1a(text.text));
    return b;
  }
  return "";
}

int Recording::regs(const std::string& family, const std::string& variant,
                    const Params& complete) const {
  if (const RecordedRun* r = find(family, variant, complete); r && r->regs_per_thread > 0)
    return r->regs_per_thread;
  auto without_n = [](Params p) {
    p.erase("n");
    return p;
  };
  for (const auto& r : runs)
    if (r.family == family && r.variant == variant && r.regs_per_thread > 0 &&
        without_n(r.params) == without_n(complete) && !is_stale(r))
      return r.regs_per_thread;
  return 0;
}

const RecordedPeer* Recording::find_peer(Peer p, const Params& params) const {
  for (const auto& r : peers)
    if (r.peer == p && r.params == params) return &r;
  return nullptr;
}

std::string recording_json(const Recording& r) {
  const DeviceInfo& d = r.device;
  json j;
  j["format"] = kFormat;
  j["device"] = {{"name", d.name},
                 {"driver", d.driver},
                 {"runtime", d.runtime},
                 {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
                 {"sm_count", d.sm_count},
                 {"sm_clock_mhz", d.sm_clock_mhz},
                 {"mem_clock_mhz", d.mem_clock_mhz},
                 {"bus_width_bits", d.bus_width_bits},
                 {"peak_gbps", d.peak_gbps},
                 {"peak_gflops", d.peak_gflops},
                 {"l2_bytes", d.l2_bytes}};
  j["date"] = r.date;
  j["tool"] = r.tool;
  json runs = json::array();
  for (const auto& x : r.runs) {
    json e = {{"family", x.family},       {"variant", x.variant},
              {"params", params_json(x.params)}, {"verified", x.verified},
              {"timing", timing_json(x.timing)}, {"copy_gbps", x.copy_gbps},
              {"regs_per_thread", x.regs_per_thread}};
    if (!x.source_hash.empty()) e["source_hash"] = x.source_hash;
    e["totals"] = x.totals ? totals_json(*x.totals) : json(nullptr);
    e["counters"] = x.totals ? json(x.totals->ncu()) : json(nullptr);
    if (!x.launch_totals.empty()) {
      json ls = json::array();
      for (const sim::Totals& t : x.launch_totals)
        ls.push_back({{"totals", totals_json(t)}, {"counters", t.ncu()}});
      e["launches"] = ls;
    }
    runs.push_back(e);
  }
  j["runs"] = runs;
  json peers = json::array();
  for (const auto& p : r.peers)
    peers.push_back({{"peer", peer_name(p.peer)}, {"params", params_json(p.params)},
                     {"timing", timing_json(p.timing)}});
  j["peers"] = peers;
  return j.dump(1) + "\n";
}

bool load_recording(const std::string& path, Recording& out, std::string& error) {
  // The one reader: a directory, FIFO or device is refused by name before a byte is read.
  const io::ReadResult f = io::read_file(path, io::kDefaultReadCap, "recording");
  if (!f.ok) {
    error = f.error;
    return false;
  }
  if (!parse_recording(f.text, path, out, error)) return false;
  out.path = path;
  return true;
}

bool parse_recording(const std::string& text, const std::string& path, Recording& out,
                     std::string& error) {
  try {
    json j = json::parse(text);
    if (!j.is_object() || !j.contains("format") || !j["format"].is_number_integer() ||
        j["format"].get<long long>() != kFormat) {
      error = path + ": not a warpscope recording of format " + std::to_string(kFormat);
      return false;
    }
    Recording r;
    r.path = path;
    const json& d = j.at("device");
    r.device.name = d.at("name").get<std::string>();
    r.device.driver = d.value("driver", std::string());
    r.device.runtime = d.value("runtime", std::string());
    const std::string cc = d.value("compute_capability", std::string("0.0"));
    // "9.0": major and minor (std::from_chars: atoi's overflow is undefined).
    const auto dot = std::min(cc.find('.'), cc.size());
    std::from_chars(cc.data(), cc.data() + dot, r.device.cc_major);
    if (dot < cc.size()) std::from_chars(cc.data() + dot + 1, cc.data() + cc.size(), r.device.cc_minor);
    r.device.sm_count = whole_or(d, "sm_count", 0);
    r.device.sm_clock_mhz = rate_of(d, "sm_clock_mhz");
    r.device.mem_clock_mhz = rate_of(d, "mem_clock_mhz");
    r.device.bus_width_bits = rate_of(d, "bus_width_bits");
    r.device.peak_gbps = rate_of(d, "peak_gbps");
    r.device.peak_gflops = rate_of(d, "peak_gflops");
    r.device.l2_bytes = whole_or(d, "l2_bytes", std::uint64_t(0));
    r.device.limits.name = r.device.name;
    if (r.device.sm_count > 0) r.device.limits.sm_count = r.device.sm_count;
    r.date = j.at("date").get<std::string>();
    r.tool = j.value("tool", std::string());
    const sim::Provenance label = r.source();
    std::size_t index = 0;
    for (const auto& e : j.at("runs")) {
      ++index;
      RecordedRun x;
      x.family = e.at("family").get<std::string>();
      x.variant = e.at("variant").get<std::string>();
      x.params = params_of(e.at("params"));
      x.verified = e.value("verified", false);
      try {
        x.timing = timing_of(e.at("timing"), label);
        x.copy_gbps = rate_of(e, "copy_gbps");
      } catch (const std::exception& bad) {
        throw std::runtime_error("run " + std::to_string(index) + " (" + x.family + "/" + x.variant +
                                 "): " + bad.what());
      }
      x.regs_per_thread = whole_or(e, "regs_per_thread", 0);
      x.source_hash = e.value("source_hash", std::string());
      if (e.contains("totals") && e["totals"].is_object()) x.totals = totals_of(e["totals"]);
      // Per launch: in recordings since `record` traced every configuration; optional.
      if (e.contains("launches") && e["launches"].is_array())
        for (const auto& l : e["launches"]) x.launch_totals.push_back(totals_of(l.at("totals")));
      r.runs.push_back(std::move(x));
    }
    for (const auto& e : j.value("peers", json::array())) {
      RecordedPeer p;
      const std::string name = e.at("peer").get<std::string>();
      if (name == "memcpy") p.peer = Peer::MemcpyD2D;
      else if (name == "cub") p.peer = Peer::CubReduceSum;
      else if (name == "cublas") p.peer = Peer::CublasSgemm;
      else if (name == "cublas_gemmex") p.peer = Peer::CublasGemmEx;
      else continue;
      p.params = params_of(e.at("params"));
      try {
        p.timing = timing_of(e.at("timing"), label);
      } catch (const std::exception& bad) {
        throw std::runtime_error("peer " + name + ": " + bad.what());
      }
      r.peers.push_back(std::move(p));
    }
    out = std::move(r);
    return true;
  } catch (const std::exception& e) {
    error = path + ": not a readable recording (" + e.what() + ")";
    return false;
  }
}

namespace {

// Every recording this machine has: $WARPSCOPE_RECORDING alone when set ("none": none),
// else every *.json of the first assets/recordings/ found. Loaded once.
// [SECTION] The shipped recordings, by device name
struct Shelf {
  std::vector<std::unique_ptr<Recording>> recs;
  std::string why;
};

const Shelf& shelf() {
  static std::once_flag once;
  static Shelf s;
  std::call_once(once, [] {
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    if (const char* e = std::getenv("WARPSCOPE_RECORDING"); e && *e) {
      if (std::string(e) == "none") return;
      files.push_back(e);
    } else {
      std::error_code ec;
      for (const auto& root : paths::data_roots()) {
        const fs::path dir = fs::path(root) / "assets" / "recordings";
        if (!fs::is_directory(dir, ec)) continue;
        std::vector<std::string> here;
        for (const auto& f : fs::directory_iterator(dir, ec))
          if (f.path().extension() == ".json") here.push_back(f.path().string());
        std::sort(here.begin(), here.end());
        files.insert(files.end(), here.begin(), here.end());
        if (!here.empty()) break;
      }
    }
    // Each file parsed on a thread of its own: a 1 MB recording is about 12 ms of JSON, and
    // every emulator run's process opens the shelf (the recorded backend's first answer).
    struct Loaded {
      std::unique_ptr<Recording> rec = std::make_unique<Recording>();
      std::string err;
      bool ok = false;
    };
    std::vector<Loaded> loaded(files.size());
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < files.size(); ++i)
      threads.emplace_back([&, i] { loaded[i].ok = load_recording(files[i], *loaded[i].rec, loaded[i].err); });
    for (auto& t : threads) t.join();
    for (auto& l : loaded) {
      if (l.ok) s.recs.push_back(std::move(l.rec));
      else s.why += (s.why.empty() ? "" : "; ") + l.err;
    }
  });
  return s;
}

}  // namespace

const Recording* default_recording(std::string* notice) {
  const Shelf& s = shelf();
  if (notice) *notice = s.why;
  for (const auto& r : s.recs)
    if (r->device.name == kDefaultRecordingDevice) return r.get();
  return s.recs.empty() ? nullptr : s.recs.front().get();
}

const Recording* recording_for_device(const std::string& device_name) {
  for (const auto& r : shelf().recs)
    if (r->device.name == device_name) return r.get();
  return nullptr;
}

namespace {

// [SECTION] The recorded backend: the emulator's counts, the recording's times
class RecordedBackend : public Backend {
 public:
  RecordedBackend(std::unique_ptr<Backend> inner, const Recording* rec)
      : inner_(std::move(inner)), rec_(rec) {}
  BackendKind kind() const override { return inner_->kind(); }
  DeviceInfo device() const override { return inner_->device(); }

  // How a run at a configuration is answered.
  enum class Answer { Emulate, Recording };
  struct Decision {
    Answer answer = Answer::Emulate;
    const RecordedRun* rr = nullptr;  // the recorded run, if any
    const VariantInfo* vi = nullptr;
    Params complete;
  };
  Decision decide(const std::string& family, const std::string& variant, const Params& params,
                  const RunOptions& opt) const {
    Decision d;
    d.vi = find_variant(family, variant);
    if (d.vi && validate(*d.vi, params, DeviceLimits{}, d.complete).empty())
      d.rr = rec_->find(family, variant, d.complete);
    if (!d.rr) return d;
    const bool events = opt.keep_all_blocks || !opt.keep_blocks.empty();
    if (opt.recorded_only) {
      d.answer = Answer::Recording;
      return d;
    }
    if (events || !(opt.timing || opt.totals)) return d;  // a block's events, or a check
    // Counts are emulated only where that is quick (then with their sites, and checked
    // here); the time is the recorded one either way.
    const Plan plan = d.vi->plan(d.complete);
    const bool quick = emulator_refusal(plan).empty() && estimated_lane_events(plan) <= kQuickLaneEvents;
    if (!(quick && opt.totals)) d.answer = Answer::Recording;
    return d;
  }

  RunResult from_recording(const Decision& d, const RunOptions& opt) const {
    const RecordedRun& rr = *d.rr;
    RunResult r;
    r.params = d.complete;
    r.plan = d.vi->plan(d.complete);
    r.verified = rr.verified;
    if (!rr.verified) r.verify_message = "the output was wrong on " + rec_->device.name;
    r.timing = rr.timing;  // what the recording is for, asked for or not
    set_throughput(r.timing, r.plan);  // in the family's unit now, whatever was stored
    r.regs_per_thread = rec_->regs(rr.family, rr.variant, d.complete);
    if (!opt.totals) return r;
    if (!rr.totals) {
      r.counts = CountsSource::NotRecorded;
      r.counts_label = "counts not recorded: " + std::filesystem::path(rec_->path).filename().string() +
                       " predates them, and this size is too large to emulate quickly "
                       "(count at a smaller size)";
      return r;
    }
    r.counts = CountsSource::Recorded;
    r.counts_label = rec_->counts_label();
    r.totals = *rr.totals;
    if (rr.launch_totals.size() == r.plan.launches.size()) {
      for (std::size_t i = 0; i < r.plan.launches.size(); ++i)
        r.launches.push_back({r.plan.launches[i], rr.launch_totals[i], {}});
    } else if (r.plan.launches.size() == 1) {
      r.launches = {{r.plan.launches[0], r.totals, {}}};
    }
    attach_loads_in_flight(r.launches, rr.family, rr.variant, d.complete);
    return r;
  }

  RunResult run(const std::string& family, const std::string& variant, const Params& params,
                const RunOptions& opt) override {
    const Decision d = decide(family, variant, params, opt);
    if (d.answer == Answer::Recording) {
      if (RunControl* c = opt.control ? opt.control : thread_control()) {
        c->start(1, "recorded on " + rec_->device.name);
        c->report(1, 1, "recorded on " + rec_->device.name);
      }
      return from_recording(d, opt);
    }
    if (opt.recorded_only) {
      RunResult r;
      r.error = "no recording of " + family + "/" + variant +
                (d.complete.empty() ? std::string() : " at " + to_string(d.complete)) + " in " +
                rec_->path;
      return r;
    }
    RunResult r = inner_->run(family, variant, params, opt);
    const bool events = opt.keep_all_blocks || !opt.keep_blocks.empty();
    if (!r.error.empty() && r.rejected && d.rr && !events && (opt.timing || opt.totals))
      return from_recording(d, opt);  // too large to emulate, but recorded
    if (r.error.empty()) {
      r.regs_per_thread = rec_->regs(family, variant, r.params);
      if (d.rr && opt.timing) {
        r.timing = d.rr->timing;
        set_throughput(r.timing, r.plan);  // in the family's unit now, whatever was stored
      }
    }
    return r;
  }

  std::string refusal(const std::string& family, const std::string& variant,
                      const Params& params, const RunOptions& opt) const override {
    if (decide(family, variant, params, opt).answer == Answer::Recording) return "";
    return inner_->refusal(family, variant, params, opt);
  }

  double expected_work(const std::string& family, const std::string& variant,
                       const Params& params, const RunOptions& opt) const override {
    if (decide(family, variant, params, opt).answer == Answer::Recording) return 1;
    return inner_->expected_work(family, variant, params, opt);
  }

  PeerResult run_peer(Peer p, const Params& params, const RunOptions& opt) override {
    if (const RecordedPeer* rp = rec_->find_peer(p, params)) {
      PeerResult r;
      r.peer = p;
      r.timing = rp->timing;
      return r;
    }
    PeerResult r = inner_->run_peer(p, params, opt);
    if (!r.error.empty())
      r.error += " (and " + rec_->path + " has no recording of it at " + to_string(params) + ")";
    return r;
  }

 private:
  std::unique_ptr<Backend> inner_;
  const Recording* rec_;
};

}  // namespace

std::unique_ptr<Backend> make_recorded_backend(std::unique_ptr<Backend> emu, const Recording* rec) {
  if (!rec || !emu) return emu;
  return std::make_unique<RecordedBackend>(std::move(emu), rec);
}

// The standard configurations `warpscope record` times: every variant's bars at its
// defaults and at the honest sizes, and the standard sweeps.
namespace {

void add(std::vector<RecordTarget>& out, const std::string& family, const std::string& variant,
         const Params& p, const std::string& source) {
  out.push_back({family, variant, p, source});
}

// Every variant of `family` with `p` (keys a variant lacks are left out for it).
void add_all(std::vector<RecordTarget>& out, const std::string& family, const Params& p,
             const std::string& source) {
  for (const auto& v : catalogue())
    if (v.family == family) {
      Params mine;
      for (const auto& ps : v.params)
        if (p.count(ps.name)) mine[ps.name] = p.at(ps.name);
      add(out, family, v.name, mine, source);
    }
}

void sweep(std::vector<RecordTarget>& out, const std::string& family, const std::string& variant,
           Params base, const std::string& key, const std::vector<long long>& values) {
  for (long long v : values) {
    base[key] = v;
    add(out, family, variant, base, "sweep " + key);
  }
}

}  // namespace

// [SECTION] What `record` times
std::vector<RecordTarget> standard_record_targets() {
  std::vector<RecordTarget> t;
  // Variant bars at the defaults (what `bench --all` and the chart view show first) and
  // at the sizes each family declares (beyond L2 where that matters), then its sweeps.
  for (const auto& v : catalogue()) add(t, v.family, v.name, {}, "bars (defaults)");
  for (const FamilyInfo& f : families()) {
    for (const Params& p : f.bar_sizes) add_all(t, f.name, p, "bars");
    for (const RecordedSweep& s : f.recorded_sweeps)
      sweep(t, f.name, s.variant, s.base, s.x, s.values);
  }
  // Only what this catalogue has and the H100 limits allow.
  std::vector<RecordTarget> ok;
  for (auto& x : t) {
    const VariantInfo* v = find_variant(x.family, x.variant);
    Params done;
    if (v && validate(*v, x.params, DeviceLimits{}, done).empty()) ok.push_back(std::move(x));
  }
  return ok;
}


}  // namespace ws
