// Lesson files: front matter, steps at `## ` headings, `lab`/`predict`/`goal` blocks found
// by a line scanner (so every message has a line) and parsed by lesson_blocks.cpp; the prose
// between them goes to md4c (lesson_markdown.cpp: the render tree).
//
// Index (search for "[SECTION] <name>"):
//   Names and small methods of the lesson model
//   Small helpers: words, numbers, quantities
//   The line scanner: fences and step headings (the blocks: lesson_blocks.cpp)
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

#include "app/lesson/lesson_blocks.h"
#include "app/lesson/lesson_internal.h"
#include "app/lesson/lesson_refs.h"
#include "app/lesson/lesson_model.h"
#include "io/read_file.h"

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

// [SECTION] The line scanner: fences and step headings (the blocks: lesson_blocks.cpp)

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

// The text's lines, without their '\n' or '\r\n'.
std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
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
  return lines;
}

// Predicts and goals need a kernel to run: the step's lab or an earlier one.
void check_labs(const Lesson& l, Ctx& c) {
  for (std::size_t s = 0; s < l.steps.size(); ++s) {
    if (l.lab_at(s)) continue;
    for (const auto& p : l.steps[s].predicts)
      c.error(p.line, "predict block in step '" + l.steps[s].title +
                          "' has no lab to run: add a lab block to this or an earlier step");
    for (const auto& g : l.steps[s].goals)
      c.error(g.line, "goal block in step '" + l.steps[s].title +
                          "' has no lab to run: add a lab block to this or an earlier step");
  }
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

  const std::vector<std::string> lines = split_lines(text);

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
      add_block(kind, content, no, *step, c);
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
  check_labs(l, c);

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
