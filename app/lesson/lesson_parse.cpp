// Lesson files: front matter, steps at `## ` headings, `lab`/`predict`/`goal` blocks found
// by a line scanner (so every message has a line); the prose between them goes to md4c
// (lesson_markdown.cpp: the render tree).
//
// Index (search for "[SECTION] <name>"):
//   Names and small methods of the lesson model
//   Small helpers: words, numbers, quantities
//   The line scanner: fences, key-value blocks, labs, predicts, goals
//   Front matter and the whole file
#include "io/read_file.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "app/lesson/lesson_internal.h"
#include "app/lesson/lesson_refs.h"
#include "app/lesson/lesson_model.h"
#include "io/read_file.h"
#include "sim/event_at.h"
#include "viz/views.h"

namespace ws::lesson {

// [SECTION] Names and small methods of the lesson model
std::string_view to_string(BlockKind k) {
  switch (k) {
    case BlockKind::Heading: return "heading";
    case BlockKind::Paragraph: return "paragraph";
    case BlockKind::Code: return "code";
    case BlockKind::List: return "list";
    case BlockKind::ListItem: return "list-item";
    case BlockKind::Quote: return "quote";
    case BlockKind::Rule: return "rule";
    case BlockKind::Lab: return "lab";
    case BlockKind::Predict: return "predict";
    case BlockKind::Goal: return "goal";
  }
  return "?";
}

std::string_view to_string(QuantityKind k) {
  switch (k) {
    case QuantityKind::Metric: return "metric";
    case QuantityKind::Plain: return "plain";
    case QuantityKind::Ratio: return "ratio";
  }
  return "?";
}

std::string_view to_string(Op op) {
  switch (op) {
    case Op::Eq: return "==";
    case Op::Ne: return "!=";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
  }
  return "?";
}

std::string Quantity::key() const {
  return kind == QuantityKind::Ratio ? "ratio:" + name : name;
}

bool Quantity::timed() const {
  if (kind == QuantityKind::Ratio) return true;
  if (kind == QuantityKind::Metric) return false;
  for (const auto& p : plain_quantities())
    if (p.name == name) return p.timed;
  return false;
}

std::string Diagnostic::str() const {
  if (line <= 0) return file + ": " + message;  // about the whole file (unreadable, too large)
  return file + ":" + std::to_string(line) + ": " + message;
}

std::string ParseResult::message() const {
  std::string s;
  for (const auto& e : errors) s += e.str() + "\n";
  return s;
}

const Lab* Lesson::lab_at(std::size_t step) const {
  if (steps.empty()) return nullptr;
  for (std::size_t i = std::min(step, steps.size() - 1) + 1; i-- > 0;)
    if (steps[i].lab) return &*steps[i].lab;
  return nullptr;
}

// [SECTION] Small helpers: words, numbers, quantities

namespace detail {

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

std::vector<std::string> words(std::string_view s, bool commas) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c)) || (commas && c == ',')) {
      if (!cur.empty()) out.push_back(cur), cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool parse_number(std::string_view s, double& out) {
  std::string t = trim(s);
  if (t.empty()) return false;
  const char* b = t.data();
  if (*b == '+') ++b;
  auto [p, ec] = std::from_chars(b, t.data() + t.size(), out);
  return ec == std::errc() && p == t.data() + t.size() && std::isfinite(out);
}

bool parse_int(std::string_view s, long long& out) {
  std::string t = trim(s);
  if (t.empty()) return false;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  return ec == std::errc() && p == t.data() + t.size();
}

bool parse_quantity(std::string_view text, Quantity& q, std::string& why) {
  auto w = words(text, false);
  if (w.empty()) {
    why = "expected a quantity: 'metric NAME', 'ratio NAME' or a plain name";
    return false;
  }
  if (w.size() > 2 || (w.size() == 2 && w[0] != "metric" && w[0] != "ratio")) {
    why = "expected a quantity: 'metric NAME', 'ratio NAME' or a plain name, got '" +
          trim(text) + "'";
    return false;
  }
  if (w.size() == 2 && w[0] == "metric") {
    q = {QuantityKind::Metric, w[1]};
    return true;
  }
  if (w.size() == 2) {
    const std::string& n = w[1];
    if (n == "copy_bandwidth" || n == "peak" || n == "library" ||
        (n.rfind("over:", 0) == 0 && n.size() > 5)) {
      q = {QuantityKind::Ratio, n};
      return true;
    }
    why = "unknown ratio '" + n + "' (ratios: copy_bandwidth, peak, library, over:VARIANT)";
    return false;
  }
  const std::string& n = w[0];
  if (n == "metric" || n == "ratio") {
    why = "'" + n + "' needs a name after it";
    return false;
  }
  for (const auto& p : plain_quantities())
    if (p.name == n) {
      q = {QuantityKind::Plain, n};
      return true;
    }
  if (n.find("__") != std::string::npos) {
    q = {QuantityKind::Metric, n};
    return true;
  }
  why = "unknown quantity '" + n +
        "' (write Nsight Compute names as 'metric NAME'; plain names are listed in "
        "lessons/README.md)";
  return false;
}

bool quantity_from_key(const std::string& key, Quantity& q) {
  if (key.rfind("ratio:", 0) == 0) {
    std::string why;
    return parse_quantity("ratio " + key.substr(6), q, why);
  }
  std::string why;
  if (key.find("__") != std::string::npos) {
    q = {QuantityKind::Metric, key};
    return true;
  }
  return parse_quantity(key, q, why) && q.kind == QuantityKind::Plain;
}

std::vector<std::string> placeholders(const std::string& tmpl) {
  std::vector<std::string> out;
  for (std::size_t i = tmpl.find('{'); i != std::string::npos; i = tmpl.find('{', i + 1)) {
    std::size_t j = tmpl.find('}', i);
    if (j == std::string::npos) break;
    out.push_back(trim(std::string_view(tmpl).substr(i + 1, j - i - 1)));
  }
  return out;
}

}  // namespace detail

