// SASS text: parsing nvdisasm's listing, grouping by source line, checking the model's
// assumptions. No CUDA here.
// Index (search for "[SECTION] <name>"):
//   Instructions and functions
//   Parsing a listing
//   Loads in flight
//   The model's accesses against the SASS
#include "kernels/hardware/sass.h"

#include "io/read_file.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

namespace ws::sass {

// [SECTION] Instructions and functions
std::string_view to_string(MemKind k) {
  switch (k) {
    case MemKind::None: return "none";
    case MemKind::GlobalLoad: return "global load";
    case MemKind::GlobalStore: return "global store";
    case MemKind::GlobalAtomic: return "global atomic";
    case MemKind::SharedLoad: return "shared load";
    case MemKind::SharedStore: return "shared store";
    case MemKind::SharedAtomic: return "shared atomic";
    case MemKind::LocalLoad: return "local load";
    case MemKind::LocalStore: return "local store";
    case MemKind::Barrier: return "barrier";
  }
  return "unknown";
}

namespace {

std::string base_op(const std::string& opcode) { return opcode.substr(0, opcode.find('.')); }

std::vector<std::string> parts(const std::string& opcode) {
  std::vector<std::string> out;
  std::stringstream s(opcode);
  std::string p;
  while (std::getline(s, p, '.')) out.push_back(p);
  return out;
}

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace((unsigned char)s[a])) ++a;
  while (b > a && std::isspace((unsigned char)s[b - 1])) --b;
  return std::string(s.substr(a, b - a));
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

MemKind Instruction::mem() const {
  const std::string b = base_op(opcode);
  if (b == "LDG" || b == "LD") return MemKind::GlobalLoad;
  if (b == "STG" || b == "ST") return MemKind::GlobalStore;
  if (b == "ATOMG" || b == "ATOM" || b == "RED" || b == "REDG") return MemKind::GlobalAtomic;
  if (b == "LDS" || b == "LDSM") return MemKind::SharedLoad;
  if (b == "STS") return MemKind::SharedStore;
  if (b == "ATOMS") return MemKind::SharedAtomic;
  if (b == "LDL") return MemKind::LocalLoad;
  if (b == "STL") return MemKind::LocalStore;
  if (b == "BAR") return MemKind::Barrier;
  return MemKind::None;
}

unsigned Instruction::width_bits() const {
  const MemKind k = mem();
  if (k == MemKind::None || k == MemKind::Barrier) return 0;
  // LDSM (ldmatrix): each lane names one 16-byte row, as the model's event says.
  if (base_op(opcode) == "LDSM") return 128;
  unsigned w = 32;
  for (const std::string& p : parts(opcode)) {
    if (p == "64") w = 64;
    else if (p == "128") w = 128;
    else if (p == "U8" || p == "S8") w = 8;
    else if (p == "U16" || p == "S16") w = 16;
  }
  return w;
}

std::string Instruction::text() const {
  std::string t = predicate.empty() ? opcode : predicate + " " + opcode;
  if (!operands.empty()) t += " " + operands;
  return t;
}

int Function::spill_stores() const {
  return int(std::count_if(code.begin(), code.end(),
                           [](const Instruction& i) { return i.mem() == MemKind::LocalStore; }));
}
int Function::spill_loads() const {
  return int(std::count_if(code.begin(), code.end(),
                           [](const Instruction& i) { return i.mem() == MemKind::LocalLoad; }));
}

const Function* Listing::find_instance(const std::string& instance) const {
  for (const Function& f : functions)
    if (f.instance == instance) return &f;
  return nullptr;
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : mangled;
}

std::string instance_of(const std::string& demangled) {
  const std::string key = "ws_entry<";
  const std::size_t at = demangled.find(key);
  if (at == std::string::npos) return "";
  std::size_t i = at + key.size();
  int depth = 1;
  std::size_t end = i;
  for (; end < demangled.size() && depth > 0; ++end) {
    if (demangled[end] == '<') ++depth;
    if (demangled[end] == '>') --depth;
  }
  if (depth != 0) return "";
  std::string inner = demangled.substr(i, end - 1 - i);
  for (const std::string ns : {"ws::fast::", "ws::traced::", "ws::emu::", "ws::"}) {
    for (std::size_t p; (p = inner.find(ns)) != std::string::npos;) inner.erase(p, ns.size());
  }
  return trim(inner);
}

namespace {
// A count or line number of the listing: digits that fit an int (atoi's overflow is
// undefined behaviour).
bool whole_number(const std::string& digits, int& out) {
  const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
  return ec == std::errc() && p == digits.data() + digits.size();
}

// ECMAScript's \s; '.' there stops at \n and \r, so a line holding \r matches no `(.*)$`.
bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
std::size_t skip_space(const std::string& s, std::size_t i) {
  while (i < s.size() && space(s[i])) ++i;
  return i;
}
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; }
// `.text.NAME` at i, then the end of NAME; npos when there is none.
std::size_t text_name(const std::string& s, std::size_t i, std::string& name) {
  if (s.compare(i, 6, ".text.") != 0) return std::string::npos;
  std::size_t e = i + 6;
  while (e < s.size() && name_char(s[e])) ++e;
  if (e == i + 6) return std::string::npos;
  name = s.substr(i + 6, e - i - 6);
  return e;
}
}  // namespace

