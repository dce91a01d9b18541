// `puzzle --check ... --json`: the check as one JSON object (puzzle.h, check_json).
#include <nlohmann/json.hpp>

#include <cstdio>

#include "app/puzzle/puzzle.h"

namespace ws::puzzle {


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
    if (!t.met && t.worst.line) {
      o["worst_line"] = t.worst.line;
      o["worst_value"] = t.worst.value;
      o["worst"] = t.worst.text;
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
