// Puzzle files: parsing (line by line, bounded), checking a student's kernel against the
// targets, and the `puzzle` command.
//
// Index (search for "[SECTION] <name>"):
//   Text helpers
//   Quantities and their values
//   Parsing a puzzle file
//   The worst line of a target
//   Checking a kernel
//   The puzzle command: list and check
#include "app/puzzle/puzzle.h"
#include "kernels/user/cuda_front.h"
#include "kernels/user/cuda_kernel.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
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

// A CUDA puzzle's fields (aliases only) checked as the members of the rewritten struct.
user::KernelSpec with_name(user::KernelSpec s) {
  s.struct_name = cuda::Translation::kStruct;
  return s;
}

constexpr std::size_t kMaxBytes = 1 << 20;
constexpr std::size_t kMaxTargets = 64;

// [SECTION] Text helpers
std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split_ws(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

bool parse_number(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end && *end == '\0' && std::isfinite(v);
}

bool parse_op(const std::string& s, Op& o) {
  if (s == "<") o = Op::Less;
  else if (s == "<=") o = Op::LessEq;
  else if (s == "==" || s == "=") o = Op::Eq;
  else if (s == ">=") o = Op::GreaterEq;
  else if (s == ">") o = Op::Greater;
  else return false;
  return true;
}

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

bool split_job(const std::string& s, std::string& fam, std::string& var) {
  const auto slash = s.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == s.size()) return false;
  fam = s.substr(0, slash);
  var = s.substr(slash + 1);
  return true;
}

// "in: const float, out: float, n: int, in4: const int4 @in"
bool parse_fields(const std::string& s, std::vector<user::Field>& out, std::string& why) {
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    const std::string item = trim(s.substr(start, end - start));
    start = end + 1;
    if (item.empty()) {
      why = "an empty member in 'fields' (write name: type, separated by commas)";
      return false;
    }
    const auto colon = item.find(':');
    if (colon == std::string::npos) {
      why = "member '" + item + "' has no type (write name: type, e.g. in: const float)";
      return false;
    }
    user::Field f;
    f.name = trim(item.substr(0, colon));
    std::string type = trim(item.substr(colon + 1));
    if (const auto at = type.find('@'); at != std::string::npos) {
      f.source = trim(type.substr(at + 1));
      type = trim(type.substr(0, at));
    }
    if (type.rfind("const ", 0) == 0) {
      f.is_const = true;
      type = trim(type.substr(6));
    }
    if (f.name.empty() || !(std::isalpha(static_cast<unsigned char>(f.name[0])) || f.name[0] == '_')) {
      why = "member name '" + f.name + "' is not an identifier";
      return false;
    }
    if (!user::is_element_type(type)) {
      why = "member " + f.name + " has an unknown type '" + type +
            "' (float, int, unsigned, long long, double, float2, float4, int2, int4)";
      return false;
    }
    f.type = type;
    f.array = true;
    out.push_back(f);
    if (out.size() > 32) {
      why = "more than 32 members";
      return false;
    }
  }
  return true;
}

}  // namespace

// [SECTION] Quantities and their values
std::string_view to_string(Op o) {
  switch (o) {
    case Op::Less: return "<";
    case Op::LessEq: return "<=";
    case Op::Eq: return "==";
    case Op::GreaterEq: return ">=";
    case Op::Greater: return ">";
  }
  return "?";
}

const std::vector<Quantity>& quantities() {
  static const std::vector<Quantity> q = {
      {"sectors_per_request", "global sectors per request, loads and stores together"},
      {"ld_sectors_per_request", "global sectors per load request"},
      {"st_sectors_per_request", "global sectors per store request"},
      {"ld_requests", "global load requests (warp instructions)"},
      {"st_requests", "global store requests"},
      {"ld_sectors", "global load sectors"},
      {"st_sectors", "global store sectors"},
      {"bank_conflicts", "shared-memory bank conflicts, loads and stores"},
      {"ld_bank_conflicts", "shared-memory bank conflicts of loads"},
      {"st_bank_conflicts", "shared-memory bank conflicts of stores"},
      {"shared_requests", "shared-memory requests, loads and stores"},
      {"simd_efficiency", "mean active lanes per warp instruction / 32"},
      {"divergent_branches", "marked branches whose ballot split the warp"},
      {"barriers_per_warp", "__syncthreads per warp"},
  };
  return q;
}

