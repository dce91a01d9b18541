#pragma once
// Student kernels on the GPU: NVRTC builds the fast and the traced kernels from the same
// file the emulator builds, with the dialect headers handed to NVRTC as named sources,
// and the GPU runner (warpscope-gpu-run, kernels/user/user_gpu_runner.h) loads and launches
// them through the driver API in a process of its own: a fault (an illegal address
// leaves every context of its process unusable) ends that process only, is reported with
// the CUDA error, and the next run gets a fresh process and context. The app never loads
// the driver for student kernels, so its own context (the CUDA backend's) is untouched.
#include <string>
#include <vector>

#include "kernels/user/user_gpu_runner.h"
#include "kernels/user/user_kernel.h"

namespace ws::user {

// The translation unit NVRTC compiles: the dialect in the fast or the traced mode, the
// student's file inside its namespace, and extern "C" ws_user_entry taking each member
// as plain arguments (array: pointer, bytes, id; parameter: long long).
std::string nvrtc_source(const KernelSpec& spec, bool traced);

// The dialect headers as NVRTC named sources (name, text), read from dialect_include_dir(),
// plus the small <cstdint>/<cstddef>/<type_traits> that map std:: onto libcu++.
// @post empty with `why` set when a header cannot be read.
std::vector<std::pair<std::string, std::string>> nvrtc_headers(std::string& why);

struct NvrtcBuild {
  Compiled compiled;           // ok, errors on the student's lines, log, seconds
  std::vector<char> cubin;     // the built kernel
  std::string arch;            // "sm_90"
  std::string trace_symbol;    // traced: the lowered name of ws::ws_trace (its control block)
};
// Compiles for `arch` ("sm_90"), with NVRTC's automatic precompiled header unless `pch` is
// false (the dialect headers are compiled once per process and build mode). Never throws.
// @post compiled.ok implies cubin is non-empty (and, traced, trace_symbol too); errors carry
//       the student's file and lines.
NvrtcBuild compile_nvrtc(const KernelSpec& spec, bool traced, const std::string& arch, bool pch = true);

// The fast build, then the traced one when the fast one compiled (one after the other: two
// NVRTC compiles at once in one process took longer on the H100 host than in turn,
// 1.93 s against 0.93 + 0.76 s, without the precompiled header).
// @post first is compile_nvrtc(spec, false, arch); second is compile_nvrtc(spec, true, arch)
//       when first compiled, else an empty build (not ok, no error).
std::pair<NvrtcBuild, NvrtcBuild> compile_nvrtc_both(const KernelSpec& spec, const std::string& arch);

// Whether a GPU runner starts and finds a device (asked once per process, then cached);
// `arch` ("sm_90") and `device` (its name) when it does.
// @post false with `why` set (no runner, no driver, no device) when it does not.
bool gpu_available(std::string& why, std::string* arch = nullptr, std::string* device = nullptr);

// The traced build's records of a runner's reply into `res` (whose plan is set): per-site
// counters -> launches[i].sites, launches[i].totals and totals; a device fault (out of
// bounds, shared overflow, deadlock) -> a problem, verified false.
// @post "" when every launch's records were read; else why not (res's counts untouched).
std::string apply_device_counts(const GpuReply& rep, RunResult& res);

// Runs the student's kernel for a puzzle check on the GPU. The emulator's sandboxed run of
// the same source comes first (its problems, its kept traces for the views); then the GPU
// runner runs the NVRTC fast build (output checked, time measured: median of `opt.repeats`
// launches with CUDA events) and the traced build over the whole grid, whose per-site
// counters on the device are the run's totals (launches[i].sites filled) and whose faults
// (out of bounds, deadlock) are problems. The runner has limits.time_s from its first
// launch. A GPU fault comes back in error with the CUDA
// error's name and sentence; a kernel that does not finish is stopped with its process.
// `secs` (when given) gets each step's wall seconds.
RunResult run_cuda(const KernelSpec& spec, const VariantInfo& job, const Params& params,
                   const RunOptions& opt, Compiled& compiled, const Limits& limits = {},
                   StepSeconds* secs = nullptr);

// The launches and arrays of `plan` as time_cuda asks the runner for them: each array a
// spec (generated inputs from `seed`, poisoned outputs; no bytes travel), and what comes
// back: with `verify`, the device's check against plan.ref when the plan has one, else every
// array; without, nothing.
void request_made(const Plan& plan, std::uint64_t seed, bool verify, GpuRequest& q);

// The fast build alone at `params`, for a puzzle's time target at a size too large to
// emulate: no emulator run, no traced build, no counts. The runner makes the inputs from
// their specs (no array's bytes travel); with `verify`, the output is checked on the device
// against the plan's GPU reference (plan.ref), or, without one, sent back and checked here;
// without `verify` (a later timing round of the same kernel) it is not checked at all. The
// time is the median of max(opt.repeats, 10) launches after opt.warmup.
// @post on success error is "" and timing.source is measured; verified is set iff `verify`
//       and the output is right (else verify_message says why: wrong, or not checked);
//       the totals, sites and kept traces stay empty.
RunResult time_cuda(const KernelSpec& spec, const VariantInfo& job, const Params& params,
                    const RunOptions& opt, Compiled& compiled, const Limits& limits = {},
                    bool verify = true);

}  // namespace ws::user
