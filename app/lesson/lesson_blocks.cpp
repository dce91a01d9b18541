// The blocks of a lesson file (lesson_blocks.h): `key: value` lines, and the lab, predict
// and goal blocks the line scanner (lesson_parse.cpp) hands over, each checked to the line.
#include "app/lesson/lesson_blocks.h"

#include <algorithm>
#include <cctype>

#include "app/lesson/lesson_internal.h"
#include "sim/event_at.h"
#include "viz/views.h"

namespace ws::lesson::detail {

// [SECTION] Key-value blocks
// `key: value` lines; an indented line continues the previous value; `#` lines are comments.
KVs parse_kv(const std::vector<std::string>& lines, int first_line, const std::string& what,
             const std::vector<std::string>& allowed, Ctx& c) {
  KVs out;
  std::string last;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const std::string& l = lines[k];
    const int no = first_line + int(k);
    if (trim(l).empty() || trim(l)[0] == '#') continue;
    if ((l[0] == ' ' || l[0] == '\t') && !last.empty()) {
      out[last].value += " " + trim(l);
      continue;
    }
    std::size_t colon = l.find(':');
    std::string key = colon == std::string::npos ? "" : trim(l.substr(0, colon));
    bool ok = !key.empty() && std::all_of(key.begin(), key.end(), [](char ch) {
      return std::islower(static_cast<unsigned char>(ch)) || ch == '_';
    });
    if (!ok) {
      c.error(no, what + ": expected 'key: value', got '" + trim(l) + "'");
      last.clear();
      continue;
    }
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      c.error(no, what + ": unknown key '" + key + "' (expected " + list + ")");
      last.clear();
      continue;
    }
    if (out.count(key)) {
      c.error(no, what + ": '" + key + "' given twice (first at line " +
                      std::to_string(out[key].line) + ")");
      last.clear();
      continue;
    }
    out[key] = {trim(l.substr(colon + 1)), no};
    last = key;
  }
  return out;
}

bool require(const KVs& kv, const std::string& key, const std::string& what, int fence_line,
             Ctx& c) {
  auto it = kv.find(key);
  if (it == kv.end()) {
    c.error(fence_line, what + " block has no '" + key + ":' line");
    return false;
  }
  if (it->second.value.empty()) {
    c.error(it->second.line, what + " block: '" + key + ":' is empty");
    return false;
  }
  return true;
}

bool parse_params(const std::string& text, int line, const std::string& what, Params& out,
                  Ctx& c, std::string* variant) {
  bool ok = true;
  for (const auto& tok : words(text, true)) {
    std::size_t eq = tok.find('=');
    std::string k = eq == std::string::npos ? "" : tok.substr(0, eq);
    std::string v = eq == std::string::npos ? "" : tok.substr(eq + 1);
    if (variant && k == "variant" && !v.empty()) {
      *variant = v;
      continue;
    }
    long long n = 0;
    bool key_ok = !k.empty() && std::all_of(k.begin(), k.end(), [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
    });
    if (!key_ok || !parse_int(v, n)) {
      c.error(line, what + ": bad parameter '" + tok + "' (expected name=integer)");
      ok = false;
      continue;
    }
    if (out.count(k)) {
      c.error(line, what + ": parameter '" + k + "' given twice");
      ok = false;
      continue;
    }
    out[k] = n;
  }
  return ok;
}

namespace {

// [SECTION] Labs
// The views a lab may name: the rows of the view table (viz/views.h) marked kInLab.
std::string lab_view_list() {
  std::vector<std::string> v;
  for (const viz::ViewInfo& i : viz::kViews)
    if (i.has(viz::kInLab)) v.emplace_back(i.name);
  std::string s;
  for (std::size_t k = 0; k < v.size(); ++k)
    s += (k == 0 ? "" : k + 1 == v.size() ? " or " : ", ") + v[k];
  return s;
}

}  // namespace