bool quantity_value(const std::string& q, const RunResult& r, double& out) {
  const sim::Totals& t = r.totals;
  auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  if (q.rfind("metric:", 0) == 0) {
    const auto m = t.ncu();
    auto it = m.find(q.substr(7));
    if (it == m.end()) return false;
    out = it->second;
    return true;
  }
  double warps = 0;
  for (const auto& l : r.plan.launches)
    warps += double(l.grid.count()) * double((l.block.count() + 31) / 32);
  if (q == "sectors_per_request")
    out = ratio(double(t.global_ld_sectors + t.global_st_sectors),
                double(t.global_ld_requests + t.global_st_requests));
  else if (q == "ld_sectors_per_request") out = ratio(double(t.global_ld_sectors), double(t.global_ld_requests));
  else if (q == "st_sectors_per_request") out = ratio(double(t.global_st_sectors), double(t.global_st_requests));
  else if (q == "ld_requests") out = double(t.global_ld_requests);
  else if (q == "st_requests") out = double(t.global_st_requests);
  else if (q == "ld_sectors") out = double(t.global_ld_sectors);
  else if (q == "st_sectors") out = double(t.global_st_sectors);
  else if (q == "bank_conflicts") out = double(t.shared_ld_conflicts() + t.shared_st_conflicts());
  else if (q == "ld_bank_conflicts") out = double(t.shared_ld_conflicts());
  else if (q == "st_bank_conflicts") out = double(t.shared_st_conflicts());
  else if (q == "shared_requests") out = double(t.shared_ld_requests + t.shared_st_requests);
  else if (q == "simd_efficiency") out = t.simd_efficiency();
  else if (q == "divergent_branches") out = double(t.divergent_branches);
  else if (q == "barriers_per_warp") out = ratio(double(t.barriers), warps);
  else return false;
  return true;
}

