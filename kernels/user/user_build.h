#pragma once
// The emulator's build of a student's kernel (kernels/user/user_build.cpp): the system C++
// compiler (CXX, else `c++` on PATH), under the sandbox's limits, builds a shared object
// from the student's file against a precompiled prelude of the dialect; run_emu
// (user_kernel.h) loads it in a child process. A plain CUDA file is first rewritten by the
// CUDA front end (kernels/user/cuda_kernel.h). Builds are cached by their inputs.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernels/backends/backend.h"
#include "kernels/user/cache_dir.h"

namespace ws::user {

// One member of the student's struct, in declaration order.
struct Field {
  std::string name;        // the member's name: "in"
  std::string type;        // element or scalar type: "float", "int4", "int", "unsigned"
  bool is_const = false;   // arrays: Global<const T>
  bool array = true;       // array of the plan (Global<T>) or scalar parameter
  std::string source;      // the plan array or job parameter it takes ("" = name)
  const std::string& from() const { return source.empty() ? name : source; }
};

// What to build: the student's file and the struct the job constructs.
struct KernelSpec {
  std::string source_path;  // the student's .cuh
  std::string struct_name;  // "Transpose"
  std::vector<Field> fields;
};

// The scalar types a member may have, and the element types of arrays.
bool is_scalar_type(const std::string& t);
bool is_element_type(const std::string& t);
std::size_t element_bytes(const std::string& t);  // 0 when unknown

// A compile error at a line of the student's file (or of the generated launch code,
// attributed to the struct's line, with what the launch expected).
struct CompileError {
  std::string file;
  int line = 0;
  std::string message;
  std::string text() const;  // "file:line: message"
};

struct Compiled {
  bool ok = false;
  std::string error;                // why nothing was compiled (no compiler, unreadable file)
  std::vector<CompileError> errors; // the compiler's errors, on the student's lines
  std::string log;                  // the compiler's whole output
  std::string artifact;             // the shared object (emu)
  bool cached = false;              // the same source was built before
  double seconds = 0;               // wall time of the compile (0 when cached)
  // A plain CUDA file (kernels/user/cuda_kernel.h): the dialect kernel it was rewritten
  // to, whose members run_emu binds instead of the caller's spec.
  std::optional<KernelSpec> translated;
  // Every error as "file:line: message", one per line ("" when ok).
  std::string message() const;
};

// The C++ compiler used for emulator builds: $CXX, else `c++` found on PATH ("" if none).
std::string find_cxx();

// The translation unit the emulator build compiles: the dialect, the student's file
// included inside the emulator's namespace, and an extern "C" launcher that constructs
// the struct from the plan's arrays and the job's parameters.
std::string emu_wrapper(const KernelSpec& spec);

// Checks that every member names an array of `plan` or a parameter in `params`, with a
// known type; "" when fine.
// @post returns "" iff run_emu / the NVRTC launch can build every member.
std::string check_fields(const KernelSpec& spec, const Plan& plan, const Params& params);

// The compiler's limits: WARPSCOPE_COMPILE_TIME_LIMIT (seconds), else 30 s.
double default_compile_time_limit();

// The compiler runs in the sandbox (kernels/user/sandbox.h): its own session, killed as a group
// after time_s; address space memory_mb for each of its processes, CPU seconds, file size;
// writes only into the cache directory.
struct CompileOptions {
  bool use_cache = true;
  std::string cache_dir;  // "" = cache_dir()
  double time_s = default_compile_time_limit();
  std::uint64_t memory_mb = 2048;
};
// Builds the shared object for the emulator; a plain CUDA file (a __global__ function, or
// a .cu name) is first rewritten by the CUDA front end (`translated`). Never throws.
// @post ok implies artifact names a loadable shared object; !ok implies error or errors set.
// `front_ok`, when given, is called once on this thread when a plain CUDA file has passed
// the front end, before the system compiler starts: the GPU's build may start beside it
// (user_nvrtc.cpp).
Compiled compile_emu(const KernelSpec& spec, const CompileOptions& opt = {},
                     const std::function<void()>& front_ok = {});

}  // namespace ws::user