// The listing's line shapes, matched by hand: with std::regex the parse was half of a small
// emulator run's process time (every run parses its family's listing for its loads in
// flight). tests/kernels/hardware/test_sass.cpp holds the regexes they replace and checks
// both agree on every line of every recorded listing.
namespace match {
bool instruction(const std::string& line, std::string& hex, std::string& rest) {
  std::size_t i = skip_space(line, 0);
  if (line.compare(i, 2, "/*") != 0) return false;
  std::size_t e = i + 2;
  while (e < line.size() && std::isxdigit(static_cast<unsigned char>(line[e]))) ++e;
  if (e == i + 2 || line.compare(e, 2, "*/") != 0) return false;
  const std::size_t r = skip_space(line, e + 2);
  if (line.find_first_of("\r\n", r) != std::string::npos) return false;
  hex = line.substr(i + 2, e - i - 2);
  rest = line.substr(r);
  return true;
}

bool file_line(const std::string& line, std::string& file, std::string& number) {
  for (std::size_t at = line.find("//##"); at != std::string::npos; at = line.find("//##", at + 1)) {
    std::size_t i = skip_space(line, at + 4);
    if (line.compare(i, 4, "File") != 0) continue;
    std::size_t j = skip_space(line, i + 4);
    if (j == i + 4 || j >= line.size() || line[j] != '"') continue;
    const std::size_t q = line.find('"', j + 1);
    if (q == std::string::npos || q == j + 1 || q + 1 >= line.size() || line[q + 1] != ',') continue;
    std::size_t k = skip_space(line, q + 2);
    if (line.compare(k, 4, "line") != 0) continue;
    std::size_t d = skip_space(line, k + 4);
    if (d == k + 4) continue;
    std::size_t e = d;
    while (e < line.size() && std::isdigit(static_cast<unsigned char>(line[e]))) ++e;
    if (e == d) continue;
    file = line.substr(j + 1, q - j - 1);
    number = line.substr(d, e - d);
    return true;
  }
  return false;
}

bool label(const std::string& line, std::string& name) {
  const std::size_t e = text_name(line, skip_space(line, 0), name);
  if (e == std::string::npos || e >= line.size() || line[e] != ':') return false;
  return skip_space(line, e + 1) == line.size();
}

bool marker(const std::string& line, std::string& name) {
  std::size_t i = skip_space(line, 0);
  if (line.compare(i, 3, "//-") != 0) return false;
  i += 2;
  while (i < line.size() && line[i] == '-') ++i;
  std::size_t e = text_name(line, skip_space(line, i), name);
  if (e == std::string::npos) return false;
  e = skip_space(line, e);
  while (e < line.size() && line[e] == '-') ++e;
  return skip_space(line, e) == line.size();
}
}  // namespace match