// [SECTION] Parsing a puzzle file
bool parse_text(const std::string& text, const std::string& file, Puzzle& p,
                std::vector<Error>& errors) {
  p = Puzzle{};
  p.file = file;
  p.slug = fs::path(file).stem().string();
  auto err = [&](int line, std::string m) {
    if (errors.size() < 50) errors.push_back({file, line, std::move(m)});
  };
  if (text.size() > kMaxBytes) {
    err(1, "the puzzle is larger than 1 MB");
    return false;
  }
  std::vector<std::string> lines;
  {
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string l = text.substr(start, end - start);
      if (!l.empty() && l.back() == '\r') l.pop_back();
      lines.push_back(std::move(l));
      start = end + 1;
    }
  }
  int puzzle_at = 0, starter_at = 0, targets_at = 0;
  bool in_front = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const int ln = int(i) + 1;
    if (i == 0 && trim(l) == "---") {
      in_front = true;
      continue;
    }
    if (in_front) {
      if (trim(l) == "---") in_front = false;
      else if (l.rfind("title:", 0) == 0 && p.title.empty()) p.title = trim(l.substr(6));
      if (i + 1 == lines.size() && in_front) err(1, "the front matter opened here is never closed with ---");
      continue;
    }
    const std::string t = trim(l);
    if (t.rfind("```", 0) != 0) {
      if (p.title.empty() && l.rfind("# ", 0) == 0) p.title = trim(l.substr(2));
      else p.task += l + "\n";
      continue;
    }
    // A fenced block: find its end (a line of ``` only).
    const std::string info = trim(t.substr(3));
    std::size_t j = i + 1;
    while (j < lines.size() && trim(lines[j]) != "```") ++j;
    if (j == lines.size()) {
      err(ln, "the block opened here is never closed with ```");
      break;
    }
    if (info == "puzzle") {
      if (puzzle_at) err(ln, "a second puzzle block (the first is at line " + std::to_string(puzzle_at) + ")");
      puzzle_at = ln;
      for (std::size_t k = i + 1; k < j; ++k) {
        const int kl = int(k) + 1;
        const std::string b = trim(lines[k]);
        if (b.empty() || b[0] == '#') continue;
        const auto colon = b.find(':');
        if (colon == std::string::npos) {
          err(kl, "expected key: value (job, params, kernel, fields), got '" + b + "'");
          continue;
        }
        const std::string key = trim(b.substr(0, colon)), val = trim(b.substr(colon + 1));
        if (key == "job") {
          p.job_line = kl;
          if (!split_job(val, p.family, p.variant)) {
            err(kl, "job must be FAMILY/VARIANT of the catalogue (e.g. transpose/tiled), got '" + val + "'");
          } else if (!find_variant(p.family, p.variant)) {
            err(kl, "job " + val + " is not a variant of the catalogue (see `warpscope list`)");
          }
        } else if (key == "params") {
          for (const auto& kv : split_ws(val))
            if (std::string why = parse_param(kv, p.params); !why.empty()) err(kl, why);
        } else if (key == "timing") {
          for (const auto& kv : split_ws(val))
            if (std::string why = parse_param(kv, p.timing); !why.empty()) err(kl, why);
        } else if (key == "kernel") {
          p.spec.struct_name = val;
          bool ident = !val.empty() && (std::isalpha(static_cast<unsigned char>(val[0])) || val[0] == '_');
          for (char c : val) ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
          if (!ident) err(kl, "kernel must name the struct the student writes, got '" + val + "'");
        } else if (key == "fields") {
          std::string why;
          p.spec.fields.clear();
          if (!parse_fields(val, p.spec.fields, why)) err(kl, why);
        } else {
          err(kl, "unknown key '" + key + "' (job, params, timing, kernel, fields)");
        }
      }
    } else if (info == "starter") {
      if (starter_at) err(ln, "a second starter block (the first is at line " + std::to_string(starter_at) + ")");
      starter_at = ln;
      p.starter_line = ln + 1;
      p.starter.clear();
      for (std::size_t k = i + 1; k < j; ++k) p.starter += lines[k] + "\n";
    } else if (info == "targets") {
      if (targets_at) err(ln, "a second targets block (the first is at line " + std::to_string(targets_at) + ")");
      targets_at = ln;
      for (std::size_t k = i + 1; k < j; ++k) {
        const int kl = int(k) + 1;
        std::string b = trim(lines[k]);
        if (b.empty() || b[0] == '#') continue;
        if (p.targets.size() >= kMaxTargets) {
          err(kl, "more than 64 targets");
          break;
        }
        Target tg;
        tg.line = kl;
        tg.text = b;
        const auto w = split_ws(b);
        if (w.size() >= 6 && w[0] == "time" && w[1] == "within" && w[3] == "%" && w[4] == "of") {
          tg.quantity = "time";
          tg.op = Op::LessEq;
          if (!parse_number(w[2], tg.value) || tg.value < 0 || tg.value > 1000) {
            err(kl, "'time within P % of VARIANT' needs a percentage from 0 to 1000, got '" + w[2] + "'");
            continue;
          }
          if (!split_job(w[5], tg.ref_family, tg.ref_variant) ||
              !find_variant(tg.ref_family, tg.ref_variant)) {
            err(kl, w[5] + " is not a variant of the catalogue (FAMILY/VARIANT)");
            continue;
          }
          bool ok = true;
          for (std::size_t x = 6; x < w.size(); ++x)
            if (std::string why = parse_param(w[x], tg.ref_params); !why.empty()) {
              err(kl, why);
              ok = false;
            }
          if (ok) p.targets.push_back(tg);
          continue;
        }
        std::size_t qi = 0;
        if (w.size() == 4 && w[0] == "metric") {
          tg.quantity = "metric:" + w[1];
          qi = 1;
        } else if (w.size() == 3) {
          tg.quantity = w[0];
          bool known = false;
          for (const auto& q : quantities()) known = known || q.name == w[0];
          if (!known) {
            std::string names;
            for (const auto& q : quantities()) names += (names.empty() ? "" : ", ") + q.name;
            err(kl, "unknown quantity '" + w[0] + "' (" + names + ", or metric NCU_NAME)");
            continue;
          }
        } else {
          err(kl, "expected QUANTITY OP NUMBER, 'metric NAME OP NUMBER' or 'time within P % of "
                  "FAMILY/VARIANT', got '" + b + "'");
          continue;
        }
        if (!parse_op(w[qi + 1], tg.op)) {
          err(kl, "unknown comparison '" + w[qi + 1] + "' (<, <=, ==, >=, >)");
          continue;
        }
        if (!parse_number(w[qi + 2], tg.value)) {
          err(kl, "'" + w[qi + 2] + "' is not a number");
          continue;
        }
        if (qi == 1) {
          const auto names = sim::Totals{}.ncu();
          if (!names.count(w[1])) {
            err(kl, "unknown Nsight Compute metric '" + w[1] + "' (the model computes those of `warpscope metrics`)");
            continue;
          }
        }
        p.targets.push_back(tg);
      }
    } else if (info == "hint") {
      Hint h;
      h.line = ln;
      for (std::size_t k = i + 1; k < j; ++k) h.text += lines[k] + "\n";
      h.text = trim(h.text);
      if (h.text.empty()) err(ln, "an empty hint (write it between ```hint and ```)");
      else if (p.hints.size() >= kMaxHints)
        err(ln, "a fourth hint: a puzzle has at most " + std::to_string(kMaxHints) + " (the first is at line " +
                    std::to_string(p.hints[0].line) + ")");
      else if (h.text.size() > kMaxHintBytes)
        err(ln, "a hint of " + std::to_string(h.text.size()) + " bytes (at most " + std::to_string(kMaxHintBytes) +
                    "): a hint is a nudge, not a lesson");
      else p.hints.push_back(std::move(h));
    } else if (info.rfind("hint", 0) == 0 && info.size() > 4 && std::isalnum(static_cast<unsigned char>(info[4]))) {
      err(ln, "unknown block '" + info + "' (a hint's block is ```hint, one per hint)");
    } else {
      // Any other fenced block (```cpp, ```text) is part of the task's prose.
      for (std::size_t k = i; k <= j; ++k) p.task += lines[k] + "\n";
    }
    i = j;
  }
  if (p.title.empty()) err(1, "the puzzle has no title (a '# ' heading or title: in front matter)");
  if (!puzzle_at) err(1, "the puzzle has no ```puzzle block (job, params, kernel, fields)");
  if (!starter_at) err(1, "the puzzle has no ```starter block");
  if (!targets_at) err(1, "the puzzle has no ```targets block");
  else if (p.targets.empty() && errors.empty()) err(targets_at, "the targets block names no target");
  if (puzzle_at) {
    if (p.family.empty() && !p.job_line) err(puzzle_at, "the puzzle block has no job: FAMILY/VARIANT");
    // A CUDA starter's __global__ function is the kernel, its parameters bound by name:
    // kernel and fields are then optional (fields: only to bind a parameter to an array
    // of another name, `a: const float @A`).
    if (!cuda::is_cuda_source(p.starter)) {
      if (p.spec.struct_name.empty()) err(puzzle_at, "the puzzle block has no kernel: STRUCT");
      if (p.spec.fields.empty()) err(puzzle_at, "the puzzle block has no fields: MEMBERS");
    }
  }
  // Members and parameters against the job's plan.
  if (errors.empty()) {
    const VariantInfo* v = find_variant(p.family, p.variant);
    Params full;
    Params at_timing;
    bool timed = false;
    for (const auto& t : p.targets) timed = timed || t.quantity == "time";
    if (std::string why = validate(*v, p.params, DeviceLimits{}, full); !why.empty()) {
      err(p.job_line, "the job's params: " + why);
    } else if (std::string why2 = timed ? validate(*v, timing_params(p), DeviceLimits{}, at_timing) : "";
               !why2.empty()) {
      err(puzzle_at, "the sizes a GPU times at (" + ws::to_string(timing_params(p)) + "; timing: sets them): " + why2);
    } else {
      const Plan plan = v->plan(full);
      for (auto& f : p.spec.fields) {
        bool is_array = false;
        for (const auto& a : plan.arrays) is_array = is_array || a.name == f.from();
        if (!is_array && full.count(f.from())) f.array = false;
      }
      const bool cuda_bound = p.spec.struct_name.empty() && cuda::is_cuda_source(p.starter);
      if (!(cuda_bound && p.spec.fields.empty()))
        if (std::string why = user::check_fields(cuda_bound ? with_name(p.spec) : p.spec, plan, full);
            !why.empty())
          err(puzzle_at, why);
      for (const auto& f : p.spec.fields)
        if (!f.array && f.is_const) err(puzzle_at, "member " + f.name + " is a parameter: drop 'const'");
    }
  }
  return errors.empty();
}

