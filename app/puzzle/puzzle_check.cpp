// Checking a student's kernel against a puzzle's targets, and the `puzzle` command (the
// file's parsing: puzzle.cpp).
//
// Index (search for "[SECTION] <name>"):
//   The worst line of a target
//   Checking a kernel
//   The puzzle command: list and check
#include "app/puzzle/puzzle.h"
#include "kernels/user/cuda_front.h"
#include "kernels/user/cuda_kernel.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>

#include "io/atomic_file.h"
#include "io/read_file.h"
#if defined(WS_HAVE_NVRTC)
#include "kernels/user/user_nvrtc.h"
#endif

namespace ws::puzzle {
namespace fs = std::filesystem;

namespace {

bool holds(double got, Op o, double want) {
  const double eps = 1e-9 * std::max(1.0, std::fabs(want));
  switch (o) {
    case Op::Less: return got < want - eps;
    case Op::LessEq: return got <= want + eps;
    case Op::Eq: return std::fabs(got - want) <= eps;
    case Op::GreaterEq: return got >= want - eps;
    case Op::Greater: return got > want + eps;
  }
  return false;
}

std::string fmt(double v) {
  std::ostringstream s;
  if (v == std::floor(v) && std::fabs(v) < 1e15) s << (long long)v;
  else s << std::setprecision(4) << v;
  return s.str();
}

}  // namespace

// [SECTION] The worst line of a target
namespace {

// Every launch's sites merged per line; the kept blocks' events when no launch has sites.
std::map<int, sim::Totals> per_line(const RunResult& r) {
  std::map<int, sim::Totals> out;
  for (const auto& l : r.launches)
    for (const auto& [line, t] : sim::by_line(l.sites)) out[line].merge(t);
  if (out.empty()) {
    const sim::DeviceModel m{};
    for (const auto& k : r.kept)
      for (const auto& e : k.events) out[e.line].add(e, m);
  }
  out.erase(0);  // events of no source line (the dialect's own)
  return out;
}

}  // namespace

WorstLine worst_line(const std::string& q, const RunResult& r) {
  WorstLine w;
  if (q.rfind("metric:", 0) == 0 || q == "time") return w;
  double warps = 0;
  for (const auto& l : r.plan.launches)
    warps += double(l.grid.count()) * double((l.block.count() + 31) / 32);
  // Per line: the figure shown, and the key it is ranked by (larger is worse); a line
  // without the quantity ranks 0 and is never named.
  std::string unit;
  auto measure = [&](const sim::Totals& t, double& fig) -> double {
    const double ldr = double(t.global_ld_requests), str = double(t.global_st_requests);
    if (q == "sectors_per_request" || q == "ld_sectors_per_request" || q == "st_sectors_per_request") {
      const bool ld = q != "st_sectors_per_request", st = q != "ld_sectors_per_request";
      const double req = (ld ? ldr : 0) + (st ? str : 0);
      const double sec = (ld ? double(t.global_ld_sectors) : 0) + (st ? double(t.global_st_sectors) : 0);
      unit = q[0] == 'l' ? " sectors a load request" : q[0] == 's' && q[1] == 't' ? " sectors a store request"
                                                                                 : " sectors a request";
      fig = req > 0 ? sec / req : 0;
      return fig + req * 1e-12;  // ties: the line with more requests
    }
    if (q == "ld_requests") { unit = " load requests"; return fig = ldr; }
    if (q == "st_requests") { unit = " store requests"; return fig = str; }
    if (q == "ld_sectors") { unit = " load sectors"; return fig = double(t.global_ld_sectors); }
    if (q == "st_sectors") { unit = " store sectors"; return fig = double(t.global_st_sectors); }
    if (q == "bank_conflicts" || q == "ld_bank_conflicts" || q == "st_bank_conflicts") {
      unit = " bank conflicts";
      fig = (q[0] != 's' ? double(t.shared_ld_conflicts()) : 0) + (q[0] != 'l' ? double(t.shared_st_conflicts()) : 0);
      return fig;
    }
    if (q == "shared_requests") {
      unit = " shared requests";
      return fig = double(t.shared_ld_requests + t.shared_st_requests);
    }
    if (q == "divergent_branches") { unit = " divergent branches"; return fig = double(t.divergent_branches); }
    if (q == "simd_efficiency") {
      // The line that leaves the most lane slots idle, with its own efficiency.
      unit = " SIMD efficiency";
      fig = t.simd_efficiency();
      return 32.0 * double(t.warp_instructions) - double(t.lane_instructions);
    }
    if (q == "barriers_per_warp") {
      unit = " barriers a warp";
      return fig = warps > 0 ? double(t.barriers) / warps : 0;
    }
    return 0;
  };
  double best = 0;
  for (const auto& [line, t] : per_line(r)) {
    double fig = 0;
    const double key = measure(t, fig);
    if (key > best) {
      best = key;
      w.line = line;
      w.value = fig;
    }
  }
  if (!w.line) return w;
  if (w.value == 1) {  // "1 sector a load request", "1 divergent branch"
    static const std::pair<const char*, const char*> kOne[] = {
        {"sectors", "sector"}, {"requests", "request"}, {"conflicts", "conflict"},
        {"branches", "branch"}, {"barriers", "barrier"}};
    for (const auto& [many, one] : kOne)
      if (const auto at = unit.find(many); at != std::string::npos) {
        unit.replace(at, std::strlen(many), one);
        break;
      }
  }
  w.text = "line " + std::to_string(w.line) + ": " +
           (q == "simd_efficiency" ? "SIMD efficiency " + fmt(w.value) : fmt(w.value) + unit);
  return w;
}

// [SECTION] Checking a kernel
bool CheckResult::all_met() const {
  if (bad_input || !failure.empty() || targets.empty()) return false;
  for (const auto& t : targets)
    if (!t.met) return false;
  return true;
}

namespace {

// The starter, written where the compiler can read it; its errors are then moved back
// onto the puzzle file's lines.
std::string write_starter(const Puzzle& p, std::string& why) {
  const fs::path dir = fs::path(user::cache_dir()) / "starters";
  std::error_code ec;
  fs::create_directories(dir, ec);
  // Blank lines first, so the starter's lines are the puzzle file's lines. Named by its
  // content, so checking the same starter again finds its build in the cache.
  const std::string text = std::string(std::size_t(std::max(0, p.starter_line - 1)), '\n') + p.starter;
  const fs::path f = dir / (p.slug + "-" + std::to_string(std::hash<std::string>{}(text)) +
                            (cuda::is_cuda_source(p.starter) ? ".cu" : ".cuh"));
  if (fs::exists(f, ec)) return f.string();
  // The one writer: atomic, and a name another checker wrote meanwhile is kept as it is.
  const io::WriteResult w = io::write_file(f.string(), text);
  if (!w.ok && !fs::exists(f, ec)) {
    why = "cannot write the starter: " + w.error;
    return "";
  }
  return f.string();
}

}  // namespace

Params timing_params(const Puzzle& p) {
  Params out = p.params;
  const FamilyInfo* f = find_family(p.family);
  const VariantInfo* v = find_variant(p.family, p.variant);
  for (const auto& [k, val] : p.timing.empty() && f ? f->timing : p.timing)
    if (v && find_param(*v, k)) out[k] = val;
  return out;
}

namespace {

// The reference variant's parameters: the run's where it shares them, then the target's.
Params reference_params(const Target& t, const Params& run) {
  Params rp;
  const VariantInfo* rv = find_variant(t.ref_family, t.ref_variant);
  for (const auto& ps : rv->params)
    if (run.count(ps.name)) rp[ps.name] = run.at(ps.name);
  for (const auto& [k, v] : t.ref_params) rp[k] = v;
  return rp;
}

// A time target. On the emulator: the check's own run against the reference's, both
// modelled at the puzzle's size. On a GPU: at timing_params(p), where launch overhead is
// small beside the kernel, the student's fast build and the reference in turn for
// kTimeRounds rounds (so a clock that drifts moves both), the median of the rounds.
void time_target(const Puzzle& p, const Target& t, Backend& backend, const user::KernelSpec& spec,
                 const CheckOptions& opt, CheckResult& r, TargetResult& tr) {
  RunOptions o;
  o.timing = true;
  o.keep_blocks = {};
  std::vector<double> ratios, mine, refs;
  if (backend.kind() != BackendKind::Emu) o.totals = false;  // times only: no traced run at that size
  std::string why, label;
  const bool gpu = backend.kind() != BackendKind::Emu;
  const Params at = gpu ? timing_params(p) : r.run.params;
  const int rounds = gpu ? kTimeRounds : 1;
  if (gpu) o.repeats = kTimeRepeats;
  for (int k = 0; k < rounds && why.empty(); ++k) {
    double m = r.run.timing.median_ms;
    sim::Provenance msrc = r.run.timing.source;
#if defined(WS_HAVE_NVRTC)
    if (gpu) {
      user::Compiled c;
      // The output is checked in the first round (on the device); the others time only.
      const RunResult mr = user::time_cuda(spec, *find_variant(p.family, p.variant), at, o, c, opt.limits, k == 0);
      if (!mr.error.empty() || (k == 0 && !mr.verified)) {
        why = "your kernel at " + ws::to_string(at) + ": " + (mr.error.empty() ? mr.verify_message : mr.error);
        break;
      }
      m = mr.timing.median_ms;
      msrc = mr.timing.source;
    }
#else
    (void)spec;
    (void)opt;
#endif
    const RunResult ref = backend.run(t.ref_family, t.ref_variant, reference_params(t, at), o);
    if (!ref.error.empty() || ref.timing.median_ms <= 0 || m <= 0) {
      why = "could not time " + t.ref_family + "/" + t.ref_variant + ": " + (ref.error.empty() ? "no time" : ref.error);
      break;
    }
    ratios.push_back(m / ref.timing.median_ms);
    mine.push_back(m);
    refs.push_back(ref.timing.median_ms);
    // Two times of different sources are compared, but never as if alike.
    const sim::SourcedRatio q = sim::ratio(m, msrc, ref.timing.median_ms, ref.timing.source);
    label = q.mixed ? q.note : std::string(sim::short_label(msrc));
  }
  if (!why.empty()) {
    tr.note = why;
    return;
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  tr.evaluated = true;
  tr.got = 100.0 * (median(ratios) - 1.0);
  tr.met = tr.got <= t.value + 1e-9;
  std::ostringstream s;
  s << std::setprecision(4) << median(mine) * 1000 << " us against " << median(refs) * 1000 << " us";
  if (gpu) s << " at " << ws::to_string(at) << ", median of " << rounds << " rounds of " << kTimeRepeats << " launches";
  s << ", " << label;
  tr.note = s.str();
}

}  // namespace

bool gpu_checks(std::string& why, std::string* device) {
#if defined(WS_HAVE_NVRTC)
  return user::gpu_available(why, nullptr, device);
#else
  (void)device;
  why = "this warpscope was built without NVRTC";
  return false;
#endif
}

CheckResult check_in_window(const Puzzle& p, Backend& window, const CheckOptions& opt, std::string& on) {
  std::string why, device;
  if (window.kind() == BackendKind::Cuda && gpu_checks(why, &device)) {
    on = "checked on the GPU, " + device + " (times measured)";
    return check(p, window, opt);
  }
  on = "checked on the emulator (times modelled)";
  if (window.kind() == BackendKind::Cuda) on += " (the GPU cannot run student kernels here: " + why + ")";
  // The plain emulator, as the editor always used: a window's recording never answers a
  // time target's reference run, whose time is modelled like the student's.
  auto emu = make_emu_backend();
  return check(p, *emu, opt);
}

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
CheckResult check_timed(const Puzzle& p, Backend& backend, const CheckOptions& opt);
}  // namespace

CheckResult check(const Puzzle& p, Backend& backend, const CheckOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckResult r = check_timed(p, backend, opt);
  r.total_s = seconds_since(t0);
  return r;
}

namespace {

CheckResult check_timed(const Puzzle& p, Backend& backend, const CheckOptions& opt) {
  CheckResult r;
  const VariantInfo* job = find_variant(p.family, p.variant);
  if (!job) {
    r.bad_input = true;
    r.failure = p.file + ":" + std::to_string(p.job_line) + ": unknown job " + p.family + "/" + p.variant;
    return r;
  }
  user::KernelSpec spec = p.spec;
  const bool starter = opt.kernel_file.empty();
  if (starter) {
    std::string why;
    spec.source_path = write_starter(p, why);
    if (spec.source_path.empty()) {
      r.bad_input = true;
      r.failure = why;
      return r;
    }
  } else {
    std::error_code ec;
    if (!fs::is_regular_file(opt.kernel_file, ec)) {
      r.bad_input = true;
      r.failure = "kernel file " + opt.kernel_file + (fs::is_directory(opt.kernel_file, ec) ? " is a directory" : " does not exist");
      return r;
    }
    spec.source_path = opt.kernel_file;
  }
  // The starter's messages name the puzzle file (its lines are the file's lines).
  const std::string shown = starter ? p.file : spec.source_path;
  auto rename = [&](std::string s) {
    if (!starter) return s;
    for (std::size_t at = s.find(spec.source_path); at != std::string::npos;
         at = s.find(spec.source_path, at + shown.size()))
      s.replace(at, spec.source_path.size(), shown);
    return s;
  };
  auto map_errors = [&](user::Compiled& c) {
    for (auto& e : c.errors) e.file = shown;
    c.error = rename(c.error);
  };

  RunOptions ro;
  ro.timing = true;
  ro.keep_blocks = {0};
  if (backend.kind() == BackendKind::Emu) {
    auto t = std::chrono::steady_clock::now();
    r.compiled = user::compile_emu(spec, opt.compile);
    r.steps.compile = seconds_since(t);
    map_errors(r.compiled);
    if (!r.compiled.ok) {
      if (!r.compiled.error.empty() && r.compiled.errors.empty()) r.bad_input = true;
      r.failure = r.compiled.message();
      return r;
    }
    t = std::chrono::steady_clock::now();
    r.run = user::run_emu(r.compiled, spec, *job, p.params, ro, opt.limits);
    r.steps.trace = seconds_since(t);
  } else {
#if defined(WS_HAVE_NVRTC)
    r.run = user::run_cuda(spec, *job, p.params, ro, r.compiled, opt.limits, &r.steps);
    map_errors(r.compiled);
    if (!r.compiled.ok) {
      r.failure = r.compiled.message();
      return r;
    }
#else
    r.bad_input = true;
    r.failure = "this warpscope was built without NVRTC: student kernels run on the emulator "
                "(--backend emu)";
    return r;
#endif
  }
  if (!r.run.error.empty()) {
    r.failure = rename(r.run.error);
    return r;
  }
  if (!r.run.problems.empty()) {
    std::string s;
    for (const auto& pb : r.run.problems)
      s += (s.empty() ? "" : "\n") + shown + (pb.line ? ":" + std::to_string(pb.line) : "") + ": " +
           (pb.kind == sim::ProblemKind::OutOfBounds ? std::string()
                                                     : std::string(sim::to_string(pb.kind)) + ": ") +
           pb.message;
    r.failure = s;
    return r;
  }
  if (!r.run.verified) {
    r.failure = "your kernel's output is wrong: " + r.run.verify_message + " (checked against " +
                p.family + "/" + p.variant + ")";
    return r;
  }
  const auto judged = std::chrono::steady_clock::now();
  for (const Target& t : p.targets) {
    TargetResult tr;
    tr.target = t;
    if (t.quantity == "time") {
      time_target(p, t, backend, spec, opt, r, tr);
    } else {
      tr.evaluated = quantity_value(t.quantity, r.run, tr.got);
      tr.met = tr.evaluated && holds(tr.got, t.op, t.value);
      if (!tr.evaluated) tr.note = "unknown quantity";
      if (tr.evaluated && !tr.met) tr.worst = worst_line(t.quantity, r.run);
    }
    r.targets.push_back(tr);
  }
  r.targets_s = seconds_since(judged);
  return r;
}

}  // namespace

// [SECTION] The puzzle command: list and check
std::vector<std::string> list_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path f = it->path();
    if (f.extension() != ".md" || !it->is_regular_file(ec)) continue;
    const std::string n = f.filename().string();
    if (n.size() < 4 || !std::isdigit(static_cast<unsigned char>(n[0])) ||
        !std::isdigit(static_cast<unsigned char>(n[1])) || n[2] != '-')
      continue;
    out.push_back(f.string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string default_dir() {
  std::error_code ec;
  if (const char* e = std::getenv("WARPSCOPE_PUZZLES"); e && *e) return e;
  if (fs::is_directory("puzzles", ec)) return "puzzles";
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path inst = exe.parent_path().parent_path() / "share" / "warpscope" / "puzzles";
    if (fs::is_directory(inst, ec)) return inst.string();
  }
#if defined(WS_PUZZLE_SOURCE_DIR)
  if (fs::is_directory(WS_PUZZLE_SOURCE_DIR, ec)) return WS_PUZZLE_SOURCE_DIR;
#endif
  return "";
}

std::string solution_path(const std::string& puzzle_file) {
  // Plain CUDA (NN-name.cu) first, else the dialect (NN-name.cuh).
  {
    const fs::path f(puzzle_file);
    const fs::path cu = f.parent_path() / "solutions" / (f.stem().string() + ".cu");
    std::error_code ec;
    if (fs::exists(cu, ec)) return cu.string();
  }
  const fs::path f(puzzle_file);
  return (f.parent_path() / "solutions" / (f.stem().string() + ".cuh")).string();
}

int list_command(const std::string& dir_in, std::ostream& out, std::ostream& err) {
  const std::string dir = dir_in.empty() ? default_dir() : dir_in;
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) {
    err << "warpscope: no puzzles directory" << (dir.empty() ? "" : " at " + dir)
        << " (give one, or set WARPSCOPE_PUZZLES)\n";
    return 2;
  }
  const auto files = list_files(dir);
  if (files.empty()) {
    err << "warpscope: " << dir << " holds no puzzle (NN-name.md)\n";
    return 2;
  }
  int bad = 0;
  for (const auto& f : files) {
    Puzzle p;
    std::vector<Error> es;
    if (!parse_file(f, p, es)) {
      for (const auto& e : es) err << e.text() << "\n";
      ++bad;
      continue;
    }
    out << std::left << std::setw(28) << p.slug << std::setw(46) << p.title << " job "
        << p.family << "/" << p.variant << ", " << p.targets.size() << " target"
        << (p.targets.size() == 1 ? "" : "s") << "\n";
  }
  return bad ? 2 : 0;
}

