// The CUDA front end (cuda_front.h): libclang parses the student's file as CUDA; a walk of
// its AST collects edits (replacements and insertions at byte offsets of the student's
// text), which are applied without adding or removing a newline.
// The walk and its checks are here; the edits each construct becomes are cuda_rewrite.cpp's.
// Index (search for "[SECTION] <name>"):
//   The prelude Clang parses with the student's file
//   Kernels and device functions
//   The walk and the result
//   The prelude, precompiled
//   Entry points
#include "kernels/user/cuda_front.h"

#include "kernels/user/cache_dir.h"
#include "kernels/user/cuda_front_internal.h"

#include <unistd.h>

#include <algorithm>
#include <deque>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <random>
#include <regex>
#include <set>

namespace ws::cuda {

namespace front {

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

// The scalar type of a kernel parameter as the job passes it (user_kernel.h's list).
std::string job_scalar(const std::string& t) {
  if (t == "unsigned int") return "unsigned";
  if (t == "long" || t == "unsigned long" || t == "unsigned long long" || t == "long long")
    return "long long";
  if (t == "short" || t == "char" || t == "signed char" || t == "bool") return "int";
  if (t == "unsigned short" || t == "unsigned char") return "unsigned";
  return t;
}

}  // namespace

std::string str(CXString s) {
  const char* c = clang_getCString(s);
  std::string r = c ? c : "";
  clang_disposeString(s);
  return r;
}

std::string clean_type(std::string t) {
  for (const char* q : {"volatile ", " volatile", "struct ", "__restrict ", " __restrict"}) {
    for (std::size_t p; (p = t.find(q)) != std::string::npos;) t.erase(p, std::strlen(q));
  }
  return t;
}

// [SECTION] Kernels and device functions
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

// The arguments every parse shares (the prelude's precompiled form is made with them too).
static const std::vector<const char*>& base_args() {
  static const std::vector<const char*> a = {"-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib",
                                             "--cuda-gpu-arch=sm_80", "-std=c++17", "-I", kIncludeDir,
                                             "-Wno-unknown-cuda-version", "-ferror-limit=20"};
  return a;
}

bool Front::parse(CXIndex index) {
  std::vector<CXUnsavedFile> files;
  files.push_back({path_.c_str(), src_.c_str(), (unsigned long)src_.size()});
  files.push_back({kPreludeName, kPrelude, (unsigned long)std::strlen(kPrelude)});
  std::vector<std::string> empties;
  for (const char* h : kEmptyHeaders) empties.push_back(std::string(kIncludeDir) + "/" + h);
  for (const auto& h : empties) files.push_back({h.c_str(), "", 0});
  std::vector<const char*> args = base_args();
  if (!pch_.empty())
    args.insert(args.end(), {"-include-pch", pch_.c_str()});
  else
    args.insert(args.end(), {"-include", kPreludeName});
  const CXErrorCode rc = clang_parseTranslationUnit2(index, path_.c_str(), args.data(), int(args.size()),
                                                     files.data(), unsigned(files.size()),
                                                     CXTranslationUnit_KeepGoing, &tu_);
  if (rc != CXError_Success || !tu_) {
    tu_ = nullptr;
    if (pch_.empty()) return false;
    pch_.clear();  // a precompiled prelude libclang would not take: parse the text instead
    return parse(index);
  }
  if (pch_.empty()) return true;
  // An error outside the student's file is the precompiled prelude's (out of date, from
  // another libclang): the same parse from the prelude's text instead.
  const unsigned nd = clang_getNumDiagnostics(tu_);
  for (unsigned i = 0; i < nd; ++i) {
    CXDiagnostic d = clang_getDiagnostic(tu_, i);
    CXFile f;
    unsigned ln = 0, col = 0, off = 0;
    clang_getFileLocation(clang_getDiagnosticLocation(d), &f, &ln, &col, &off);
    const bool bad = clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error && !is_main(f);
    clang_disposeDiagnostic(d);
    if (bad) {
      clang_disposeTranslationUnit(tu_);
      tu_ = nullptr;
      main_ = other_ = nullptr;
      pch_.clear();
      return parse(index);
    }
  }
  return true;
}

Translation Front::run() {
  Translation tr;
  std::string why;
  if (!ws::user::libclang::load(&why)) {
    tr.errors.push_back({0, why});
    return tr;
  }
  CXIndex index = clang_createIndex(0, 0);
  if (!parse(index)) {
    tr.errors.push_back({1, "the CUDA front end (libclang) could not parse the file"});
    clang_disposeIndex(index);
    return tr;
  }
  tr.precompiled = !pch_.empty();
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
  if (errors_.empty()) emit(tr);
  tr.errors = errors_;
  std::sort(tr.errors.begin(), tr.errors.end(),
            [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
  tr.ok = tr.errors.empty();
  clang_disposeTranslationUnit(tu_);
  clang_disposeIndex(index);
  return tr;
}

// [SECTION] The prelude, precompiled
// libclang parses the student's file in about a quarter of the time with the prelude
// precompiled (its math.h and stdio.h are most of the parse). Built once per prelude text,
// libclang version and arguments, next to the emulator's builds; a file libclang will not
// take falls back to the prelude's text (Front::parse).
std::string prelude_pch(const std::string& dir) {
  namespace fs = std::filesystem;
  if (dir.empty() || !ws::user::libclang::load()) return "";
  std::string key = kPrelude;
  key += str(clang_getClangVersion());
  for (const char* a : base_args()) key += std::string(a) + '\n';
  const fs::path d = fs::path(dir) / ("front-" + ws::user::cache_key(key));
  const fs::path header = d / "ws_cuda_prelude.h", pch = d / "ws_cuda_prelude.pch";
  std::error_code ec;
  if (fs::is_regular_file(pch, ec) && fs::is_regular_file(header, ec)) return pch.string();
  fs::create_directories(d, ec);
  // Unique across processes (containers sharing a cache reuse pids) and threads.
  const std::string tag = "." + std::to_string(::getpid()) + "-" + std::to_string(std::random_device{}()) + ".tmp";
  // The header is written once: a PCH records its time, so rewriting it under another
  // process's fresh PCH would make libclang refuse that PCH.
  std::string have;
  if (std::ifstream in{header, std::ios::binary}) have.assign(std::istreambuf_iterator<char>(in), {});
  if (have != kPrelude) {
    {
      std::ofstream o(header.string() + tag, std::ios::binary);
      o << kPrelude;
      if (!o.flush()) return "";
    }
    fs::rename(header.string() + tag, header, ec);
    if (ec) return "";
  }
  CXIndex index = clang_createIndex(0, 0);
  CXTranslationUnit tu = nullptr;
  const std::vector<const char*>& args = base_args();
  bool ok = clang_parseTranslationUnit2(index, header.c_str(), args.data(), int(args.size()), nullptr, 0,
                                        CXTranslationUnit_Incomplete | CXTranslationUnit_ForSerialization,
                                        &tu) == CXError_Success && tu;
  for (unsigned i = 0; ok && i < clang_getNumDiagnostics(tu); ++i) {
    CXDiagnostic dg = clang_getDiagnostic(tu, i);
    ok = clang_getDiagnosticSeverity(dg) < CXDiagnostic_Error;
    clang_disposeDiagnostic(dg);
  }
  ok = ok && clang_saveTranslationUnit(tu, (pch.string() + tag).c_str(), 0) == CXSaveError_None;
  if (tu) clang_disposeTranslationUnit(tu);
  clang_disposeIndex(index);
  if (ok) fs::rename(pch.string() + tag, pch, ec);
  if (!ok || ec) {
    fs::remove(pch.string() + tag, ec);
    return "";
  }
  return pch.string();
}

}  // namespace front

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

namespace {
// The precompiled prelude of this process, made on first use in the kernel cache
// (WARPSCOPE_FRONT_PCH=0: none, the prelude's text parsed each time). "" once a parse had
// to drop it: then it is removed, so the next process makes it again, and this one parses
// the text rather than paying for a refused PCH at every check.
std::mutex g_pch_mu;
bool g_pch_dropped = false;
std::string cached_pch() {
  static const std::string p = [] {
    const char* e = std::getenv("WARPSCOPE_FRONT_PCH");
    return e && std::string(e) == "0" ? std::string() : front::prelude_pch(ws::user::cache_dir());
  }();
  std::lock_guard<std::mutex> lk(g_pch_mu);
  return g_pch_dropped ? std::string() : p;
}
void drop_pch(const std::string& p) {
  std::lock_guard<std::mutex> lk(g_pch_mu);
  if (g_pch_dropped) return;
  g_pch_dropped = true;
  std::error_code ec;
  std::filesystem::remove(p, ec);
}
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
    const std::string pch = cached_pch();
    t = front::Front(source, path, kernel, pch).run();
    if (!pch.empty() && !t.precompiled) drop_pch(pch);
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

const char* parse_prelude() { return front::kPrelude; }

std::string prelude_pch(const std::string& dir) { return front::prelude_pch(dir); }

Translation translate_with(const std::string& source, const std::string& path, const std::string& pch) {
  return front::Front(source, path, "", pch).run();
}

}  // namespace ws::cuda