bool parse_file(const std::string& file, Puzzle& out, std::vector<Error>& errors) {
  // The one reader: a directory, FIFO or device is named, never waited on; one byte past
  // the limit is enough for parse_text to refuse the size.
  const io::ReadResult f = io::read_file(file, kMaxBytes + 1, "puzzle");
  if (!f.ok) {
    std::error_code ec;
    errors.push_back({file, 1, fs::is_directory(file, ec) ? "is a directory; give a puzzle's .md file" : f.reason});
    return false;
  }
  return parse_text(f.text, file, out, errors);
}

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
      const RunResult mr = user::time_cuda(spec, *find_variant(p.family, p.variant), at, o, c, opt.limits);
      if (!mr.error.empty() || !mr.verified) {
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

CheckResult check(const Puzzle& p, Backend& backend, const CheckOptions& opt) {
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
    r.compiled = user::compile_emu(spec, opt.compile);
    map_errors(r.compiled);
    if (!r.compiled.ok) {
      if (!r.compiled.error.empty() && r.compiled.errors.empty()) r.bad_input = true;
      r.failure = r.compiled.message();
      return r;
    }
    r.run = user::run_emu(r.compiled, spec, *job, p.params, ro, opt.limits);
  } else {
#if defined(WS_HAVE_NVRTC)
    r.run = user::run_cuda(spec, *job, p.params, ro, r.compiled, opt.limits);
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
  return r;
}

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