std::optional<Lab> parse_lab(const std::vector<std::string>& lines, int fence, Ctx& c) {
  std::size_t before = c.errors.size();
  KVs kv = parse_kv(lines, fence + 1, "lab block",
                    {"family", "variant", "params", "timing", "view", "blocks", "at"}, c);
  Lab lab;
  lab.line = fence;
  for (const auto& [k, v] : kv) lab.key_lines[k] = v.line;
  if (require(kv, "family", "lab", fence, c)) lab.family = kv["family"].value;
  if (require(kv, "variant", "lab", fence, c)) lab.variant = kv["variant"].value;
  if (kv.count("params")) parse_params(kv["params"].value, kv["params"].line, "lab", lab.params, c);
  if (kv.count("timing")) {
    parse_params(kv["timing"].value, kv["timing"].line, "lab block: timing", lab.timing, c);
    if (lab.timing.empty())
      c.error(kv["timing"].line, "lab block: timing: no parameters (write e.g. 'timing: n=8192')");
  }
  if (kv.count("view")) {
    lab.view = kv["view"].value;
    viz::View v;
    if (!viz::view_from_string(lab.view, v) || !viz::view_info(v).has(viz::kInLab))
      c.error(kv["view"].line,
              "lab block: unknown view '" + lab.view + "' (expected " + lab_view_list() + ")");
  }
  if (kv.count("at")) {
    lab.at = kv["at"].value;
    if (std::string why = sim::check_at(lab.at); !why.empty()) c.error(kv["at"].line, "lab block: " + why);
  }
  if (kv.count("blocks")) {
    lab.keep_blocks.clear();
    for (const auto& w : words(kv["blocks"].value, true)) {
      long long b = 0;
      if (!parse_int(w, b) || b < 0 || b > 0xFFFFFFFFll)
        c.error(kv["blocks"].line, "lab block: bad block index '" + w + "'");
      else
        lab.keep_blocks.push_back(std::uint32_t(b));
    }
  }
  if (c.errors.size() != before) return std::nullopt;
  return lab;
}

namespace {

// [SECTION] Predicts
// {name} placeholders must be names the facts can hold.
void check_template(const std::string& tmpl, int line, const std::string& what, Ctx& c) {
  auto names = placeholders(tmpl);
  bool fact = false;
  for (const auto& n : names) {
    Quantity q;
    if (n == "answer" || n == "guess") {
      fact = fact || n == "answer";
      continue;
    }
    if (!quantity_from_key(n, q)) {
      c.error(line, what + ": unknown fact '{" + n +
                        "}' (use {answer}, {guess}, a plain name, a metric or ratio:NAME)");
      continue;
    }
    fact = true;
  }
  if (!fact)
    c.error(line, what +
                      ": the explanation must refer to the trace, e.g. {answer} or "
                      "{sectors_per_request}");
}

}  // namespace

std::optional<Predict> parse_predict(const std::vector<std::string>& lines, int fence, Ctx& c) {
  std::size_t before = c.errors.size();
  KVs kv = parse_kv(lines, fence + 1, "predict block",
                    {"question", "answer", "expect", "tolerance", "unit", "explain"}, c);
  Predict p;
  p.line = fence;
  for (const auto& [k, v] : kv) p.key_lines[k] = v.line;
  if (require(kv, "question", "predict", fence, c)) p.question = kv["question"].value;
  if (require(kv, "answer", "predict", fence, c)) {
    std::string why;
    if (!parse_quantity(kv["answer"].value, p.answer, why))
      c.error(kv["answer"].line, "predict block: " + why);
  }
  if (require(kv, "expect", "predict", fence, c)) {
    if (trim(kv["expect"].value) == "recorded") {
      p.expect_recorded = true;
      if (!p.answer.timed())
        c.error(kv["expect"].line, "predict block: 'expect: recorded' needs a timed answer "
                                   "(time_us, throughput or a ratio); give a number");
    } else if (!parse_number(kv["expect"].value, p.expect)) {
      c.error(kv["expect"].line, "predict block: expect must be a number or 'recorded', got '" +
                                     kv["expect"].value + "'");
    }
  }
  if (kv.count("tolerance")) {
    std::string t = kv["tolerance"].value;
    if (!t.empty() && t.back() == '%') {
      p.relative = true;
      t.pop_back();
    }
    if (!parse_number(t, p.tolerance) || p.tolerance < 0) {
      c.error(kv["tolerance"].line, "predict block: tolerance must be a non-negative number "
                                    "or percentage, got '" + kv["tolerance"].value + "'");
    } else if (p.relative) {
      p.tolerance /= 100.0;
    }
  }
  if (kv.count("unit")) p.unit = kv["unit"].value;
  if (require(kv, "explain", "predict", fence, c)) {
    p.explain = kv["explain"].value;
    check_template(p.explain, kv["explain"].line, "predict block", c);
  }
  if (c.errors.size() != before) return std::nullopt;
  return p;
}