using namespace detail;

namespace {

// A lesson is a page of Markdown; anything this large is not one.
constexpr std::uintmax_t kMaxLessonBytes = 4u << 20;

// [SECTION] The line scanner: fences, key-value blocks, labs, predicts, goals

struct Ctx {
  std::string name;
  std::vector<Diagnostic> errors;
  void error(int line, std::string msg) { errors.push_back({name, line, std::move(msg)}); }
};

// A fence line: up to three spaces, then at least three backticks or tildes.
bool fence_open(const std::string& line, char& ch, std::size_t& len, std::string& info) {
  std::size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (i >= line.size() || (line[i] != '`' && line[i] != '~')) return false;
  ch = line[i];
  std::size_t j = i;
  while (j < line.size() && line[j] == ch) ++j;
  len = j - i;
  if (len < 3) return false;
  info = trim(std::string_view(line).substr(j));
  if (ch == '`' && info.find('`') != std::string::npos) return false;
  return true;
}

bool fence_close(const std::string& line, char ch, std::size_t len) {
  std::size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  std::size_t j = i;
  while (j < line.size() && line[j] == ch) ++j;
  return j - i >= len && trim(std::string_view(line).substr(j)).empty();
}

bool step_heading(const std::string& line, std::string& title) {
  std::size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (line.compare(i, 2, "##") != 0) return false;
  i += 2;
  if (i < line.size() && line[i] != ' ' && line[i] != '\t') return false;  // ### or ##x
  std::string t = trim(std::string_view(line).substr(i));
  while (!t.empty() && t.back() == '#') t.pop_back();  // closing hashes
  title = trim(t);
  return true;
}

struct KV {
  std::string value;
  int line = 0;
};
using KVs = std::map<std::string, KV>;

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
                  Ctx& c, std::string* variant = nullptr) {
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

// [SECTION] Front matter and the whole file
void parse_front_matter(const std::vector<std::string>& lines, std::size_t end, Lesson& l,
                        Ctx& c) {
  std::vector<std::string> body(lines.begin() + 1, lines.begin() + std::ptrdiff_t(end));
  KVs kv = parse_kv(body, 2, "front matter", {"title", "level", "minutes", "prerequisites"}, c);
  for (const auto& [k, v] : kv) l.key_lines[k] = v.line;
  const int close = int(end) + 1;
  auto need = [&](const char* k) {
    if (!kv.count(k) || kv[k].value.empty()) {
      c.error(kv.count(k) ? kv[k].line : close,
              std::string("front matter: '") + k + ":' is missing or empty");
      return false;
    }
    return true;
  };
  if (need("title")) l.title = kv["title"].value;
  if (need("level")) {
    l.level = kv["level"].value;
    if (l.level != "beginner" && l.level != "intermediate" && l.level != "advanced")
      c.error(kv["level"].line, "front matter: level must be beginner, intermediate or "
                                "advanced, got '" + l.level + "'");
  }
  if (need("minutes")) {
    long long m = 0;
    if (!parse_int(kv["minutes"].value, m) || m <= 0 || m > 600)
      c.error(kv["minutes"].line, "front matter: minutes must be a whole number from 1 to "
                                  "600, got '" + kv["minutes"].value + "'");
    else
      l.minutes = int(m);
  }
  if (kv.count("prerequisites")) {
    std::string v = kv["prerequisites"].value;
    if (!v.empty() && v.front() == '[') v.erase(0, 1);
    if (!v.empty() && v.back() == ']') v.pop_back();
    for (const auto& p : words(v, true)) {
      bool ok = std::all_of(p.begin(), p.end(), [](char ch) {
        return std::islower(static_cast<unsigned char>(ch)) ||
               std::isdigit(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_';
      });
      if (!ok)
        c.error(kv["prerequisites"].line,
                "front matter: prerequisite '" + p + "' is not a lesson id (a file name "
                "without .md, like 02-coalescing)");
      else
        l.prerequisites.push_back(p);
    }
  }
}

std::string stem_of(const std::string& name) {
  std::string s = name.substr(name.find_last_of('/') == std::string::npos
                                  ? 0
                                  : name.find_last_of('/') + 1);
  if (s.size() > 3 && s.compare(s.size() - 3, 3, ".md") == 0) s.resize(s.size() - 3);
  return s;
}

}  // namespace

// The line (from 1) of the first NUL byte or invalid UTF-8 sequence, 0 when there is none.
int bad_text_line(std::string_view t, bool& nul) {
  int line = 1;
  for (std::size_t i = 0; i < t.size();) {
    const unsigned char b = static_cast<unsigned char>(t[i]);
    if (b == '\n') ++line;
    if (b == 0) {
      nul = true;
      return line;
    }
    std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > t.size()) return line;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(t[i + k]) >> 6) != 0x2) return line;
    i += n;
  }
  return 0;
}

