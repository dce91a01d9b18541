// `warpscope lesson --validate` and `--check`: a lesson against the catalogue, then run.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <ostream>
#include <set>

#include "app/lesson/lesson.h"
#include "app/lesson/lesson_internal.h"
#include "app/lesson/lesson_refs.h"
#include "app/lesson/lesson_model.h"

namespace ws::lesson {

namespace {

// A library routine to compare with (CUB, cuBLAS), as the family declares its peers.
bool has_library_peer(const std::string& family) {
  for (const FamilyInfo& f : families())
    if (f.name == family)
      for (Peer p : f.peers)
        if (p != Peer::MemcpyD2D) return true;
  return false;
}


int line_of(const std::map<std::string, int>& lines, const std::string& key, int fallback) {
  auto it = lines.find(key);
  return it == lines.end() ? fallback : it->second;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

const std::set<std::string>& metric_names() {
  static const std::set<std::string> names = [] {
    std::set<std::string> s;
    for (const auto& [k, v] : sim::Totals{}.ncu()) s.insert(k);
    return s;
  }();
  return names;
}

// The family and variant exist; "" when they do, else the message.
std::string kernel_error(const std::string& family, const std::string& variant, bool& family_ok) {
  std::vector<std::string> families, variants;
  for (const auto& v : catalogue()) {
    if (std::find(families.begin(), families.end(), v.family) == families.end())
      families.push_back(v.family);
    if (v.family == family) variants.push_back(v.name);
  }
  family_ok = !variants.empty();
  if (!family_ok)
    return "unknown kernel family '" + family + "' (families: " + join(families) + ")";
  if (!find_variant(family, variant))
    return "unknown variant '" + variant + "' of " + family + " (variants: " + join(variants) + ")";
  return "";
}

void check_quantity(const Quantity& q, const std::string& family, const Params& params,
                    int line, const std::string& what, const std::string& file,
                    std::vector<Diagnostic>& out) {
  if (q.kind == QuantityKind::Metric && !metric_names().count(q.name)) {
    std::string known;
    for (const auto& n : metric_names()) known += (known.empty() ? "" : ", ") + n;
    out.push_back({file, line, what + ": unknown metric '" + q.name +
                                   "' (the model gives: " + known + ")"});
  }
  if (q.kind == QuantityKind::Ratio && q.name.rfind("over:", 0) == 0) {
    const std::string other = q.name.substr(5);
    if (!find_variant(family, other))
      out.push_back({file, line, what + ": ratio over '" + other + "': " + family +
                                     " has no variant '" + other + "'"});
  }
  if (q.kind == QuantityKind::Ratio && q.name == "library" && !has_library_peer(family))
    out.push_back({file, line, what + ": 'ratio library' compares with CUB (reduce) or cuBLAS "
                                      "(matmul); " + family + " has no library routine"});
  if (q.kind == QuantityKind::Ratio && q.name == "copy_bandwidth") {
    for (const auto& v : catalogue())
      if (v.family == family && v.plan) {
        Params done;
        if (!validate(v, params, DeviceLimits{}, done).empty()) break;
        if (const Plan pl = v.plan(done); pl.unit() != "GB/s")
          out.push_back({file, line, what + ": copy_bandwidth compares bytes, but " + family +
                                         " counts " + std::string(pl.unit()) +
                                         ": use 'ratio over:VARIANT'" + (pl.gflops() ? " or 'ratio peak'" : "")});
        break;
      }
  }
}

// The parameters a goal's reach runs with are valid for the variant it runs.
void check_run(const std::string& family, const std::string& variant, const Params& p,
               int line, const std::string& what, const std::string& file,
               std::vector<Diagnostic>& out) {
  bool family_ok = false;
  std::string e = kernel_error(family, variant, family_ok);
  if (!e.empty()) {
    out.push_back({file, line, what + ": " + e});
    return;
  }
  Params done;
  std::string why = validate(*find_variant(family, variant), p, DeviceLimits{}, done);
  if (!why.empty()) out.push_back({file, line, what + ": " + family + "/" + variant + " " +
                                                    ws::to_string(p) + ": " + why});
}

std::string describe(const Lab& lab, const Params& extra = {}, const std::string& variant = "") {
  Params p = lab.params;
  for (const auto& [k, v] : extra) p[k] = v;
  std::string s = lab.family + "/" + (variant.empty() ? lab.variant : variant);
  std::string ps = ws::to_string(p);
  s = ps.empty() ? s : s + " " + ps;
  if (!lab.timing.empty()) s += " (timed at " + ws::to_string(lab.timing) + ")";
  return s;
}

// A goal should be a trade-off: no single change of its reach gets there (issue 22). Runs
// each change of the reach alone (the variant, each parameter) and names the first that
// reaches the target, with "(modelled)" when that verdict is the model's estimate of a
// time the recording lacks. A change that does not apply alone (a parameter the lab's
// variant lacks) is skipped.
// @post empty when the reach has fewer than two changes or no single change reaches g.
std::string one_change_reaching(const Goal& g, const Lab& lab, Backend& backend) {
  std::vector<std::pair<std::string, Params>> singles;  // (variant or "", params)
  if (!g.reach_variant.empty()) singles.push_back({g.reach_variant, {}});
  for (const auto& [k, v] : g.reach) singles.push_back({"", Params{{k, v}}});
  if (singles.size() < 2) return "";
  for (const auto& [variant, p] : singles) {
    Lab at = lab;
    if (!variant.empty()) at.variant = variant;
    Facts f = run_lab(at, p, backend, goal_quantities(g));
    if (!f.error.empty()) continue;
    GoalStatus st = goal_reached(g, f);
    if (!st.reached) continue;
    std::string change = variant.empty() ? ws::to_string(p) : "variant=" + variant;
    return change + (st.modelled ? " (modelled)" : "");
  }
  return "";
}

}  // namespace

std::vector<Diagnostic> validate_lesson(const Lesson& l) {
  std::vector<Diagnostic> out;
  const std::string& file = l.path;
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(l.path).parent_path();
  for (const auto& p : l.prerequisites)
    if (!fs::exists(dir / (p + ".md")))
      out.push_back({file, line_of(l.key_lines, "prerequisites", 1),
                     "front matter: prerequisite '" + p + "' has no lesson file " +
                         (dir / (p + ".md")).string()});

  for (std::size_t s = 0; s < l.steps.size(); ++s) {
    const Step& st = l.steps[s];
    if (st.lab) {
      const Lab& lab = *st.lab;
      bool family_ok = false;
      std::string e = kernel_error(lab.family, lab.variant, family_ok);
      if (!e.empty()) {
        out.push_back({file, line_of(lab.key_lines, family_ok ? "variant" : "family", lab.line),
                       "lab block: " + e});
      } else {
        Params done;
        std::string why = validate(*find_variant(lab.family, lab.variant), lab.params,
                                   DeviceLimits{}, done);
        if (!why.empty())
          out.push_back({file, line_of(lab.key_lines, "params", lab.line), "lab block: " + why});
        if (!lab.timing.empty()) {
          Params tp = lab.params;
          for (const auto& [k, v] : lab.timing) tp[k] = v;
          why = validate(*find_variant(lab.family, lab.variant), tp, DeviceLimits{}, done);
          if (!why.empty())
            out.push_back({file, line_of(lab.key_lines, "timing", lab.line),
                           "lab block: timing: " + why});
        }
      }
    }
    const Lab* lab = l.lab_at(s);
    if (!lab) continue;  // the parser already reported predicts/goals without a lab
    for (const auto& p : st.predicts) {
      check_quantity(p.answer, lab->family, lab->params, line_of(p.key_lines, "answer", p.line),
                     "predict block: answer", file, out);
      for (const auto& n : detail::placeholders(p.explain)) {
        Quantity q;
        if (detail::quantity_from_key(n, q))
          check_quantity(q, lab->family, lab->params, line_of(p.key_lines, "explain", p.line),
                         "predict block: explain", file, out);
      }
    }
    for (const auto& g : st.goals) {
      for (const auto& q : goal_quantities(g))
        check_quantity(q, lab->family, lab->params, line_of(g.key_lines, "target", g.line),
                       "goal block: target", file, out);
      bool timed = false;
      for (const auto& q : goal_quantities(g)) timed = timed || q.timed();
      Params p = lab->params;
      const std::string variant = g.reach_variant.empty() ? lab->variant : g.reach_variant;
      if (variant != lab->variant) p = params_for(lab->family, variant, p);
      for (const auto& [k, v] : g.reach) p[k] = v;
      check_run(lab->family, variant, p,
                line_of(g.key_lines, "reach", g.line), "goal block: reach", file, out);
      if (!lab->timing.empty() && (timed || g.gpu_only)) {
        Lab at = *lab;
        at.variant = variant;
        Params tp = lab->params;
        for (const auto& [k, v] : lab->timing) tp[k] = v;
        for (const auto& [k, v] : g.reach) tp[k] = v;
        check_run(lab->family, variant, params_for(lab->family, variant, tp),
                  line_of(g.key_lines, "reach", g.line), "goal block: reach at the timing size",
                  file, out);
      }
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
  return out;
}

int step_count(const std::string& file, std::string& error) {
  const ParseResult r = parse_lesson(file);
  if (!r.ok()) {
    error = r.errors.empty() ? "does not parse" : r.errors[0].str();
    return -1;
  }
  return int(r.lesson->steps.size());
}

int validate_files(const std::vector<std::string>& files, std::ostream& out) {
  int bad_files = 0, errors = 0, blocks = 0;
  if (files.empty()) {
    out << "lesson --validate: no lesson files given\n";
    return 2;
  }
  std::size_t checked = 0;
  for (const auto& f : files) {
    // `lessons/*.md` also matches the folder's README, which describes the format.
    if (std::filesystem::path(f).filename() == "README.md") {
      out << f << ": skipped (README.md describes the format; it is not a lesson)\n";
      continue;
    }
    ++checked;
    ParseResult r = parse_lesson(f);
    std::vector<Diagnostic> d = r.errors;
    if (r.lesson) {
      auto v = validate_lesson(*r.lesson);
      d.insert(d.end(), v.begin(), v.end());
    }
    if (!d.empty()) {
      for (const auto& e : d) out << e.str() << "\n";
      errors += int(d.size());
      ++bad_files;
      continue;
    }
    const Lesson& l = *r.lesson;
    // A timed goal must not sit inside the spread its reach was recorded with.
    if (const Recording* rec = quoted_recording()) {
      int bad = 0;
      for (std::size_t s = 0; s < l.steps.size(); ++s)
        for (const auto& g : l.steps[s].goals)
          if (const Lab* lab = l.lab_at(s)) {
            std::string why = goal_spread_problem(*rec, *lab, g);
            if (why.empty()) continue;
            out << f << ":" << g.key_lines.at("target") << ": " << why << "\n";
            ++bad;
          }
      if (bad) {
        errors += bad;
        ++bad_files;
        continue;
      }
    }
    for (const auto& st : l.steps) {
      if (st.lab) {
        out << f << ":" << st.lab->line << ": ok lab " << describe(*st.lab) << "\n";
        ++blocks;
      }
      for (const auto& p : st.predicts) {
        out << f << ":" << p.line << ": ok predict " << p.answer.key() << "\n";
        ++blocks;
      }
      for (const auto& g : st.goals) {
        out << f << ":" << g.line << ": ok goal " << goal_target_text(g) << "\n";
        ++blocks;
      }
    }
  }
  out << "validate: " << checked << " file(s), " << blocks << " block(s) ok, " << errors
      << " error(s) in " << bad_files << " file(s)\n";
  return bad_files == 0 ? 0 : 2;  // an invalid lesson is bad input
}

int check_file(const std::string& file, Backend& backend, std::ostream& out) {
  // Live, the lesson quotes the recording of this GPU where one is shipped.
  if (backend.kind() != BackendKind::Emu) set_quoted_recording(recording_for_device(backend.device().name));
  ParseResult r = parse_lesson(file);
  std::vector<Diagnostic> d = r.errors;
  if (r.lesson) {
    auto v = validate_lesson(*r.lesson);
    d.insert(d.end(), v.begin(), v.end());
  }
  if (!d.empty()) {
    for (const auto& e : d) out << e.str() << "\n";
    out << "check: " << file << ": not checked, " << d.size() << " validation error(s)\n";
    return 2;
  }
  const Lesson& l = *r.lesson;
  const bool emu = backend.kind() == BackendKind::Emu;
  bool recorded = false;
  int ok = 0, failed = 0, later = 0;
  auto line = [&](int no, bool good, const std::string& what) {
    out << file << ":" << no << ": " << (good ? "ok " : "FAILED ") << what << "\n";
    (good ? ok : failed)++;
  };
  for (std::size_t s = 0; s < l.steps.size(); ++s) {
    const Step& st = l.steps[s];
    const Lab* lab = l.lab_at(s);
    if (!lab) continue;
    if (!st.lab && st.predicts.empty() && st.goals.empty()) continue;
    Facts f = run_lab(*lab, {}, backend, wanted_quantities(st));
    recorded = recorded || f.timed.is(sim::Source::Recorded);
    const int lab_line = st.lab ? st.lab->line : st.line;
    if (!f.error.empty()) {
      line(lab_line, false, "lab " + describe(*lab) + ": " + f.error);
      continue;
    }
    if (st.lab) line(lab_line, true, "lab " + describe(*lab) + " runs and verifies");
    for (const auto& p : st.predicts) {
      double v = f.get(p.answer.key());
      double expect = p.expect;
      std::string from;
      if (p.expect_recorded) {
        // The recording of the GPU this runs on; without a GPU, the one the emulator uses.
        const Recording* rec = emu ? quoted_recording() : recording_for_device(backend.device().name);
        RecordedRef ref{lab->family, lab->variant, {}, p.answer};
        std::string why = rec ? "" : "no recording of " + backend.device().name;
        if (rec) why = complete_params(lab->family, lab->variant, timing_params(*lab, {}), ref.params);
        expect = rec && why.empty() ? recorded_value(*rec, ref, why) : std::nan("");
        from = rec ? " (recorded on " + short_gpu_name(rec->device.name) + ")" : "";
        if (!why.empty()) from = " (" + why + ")";
        // A variant or knob newer than the recording has nothing to expect yet: said, not
        // failed, as its {{rec}} figures are (lesson_refs.h, not_yet_recorded).
        if (rec && !std::isfinite(expect) && not_yet_recorded(*rec, ref)) {
          out << file << ":" << p.line << ": not yet recorded on " << short_gpu_name(rec->device.name)
              << ": predict " << p.answer.key() << " at " << ws::to_string(ref.params)
              << " (the next `warpscope record` on the GPU times it)\n";
          ++later;
          continue;
        }
      }
      double tol = p.relative ? p.tolerance * std::fabs(v) : p.tolerance;
      bool good = std::isfinite(v) && std::isfinite(expect) &&
                  std::fabs(v - expect) <= tol + 1e-9 * std::max(1.0, std::fabs(v));
      std::string what = "predict " + p.answer.key() + ": " +
                         (p.answer.timed() ? f.timed_source : std::string("run")) + " gives " +
                         format_number(v) + ", lesson expects " + format_number(expect) + from;
      if (p.tolerance > 0)
        what += " +/- " + (p.relative ? format_number(p.tolerance * 100) + "%"
                                       : format_number(p.tolerance));
      line(p.line, good, what);
    }
    for (const auto& g : st.goals) {
      GoalStatus before = goal_reached(g, f);
      Lab reach = *lab;
      if (!g.reach_variant.empty()) reach.variant = g.reach_variant;
      Facts after = run_lab(reach, g.reach, backend, goal_quantities(g));
      GoalStatus st2 = goal_reached(g, after);
      std::string what = "goal " + goal_target_text(g) + ": with " +
                         describe(*lab, g.reach, g.reach_variant) + ": " +
                         (after.error.empty() ? st2.label : "run failed: " + after.error);
      if (before.known && before.reached)
        what += "; note: already reached before the change (" + format_number(before.value) + ")";
      if (st2.reached)
        if (std::string one = one_change_reaching(g, *lab, backend); !one.empty())
          what += "; note: one change reaches it: " + one + " (not a trade-off)";
      line(g.line, st2.reached, what);
    }
  }
  out << "check: " << file << ": " << ok << " ok, " << failed << " failed"
      << (later ? ", " + std::to_string(later) + " not yet recorded" : std::string()) << " on "
      << to_string(backend.kind())
      << (!emu ? "" : recorded ? " (timed values recorded where a recording holds them, else modelled)"
                               : " (timed values are modelled)")
      << "\n";
  return failed == 0 ? 0 : 1;
}

bool timed_configs(const std::string& file, std::vector<RecordTarget>& out, std::string& error) {
  // Read without a recording: the figures the text quotes are what is to be recorded.
  set_quoting_off(true);
  ParseResult r = parse_lesson(file);
  set_quoting_off(false);
  std::vector<Diagnostic> d = r.errors;
  if (r.lesson) {
    auto v = validate_lesson(*r.lesson);
    d.insert(d.end(), v.begin(), v.end());
  }
  if (!d.empty()) {
    error = d.front().str();
    return false;
  }
  const Lesson& l = *r.lesson;
  auto add = [&](const std::string& family, const std::string& variant, const Params& p, int line) {
    for (const auto& o : out)
      if (o.family == family && o.variant == variant && o.params == p) return;
    out.push_back({family, variant, p, file + ":" + std::to_string(line)});
  };
  auto add_with_refs = [&](const Lab& lab, const std::string& variant, const Params& p,
                           const std::vector<Quantity>& qs, int line) {
    add(lab.family, variant, p, line);
    for (const auto& q : qs)
      if (q.kind == QuantityKind::Ratio && q.name.rfind("over:", 0) == 0) {
        const std::string other = q.name.substr(5);
        add(lab.family, other, params_for(lab.family, other, p), line);
      }
  };
  // The figures the text quotes ({{rec ...}}), with their `over:` references.
  {
    std::ifstream in(file, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    for (const RecordedRef& ref : recorded_refs_in(ss.str())) {
      add(ref.family, ref.variant, ref.params, 0);
      if (ref.quantity.kind == QuantityKind::Ratio && ref.quantity.name.rfind("over:", 0) == 0) {
        const std::string other = ref.quantity.name.substr(5);
        Params op;
        if (complete_params(ref.family, other, params_for(ref.family, other, ref.params), op).empty())
          add(ref.family, other, op, 0);
      }
    }
  }
  for (std::size_t s = 0; s < l.steps.size(); ++s) {
    const Step& st = l.steps[s];
    const Lab* lab = l.lab_at(s);
    if (!lab) continue;
    const std::vector<Quantity> wanted = wanted_quantities(st);
    const bool timed =
        std::any_of(wanted.begin(), wanted.end(), [](const Quantity& q) { return q.timed(); });
    if (timed)
      add_with_refs(*lab, lab->variant, timing_params(*lab, {}), wanted, st.lab ? st.lab->line : st.line);
    for (const auto& g : st.goals) {
      const auto qs = goal_quantities(g);
      if (std::none_of(qs.begin(), qs.end(), [](const Quantity& q) { return q.timed(); }) &&
          !g.gpu_only)
        continue;
      const std::string variant = g.reach_variant.empty() ? lab->variant : g.reach_variant;
      Lab at = *lab;
      at.variant = variant;
      add_with_refs(at, variant, timing_params(at, g.reach), qs, g.line);
      // Each change of a several-change reach alone too, so that --check judges the
      // trade-off (one_change_reaching) on measurements, not on the model.
      if (g.reach.size() + (g.reach_variant.empty() ? 0 : 1) < 2) continue;
      if (!g.reach_variant.empty()) {
        Lab v = *lab;
        v.variant = g.reach_variant;
        add_with_refs(v, v.variant, timing_params(v, {}), qs, g.line);
      }
      for (const auto& [k, val] : g.reach) {
        Params one = params_for(lab->family, lab->variant, Params{{k, val}});
        if (one.empty()) continue;  // a parameter the lab's own variant lacks
        add_with_refs(*lab, lab->variant, timing_params(*lab, one), qs, g.line);
      }
    }
  }
  return true;
}

}  // namespace ws::lesson
