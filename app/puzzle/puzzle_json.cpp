// `puzzle --check ... --json`: the check as one JSON object (puzzle.h, check_json).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>

#include "app/puzzle/puzzle.h"
#include "sim/access.h"

namespace ws::puzzle {

namespace {

// What a target's quantity counts per source line, so a missed target names the line that
// costs the most (of the kept block's events): "" when the quantity is not per line.
std::uint64_t line_cost(const std::string& q, const sim::Counters& c) {
  if (q.find("bank_conflicts") != std::string::npos || q == "shared_requests")
    return (c.shared_ld_wavefronts - c.shared_ld_ideal) + (c.shared_st_wavefronts - c.shared_st_ideal);
  if (q.find("sectors") != std::string::npos)
    return (c.global_ld_sectors - c.global_ld_ideal_sectors) + (c.global_st_sectors - c.global_st_ideal_sectors) +
           (q.rfind("ld_", 0) == 0 ? c.global_ld_sectors : 0);
  if (q.find("requests") != std::string::npos) return c.global_ld_requests + c.global_st_requests;
  if (q == "divergent_branches" || q == "simd_efficiency") return c.divergent_branches;
  if (q == "barriers_per_warp") return c.barriers;
  return 0;
}

}  // namespace

nlohmann::json check_json(const Puzzle& p, const CheckResult& r, const std::string& kernel,
                          const std::string& backend) {
  nlohmann::json j;
  j["puzzle"] = p.slug;
  j["title"] = p.title;
  j["kernel"] = kernel.empty() ? p.file + ":" + std::to_string(p.starter_line) : kernel;
  j["backend"] = backend;
  j["verdict"] = r.bad_input ? "bad input"
                 : !r.failure.empty() ? "failed"
                 : r.all_met()        ? "all targets met"
                                      : "targets missed";
  j["exit_code"] = check_exit_code(r);
  if (!r.failure.empty()) j["failure"] = r.failure;
  if (r.compiled.ok) j["compile_seconds"] = r.compiled.cached ? 0.0 : r.compiled.seconds;
  if (r.bad_input || !r.failure.empty()) return j;
  // Per line, from the kept block's events (block 0), for the worst line of a missed target.
  std::map<int, sim::Counters> per_line;
  const sim::AccessModel m{};
  for (const auto& k : r.run.kept)
    for (const auto& e : k.events) sim::count_event(e, m, per_line[e.line]);
  nlohmann::json ts = nlohmann::json::array();
  for (const auto& t : r.targets) {
    nlohmann::json o;
    o["name"] = t.target.quantity;
    o["text"] = t.target.text;
    char v[32];
    std::snprintf(v, sizeof v, "%.10g", t.target.value);
    o["wanted"] = std::string(to_string(t.target.op)) + " " + v;
    if (t.evaluated) o["got"] = t.got;
    else o["got"] = nullptr;
    o["met"] = t.met;
    if (!t.note.empty()) o["note"] = t.note;
    if (!t.met) {
      int worst = 0;
      std::uint64_t most = 0;
      for (const auto& [line, c] : per_line)
        if (const std::uint64_t v = line_cost(t.target.quantity, c); v > most) {
          most = v;
          worst = line;
        }
      if (worst) o["worst_line"] = worst;
    }
    ts.push_back(o);
  }
  j["targets"] = ts;
  nlohmann::json tot;
  for (const auto& [name, v] : r.run.totals.ncu()) tot[name] = v;
  j["totals"] = tot;
  j["divergent_branches"] = r.run.totals.divergent_branches;
  j["branches"] = r.run.totals.branches;
  j["simd_efficiency"] = r.run.totals.simd_efficiency();
  return j;
}

}  // namespace ws::puzzle