namespace {

// [SECTION] Goals
bool parse_condition(const std::string& text, Quantity& quantity, Op& op_out, double& value,
                     std::string& why) {
  auto w = words(text, false);
  static const std::vector<std::pair<std::string, Op>> ops = {
      {"==", Op::Eq}, {"!=", Op::Ne}, {"<=", Op::Le}, {">=", Op::Ge}, {"<", Op::Lt}, {">", Op::Gt}};
  for (std::size_t i = 0; i < w.size(); ++i)
    for (const auto& [s, op] : ops)
      if (w[i] == s) {
        if (i + 2 != w.size()) {
          why = "expected 'QUANTITY " + s + " NUMBER', got '" + text + "'";
          return false;
        }
        std::string qtext;
        for (std::size_t k = 0; k < i; ++k) qtext += w[k] + " ";
        if (!parse_quantity(qtext, quantity, why)) return false;
        if (!parse_number(w[i + 1], value)) {
          why = "'" + w[i + 1] + "' is not a number";
          return false;
        }
        op_out = op;
        return true;
      }
  why = "expected 'QUANTITY OP NUMBER' with OP one of == != < <= > >=, got '" + text + "'";
  return false;
}

// `QUANTITY OP NUMBER`, or several joined by `and`: the first is the target, the rest
// the goal's further conditions.
bool parse_target(const std::string& text, Goal& g, std::string& why) {
  std::vector<std::string> parts(1);
  for (const auto& w : words(text, false)) {
    if (w == "and") {
      parts.emplace_back();
      continue;
    }
    parts.back() += (parts.back().empty() ? "" : " ") + w;
  }
  g.also.clear();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    Condition c;
    if (parts[i].empty() && parts.size() > 1) {
      why = "'and' needs a condition on each side, got '" + text + "'";
      return false;
    }
    if (!parse_condition(parts[i], c.quantity, c.op, c.value, why)) return false;
    if (i == 0) {
      g.quantity = c.quantity;
      g.op = c.op;
      g.value = c.value;
    } else {
      g.also.push_back(c);
    }
  }
  return true;
}

}  // namespace

std::optional<Goal> parse_goal(const std::vector<std::string>& lines, int fence, Ctx& c) {
  std::size_t before = c.errors.size();
  KVs kv = parse_kv(lines, fence + 1, "goal block", {"task", "target", "reach", "needs"}, c);
  Goal g;
  g.line = fence;
  for (const auto& [k, v] : kv) g.key_lines[k] = v.line;
  if (require(kv, "task", "goal", fence, c)) g.text = kv["task"].value;
  bool target = false;
  if (require(kv, "target", "goal", fence, c)) {
    std::string why;
    target = parse_target(kv["target"].value, g, why);
    if (!target) c.error(kv["target"].line, "goal block: target: " + why);
  }
  if (require(kv, "reach", "goal", fence, c))
    parse_params(kv["reach"].value, kv["reach"].line, "goal block: reach", g.reach, c,
                 &g.reach_variant);
  if (kv.count("needs")) {
    std::string n = kv["needs"].value;
    auto w = words(n, false);
    std::string first = w.empty() ? "" : w[0];
    while (!first.empty() && (first.back() == ':' || first.back() == ',')) first.pop_back();
    if (first != "gpu") {
      c.error(kv["needs"].line, "goal block: needs: the only requirement is 'gpu: REASON', "
                                "got '" + n + "'");
    } else {
      g.gpu_only = true;
      g.needs = trim(std::string_view(n).substr(n.find("gpu") + 3));
      while (!g.needs.empty() && (g.needs[0] == ':' || g.needs[0] == ',' || g.needs[0] == ' '))
        g.needs.erase(0, 1);
      if (g.needs.empty())
        c.error(kv["needs"].line,
                "goal block: needs: gpu must say what it needs, e.g. 'gpu: measured time'");
    }
  }
  const auto timed_q = std::find_if(g.also.begin(), g.also.end(),
                                    [](const Condition& x) { return x.quantity.timed(); });
  const Quantity& tq = timed_q == g.also.end() ? g.quantity : timed_q->quantity;
  if (target && tq.timed() && !g.gpu_only)
    c.error(kv["target"].line, "goal block: '" + tq.key() +
                                   "' is a timed quantity: add 'needs: gpu: REASON' (on the "
                                   "emulator it is judged on modelled time)");
  if (c.errors.size() != before) return std::nullopt;
  return g;
}

// [SECTION] A block into its step
void add_block(const std::string& kind, const std::vector<std::string>& content, int no,
               Step& step, Ctx& c) {
  Block marker;
  marker.line = no;
  if (kind == "lab") {
    if (step.lab) {
      c.error(no, "second lab block in step '" + step.title + "' (first at line " +
                      std::to_string(step.lab->line) + "): one lab per step");
    } else if (auto lab = parse_lab(content, no, c)) {
      step.lab = std::move(*lab);
      marker.kind = BlockKind::Lab;
      step.body.push_back(marker);
    }
  } else if (kind == "predict") {
    if (auto p = parse_predict(content, no, c)) {
      marker.kind = BlockKind::Predict;
      marker.index = step.predicts.size();
      step.predicts.push_back(std::move(*p));
      step.body.push_back(marker);
    }
  } else {
    if (auto g = parse_goal(content, no, c)) {
      marker.kind = BlockKind::Goal;
      marker.index = step.goals.size();
      step.goals.push_back(std::move(*g));
      step.body.push_back(marker);
    }
  }
}

}  // namespace ws::lesson::detail