// [SECTION] Parsing a listing
bool parse(std::string_view text, Listing& out, std::string& err) {
  out = Listing{};
  constexpr std::size_t kMaxLineLength = 1024;
  static const std::regex kv_re(R"((\w+)=(\S+))");
  static const std::regex res_re(R"((REG|STACK|SHARED|LOCAL):(\d+))");
  std::vector<Location> block;  // the location lines printed last
  bool block_open = false;      // more location lines extend the current block
  std::size_t lineno = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string line(text.substr(pos, nl - pos));
    pos = nl + 1;
    ++lineno;
    // std::regex recurses once per character it matches: a line of a few hundred
    // kilobytes would run it out of stack. A listing's lines are under 200 characters.
    if (line.size() > kMaxLineLength) {
      err = "line " + std::to_string(lineno) + " is " + std::to_string(line.size()) +
            " characters long, more than a SASS listing's " + std::to_string(kMaxLineLength);
      return false;
    }
    if (line.find("//## warpscope") != std::string::npos) {
      for (auto it = std::sregex_iterator(line.begin(), line.end(), kv_re); it != std::sregex_iterator(); ++it) {
        const std::string k = (*it)[1], v = (*it)[2];
        if (k == "family") out.family = v;
        else if (k == "source_hash") out.source_hash = v;
        else if (k == "compiler") out.compiler = v;
        else if (k == "arch") out.arch = v;
      }
      continue;
    }
    if (line.find("//## resources") != std::string::npos) {
      if (out.functions.empty()) continue;
      Function& f = out.functions.back();
      for (auto it = std::sregex_iterator(line.begin(), line.end(), res_re); it != std::sregex_iterator(); ++it) {
        const std::string k = (*it)[1];
        int v = 0;
        if (!whole_number((*it)[2].str(), v)) {
          err = "line " + std::to_string(lineno) + ": " + k + " count " + (*it)[2].str().substr(0, 20) + " is out of range";
          return false;
        }
        if (k == "REG") f.registers = v;
        else if (k == "STACK") f.stack = v;
        else if (k == "SHARED") f.shared = v;
        else if (k == "LOCAL") f.local = v;
      }
      continue;
    }
    std::string a, b;
    if (match::file_line(line, a, b)) {
      if (!block_open) block.clear();
      int at = 0;
      if (!whole_number(b, at)) {
        err = "line " + std::to_string(lineno) + ": line number " + b.substr(0, 20) + " is out of range";
        return false;
      }
      block.push_back(Location{a, at});
      block_open = true;
      continue;
    }
    if (match::label(line, a) || match::marker(line, a)) {
      const std::string name = a;
      if (out.functions.empty() || out.functions.back().mangled != name) {
        Function f;
        f.mangled = name;
        f.demangled = demangle(name);
        f.instance = instance_of(f.demangled);
        out.functions.push_back(std::move(f));
        block.clear();
      }
      block_open = false;
      continue;
    }
    if (match::instruction(line, a, b)) {
      block_open = false;
      std::string body = b;
      if (auto semi = body.find(';'); semi != std::string::npos) body.resize(semi);
      for (char& c : body)
        if (c == '{' || c == '}') c = ' ';
      body = trim(body);
      if (body.empty()) continue;
      if (out.functions.empty()) {
        err = "line " + std::to_string(lineno) + ": an instruction before any function";
        return false;
      }
      Instruction ins;
      ins.offset = std::uint32_t(std::strtoul(a.c_str(), nullptr, 16));
      std::size_t p = 0;
      auto next_token = [&] {
        while (p < body.size() && body[p] == ' ') ++p;
        std::size_t e = body.find(' ', p);
        if (e == std::string::npos) e = body.size();
        std::string t = body.substr(p, e - p);
        p = e;
        return t;
      };
      std::string tok = next_token();
      if (!tok.empty() && tok[0] == '@') {
        ins.predicate = tok;
        tok = next_token();
      }
      ins.opcode = tok;
      ins.operands = trim(std::string_view(body).substr(std::min(p, body.size())));
      ins.where = block;
      out.functions.back().code.push_back(std::move(ins));
      continue;
    }
    // labels (.L_x_1:), directives and blank lines end nothing
  }
  return true;
}

std::map<int, std::vector<const Instruction*>> by_line(const Function& f, const std::string& file) {
  std::map<int, std::vector<const Instruction*>> out;
  for (const Instruction& i : f.code) {
    for (const Location& l : i.where) {
      if (ends_with(l.file, file)) {
        out[l.line].push_back(&i);
        break;
      }
    }
  }
  return out;
}

