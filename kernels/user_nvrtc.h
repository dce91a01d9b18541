#pragma once
// Student kernels on the GPU: NVRTC builds the fast and the traced kernels from the same
// file the emulator builds, with the dialect headers handed to NVRTC as named sources,
// and the driver API loads and launches them in a CUDA context of their own. A kernel
// that faults is reported with the CUDA error; the context is destroyed and the next run
// gets a fresh one, so the app's own context (the CUDA backend's) is never touched.
#include <string>
#include <vector>

#include "kernels/user_kernel.h"

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
};
// Compiles for `arch` ("sm_90"). Never throws.
// @post compiled.ok implies cubin is non-empty; errors carry the student's file and lines.
NvrtcBuild compile_nvrtc(const KernelSpec& spec, bool traced, const std::string& arch);

// Whether the driver loads and a device can take a context for student kernels.
bool gpu_available(std::string& why);

// Runs the student's kernel for a puzzle check on the GPU: counts, traces and problems
// from the emulator's sandboxed run of the same source (the traces are equal by
// construction); the output checked and the time measured from the NVRTC fast build on the
// device (median of `opt.repeats` launches with CUDA events). A GPU fault comes back in
// error with the CUDA error's name and sentence.
RunResult run_cuda(const KernelSpec& spec, const VariantInfo& job, const Params& params,
                   const RunOptions& opt, Compiled& compiled, const Limits& limits = {});

}  // namespace ws::user
