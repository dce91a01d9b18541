#pragma once
// Kernels written by a student, in the dialect (kernels/dialect/simt.h): one struct whose members
// are its parameters and whose operator()(Thread&) is the body. They are compiled at run
// time from the student's file, against the installed dialect headers:
//
//  - emulator: the system C++ compiler (CXX, else `c++` on PATH) builds a shared object
//    that is loaded with dlopen, in a child process (run_emu): the kernel runs there with
//    a time limit, a memory limit and a guard page under every fiber stack, so an endless
//    loop, a crash, a stack overflow or an abort is reported and the caller keeps running;
//  - GPU: NVRTC builds the fast and the traced kernels (kernels/user/user_nvrtc.h).
//
// The struct gets its members from a job: a catalogue variant whose plan (arrays, launch
// shape), inputs and CPU check the student's kernel must match. A member is either an
// array of the plan (taken by name) or a parameter of the job (taken by name).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/backends/backend.h"

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
// Where built kernels are kept: $XDG_CACHE_HOME/warpscope/kernels (or ~/.cache/...).
std::string cache_dir();

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
Compiled compile_emu(const KernelSpec& spec, const CompileOptions& opt = {});

// The sandbox of a run on the emulator.
// The sandbox of a run on the emulator (kernels/user/sandbox.h): the kernel's process has its
// own session, dies with this one, may write files only into an empty scratch directory
// (Landlock), makes none of the system calls describe_kernel_sandbox() lists (seccomp),
// and is killed as a group at the deadline.
struct Limits {
  double time_s = 10;                 // wall clock, compile excluded (and CPU, + 2 s)
  std::uint64_t memory_mb = 2048;     // address space (every mapping) and resident memory it may add
  std::uint64_t file_mb = 16;         // largest file it may write, its output included
  std::uint64_t scratch_mb = 64;      // all files in its scratch directory together
  std::uint64_t output_kb = 64;       // of its stdout and stderr kept (the rest is counted)
  std::uint64_t stream_mb = 2048;     // of records it may send (events)
};
// Wall seconds of a check's steps, for the editor's latency benchmark: every compiler
// (the emulator's build, NVRTC), the emulator's run (the trace for the views, the counts,
// the problems), and the GPU runner's (the fast build timed, the traced build counted).
struct StepSeconds {
  double compile = 0, trace = 0, run = 0;
};
// The syscall filter of a kernel's process, one rule a line.
std::string describe_kernel_sandbox();

// Runs the compiled kernel on the emulator in a child process with the job's plan,
// inputs and check (`job` is a catalogue variant, `params` its parameters). The result
// is a catalogue run's: error (the sandbox's verdict: time limit, crash, stack overflow,
// abort, memory), problems with their lines (out of bounds, races, deadlocks), totals,
// kept blocks, modelled time, verification.
// @post never throws; a kernel that does not finish within limits.time_s comes back with
//       error "your kernel did not finish in N s" and the child killed.
RunResult run_emu(const Compiled& c, const KernelSpec& spec, const VariantInfo& job,
                  const Params& params, const RunOptions& opt, const Limits& limits);

}  // namespace ws::user