namespace {

// The general registers an operand list names (R0..R254; RZ and uniform URn are not
// registers of the warp's scoreboard), a ".64" operand naming the pair.
// [SECTION] Loads in flight
std::vector<unsigned> registers_named(const std::string& ops) {
  std::vector<unsigned> out;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i] != 'R' || (i > 0 && (std::isalnum((unsigned char)ops[i - 1]) || ops[i - 1] == '_')))
      continue;
    std::size_t j = i + 1;
    unsigned r = 0;
    while (j < ops.size() && std::isdigit((unsigned char)ops[j])) r = r * 10 + unsigned(ops[j++] - '0');
    if (j == i + 1) continue;  // RZ, or a word that starts with R
    out.push_back(r);
    if (ops.compare(j, 3, ".64") == 0) out.push_back(r + 1);
    i = j - 1;
  }
  return out;
}

bool ends_a_batch(const std::string& opcode) {
  static const std::set<std::string> flow = {"BRA", "BRX", "JMP", "JMX", "EXIT", "RET", "CALL",
                                             "BAR", "BSYNC", "WARPSYNC", "YIELD", "DEPBAR"};
  return flow.count(base_op(opcode)) > 0;
}

}  // namespace

LoadBatch widest_load_batch(const Function& f) {
  LoadBatch best, cur;
  std::set<unsigned> pending;  // registers the current run's loads write
  const auto close = [&] {
    if (cur.loads > best.loads || (cur.loads == best.loads && cur.lane_bytes > best.lane_bytes))
      best = cur;
    cur = {};
    pending.clear();
  };
  for (const Instruction& i : f.code) {
    if (ends_a_batch(i.opcode)) {
      close();
      continue;
    }
    const std::vector<unsigned> regs = registers_named(i.operands);
    if (std::any_of(regs.begin(), regs.end(), [&](unsigned r) { return pending.count(r) > 0; }))
      close();
    if (i.mem() != MemKind::GlobalLoad) continue;
    ++cur.loads;
    cur.lane_bytes += i.width_bits() / 8;
    // The destination is the first operand: width / 32 consecutive registers (none for RZ).
    if (!regs.empty() && i.operands.rfind("RZ", 0) != 0)
      for (unsigned k = 0; k < std::max(1u, i.width_bits() / 32); ++k) pending.insert(regs[0] + k);
  }
  close();
  return best;
}

// [SECTION] The model's accesses against the SASS
std::map<int, std::vector<ModelAccess>> model_accesses(const std::vector<WarpEvent>& events) {
  std::map<int, std::vector<ModelAccess>> out;
  std::set<std::tuple<int, int, unsigned>> seen;
  for (const WarpEvent& e : events) {
    MemKind k = MemKind::None;
    switch (e.kind) {
      case EventKind::GlobalLoad: k = MemKind::GlobalLoad; break;
      case EventKind::GlobalStore: k = MemKind::GlobalStore; break;
      case EventKind::GlobalAtomic: k = MemKind::GlobalAtomic; break;
      case EventKind::SharedLoad: k = MemKind::SharedLoad; break;
      case EventKind::SharedStore: k = MemKind::SharedStore; break;
      case EventKind::SharedAtomic: k = MemKind::SharedAtomic; break;
      default: continue;
    }
    if (seen.insert({e.line, int(k), e.bytes}).second) out[e.line].push_back({k, e.bytes});
  }
  return out;
}

namespace {

const char* op_name(MemKind k) {
  switch (k) {
    case MemKind::GlobalLoad: return "LDG";
    case MemKind::GlobalStore: return "STG";
    case MemKind::GlobalAtomic: return "ATOMG/RED";
    case MemKind::SharedLoad: return "LDS";
    case MemKind::SharedStore: return "STS";
    case MemKind::SharedAtomic: return "ATOMS";
    default: return "";
  }
}

bool modelled_kind(MemKind k) {
  return k == MemKind::GlobalLoad || k == MemKind::GlobalStore || k == MemKind::GlobalAtomic ||
         k == MemKind::SharedLoad || k == MemKind::SharedStore || k == MemKind::SharedAtomic;
}

}  // namespace