int check_exit_code(const CheckResult& r) {
  if (r.bad_input) return 2;
  return r.all_met() ? 0 : 1;
}

int check_command(const std::string& file, const std::string& kernel, Backend& backend,
                  double time_limit, std::ostream& out, std::ostream& err, bool json) {
  Puzzle p;
  std::vector<Error> es;
  if (!parse_file(file, p, es)) {
    if (json) {
      nlohmann::json j{{"verdict", "bad input"}, {"exit_code", 2}};
      for (const auto& e : es) j["errors"].push_back(e.text());
      out << j.dump(2) << "\n";
    }
    for (const auto& e : es) err << e.text() << "\n";
    return 2;
  }
  CheckOptions o;
  o.kernel_file = kernel;
  o.limits.time_s = time_limit;
  const bool emu = backend.kind() == BackendKind::Emu;
  if (json) {
    const CheckResult r = check(p, backend, o);
    out << check_json(p, r, kernel, emu ? "emu" : "cuda").dump(2) << "\n";
    if (r.bad_input) err << "warpscope: " << r.failure << "\n";
    return check_exit_code(r);
  }
  out << p.slug << ": " << p.title << "\n";
  out << "  kernel: " << (kernel.empty() ? "the starter (" + file + ":" + std::to_string(p.starter_line) + ")" : kernel)
      << ", on " << (emu ? "the emulator (times modelled)" : backend.device().name) << "\n";
  const CheckResult r = check(p, backend, o);
  if (r.compiled.ok) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(2) << r.compiled.seconds;
    out << "  compiled" << (r.compiled.cached ? " (cached)" : " in " + s.str() + " s") << "\n";
  }
  if (r.bad_input) {
    err << "warpscope: " << r.failure << "\n";
    return 2;
  }
  // What the kernel printed is its own: set apart, every line marked, bounded by the sandbox.
  if (!r.run.kernel_output.empty()) {
    out << "  your kernel printed:\n";
    std::istringstream lines(r.run.kernel_output);
    for (std::string l; std::getline(lines, l);) out << "    | " << l << "\n";
  }
  if (!r.run.sandbox_note.empty()) out << "  note: " << r.run.sandbox_note << "\n";
  if (!r.failure.empty()) {
    std::string f = r.failure;
    while (!f.empty() && f.back() == '\n') f.pop_back();
    out << "  FAILED: " << f << "\n";
    return 1;
  }
  out << "  output verified against " << p.family << "/" << p.variant << " ("
      << ws::to_string(r.run.params) << ")\n";
  int met = 0;
  for (const auto& t : r.targets) {
    met += t.met;
    out << "  " << (t.met ? "[met]    " : "[missed] ") << std::left << std::setw(44) << t.target.text
        << (t.target.text.size() >= 44 ? " " : "");
    if (t.evaluated)
      out << (t.target.quantity == "time" ? "got " + fmt(t.got) + " % (" + t.note + ")"
                                           : "got " + fmt(t.got));
    else
      out << t.note;
    out << "\n";
    if (!t.worst.text.empty()) out << "           " << t.worst.text << "\n";
  }
  out << (r.all_met() ? "all " + std::to_string(met) + " targets met"
                      : std::to_string(met) + " of " + std::to_string(r.targets.size()) + " targets met")
      << "\n";
  return r.all_met() ? 0 : 1;
}

}  // namespace ws::puzzle
