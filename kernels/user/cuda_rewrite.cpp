// The rewrite's emitters (cuda_front_internal.h): what each construct the walk
// (cuda_front.cpp) meets becomes (edits at byte offsets of the student's text, none adding
// or removing a newline), the edits applied, and the struct the job binds.
// Index (search for "[SECTION] <name>"):
//   Branches, declarations, shared arrays
//   Accesses: subscripts, dereferences, casts, built-in variables
//   The result
#include "kernels/user/cuda_front_internal.h"

#include <algorithm>
#include <cstring>
#include <regex>

namespace ws::cuda::front {

namespace {

const char* const kBuiltinVars[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

// [SECTION] Branches, declarations, shared arrays
void Front::wrap_condition(CXCursor c, int depth) {
  const CXCursorKind k = clang_getCursorKind(c);
  const std::vector<Tok> t = tokens(c);
  if (k == CXCursor_ConditionalOperator) {
    std::vector<CXCursor> ch = children(c);
    unsigned b = 0, e = 0;
    if (!ch.empty() && range(ch[0], b, e)) wrap_range(b, e, depth);
    return;
  }
  if (k == CXCursor_DoStmt) {
    std::vector<CXCursor> ch = children(c);
    unsigned b = 0, e = 0;
    if (ch.size() == 2 && range(ch[1], b, e)) wrap_range(b, e, depth);
    return;
  }
  // if / while / for: the parenthesised head after the keyword.
  std::size_t at = 1;
  if (at < t.size() && t[at].s == "constexpr") return;  // decided at compile time
  if (at >= t.size() || t[at].s != "(") return;
  int level = 0;
  std::vector<std::size_t> semis;
  std::size_t close_at = 0;
  for (std::size_t k2 = at; k2 < t.size(); ++k2) {
    const std::string& s = t[k2].s;
    if (s == "(" || s == "[" || s == "{") ++level;
    if (s == ")" || s == "]" || s == "}") {
      if (--level == 0) {
        close_at = k2;
        break;
      }
    }
    if (s == ";" && level == 1) semis.push_back(k2);
  }
  if (!close_at) return;
  unsigned b = 0, e = 0;
  if (k == CXCursor_ForStmt) {
    if (semis.size() != 2) return;
    b = t[semis[0]].e;
    e = t[semis[1]].b;
  } else {
    // After an init-statement; a condition that declares a variable is left as it is.
    const std::size_t from = semis.empty() ? at : semis.back();
    for (std::size_t k2 = from + 1; k2 < close_at; ++k2)
      if (t[k2].s == "=" && k2 >= from + 2 && t[k2 - 1].s != "=" ) {
        // `if (int x = f())`: a declaration (Clang gives the statement a VarDecl child).
        for (CXCursor ch : children(c))
          if (clang_getCursorKind(ch) == CXCursor_VarDecl) {
            unsigned vb = 0, ve = 0;
            if (range(ch, vb, ve) && vb >= t[from].e) return;
          }
        break;
      }
    b = t[from].e;
    e = t[close_at].b;
  }
  while (b < e && is_space(src_[b])) ++b;
  while (e > b && is_space(src_[e - 1])) --e;
  wrap_range(b, e, depth);
}

// A declaration with a pointer type (a parameter, a local): its type becomes a Ptr, and
// `auto` becomes the type Clang deduced, so a subscript's result is a value, not a Ref.
void Front::typed_decl(CXCursor c, int depth) {
  (void)depth;
  CXType ty = clang_getCanonicalType(clang_getCursorType(c));
  unsigned b = 0, e = 0, name = 0;
  if (!range(c, b, e) || !where(clang_getCursorLocation(c), name)) return;
  const std::string nm = str(clang_getCursorSpelling(c));
  const int line = line_of(c);
  if (nm.empty() || name < b || !text_is(name, nm)) return;
  if (ty.kind == CXType_Pointer) {
    CXType pointee = clang_getCanonicalType(clang_getPointeeType(ty));
    if (pointee.kind == CXType_FunctionProto || pointee.kind == CXType_FunctionNoProto) return;
    if (pointee.kind == CXType_Pointer) {
      fail(line, "a pointer to a pointer (" + nm + ") is not supported in a kernel");
      return;
    }
    if (b == name) return;  // no type written (a lambda capture): nothing to replace
    if (shared_done_.count(b)) {
      fail(line, "declare each pointer in its own statement (" + nm + ")");
      return;
    }
    shared_done_.insert(b);
    replace(b, name - b, ptr_type(pointee) + " ");
    return;
  }
  // `auto x = p[i];` holds the value.
  const std::vector<Tok> t = tokens(c);
  for (const Tok& k : t) {
    if (k.b >= name) break;
    if (k.s == "auto") {
      std::string spelled = clean_type(str(clang_getTypeSpelling(ty)));
      if (ty.kind == CXType_Record || ty.kind == CXType_Elaborated || spelled.find('<') != std::string::npos ||
          spelled.find("(") != std::string::npos)
        return;  // a lambda or a class: leave auto
      replace(k.b, 4, spelled);
      return;
    }
  }
}

// `__shared__ float tile[32][33];` -> `auto tile = ::ws::cu::shared2d<float>(32, 33, "tile", 0x80);`
void Front::shared_decl(CXCursor stmt, CXCursor var) {
  const int line = line_of(var);
  const std::string nm = str(clang_getCursorSpelling(var));
  unsigned b = 0, e = 0;
  if (!range(stmt, b, e)) return;
  if (children(stmt).size() != 1) {
    fail(line, "declare each __shared__ array in its own statement");
    return;
  }
  while (e > b && (src_[e - 1] == ';' || is_space(src_[e - 1]))) --e;
  CXType ty = clang_getCanonicalType(clang_getCursorType(var));
  const std::string id = std::to_string(0x80 + shared_count_++);
  std::string repl;
  bool is_extern = false;
  for (const Tok& k : tokens(stmt)) is_extern = is_extern || k.s == "extern";
  if (ty.kind == CXType_ConstantArray) {
    CXType el = clang_getCanonicalType(clang_getArrayElementType(ty));
    const long long n0 = clang_getArraySize(ty);
    if (el.kind == CXType_ConstantArray) {
      CXType el2 = clang_getCanonicalType(clang_getArrayElementType(el));
      if (el2.kind == CXType_ConstantArray) {
        fail(line, "a __shared__ array of three or more dimensions is not supported");
        return;
      }
      repl = "auto " + nm + " = ::ws::cu::shared2d<" + clean_type(str(clang_getTypeSpelling(el2))) +
             ">(" + std::to_string(n0) + ", " + std::to_string(clang_getArraySize(el)) + ", \"" + nm +
             "\", " + id + ")";
    } else {
      repl = "auto " + nm + " = ::ws::cu::shared1d<" + clean_type(str(clang_getTypeSpelling(el))) +
             ">(" + std::to_string(n0) + ", \"" + nm + "\", " + id + ")";
    }
  } else if (ty.kind == CXType_IncompleteArray && is_extern) {
    CXType el = clang_getCanonicalType(clang_getArrayElementType(ty));
    const long long start = (shared_end_ + 15) / 16 * 16;
    repl = "auto " + nm + " = ::ws::cu::shared_extern<" + clean_type(str(clang_getTypeSpelling(el))) +
           ">(\"" + nm + "\", " + id + ", " + std::to_string(start) + ")";
  } else if (ty.kind == CXType_DependentSizedArray) {
    fail(line, "the size of __shared__ array " + nm + " must be a constant");
    return;
  } else if (ty.kind == CXType_Pointer || ty.kind == CXType_IncompleteArray) {
    fail(line, "__shared__ " + nm + " must be an array (or extern __shared__ T " + nm + "[])");
    return;
  } else {
    repl = "auto " + nm + " = ::ws::cu::shared_var<" + clean_type(str(clang_getTypeSpelling(ty))) +
           ">(\"" + nm + "\", " + id + ")";
  }
  // Static arrays are carved in order at 16-byte boundaries (cuda_emu.h's shared_alloc).
  const long long size = clang_Type_getSizeOf(ty);
  if (size > 0) shared_end_ = (shared_end_ + 15) / 16 * 16 + size;
  replace(b, e - b, repl);
}

// a[i] -> ::ws::cu::at(a, i) (addr() under &): the access the emulator traces.
// [SECTION] Accesses: subscripts, dereferences, casts, built-in variables
void Front::subscript(CXCursor c, int depth, int line) {
  std::vector<Tok> t = tokens(c);
  unsigned b = 0, e = 0;
  if (!range(c, b, e) || t.empty() || t.back().s != "]" || t.back().e != e) {
    fail(line, "an array access written through a macro is not supported: write it out");
    return;
  }
  // The `[` that matches the last `]`.
  int level = 0;
  std::size_t lb = t.size();
  for (std::size_t i = t.size(); i-- > 0;) {
    if (t[i].s == "]") ++level;
    if (t[i].s == "[" && --level == 0) {
      lb = i;
      break;
    }
  }
  if (lb == t.size() || lb == 0) {
    fail(line, "an array access written through a macro is not supported: write it out");
    return;
  }
  const bool addr = addr_of_.count(b) > 0;
  open(b, addr ? "::ws::cu::addr(" : "::ws::cu::at(", depth);
  replace(t[lb].b, 1, ", ");
  replace(t.back().b, 1, ")");
}

// *p -> ::ws::cu::deref(p); &a[i] marks the subscript as an address.
void Front::unary(CXCursor c, int depth) {
  std::vector<Tok> t = tokens(c);
  unsigned b = 0, e = 0;
  if (t.empty() || !range(c, b, e) || t[0].b != b) return;
  std::vector<CXCursor> ch = children(c);
  if (ch.size() != 1) return;
  if (t[0].s == "*") {
    CXType ot = clang_getCanonicalType(clang_getCursorType(ch[0]));
    if (ot.kind == CXType_Record) return;  // an overloaded *
    replace(b, 1, "::ws::cu::deref(");
    close(e, ")", depth);
  } else if (t[0].s == "&") {
    CXCursor inner = ch[0];
    while (clang_getCursorKind(inner) == CXCursor_ParenExpr) {
      auto in2 = children(inner);
      if (in2.size() != 1) break;
      inner = in2[0];
    }
    if (clang_getCursorKind(inner) == CXCursor_ArraySubscriptExpr) {
      unsigned ib = 0, ie = 0;
      if (range(inner, ib, ie)) {
        addr_of_.insert(ib);
        replace(b, 1, " ");
      }
    } else if (clang_getCursorKind(inner) == CXCursor_UnaryOperator) {
      // &*p is p
    } else {
      CXType it = clang_getCanonicalType(clang_getCursorType(inner));
      (void)it;
    }
  }
}

// A cast to a pointer type -> ::ws::cu::cast<T>(...), which keeps the array it points into.
void Front::pointer_cast(CXCursor c, CXCursorKind k, int depth) {
  CXType to = clang_getCanonicalType(clang_getCursorType(c));
  if (to.kind != CXType_Pointer) return;
  std::vector<CXCursor> ch = children(c);
  if (ch.empty()) return;
  CXCursor operand = ch.back();
  unsigned b = 0, e = 0, ob = 0, oe = 0;
  if (!range(c, b, e) || !range(operand, ob, oe) || ob <= b) return;
  CXType pointee = clang_getCanonicalType(clang_getPointeeType(to));
  const std::string T = clean_type(str(clang_getTypeSpelling(pointee)));
  if (k == CXCursor_CStyleCastExpr) {
    replace(b, ob - b, "::ws::cu::cast<" + T + ">(");
    close(oe, ")", depth);
  } else {
    // reinterpret_cast<T*>( operand ) : replace up to and with the `(`.
    std::vector<Tok> t = tokens(c);
    std::size_t paren = 0;
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t[i].s == "(" && t[i].e <= ob) paren = i;
    if (!paren) return;
    replace(b, t[paren].e - b, "::ws::cu::cast<" + T + ">(");
  }
}

// threadIdx and friends -> ::ws::cu::threadIdx() (the emulator's lane).
void Front::builtin_ref(CXCursor c, int line) {
  CXCursor ref = clang_getCursorReferenced(c);
  const std::string nm = str(clang_getCursorSpelling(c));
  unsigned rb = 0;
  if (clang_Cursor_isNull(ref) || where(clang_getCursorLocation(ref), rb)) return;
  for (const char* v : kBuiltinVars)
    if (nm == v) {
      unsigned b = 0, e = 0;
      if (range(c, b, e) && text_is(b, nm) && e - b == nm.size())
        replace(b, unsigned(nm.size()), std::string("::ws::cu::") + v + "()");
      else
        fail(line, std::string(v) + " written through a macro is not supported: write it out");
    }
}

// [SECTION] The result
std::string Front::apply() {
  std::stable_sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) {
    if (a.off != b.off) return a.off < b.off;
    if (a.phase != b.phase) return a.phase < b.phase;
    if (a.phase == 1) return a.depth < b.depth;   // outer opening first
    if (a.phase == 0) return a.depth > b.depth;   // inner closing first
    return false;
  });
  std::string out;
  out.reserve(src_.size() * 2);
  unsigned at = 0;
  for (const Edit& e : edits_) {
    if (e.off < at) {
      // Two replacements overlap: a construct written in a way the rewrite cannot split.
      int line = 1 + int(std::count(src_.begin(), src_.begin() + e.off, '\n'));
      fail(line, "this line combines constructs the emulator cannot rewrite: split the statement");
      continue;
    }
    out.append(src_, at, e.off - at);
    out += e.text;
    at = e.off + e.len;
  }
  out.append(src_, at, std::string::npos);
  return out;
}

