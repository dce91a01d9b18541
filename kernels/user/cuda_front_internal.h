#pragma once
// The CUDA front end's insides, shared by its walk (cuda_front.cpp) and the rewrite's
// emitters (cuda_rewrite.cpp); not part of the front end's API (cuda_front.h).
#include "kernels/user/cuda_front.h"

// libclang is loaded when first needed, not linked (libclang_api.h): every call below and
// in the files that include this goes through the loaded table.
#define WS_LIBCLANG_CALLS_THROUGH_TABLE
#include "kernels/user/libclang_api.h"

#include <set>
#include <string>
#include <vector>

namespace ws::cuda::front {

// Headers a CUDA file may include that need nothing here (the prelude declares it all).
inline constexpr const char* kEmptyHeaders[] = {
    "cuda_runtime.h",     "cuda.h",        "device_launch_parameters.h", "cuda_runtime_api.h",
    "device_functions.h", "vector_types.h", "sm_30_intrinsics.h"};

// The text of a CXString, which it disposes of.
std::string str(CXString s);

struct Edit {
  unsigned off = 0, len = 0;
  std::string text;
  int phase = 0;   // at one offset: closings (0), openings (1), then the replacement (2)
  int depth = 0;   // openings outer first, closings inner first
};

// Strips `volatile` (the emulator runs a block's threads in turn: nothing is cached) and
// turns Clang's spellings into the dialect's element names.
std::string clean_type(std::string t);

// The front end: Clang's cursors -> edits of the student's text. The walk and its checks
// are in cuda_front.cpp; the edits each construct becomes, and their application, in
// cuda_rewrite.cpp.
class Front {
 public:
  // pch: the prelude precompiled (prelude_pch()), or "" to parse the prelude's text.
  Front(const std::string& src, const std::string& path, const std::string& want, std::string pch = "")
      : src_(src), path_(path), want_(want), pch_(std::move(pch)) {}

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
  void emit(Translation& tr);

  const std::string& src_;
  const std::string path_, want_;
  CXTranslationUnit tu_ = nullptr;
  std::string pch_;
  // Parses the student's file into tu_ (with pch_ when set); false when libclang could not.
  bool parse(CXIndex index);
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

}  // namespace ws::cuda::front