ParseResult parse_lesson_text(const std::string& raw, const std::string& name) {
  Ctx c{name, {}};
  Lesson l;
  l.path = name;
  l.id = stem_of(name);
  // Editors on some systems start UTF-8 files with a byte-order mark: not part of the text.
  const std::string_view text =
      std::string_view(raw).substr(raw.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0);
  bool nul = false;
  if (int bad = bad_text_line(text, nul)) {
    ParseResult r;
    r.errors.push_back({name, bad, nul ? "a NUL byte: a lesson is UTF-8 text, not a binary file"
                                       : "invalid UTF-8 (a lesson is UTF-8 text)"});
    return r;
  }

  std::vector<std::string> lines;
  {
    std::string cur;
    for (char ch : text) {
      if (ch == '\n') {
        if (!cur.empty() && cur.back() == '\r') cur.pop_back();
        lines.push_back(cur);
        cur.clear();
      } else {
        cur += ch;
      }
    }
    if (!cur.empty()) lines.push_back(cur);
  }

  // Front matter: the first line is '---', closed by the next '---'.
  std::size_t i = 0;
  if (lines.empty() || trim(lines[0]) != "---") {
    c.error(1, "missing front matter: the file must start with a '---' line, then title, "
               "level, minutes, prerequisites, then '---'");
  } else {
    std::size_t end = 1;
    while (end < lines.size() && trim(lines[end]) != "---") ++end;
    if (end == lines.size()) {
      c.error(1, "front matter opened here is not closed by a '---' line");
      i = lines.size();
    } else {
      parse_front_matter(lines, end, l, c);
      i = end + 1;
    }
  }

  // Recorded figures (`{{rec ...}}`) become the numbers of the GPU in use, labelled.
  const Recording* rec = quoted_recording();
  auto quote = [&](const std::string& text, int no) {
    if (text.find("{{rec") == std::string::npos) return text;
    std::string why;
    std::string out = expand_recorded_refs(text, rec, why);
    if (!why.empty()) c.error(no, why);
    return out;
  };
  // The body: prose is gathered into `md` until a step heading or a special block.
  std::string md;
  int md_line = int(i) + 1;
  Step* step = nullptr;
  auto flush = [&] {
    if (int deep = render_markdown(md, md_line, step ? step->body : l.intro))
      c.error(deep, "quotes or lists nested more than " + std::to_string(kMaxBlockDepth) +
                        " levels deep (nest less)");
    md.clear();
  };
  for (; i < lines.size(); ++i) {
    const int no = int(i) + 1;
    const std::string& line = lines[i];
    char ch = 0;
    std::size_t len = 0;
    std::string info, title;
    if (fence_open(line, ch, len, info)) {
      std::string kind = words(info, false).empty() ? "" : words(info, false)[0];
      std::size_t close = i + 1;
      while (close < lines.size() && !fence_close(lines[close], ch, len)) ++close;
      const bool special = kind == "lab" || kind == "predict" || kind == "goal";
      if (close == lines.size()) {
        c.error(no, (special ? kind + " block" : std::string("code block")) +
                        " opened here is not closed (no matching " + std::string(len, ch) +
                        " line)");
        break;
      }
      if (!special) {
        for (std::size_t k = i; k <= close; ++k) md += lines[k] + "\n";
        i = close;
        continue;
      }
      std::vector<std::string> content(lines.begin() + std::ptrdiff_t(i) + 1,
                                       lines.begin() + std::ptrdiff_t(close));
      for (std::size_t k = 0; k < content.size(); ++k) content[k] = quote(content[k], no + 1 + int(k));
      if (!step) {
        c.error(no, kind + " block before the first step: blocks belong in a step (after a "
                           "'## ' heading)");
        i = close;
        continue;
      }
      flush();
      Block marker;
      marker.line = no;
      if (kind == "lab") {
        if (step->lab) {
          c.error(no, "second lab block in step '" + step->title + "' (first at line " +
                          std::to_string(step->lab->line) + "): one lab per step");
        } else if (auto lab = parse_lab(content, no, c)) {
          step->lab = std::move(*lab);
          marker.kind = BlockKind::Lab;
          step->body.push_back(marker);
        }
      } else if (kind == "predict") {
        if (auto p = parse_predict(content, no, c)) {
          marker.kind = BlockKind::Predict;
          marker.index = step->predicts.size();
          step->predicts.push_back(std::move(*p));
          step->body.push_back(marker);
        }
      } else {
        if (auto g = parse_goal(content, no, c)) {
          marker.kind = BlockKind::Goal;
          marker.index = step->goals.size();
          step->goals.push_back(std::move(*g));
          step->body.push_back(marker);
        }
      }
      i = close;
      md_line = int(close) + 2;
      continue;
    }
    if (step_heading(line, title)) {
      flush();
      if (title.empty()) c.error(no, "step heading '## ' has no title");
      l.steps.emplace_back();
      step = &l.steps.back();
      step->line = no;
      step->title = title;
      md_line = no + 1;
      continue;
    }
    if (md.empty()) md_line = no;
    md += quote(line, no) + "\n";
  }
  flush();

  if (l.steps.empty() && c.errors.empty())
    c.error(int(lines.size() > 0 ? lines.size() : 1),
            "no steps: a lesson needs at least one '## ' heading");
  // Predicts and goals need a kernel to run: the step's lab or an earlier one.
  for (std::size_t s = 0; s < l.steps.size(); ++s) {
    if (l.lab_at(s)) continue;
    for (const auto& p : l.steps[s].predicts)
      c.error(p.line, "predict block in step '" + l.steps[s].title +
                          "' has no lab to run: add a lab block to this or an earlier step");
    for (const auto& g : l.steps[s].goals)
      c.error(g.line, "goal block in step '" + l.steps[s].title +
                          "' has no lab to run: add a lab block to this or an earlier step");
  }

  ParseResult r;
  std::stable_sort(c.errors.begin(), c.errors.end(),
            [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
  r.errors = std::move(c.errors);
  if (r.errors.empty()) r.lesson = std::move(l);
  return r;
}

ParseResult parse_lesson(const std::string& path) {
  // The one reader: /dev/zero, a FIFO or a directory is refused before a byte is read, a
  // huge file never read whole.
  const io::ReadResult f = io::read_file(path, kMaxLessonBytes, "lesson");
  if (!f.ok) {
    ParseResult bad;
    bad.errors.push_back({path, 0, f.reason + (f.missing ? "" : ": not a lesson")});
    return bad;
  }
  return parse_lesson_text(f.text, path);
}

}  // namespace ws::lesson