// The rewritten text: the edits applied, the headers the prelude stands in for blanked,
// a #line to the student's file, and the struct the job binds, at the kernel's line.
void Front::emit(Translation& tr) {
  std::string body = apply();
  // Headers the prelude stands in for are blanked (same line count).
  for (const char* h : kEmptyHeaders) {
    const std::regex inc(std::string("#[ \\t]*include[ \\t]*[<\"]") + h + "[>\"]");
    body = std::regex_replace(body, inc, "");
  }
  std::string q = path_;
  std::string esc;
  for (char ch : q) {
    if (ch == '\\' || ch == '"') esc += '\\';
    esc += ch;
  }
  tr.text = "#line 1 \"" + esc + "\"\n" + body;
  if (!tr.text.empty() && tr.text.back() != '\n') tr.text += '\n';
  // The struct the job constructs, attributed to the kernel's line.
  tr.text += "#line " + std::to_string(tr.kernel_line) + " \"" + esc + "\"\n";
  std::string members, call;
  for (const Param& p : tr.params) {
    if (p.pointer)
      members += "Global<" + std::string(p.is_const ? "const " : "") + p.type + "> " + p.name + "; ";
    else
      members += p.type + " " + p.name + "; ";
    call += (call.empty() ? "" : ", ") +
            (p.pointer ? "::ws::cu::ptr(" + p.name + ")" : p.name);
  }
  tr.text += std::string("struct ") + Translation::kStruct + " { " + members +
             "WS_DEVICE void operator()(Thread&) const { " + tr.kernel + "(" + call + "); } };\n";
}

}  // namespace ws::cuda::front