std::map<int, std::string> differences(const std::map<int, std::vector<const Instruction*>>& sass,
                                       const std::map<int, std::vector<ModelAccess>>& model) {
  std::set<int> lines;
  for (const auto& [l, v] : sass) lines.insert(l);
  for (const auto& [l, v] : model) lines.insert(l);
  std::map<int, std::string> out;
  for (int l : lines) {
    std::vector<const Instruction*> ins;
    if (auto it = sass.find(l); it != sass.end()) ins = it->second;
    std::vector<ModelAccess> acc;
    if (auto it = model.find(l); it != model.end()) acc = it->second;
    std::string note;
    auto add = [&](const std::string& s) { note += (note.empty() ? "" : " ") + s; };
    std::set<MemKind> sass_kinds;
    for (const Instruction* i : ins)
      if (modelled_kind(i->mem())) sass_kinds.insert(i->mem());
    // Wider than the source's access: several accesses fused into one instruction.
    std::set<std::string> said;
    for (const Instruction* i : ins) {
      const MemKind k = i->mem();
      if (!modelled_kind(k)) continue;
      unsigned model_bytes = 0;
      for (const ModelAccess& a : acc)
        if (a.kind == k) model_bytes = std::max(model_bytes, a.bytes);
      const unsigned bytes = i->width_bits() / 8;
      if (model_bytes && bytes > model_bytes && said.insert(i->opcode).second) {
        char b[256];
        std::snprintf(b, sizeof b,
                      "%s moves %u bytes per lane where the source's %s is %u: the compiler "
                      "fused %u accesses into one instruction, so the hardware counts fewer, "
                      "wider requests than the model.",
                      i->opcode.c_str(), bytes, std::string(to_string(k)).c_str(), model_bytes,
                      bytes / model_bytes);
        add(b);
      }
    }
    // A kind of access the model sees here with no instruction of that kind on this line.
    std::set<MemKind> model_kinds;
    for (const ModelAccess& a : acc) model_kinds.insert(a.kind);
    for (MemKind k : model_kinds) {
      if (!sass_kinds.count(k))
        add("The source's " + std::string(to_string(k)) + " on this line has no " + op_name(k) +
            " here: the compiler merged it with another line's instruction (a predicated "
            "store for both branches, say) or removed it.");
    }
    // An instruction the model does not see on this line (only where the model saw the
    // line at all: a line the kept blocks never reached says nothing).
    if (!acc.empty()) {
      for (MemKind k : sass_kinds)
        if (!model_kinds.count(k))
          add(std::string("The SASS has a ") + op_name(k) + " on this line where the source has no " +
              std::string(to_string(k)) + ": moved here from another line.");
    }
    if (!note.empty()) out[l] = note;
  }
  return out;
}

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string source_hash(const std::string& family_header_text, const std::string& simt_h,
                        const std::string& simt_cuda_h) {
  char b[32];
  std::snprintf(b, sizeof b, "%016llx",
                (unsigned long long)fnv1a(family_header_text + simt_h + simt_cuda_h));
  return b;
}

std::string read_from_roots(const std::string& rel, const std::vector<std::string>& roots,
                            std::string& err) {
  for (const std::string& r : roots) {
    const std::filesystem::path p = std::filesystem::path(r) / rel;
    std::error_code ec;
    if (!std::filesystem::exists(p, ec)) continue;
    // The one reader: a directory or FIFO in a listing's place is named, not hung on.
    io::ReadResult f = io::read_file(p.string(), io::kDefaultReadCap, "recorded SASS");
    if (!f.ok) {
      err = f.error;
      return "";
    }
    return std::move(f.text);
  }
  err = rel + " was not found under " + std::to_string(roots.size()) + " source root(s)";
  return "";
}

Loaded load_family(const std::string& family, const std::string& source_file,
                   const std::vector<std::string>& roots) {
  Loaded l;
  const std::string rel = "assets/sass/" + family + ".sass";
  std::string err;
  const std::string text = read_from_roots(rel, roots, err);
  if (text.empty()) {
    l.error = "no recorded SASS for " + family + ": " + err;
    return l;
  }
  if (!parse(text, l.listing, err)) {
    l.error = rel + ": " + err;
    return l;
  }
  std::string e1, e2, e3;
  const std::string a = read_from_roots(source_file, roots, e1);
  const std::string b = read_from_roots("kernels/dialect/simt.h", roots, e2);
  const std::string c = read_from_roots("kernels/dialect/simt_cuda.h", roots, e3);
  if (!a.empty() && !b.empty() && !c.empty()) {
    l.current_hash = source_hash(a, b, c);
    l.stale = l.current_hash != l.listing.source_hash;
  }
  return l;
}

}  // namespace ws::sass
