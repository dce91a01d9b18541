// Puzzle files: parsing, line by line and bounded (checking a kernel against the targets
// and the `puzzle` command: puzzle_check.cpp).
//
// Index (search for "[SECTION] <name>"):
//   Text helpers
//   Quantities and their values
//   Parsing a puzzle file
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
        // Every quantity and metric is a count, a ratio of counts or a fraction: a target
        // below zero is a puzzle no kernel can solve, so the file is refused, not played.
        if ((tg.op == Op::Less && tg.value <= 0) || ((tg.op == Op::LessEq || tg.op == Op::Eq) && tg.value < 0)) {
          err(kl, "'" + b + "' can never be met: " + w[qi] + " is never below 0");
          continue;
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

}  // namespace ws::puzzle
