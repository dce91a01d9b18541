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
#include <string>

#include "kernels/backends/backend.h"
#include "kernels/user/user_build.h"

namespace ws::user {

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
  unsigned threads = 0;               // cores its blocks spread over (0: sim::emu_threads(), at most 8)
};
// Wall seconds of a check's steps, for the editor's latency benchmark. On the GPU a plain
// CUDA file's GPU side (NVRTC, then the runner) runs beside the emulator's (its build, then
// its run): a check then lasts about compile + trace + wait, not the sum of all five.
struct StepSeconds {
  double compile = 0;    // the emulator's build: the front end and the system compiler
  double trace = 0;      // the emulator's run (the trace for the views, the counts, the problems)
  double gpu_build = 0;  // NVRTC (0 for a dialect kernel: its NVRTC builds are inside compile)
  double run = 0;        // the GPU runner (the fast build timed, a dialect kernel's traced one counted)
  double wait = 0;       // waiting for the GPU side: NVRTC's end before the trace (a fork), the runner's after
};
// The syscall filter of a kernel's process, one rule a line.
std::string describe_kernel_sandbox();

// Runs the compiled kernel on the emulator in a child process with the job's plan,
// inputs and check (`job` is a catalogue variant, `params` its parameters). The result
// is a catalogue run's: error (the sandbox's verdict: time limit, crash, stack overflow,
// abort, memory), problems with their lines (out of bounds, races, deadlocks), totals,
// kept blocks, modelled time, verification.
// @post never throws; a kernel that does not finish within limits.time_s comes back with
//       error "[FILE:LINE: ]your kernel did not finish in N s ..." (LINE: its last event's) and the child killed.
RunResult run_emu(const Compiled& c, const KernelSpec& spec, const VariantInfo& job,
                  const Params& params, const RunOptions& opt, const Limits& limits);

}  // namespace ws::user
