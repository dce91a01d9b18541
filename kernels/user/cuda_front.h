#pragma once
// The CUDA front end: a student's plain CUDA file (`__global__ void k(const float* in,
// float* out, int n)`, `__shared__ float tile[32][33]`, `threadIdx.x`, `if`, ...) parsed by
// Clang (libclang, as CUDA, host side, against a small prelude of our own instead of the
// CUDA headers) and rewritten, source to source, into the kernel dialect's emulator build
// (kernels/dialect/simt.h, kernels/user/cuda_emu.h):
//
//  - every subscript and dereference of a pointer or array becomes a traced access
//    (`p[i]` -> `::ws::cu::at(p, i)`, `*p` -> `::ws::cu::deref(p)`, `&p[i]` -> `::ws::cu::addr(p, i)`);
//  - pointer types become traced pointer handles (`const float*` -> `::ws::cu::Ptr<const float>`);
//  - `__shared__` arrays become the block's shared arrays (`::ws::cu::shared2d<float>(...)`);
//  - threadIdx / blockIdx / blockDim / gridDim / warpSize read the emulated lane;
//  - every `if`, loop condition and `?:` condition is a marked branch (`::ws::cu::br(c)`),
//    so divergence is found here, not marked by hand;
//  - a struct `ws_cuda_kernel` after the student's code holds the __global__ function's
//    parameters as members and calls it: the catalogue's job binds it by parameter name.
//
// Every edit stays on its line (no newline is added or removed) and the text starts with
// a #line directive, so every traced line, compile error and report names the student's
// file and line. Anything outside the supported subset is one sentence naming the line.
#include <string>
#include <vector>

namespace ws::cuda {

// A parameter of the __global__ function, in declaration order.
struct Param {
  std::string name;       // "in"
  std::string type;       // element type for pointers, else the scalar type: "float", "int4"
  bool pointer = false;   // a global array (float*) or a scalar (int)
  bool is_const = false;  // const T*
  int line = 0;
};

struct Diagnostic {
  int line = 0;
  std::string message;  // one sentence, no file name
};

struct Translation {
  bool ok = false;
  std::vector<Diagnostic> errors;  // the student's errors (Clang's, or an unsupported construct)
  std::string kernel;              // the __global__ function's name
  int kernel_line = 0;
  std::vector<Param> params;
  std::string text;                // the emulator's source (valid when ok)
  bool precompiled = false;        // the prelude was read from its PCH (prelude_pch())
  static constexpr const char* kStruct = "ws_cuda_kernel";  // the struct `text` ends with
  // "file:line: message" for each error, one a line.
  std::string message(const std::string& file) const;
};

// Whether `source` is plain CUDA (it defines a __global__ function) rather than the
// dialect (a struct with operator()(Thread&)).
bool is_cuda_source(const std::string& source);

// Parses `source` (the text of `path`) as CUDA and rewrites it for the emulator.
// `kernel` picks the __global__ function when the file has several ("" = the only one).
// The last few results are kept in the process: the same (source, path, kernel) is parsed once.
// @post ok iff errors is empty; ok implies text compiles against kernels/user/cuda_emu.h with
//       every line of the student's code at its own line of `path`.
Translation translate(const std::string& source, const std::string& path,
                      const std::string& kernel = "");

// The prelude Clang parses the student's file with (declarations of CUDA's built-ins).
const char* parse_prelude();

// The prelude precompiled by libclang in a folder of `dir` (made once, then reused);
// translate() uses one in the kernel cache.
// @post "" (libclang absent, the folder not writable) or the path of a PCH of the prelude
std::string prelude_pch(const std::string& dir);

// translate() without the kept results, with the precompiled prelude `pch` ("" = the text).
// @post equal to translate(source, path) whatever `pch` holds (a file libclang refuses is
//       not used)
Translation translate_with(const std::string& source, const std::string& path, const std::string& pch);

}  // namespace ws::cuda
