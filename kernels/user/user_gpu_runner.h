#pragma once
// A student kernel on the GPU runs in a process of its own, the GPU runner
// (warpscope-gpu-run, kernels/user/user_gpu_runner_main.cpp): a fault such as an illegal
// address leaves a CUDA context, and every later context of the same process, unusable
// ("sticky" errors), so the app never loads the driver for student kernels. The parent
// writes a request (the cubin, the launches, the arrays, the arguments) to the runner's
// stdin and reads its reply (the arrays after the run, the launch times, or the CUDA
// error) from its stdout; it kills the runner when the kernel outlives the time limit.
// Plain C++: no CUDA header, testable without a GPU (the request's `simulate` field).
// A time target's run at a large size sends no array's bytes either way: its inputs are
// made in the runner from their specs (GpuMade) and its output checked there (GpuOutputs).
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/catalogue/catalogue.h"  // Reference, CheckResult (plain C++)
#include "sim/inputs.h"

namespace ws::user {

// How the runner makes an array (GpuRequest::made): its bytes sent in `arrays` (Given), the
// plan's input words from the request's seed (Generated: sim/inputs.h, the words fill_inputs
// makes on the host and make_inputs on the device, stream = the array's index), or all bits
// set (Poisoned: an output).
enum class GpuFill : std::uint8_t { Given = 0, Generated = 1, Poisoned = 2 };
struct GpuMade {
  GpuFill how = GpuFill::Given;
  std::uint64_t bytes = 0;  // a multiple of 4 unless Given
  InputGen gen{};           // Generated
};

// What of the arrays comes back after the first run: every array (Arrays), only the
// device's check of the output against the request's `ref` (Check: kernels/backends/cuda/
// verify.cu), or nothing (None: a timing round, whose output was checked in an earlier one).
enum class GpuOutputs : std::uint8_t { Arrays = 0, Check = 1, None = 2 };

struct GpuLaunch {
  std::uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  std::uint32_t shared_bytes = 0;
};

// One argument of ws_user_entry, in order: an array (pointer, bytes, id) or a scalar.
struct GpuArg {
  bool array = false;
  std::uint32_t index = 0;  // array: index into GpuRequest::arrays
  long long value = 0;      // scalar
};

struct GpuRequest {
  bool probe = false;         // only report the device (name, arch); no kernel
  // Test modes of the runner, no GPU needed: "fault" (replies a CUDA fault), "hang"
  // (never ends once launched), "abort" (dies of SIGABRT once launched), "echo" (replies
  // the arrays unchanged), "close-and-hang" (closes the pipe its parent watches, then never
  // ends), "sandbox" (tries kill, fork and an INET socket; says which were allowed in the
  // reply's device, "kill:denied fork:denied socket:denied"). "" = run the kernel.
  std::string simulate;
  std::vector<char> cubin;    // entry point `entry`
  std::string entry = "ws_user_entry";  // a plain CUDA kernel: its lowered name
  // A plain CUDA kernel (the student's file unchanged): an array argument is its pointer
  // alone, a scalar the low bytes of `value` (an int, or a float's bits); and the launches'
  // shared_bytes, which hold its static arrays too (the emulator carves them from one
  // pool), are cut by the static shared memory the kernel declares itself.
  bool plain = false;
  std::vector<GpuLaunch> launches;
  std::vector<std::vector<char>> arrays;  // the plan's arrays, outputs already poisoned
  // Empty: every array's bytes are in `arrays`. Else one per array (arrays[i] empty unless
  // made[i] is Given, then made[i].bytes == arrays[i].size()): see request_bytes.
  std::vector<GpuMade> made;
  std::uint64_t seed = 0;     // Generated arrays
  GpuOutputs outputs = GpuOutputs::Arrays;
  Reference ref;              // Check: ref.kind is not None
  std::vector<GpuArg> args;
  bool timing = false;
  std::int32_t warmup = 0, repeats = 10;
  // The traced build (empty: none), run once after the fast one on fresh inputs: every
  // block counted on the device per source site, block `keep_block`'s events copied back.
  std::vector<char> traced_cubin;
  std::string trace_symbol;   // the lowered name of its ws_trace control block
  std::uint32_t keep_block = 0;
  std::uint64_t event_capacity = 1u << 18;
};

// What the traced build left on the device after one launch, as raw bytes of the
// dialect's structures (kernels/dialect/simt_cuda.h): kSiteShards x kSiteSlots SiteSlot, one
// DeviceFault, kMaxSharedArrays SharedArrayRec, min(event_count, capacity) WarpEvent.
struct GpuTracedLaunch {
  std::vector<char> sites, fault, shared_arrays, events;
  std::uint64_t event_count = 0;
  std::uint32_t sites_full = 0;
};

struct GpuReply {
  std::string error;          // "" = ran; else "call: CUDA_ERROR_NAME (sentence)"
  std::string device, arch;   // "NVIDIA H100 80GB HBM3", "sm_90"
  std::vector<std::vector<char>> arrays;  // after the run (empty on error, or outputs not Arrays)
  bool checked = false;                   // outputs Check: `check` holds the device's verdict
  CheckResult check;
  std::vector<double> samples_ms;         // one per timed repeat of all launches
  std::vector<GpuTracedLaunch> traced;    // one per launch of the traced build
};

std::string encode(const GpuRequest& r);
std::string encode(const GpuReply& r);
// @post false with `why` set on a truncated or malformed blob; never reads past `s`.
bool decode(const std::string& s, GpuRequest& r, std::string& why);
bool decode(const std::string& s, GpuReply& r, std::string& why);

// The bytes of array i of a request (its `made` entry, else arrays[i]).
std::uint64_t request_bytes(const GpuRequest& q, std::size_t i);
// Array i of a request as the runner makes it, made on the host: what a test holds the
// runner's device fill equal to, and what the simulated modes reply.
// @post size request_bytes(q, i); Generated: word k is input_word(gen, seed, i, k).
std::vector<char> request_array(const GpuRequest& q, std::size_t i);

// "" when a reply fits its request (every array back at its size, no more samples than
// repeats, no more traced launches than launches); else what does not.
std::string check_reply(const GpuRequest& q, const GpuReply& r);

// The runner's executable: $WARPSCOPE_GPU_RUNNER, else warpscope-gpu-run beside this
// program or in <exe>/../libexec/warpscope, else the build tree's ("" if none exists).
std::string gpu_runner_path();

struct RunnerLimits {
  double time_s = 10;     // from the first launch to the reply
  double start_s = 60;    // loading the driver, the context, the copies (before a launch)
  // Set by another thread when the run is no longer wanted (the emulator found a problem
  // while the GPU ran beside it): the runner is stopped within about 50 ms.
  const std::atomic<bool>* cancel = nullptr;
};

// Runs `req` in a fresh runner process, in the sandbox (kernels/user/sandbox.h): its own session,
// killed as a group at the deadline (every wait has one, after an early end of its pipe
// too), dies with this process, the GpuRunner syscall filter; its reply read with a size
// bound and checked against the request. Never throws; the reply's error says why it failed:
// the runner's CUDA error, "did not finish in N s" (the runner killed), its crash (signal),
// a missing runner or an unreadable reply.
// @post the runner has ended when it returns (killed if needed); nothing of the device is
//       ever opened in the calling process.
GpuReply run_in_runner(const GpuRequest& req, const RunnerLimits& limits);

// The runner's main: reads a request on fd 0, writes the reply on fd 1, writes one byte
// to fd 3 (when open) just before the first launch. Returns the exit status.
int gpu_runner_main();

}  // namespace ws::user
