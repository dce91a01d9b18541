// The CUDA front end (cuda_front.h): libclang parses the student's file as CUDA; a walk of
// its AST collects edits (replacements and insertions at byte offsets of the student's
// text), which are applied without adding or removing a newline.
// Index (search for "[SECTION] <name>"):
//   The prelude Clang parses with the student's file
//   The front end: Clang's cursors -> edits of the student's text
//   Branches, declarations, shared arrays, kernels
//   Accesses: subscripts, dereferences, casts, built-in variables
//   The walk and the result
//   Entry points
#include "kernels/user/cuda_front.h"

// libclang is loaded when first needed, not linked (libclang_api.h).
#define WS_LIBCLANG_CALLS_THROUGH_TABLE
#include "kernels/user/libclang_api.h"

#include <algorithm>
#include <deque>
#include <mutex>
#include <cstring>
#include <functional>
#include <map>
#include <regex>
#include <set>

namespace ws::cuda {

namespace {

constexpr const char* kPreludeName = "/ws-cuda/ws_cuda_prelude.h";
constexpr const char* kIncludeDir = "/ws-cuda";

// What Clang parses the student's file with: CUDA's keywords as Clang's attributes (as
// Clang's own CUDA wrapper header spells them) and the built-ins a kernel may use. No
// CUDA installation is needed.
// [SECTION] The prelude Clang parses with the student's file
constexpr const char* kPrelude = R"PRE(
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <limits.h>
#include <float.h>
// CUDA's device-side printf (the kernel's output is shown apart, bounded, on both backends).
extern "C" __device__ int printf(const char*, ...);
struct uint3 { unsigned int x, y, z; };
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ dim3(unsigned int x = 1, unsigned int y = 1, unsigned int z = 1) : x(x), y(y), z(z) {}
};
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;
struct __attribute__((aligned(8))) int2 { int x, y; };
struct __attribute__((aligned(16))) int4 { int x, y, z, w; };
struct __attribute__((aligned(8))) float2 { float x, y; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
__host__ __device__ int2 make_int2(int, int);
__host__ __device__ int4 make_int4(int, int, int, int);
__host__ __device__ float2 make_float2(float, float);
__host__ __device__ float4 make_float4(float, float, float, float);
__device__ void __syncthreads();
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence();
__device__ void __threadfence_block();
template <class T> __device__ T __shfl_sync(unsigned int mask, T v, int src, int width = 32);
template <class T> __device__ T __shfl_up_sync(unsigned int mask, T v, unsigned int d, int width = 32);
template <class T> __device__ T __shfl_down_sync(unsigned int mask, T v, unsigned int d, int width = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned int mask, T v, int lane_mask, int width = 32);
__device__ unsigned int __ballot_sync(unsigned int mask, int pred);
__device__ int __any_sync(unsigned int mask, int pred);
__device__ int __all_sync(unsigned int mask, int pred);
__device__ unsigned int __activemask();
__device__ int __popc(unsigned int);
__device__ int __ffs(int);
__device__ int __clz(int);
#define WS_ATOMIC(name) \
  __device__ int name(int*, int); __device__ unsigned int name(unsigned int*, unsigned int); \
  __device__ unsigned long long name(unsigned long long*, unsigned long long);
WS_ATOMIC(atomicAdd) WS_ATOMIC(atomicSub) WS_ATOMIC(atomicExch) WS_ATOMIC(atomicMin)
WS_ATOMIC(atomicMax) WS_ATOMIC(atomicAnd) WS_ATOMIC(atomicOr) WS_ATOMIC(atomicXor)
#undef WS_ATOMIC
__device__ float atomicAdd(float*, float);
__device__ double atomicAdd(double*, double);
__device__ float atomicExch(float*, float);
__device__ int atomicCAS(int*, int, int);
__device__ unsigned int atomicCAS(unsigned int*, unsigned int, unsigned int);
__device__ unsigned long long atomicCAS(unsigned long long*, unsigned long long, unsigned long long);
__device__ unsigned int atomicInc(unsigned int*, unsigned int);
__device__ unsigned int atomicDec(unsigned int*, unsigned int);
template <class A, class B> __host__ __device__ auto min(A a, B b) -> decltype(a < b ? a : b);
template <class A, class B> __host__ __device__ auto max(A a, B b) -> decltype(a < b ? a : b);
__device__ float rsqrtf(float);
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __powf(float, float);
__device__ float __fdividef(float, float);
__device__ float __saturatef(float);
)PRE";

// Headers a CUDA file may include that need nothing here (the prelude declares it all).
const char* const kEmptyHeaders[] = {"cuda_runtime.h", "cuda.h", "device_launch_parameters.h",
                                     "cuda_runtime_api.h", "device_functions.h",
                                     "vector_types.h", "sm_30_intrinsics.h"};

const char* const kBuiltinVars[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};

std::string str(CXString s) {
  const char* c = clang_getCString(s);
  std::string r = c ? c : "";
  clang_disposeString(s);
  return r;
}

struct Edit {
  unsigned off = 0, len = 0;
  std::string text;
  int phase = 0;   // at one offset: closings (0), openings (1), then the replacement (2)
  int depth = 0;   // openings outer first, closings inner first
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Strips `volatile` (the emulator runs a block's threads in turn: nothing is cached) and
// turns Clang's spellings into the dialect's element names.
std::string clean_type(std::string t) {
  for (const char* q : {"volatile ", " volatile", "struct ", "__restrict ", " __restrict"}) {
    for (std::size_t p; (p = t.find(q)) != std::string::npos;) t.erase(p, std::strlen(q));
  }
  return t;
}

// The scalar type of a kernel parameter as the job passes it (user_kernel.h's list).
std::string job_scalar(const std::string& t) {
  if (t == "unsigned int") return "unsigned";
  if (t == "long" || t == "unsigned long" || t == "unsigned long long" || t == "long long")
    return "long long";
  if (t == "short" || t == "char" || t == "signed char" || t == "bool") return "int";
  if (t == "unsigned short" || t == "unsigned char") return "unsigned";
  return t;
}

// [SECTION] The front end: Clang's cursors -> edits of the student's text
class Front {
 public:
  Front(const std::string& src, const std::string& path, const std::string& want)
      : src_(src), path_(path), want_(want) {}

  Translation run();

 private:
  // Location helpers: byte offset and line of a location in the student's file, or
  // false when it is elsewhere (the prelude, a system header).
  bool where(CXSourceLocation l, unsigned& off, unsigned* line = nullptr) const {
    CXFile f;
    unsigned ln = 0, col = 0;
    clang_getFileLocation(l, &f, &ln, &col, &off);
    if (!is_main(f)) return false;
    if (line) *line = ln;
    return true;
  }
  // Virtual (unsaved) files share one unique id, so files are told apart by name.
  bool is_main(CXFile f) const {
    if (!f) return false;
    if (f == main_) return true;
    if (f == other_) return false;
    if (str(clang_getFileName(f)) == path_) {
      main_ = f;
      return true;
    }
    other_ = f;
    return false;
  }
  int line_of(CXCursor c) const {
    unsigned off = 0, ln = 0;
    return where(clang_getCursorLocation(c), off, &ln) ? int(ln) : 0;
  }
  bool range(CXCursor c, unsigned& b, unsigned& e) const {
    CXSourceRange r = clang_getCursorExtent(c);
    return where(clang_getRangeStart(r), b) && where(clang_getRangeEnd(r), e) && b <= e &&
           e <= src_.size();
  }
  struct Tok {
    std::string s;
    unsigned b, e;
  };
  std::vector<Tok> tokens(CXCursor c) const {
    std::vector<Tok> out;
    CXToken* t = nullptr;
    unsigned n = 0;
    clang_tokenize(tu_, clang_getCursorExtent(c), &t, &n);
    for (unsigned k = 0; k < n; ++k) {
      CXSourceRange r = clang_getTokenExtent(tu_, t[k]);
      unsigned b = 0, e = 0;
      if (!where(clang_getRangeStart(r), b) || !where(clang_getRangeEnd(r), e)) continue;
      out.push_back({str(clang_getTokenSpelling(tu_, t[k])), b, e});
    }
    clang_disposeTokens(tu_, t, n);
    return out;
  }
  void fail(int line, const std::string& msg) {
    for (const auto& d : errors_)
      if (d.line == line && d.message == msg) return;
    errors_.push_back({line, msg});
  }
  void replace(unsigned off, unsigned len, std::string text, int depth = 0) {
    edits_.push_back({off, len, std::move(text), 2, depth});
  }
  void open(unsigned off, std::string text, int depth) { edits_.push_back({off, 0, std::move(text), 1, depth}); }
  void close(unsigned off, std::string text, int depth) { edits_.push_back({off, 0, std::move(text), 0, depth}); }
  bool text_is(unsigned off, const std::string& s) const { return src_.compare(off, s.size(), s) == 0; }

  bool has_attr(CXCursor c, CXCursorKind k) const {
    bool found = false;
    auto pair = std::make_pair(k, &found);
    clang_visitChildren(
        c,
        [](CXCursor ch, CXCursor, CXClientData d) {
          auto* p = static_cast<std::pair<CXCursorKind, bool*>*>(d);
          if (clang_getCursorKind(ch) == p->first) *p->second = true;
          return CXChildVisit_Continue;
        },
        &pair);
    return found;
  }
  std::vector<CXCursor> children(CXCursor c) const {
    std::vector<CXCursor> out;
    clang_visitChildren(
        c,
        [](CXCursor ch, CXCursor, CXClientData d) {
          static_cast<std::vector<CXCursor>*>(d)->push_back(ch);
          return CXChildVisit_Continue;
        },
        &out);
    return out;
  }

  std::string ptr_type(CXType pointee) const {
    return "::ws::cu::Ptr<" + clean_type(str(clang_getTypeSpelling(pointee))) + ">";
  }
  void visit(CXCursor c, int depth, CXCursor fn);
  void function(CXCursor c);
  void typed_decl(CXCursor c, int depth);
  void shared_decl(CXCursor stmt, CXCursor var);
  void wrap_condition(CXCursor c, int depth);
  void subscript(CXCursor c, int depth, int line);
  void unary(CXCursor c, int depth);
  void pointer_cast(CXCursor c, CXCursorKind k, int depth);
  void builtin_ref(CXCursor c, int line);
  void wrap_range(unsigned b, unsigned e, int depth) {
    if (b >= e) return;
    open(b, "::ws::cu::br(", depth);
    close(e, ")", depth);
  }
  std::string apply();

  const std::string& src_;
  const std::string path_, want_;
  CXTranslationUnit tu_ = nullptr;
  mutable CXFile main_ = nullptr, other_ = nullptr;
  std::vector<Edit> edits_;
  std::vector<Diagnostic> errors_;
  std::set<unsigned> addr_of_;   // offsets of subscripts whose address is taken (&p[i])
  std::set<unsigned> shared_done_;
  int shared_count_ = 0;
  long long shared_end_ = 0;  // bytes of the static __shared__ arrays so far
  int constant_ = 0;          // inside a constant expression (constexpr, static_assert)
  std::vector<CXCursor> kernels_;
};

// [SECTION] Branches, declarations, shared arrays, kernels
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

void Front::function(CXCursor c) {
  const int line = line_of(c);
  const std::string nm = str(clang_getCursorSpelling(c));
  if (!clang_isCursorDefinition(c)) return;
  const bool global = has_attr(c, CXCursor_CUDAGlobalAttr);
  const bool device = has_attr(c, CXCursor_CUDADeviceAttr);
  if (!global && !device) {
    if (nm == "main")
      fail(line, "leave out host code (main): the puzzle allocates the arrays and launches the kernel");
    else
      fail(line, nm + " is a host function: only __global__ and __device__ functions run in a kernel");
    return;
  }
  if (global) kernels_.push_back(c);
  // Recursion: the function calls itself.
  struct R {
    CXCursor self;
    int line = 0;
  } r{clang_getCanonicalCursor(c), 0};
  clang_visitChildren(
      c,
      [](CXCursor ch, CXCursor, CXClientData d) {
        auto* rr = static_cast<R*>(d);
        if (clang_getCursorKind(ch) == CXCursor_CallExpr) {
          CXCursor ref = clang_getCursorReferenced(ch);
          if (!clang_Cursor_isNull(ref) && clang_equalCursors(clang_getCanonicalCursor(ref), rr->self)) {
            CXFile f;
            unsigned ln = 0, col = 0, off = 0;
            clang_getFileLocation(clang_getCursorLocation(ch), &f, &ln, &col, &off);
            if (!rr->line) rr->line = int(ln);
          }
        }
        return CXChildVisit_Recurse;
      },
      &r);
  if (r.line) fail(r.line, "recursion is not supported in a kernel (" + nm + " calls itself)");
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

// [SECTION] The walk and the result
void Front::visit(CXCursor c, int depth, CXCursor fn) {
  unsigned off = 0;
  if (!where(clang_getCursorLocation(c), off)) return;  // the prelude, a header
  const CXCursorKind k = clang_getCursorKind(c);
  const int line = line_of(c);
  bool recurse = true;
  switch (k) {
    case CXCursor_FunctionTemplate:
      for (CXCursor ch : children(c))
        if (clang_getCursorKind(ch) == CXCursor_CUDAGlobalAttr)
          fail(line, "a template __global__ function is not supported: write its sizes as constants");
      if (has_attr(c, CXCursor_CUDAGlobalAttr))
        fail(line, "a template __global__ function is not supported: write its sizes as constants");
      fn = c;
      break;
    case CXCursor_FunctionDecl:
      shared_count_ = 0;
      shared_end_ = 0;
      function(c);
      fn = c;
      break;
    case CXCursor_CXXMethod:
    case CXCursor_Constructor:
      fn = c;
      break;
    case CXCursor_VarDecl: {
      if (clang_Cursor_isNull(fn) || clang_getCursorKind(fn) == CXCursor_TranslationUnit) {
        // A variable at file scope.
        if (has_attr(c, CXCursor_CUDASharedAttr))
          fail(line, "declare __shared__ arrays inside the kernel");
        else if (has_attr(c, CXCursor_CUDAConstantAttr))
          fail(line, "__constant__ memory is not supported yet: pass the values as a parameter");
        else if (has_attr(c, CXCursor_CUDADeviceAttr))
          fail(line, "a __device__ variable at file scope is not supported: pass an array parameter");
        else if (clang_isConstQualifiedType(clang_getCursorType(c)) == 0 &&
                 str(clang_getCursorSpelling(c)) != "")
          fail(line, "a global variable is not supported in a kernel: make it a constant or a parameter");
        break;
      }
      if (has_attr(c, CXCursor_CUDASharedAttr)) {
        recurse = false;  // its tokens are replaced whole
        break;
      }
      typed_decl(c, depth);
      if (clang_isConstQualifiedType(clang_getCursorType(c))) {
        bool constexpr_ = false;
        for (const Tok& t : tokens(c)) constexpr_ = constexpr_ || t.s == "constexpr";
        if (constexpr_) {
          ++constant_;
          for (CXCursor ch : children(c)) visit(ch, depth + 1, fn);
          --constant_;
          return;
        }
      }
      break;
    }
    case CXCursor_ParmDecl:
      typed_decl(c, depth);
      break;
    case CXCursor_DeclStmt: {
      for (CXCursor ch : children(c))
        if (clang_getCursorKind(ch) == CXCursor_VarDecl && has_attr(ch, CXCursor_CUDASharedAttr)) {
          shared_decl(c, ch);
          break;
        }
      break;
    }
    case CXCursor_ArraySubscriptExpr:
      subscript(c, depth, line);
      break;
    case CXCursor_UnaryOperator:
      unary(c, depth);
      break;
    case CXCursor_CStyleCastExpr:
    case CXCursor_CXXReinterpretCastExpr:
    case CXCursor_CXXStaticCastExpr:
    case CXCursor_CXXConstCastExpr:
      pointer_cast(c, k, depth);
      break;
    case CXCursor_DeclRefExpr:
      builtin_ref(c, line);
      break;
    case CXCursor_IfStmt:
    case CXCursor_WhileStmt:
    case CXCursor_ForStmt:
    case CXCursor_DoStmt:
    case CXCursor_ConditionalOperator:
      // Not where the compiler evaluates it (a constexpr value, a static_assert, file
      // scope): no lane takes that branch at run time.
      if (constant_ == 0 && !clang_Cursor_isNull(fn) &&
          clang_getCursorKind(fn) != CXCursor_TranslationUnit)
        wrap_condition(c, depth);
      break;
    case CXCursor_StaticAssert:
      ++constant_;
      for (CXCursor ch : children(c)) visit(ch, depth + 1, fn);
      --constant_;
      return;
    case CXCursor_CXXNewExpr:
    case CXCursor_CXXDeleteExpr:
      fail(line, "new and delete are not supported in a kernel: use a __shared__ array or a parameter");
      break;
    case CXCursor_CXXThrowExpr:
    case CXCursor_CXXTryStmt:
      fail(line, "exceptions are not supported in a kernel");
      break;
    case CXCursor_GotoStmt:
      fail(line, "goto is not supported in a kernel");
      break;
    case CXCursor_CXXForRangeStmt:
      fail(line, "a range-based for loop is not supported in a kernel: write for (int i = ...)");
      break;
    case CXCursor_CallExpr: {
      const std::string nm = str(clang_getCursorSpelling(c));
      if (nm == "malloc" || nm == "free")
        fail(line, nm + " is not supported in a kernel: use a __shared__ array or a parameter");
      break;
    }
    default:
      break;
  }
  if (!recurse) return;
  for (CXCursor ch : children(c)) visit(ch, depth + 1, fn);
}

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

Translation Front::run() {
  Translation tr;
  std::string why;
  if (!ws::user::libclang::load(&why)) {
    tr.errors.push_back({0, why});
    return tr;
  }
  CXIndex index = clang_createIndex(0, 0);
  std::vector<CXUnsavedFile> files;
  std::vector<std::string> names;
  files.push_back({path_.c_str(), src_.c_str(), (unsigned long)src_.size()});
  files.push_back({kPreludeName, kPrelude, (unsigned long)std::strlen(kPrelude)});
  static const std::string empty;
  std::vector<std::string> empties;
  for (const char* h : kEmptyHeaders) empties.push_back(std::string(kIncludeDir) + "/" + h);
  for (const auto& h : empties) files.push_back({h.c_str(), "", 0});
  const char* args[] = {"-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib",
                        "--cuda-gpu-arch=sm_80", "-std=c++17", "-I", kIncludeDir,
                        "-include", kPreludeName, "-Wno-unknown-cuda-version",
                        "-ferror-limit=20"};
  const int nargs = int(sizeof args / sizeof *args);
  const CXErrorCode rc = clang_parseTranslationUnit2(
      index, path_.c_str(), args, nargs, files.data(), unsigned(files.size()),
      CXTranslationUnit_KeepGoing, &tu_);
  if (rc != CXError_Success || !tu_) {
    tr.errors.push_back({1, "the CUDA front end (libclang) could not parse the file"});
    clang_disposeIndex(index);
    return tr;
  }
  // Clang's own errors on the student's lines: those are about CUDA, in CUDA's terms.
  const unsigned nd = clang_getNumDiagnostics(tu_);
  for (unsigned i = 0; i < nd; ++i) {
    CXDiagnostic d = clang_getDiagnostic(tu_, i);
    const CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
    if (sev >= CXDiagnostic_Error) {
      CXFile f;
      unsigned ln = 0, col = 0, off = 0;
      clang_getFileLocation(clang_getDiagnosticLocation(d), &f, &ln, &col, &off);
      const bool mine = is_main(f);
      fail(mine ? int(ln) : 1, str(clang_getDiagnosticSpelling(d)));
    }
    clang_disposeDiagnostic(d);
  }
  if (errors_.empty()) {
    CXCursor root = clang_getTranslationUnitCursor(tu_);
    for (CXCursor ch : children(root)) visit(ch, 0, root);
    // Headers the prelude replaces are left out of the emulator's build.
  }
  if (errors_.empty()) {
    std::vector<CXCursor> picked;
    for (CXCursor k : kernels_)
      if (want_.empty() || str(clang_getCursorSpelling(k)) == want_) picked.push_back(k);
    if (picked.empty()) {
      fail(1, want_.empty() ? "the file has no __global__ function (the kernel)"
                            : "the file has no __global__ function named " + want_);
    } else if (picked.size() > 1) {
      fail(line_of(picked[1]), "the file has more than one __global__ function: keep one kernel per file");
    } else {
      CXCursor k = picked[0];
      tr.kernel = str(clang_getCursorSpelling(k));
      tr.kernel_line = line_of(k);
      const int np = clang_Cursor_getNumArguments(k);
      for (int i = 0; i < np; ++i) {
        CXCursor a = clang_Cursor_getArgument(k, unsigned(i));
        Param p;
        p.name = str(clang_getCursorSpelling(a));
        p.line = line_of(a);
        CXType t = clang_getCanonicalType(clang_getCursorType(a));
        if (p.name.empty()) {
          fail(p.line, "every kernel parameter needs a name: the puzzle binds them by name");
          continue;
        }
        if (t.kind == CXType_Pointer) {
          CXType pe = clang_getPointeeType(t);
          p.pointer = true;
          p.is_const = clang_isConstQualifiedType(pe) != 0;
          p.type = clean_type(str(clang_getTypeSpelling(clang_getCanonicalType(pe))));
          if (p.type.rfind("const ", 0) == 0) p.type = p.type.substr(6);
        } else if (t.kind == CXType_LValueReference || t.kind == CXType_RValueReference ||
                   t.kind == CXType_Record) {
          fail(p.line, "kernel parameter " + p.name + " must be a pointer or a number");
          continue;
        } else {
          p.type = job_scalar(clean_type(str(clang_getTypeSpelling(t))));
          if (p.type.rfind("const ", 0) == 0) p.type = p.type.substr(6);
        }
        tr.params.push_back(p);
      }
    }
  }
  if (errors_.empty()) {
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
  tr.errors = errors_;
  std::sort(tr.errors.begin(), tr.errors.end(),
            [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
  tr.ok = tr.errors.empty();
  clang_disposeTranslationUnit(tu_);
  clang_disposeIndex(index);
  return tr;
}

}  // namespace

// [SECTION] Entry points
std::string Translation::message(const std::string& file) const {
  std::string s;
  for (const auto& e : errors) s += file + ":" + std::to_string(e.line) + ": " + e.message + "\n";
  return s;
}

bool is_cuda_source(const std::string& source) {
  static const std::regex global("\\b__global__\\b");
  return std::regex_search(source, global);
}

namespace {
// The last few translations, newest last: a check on a GPU parses the same file for the
// emulator's build and again for NVRTC's parameters (and its time target once more).
constexpr std::size_t kKeptTranslations = 8;
std::mutex g_kept_mu;
std::deque<std::pair<std::string, Translation>> g_kept;
}  // namespace

Translation translate(const std::string& source, const std::string& path, const std::string& kernel) {
  std::string key = path;
  key += '\0';
  key += kernel;
  key += '\0';
  key += source;
  {
    std::lock_guard<std::mutex> lk(g_kept_mu);
    for (const auto& [k, t] : g_kept)
      if (k == key) return t;
  }
  Translation t;
  try {
    t = Front(source, path, kernel).run();
  } catch (const std::exception& e) {
    t = Translation{};
    t.errors.push_back({1, std::string("the CUDA front end failed: ") + e.what()});
    return t;  // not kept: a failure of the front end itself may not recur
  }
  std::lock_guard<std::mutex> lk(g_kept_mu);
  g_kept.emplace_back(std::move(key), t);
  if (g_kept.size() > kKeptTranslations) g_kept.pop_front();
  return t;
}

const char* parse_prelude() { return kPrelude; }

}  // namespace ws::cuda
