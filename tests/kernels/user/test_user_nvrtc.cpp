// Student kernels through NVRTC: every puzzle's solution builds fast and traced from the
// same file the emulator builds (no GPU needed to compile), errors land on the student's
// lines; on a GPU (label gpu), a solution runs and verifies and a faulting kernel is
// reported with the CUDA error while the next run works again. The GPU runner (a process
// per run) is tested without a GPU through its test modes: its protocol, a reported fault,
// a hang stopped at the time limit or when no longer wanted, a crash, a missing runner,
// and the run after each.
#include <gtest/gtest.h>

#include <csignal>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "app/puzzle/puzzle.h"
#include "kernels/dialect/simt_cuda.h"
#include "kernels/user/sandbox.h"
#include "kernels/user/cuda_kernel.h"
#include "kernels/user/user_nvrtc.h"
#include "sim/model.h"

namespace ws::user {
namespace {

namespace fs = std::filesystem;

// The kernel spec of a puzzle's solution.
KernelSpec solution_spec(const std::string& puzzle_file) {
  puzzle::Puzzle p;
  std::vector<puzzle::Error> e;
  EXPECT_TRUE(puzzle::parse_file(puzzle_file, p, e)) << puzzle_file;
  KernelSpec spec = p.spec;
  spec.source_path = puzzle::solution_path(puzzle_file);
  return spec;
}

TEST(UserNvrtc, EverySolutionBuildsFastAndTraced) {
  for (const auto& f : puzzle::list_files(std::string(WS_SOURCE_DIR) + "/tests/kernels/fixtures/dialect_puzzles")) {
    const KernelSpec spec = solution_spec(f);
    for (bool traced : {false, true}) {
      const NvrtcBuild b = compile_nvrtc(spec, traced, "sm_90");
      EXPECT_TRUE(b.compiled.ok) << f << (traced ? " traced: " : " fast: ") << b.compiled.message()
                                 << b.compiled.log;
      EXPECT_FALSE(b.cubin.empty());
      // The runner finds the traced build's control block by this name.
      if (traced) EXPECT_NE(b.trace_symbol.find("ws_trace"), std::string::npos) << b.trace_symbol;
    }
  }
}

// The precompiled header changes how fast a build is, never what it builds: after the
// first solution has made the PCH of each mode, the next solutions' cubins equal the ones
// built without it, fast and traced (three solutions: each build costs seconds here).
TEST(UserNvrtc, ThePrecompiledHeaderBuildsTheSameCubin) {
  auto files = puzzle::list_files(std::string(WS_SOURCE_DIR) + "/tests/kernels/fixtures/dialect_puzzles");
  ASSERT_GE(files.size(), 3u);
  files.resize(3);
  for (const auto& f : files) {
    const KernelSpec spec = solution_spec(f);
    for (bool traced : {false, true}) {
      const NvrtcBuild with = compile_nvrtc(spec, traced, "sm_90", true);
      const NvrtcBuild without = compile_nvrtc(spec, traced, "sm_90", false);
      ASSERT_TRUE(with.compiled.ok && without.compiled.ok) << f << with.compiled.log << without.compiled.log;
      EXPECT_TRUE(with.cubin == without.cubin) << f << (traced ? " traced" : " fast");
      EXPECT_EQ(with.trace_symbol, without.trace_symbol) << f;
    }
  }
}

TEST(UserNvrtc, ACompileErrorIsOnTheStudentsLine) {
  const fs::path d = fs::path(WS_BINARY_DIR) / "test-nvrtc";
  fs::create_directories(d);
  const std::string f = (d / "bad.cuh").string();
  std::ofstream(f) << "struct Copy {\n  Global<const float> in;\n  Global<float> out;\n"
                      "  WS_DEVICE void operator()(Thread& t) const {\n    out(0) = in(0) + nope;\n  }\n};\n";
  KernelSpec spec;
  spec.source_path = f;
  spec.struct_name = "Copy";
  spec.fields = {{"in", "float", true, true, ""}, {"out", "float", false, true, ""}};
  const NvrtcBuild b = compile_nvrtc(spec, false, "sm_90");
  ASSERT_FALSE(b.compiled.ok);
  ASSERT_FALSE(b.compiled.errors.empty()) << b.compiled.log;
  EXPECT_EQ(b.compiled.errors[0].line, 5) << b.compiled.log;
  EXPECT_EQ(b.compiled.errors[0].file, f);
  EXPECT_NE(b.compiled.errors[0].message.find("nope"), std::string::npos);
}

GpuRequest sample_request() {
  GpuRequest q;
  q.cubin = {'\x7f', 'E', 'L', 'F', '\0', '\x01'};
  GpuLaunch l;
  l.grid[0] = 3, l.block[0] = 128, l.shared_bytes = 512;
  q.launches = {l, l};
  q.arrays = {{'a', 'b', 'c', '\0'}, std::vector<char>(1000, '\xFF'), {}};
  q.args = {{true, 0, 0}, {true, 1, 0}, {false, 0, -42}};
  q.timing = true;
  q.warmup = 2;
  q.repeats = 7;
  return q;
}

TEST(UserGpuRunner, RequestAndReplyRoundTripAndRefuseEveryTruncation) {
  const GpuRequest q = sample_request();
  const std::string blob = encode(q);
  GpuRequest back;
  std::string why;
  ASSERT_TRUE(decode(blob, back, why)) << why;
  EXPECT_EQ(back.cubin, q.cubin);
  ASSERT_EQ(back.launches.size(), 2u);
  EXPECT_EQ(back.launches[1].grid[0], 3u);
  EXPECT_EQ(back.launches[1].block[0], 128u);
  EXPECT_EQ(back.launches[1].shared_bytes, 512u);
  EXPECT_EQ(back.arrays, q.arrays);
  ASSERT_EQ(back.args.size(), 3u);
  EXPECT_TRUE(back.args[1].array);
  EXPECT_EQ(back.args[1].index, 1u);
  EXPECT_FALSE(back.args[2].array);
  EXPECT_EQ(back.args[2].value, -42);
  EXPECT_TRUE(back.timing);
  EXPECT_EQ(back.warmup, 2);
  EXPECT_EQ(back.repeats, 7);
  EXPECT_EQ(back.entry, "ws_user_entry");
  EXPECT_FALSE(back.plain);
  GpuRequest plain = q;
  plain.entry = "_Z9transposePKfPfi";
  plain.plain = true;
  ASSERT_TRUE(decode(encode(plain), back, why)) << why;
  EXPECT_EQ(back.entry, "_Z9transposePKfPfi");
  EXPECT_TRUE(back.plain);
  for (std::size_t n = 0; n < blob.size(); ++n)
    EXPECT_FALSE(decode(blob.substr(0, n), back, why)) << "truncated at " << n;
  EXPECT_FALSE(decode(blob + "x", back, why));
  // A check's reference travels whole (async_copy's rounds, the tensor cores' tolerance);
  // a Smooth check without its tile is refused.
  GpuRequest checked = q;
  checked.outputs = GpuOutputs::Check;
  checked.ref.kind = RefKind::Smooth;
  checked.ref.count = 16;
  checked.ref.div = 4;
  checked.ref.work = 16;
  checked.ref.ulps = 64;
  checked.ref.a = 0;
  checked.ref.out = 1;
  ASSERT_TRUE(decode(encode(checked), back, why)) << why;
  EXPECT_EQ(back.ref.kind, RefKind::Smooth);
  EXPECT_EQ(back.ref.div, 4u);
  EXPECT_EQ(back.ref.work, 16u);
  EXPECT_EQ(back.ref.ulps, 64u);
  checked.ref.div = 0;
  EXPECT_FALSE(decode(encode(checked), back, why));
  checked.ref.div = 4;
  checked.ref.kind = RefKind::GemmHalf;
  ASSERT_TRUE(decode(encode(checked), back, why)) << why;
  EXPECT_EQ(back.ref.kind, RefKind::GemmHalf);
  // An argument that names an array the request does not carry.
  GpuRequest bad = q;
  bad.args[0].index = 9;
  EXPECT_FALSE(decode(encode(bad), back, why));
  EXPECT_NE(why.find("array 9"), std::string::npos) << why;

  GpuReply r;
  r.error = "x";
  r.device = "NVIDIA H100 80GB HBM3";
  r.arch = "sm_90";
  r.arrays = q.arrays;
  r.samples_ms = {0.5, 0.25};
  GpuReply rb;
  ASSERT_TRUE(decode(encode(r), rb, why)) << why;
  EXPECT_EQ(rb.error, "x");
  EXPECT_EQ(rb.device, r.device);
  EXPECT_EQ(rb.arch, "sm_90");
  EXPECT_EQ(rb.arrays, r.arrays);
  EXPECT_EQ(rb.samples_ms, r.samples_ms);
  const std::string rblob = encode(r);
  for (std::size_t n = 0; n < rblob.size(); ++n) EXPECT_FALSE(decode(rblob.substr(0, n), rb, why));
}

TEST(UserGpuRunner, IsFoundInTheBuildTree) {
  const std::string p = gpu_runner_path();
  ASSERT_FALSE(p.empty());
  EXPECT_NE(p.find("warpscope-gpu-run"), std::string::npos) << p;
}

// Echo: the arrays travel to the runner and back unchanged.
void expect_echo_works() {
  GpuRequest q = sample_request();
  q.simulate = "echo";
  const GpuReply r = run_in_runner(q, RunnerLimits{});
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.arrays, q.arrays);
}

TEST(UserGpuRunner, AFaultIsReportedWithTheCudaErrorAndTheNextRunWorks) {
  expect_echo_works();
  GpuRequest q = sample_request();
  q.simulate = "fault";
  const GpuReply r = run_in_runner(q, RunnerLimits{});
  EXPECT_NE(r.error.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << r.error;
  EXPECT_TRUE(r.arrays.empty());
  expect_echo_works();
}

TEST(UserGpuRunner, AHangIsStoppedAtTheTimeLimitAndTheNextRunWorks) {
  GpuRequest q = sample_request();
  q.simulate = "hang";
  RunnerLimits l;
  l.time_s = 0.5;
  const auto t0 = std::chrono::steady_clock::now();
  const GpuReply r = run_in_runner(q, l);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(r.error.find("did not finish on the GPU in 0.5 s"), std::string::npos) << r.error;
  EXPECT_LT(s, 30.0);  // stopped, not waited out
  expect_echo_works();
}

// Issue 23: the GPU's run of a plain CUDA check goes beside the emulator's; when the
// emulator finds a problem first, the GPU's run is stopped, not waited out.
TEST(UserGpuRunner, ARunNoLongerWantedIsStoppedAtOnceAndTheNextRunWorks) {
  GpuRequest q = sample_request();
  q.simulate = "hang";
  std::atomic<bool> cancel{false};
  RunnerLimits l;
  l.time_s = 60;
  l.cancel = &cancel;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  const GpuReply r = run_in_runner(q, l);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stopper.join();
  EXPECT_EQ(r.error, "the GPU run was stopped: the check no longer needed it");
  EXPECT_LT(s, 20.0);  // not the 60 s limit
  expect_echo_works();
}

// Issue 27: a child that closes its end of the pipe and lives on was waited for without a
// deadline.
TEST(UserGpuRunner, ARunnerThatClosesItsPipeIsStillStoppedAtTheDeadline) {
  GpuRequest q = sample_request();
  q.simulate = "close-and-hang";
  RunnerLimits l;
  l.time_s = 0.5;
  const auto t0 = std::chrono::steady_clock::now();
  const GpuReply r = run_in_runner(q, l);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(r.error.find("did not finish on the GPU in 0.5 s"), std::string::npos) << r.error;
  EXPECT_LT(s, 10.0);
  expect_echo_works();
}

// The runner's syscall filter (sandbox::Profile::GpuRunner) is in force.
TEST(UserGpuRunner, TheRunnersFilterDeniesSignalsForksAndTheNetwork) {
  if (!sandbox::have_filter()) GTEST_SKIP() << "built without libseccomp";
  GpuRequest q = sample_request();
  q.simulate = "sandbox";
  const GpuReply r = run_in_runner(q, RunnerLimits{});
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.device, "kill:denied fork:denied socket:denied");
}

TEST(UserGpuRunner, ACrashOfTheRunnerIsReportedAndTheNextRunWorks) {
  GpuRequest q = sample_request();
  q.simulate = "abort";
  const GpuReply r = run_in_runner(q, RunnerLimits{});
  EXPECT_NE(r.error.find("the GPU runner crashed (signal " + std::to_string(SIGABRT)), std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("simulated abort"), std::string::npos) << r.error;  // its last stderr line
  expect_echo_works();
}

TEST(UserGpuRunner, AnUnknownModeAndAMissingRunnerAreOneLine) {
  GpuRequest q = sample_request();
  q.simulate = "nonsense";
  EXPECT_EQ(run_in_runner(q, RunnerLimits{}).error, "unknown test mode 'nonsense'");
  ::setenv("WARPSCOPE_GPU_RUNNER", "/nonexistent/warpscope-gpu-run", 1);
  const GpuReply r = run_in_runner(q, RunnerLimits{});
  ::unsetenv("WARPSCOPE_GPU_RUNNER");
  EXPECT_NE(r.error.find("was not found"), std::string::npos) << r.error;
  EXPECT_EQ(r.error.find('\n'), std::string::npos);
  expect_echo_works();
}

// The parent's side of the traced build's records, without a GPU: site slots filled on
// the host the way the device fills them (sim::count_event over the emulator's events of
// every block, one slot per site) convert into the emulator's totals; a fault becomes a
// problem naming the array.
TEST(UserGpuRunner, DeviceSiteCountersBecomeTheRunsTotalsAndAFaultAProblem) {
  ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  const std::string pf = std::string(WS_SOURCE_DIR) + "/tests/kernels/fixtures/dialect_puzzles/01-strided-copy.md";
  puzzle::Puzzle p;
  std::vector<puzzle::Error> e;
  ASSERT_TRUE(puzzle::parse_file(pf, p, e));
  const VariantInfo* job = find_variant(p.family, p.variant);
  ASSERT_NE(job, nullptr);
  KernelSpec spec = p.spec;
  spec.source_path = puzzle::solution_path(pf);
  const Compiled emu = compile_emu(spec);
  ASSERT_TRUE(emu.ok) << emu.message();
  RunOptions o;
  o.keep_all_blocks = true;
  const RunResult want = run_emu(emu, spec, *job, p.params, o, Limits{});
  ASSERT_TRUE(want.error.empty()) << want.error;
  ASSERT_EQ(want.kept.size(), want.plan.launches.size());

  GpuReply rep;
  const sim::AccessModel m = sim::DeviceModel{}.access();
  for (const KeptLaunch& k : want.kept) {
    std::vector<cuda::SiteSlot> slots(std::size_t(cuda::kSiteShards) * cuda::kSiteSlots, cuda::SiteSlot{});
    std::size_t used = 0;
    for (const WarpEvent& ev : k.events) {
      sim::Counters c;
      sim::count_event(ev, m, c);
      const std::uint32_t tag = sim::site_key(ev.line, ev.array, ev.kind) + 1u;
      std::size_t i = 0;
      while (i < used && slots[i].tag != tag) ++i;
      if (i == used) slots[used++].tag = tag;
      sim::add_counters(slots[i].counts, c);
    }
    GpuTracedLaunch t;
    t.sites.resize(slots.size() * sizeof(cuda::SiteSlot));
    std::memcpy(t.sites.data(), slots.data(), t.sites.size());
    t.fault.assign(sizeof(cuda::DeviceFault), 0);
    rep.traced.push_back(t);
  }
  RunResult got;
  got.plan = want.plan;
  ASSERT_EQ(apply_device_counts(rep, got), "");
  ASSERT_EQ(got.launches.size(), want.launches.size());
  EXPECT_FALSE(got.launches[0].sites.empty());
  const auto* a = reinterpret_cast<const std::uint64_t*>(static_cast<const sim::Counters*>(&got.totals));
  const auto* b = reinterpret_cast<const std::uint64_t*>(static_cast<const sim::Counters*>(&want.totals));
  for (int k = 0; k < sim::kCounterFields; ++k) EXPECT_EQ(a[k], b[k]) << "counter field " << k;
  EXPECT_GT(got.totals.global_ld_requests, 0u);

  cuda::DeviceFault f{};
  f.kind = std::uint32_t(cuda::FaultKind::OutOfBounds);
  f.line = 6;
  f.array = 0;
  f.index = 1 << 20;
  f.extent = 1000;
  std::memcpy(rep.traced[0].fault.data(), &f, sizeof f);
  RunResult bad;
  bad.plan = want.plan;
  bad.verified = true;
  ASSERT_EQ(apply_device_counts(rep, bad), "");
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_EQ(bad.problems[0].line, 6);
  EXPECT_EQ(bad.problems[0].kind, sim::ProblemKind::OutOfBounds);
  EXPECT_NE(bad.problems[0].message.find("`" + want.plan.arrays[0].name + "` at index 1048576"), std::string::npos)
      << bad.problems[0].message;
  EXPECT_FALSE(bad.verified);

  GpuReply none;
  RunResult r2;
  r2.plan = want.plan;
  EXPECT_NE(apply_device_counts(none, r2), "");
}

bool have_gpu() {
  std::string why;
  return gpu_available(why);
}

TEST(UserNvrtcGpu, WithoutADeviceTheRunnerSaysWhy) {
  std::string why, arch;
  if (gpu_available(why, &arch)) {
    EXPECT_EQ(arch.rfind("sm_", 0), 0u) << arch;
    GTEST_SKIP() << "a CUDA device is here";
  }
  EXPECT_FALSE(why.empty());
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

TEST(UserNvrtcGpu, ASolutionRunsAndAFaultIsReportedAndRecovered) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  const std::string pf = std::string(WS_SOURCE_DIR) + "/tests/kernels/fixtures/dialect_puzzles/01-strided-copy.md";
  puzzle::Puzzle p;
  std::vector<puzzle::Error> e;
  ASSERT_TRUE(puzzle::parse_file(pf, p, e));
  const VariantInfo* job = find_variant(p.family, p.variant);
  KernelSpec spec = p.spec;
  spec.source_path = puzzle::solution_path(pf);
  RunOptions o;
  o.timing = true;
  Compiled c;
  RunResult r = run_cuda(spec, *job, p.params, o, c);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.verified) << r.verify_message;
  EXPECT_EQ(r.timing.source.source, sim::Source::Measured);
  EXPECT_FALSE(r.timing.source.device.empty());
  EXPECT_GT(r.timing.median_ms, 0);

  // Faults only on the device (the emulator's run of it is clean).
  const fs::path d = fs::path(WS_BINARY_DIR) / "test-nvrtc";
  fs::create_directories(d);
  spec.source_path = (d / "fault.cuh").string();
  std::ofstream(spec.source_path)
      << "struct Copy {\n  Global<const float> in;\n  Global<float> out;\n"
         "  WS_DEVICE void operator()(Thread& t) const {\n"
         "    long long i = (long long)t.blockIdx.x * t.blockDim.x + t.threadIdx.x;\n"
         "    out(i) = in(i);\n"
         "#if defined(__CUDACC_RTC__)\n    if (i == 5) out.ptr[1ll << 40] = 1.f;\n#endif\n  }\n};\n";
  r = run_cuda(spec, *job, p.params, o, c);
  EXPECT_NE(r.error.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("the next run gets a fresh context"), std::string::npos) << r.error;
  EXPECT_FALSE(r.verified);

  spec.source_path = puzzle::solution_path(pf);
  r = run_cuda(spec, *job, p.params, o, c);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.verified) << r.verify_message;

  // Never ends on the device (the emulator's run of it is clean): stopped at the limit.
  // The loop reads the clock (a volatile asm, 2^63 cycles to wrap) so no compiler can
  // drop it; a spin on a volatile local came back finished on the H100.
  spec.source_path = (d / "hang.cuh").string();
  std::ofstream(spec.source_path)
      << "struct Copy {\n  Global<const float> in;\n  Global<float> out;\n"
         "  WS_DEVICE void operator()(Thread& t) const {\n"
         "    long long i = (long long)t.blockIdx.x * t.blockDim.x + t.threadIdx.x;\n"
         "    out(i) = in(i);\n"
         "#if defined(__CUDACC_RTC__)\n    if (i == 5) while (clock64() >= 0) {}\n#endif\n  }\n};\n";
  Limits lim;
  lim.time_s = 2;
  r = run_cuda(spec, *job, p.params, o, c, lim);
  EXPECT_NE(r.error.find("did not finish on the GPU in 2 s"), std::string::npos)
      << "error: '" << r.error << "', verified " << r.verified << ": " << r.verify_message;

  spec.source_path = puzzle::solution_path(pf);
  r = run_cuda(spec, *job, p.params, o, c);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.verified) << r.verify_message;
}

// Issue 23: a plain CUDA file's GPU run goes beside the emulator's build and run; a
// problem the emulator finds ends the check at once, the GPU's run stopped. Here the
// kernel never ends on the device (only NVRTC sees the loop) and writes out of bounds on
// the emulator (only the front end and the system compiler see the write).
TEST(UserNvrtcGpu, AProblemTheEmulatorFindsStopsTheGpusRunBesideIt) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  const std::string pf = std::string(WS_SOURCE_DIR) + "/puzzles/01-strided-copy.md";
  puzzle::Puzzle p;
  std::vector<puzzle::Error> e;
  ASSERT_TRUE(puzzle::parse_file(pf, p, e));
  const VariantInfo* job = find_variant(p.family, p.variant);
  ASSERT_NE(job, nullptr);
  const fs::path d = fs::path(WS_BINARY_DIR) / "test-nvrtc";
  fs::create_directories(d);
  KernelSpec spec = p.spec;
  spec.source_path = (d / "beside.cu").string();
  std::ofstream(spec.source_path) << "__global__ void copy(const float* in, float* out) {\n"
                                     "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
                                     "#if defined(__CUDACC_RTC__)\n"
                                     "  if (i == 5) while (clock64() >= 0) {}\n"
                                     "#else\n"
                                     "  if (i == 5) out[-1] = 0.f;\n"
                                     "#endif\n"
                                     "  out[i] = in[i];\n}\n";
  RunOptions o;
  o.timing = true;
  Limits lim;
  lim.time_s = 60;  // the runner's limit: waited out, the check would take a minute
  Compiled c;
  StepSeconds secs;
  const auto t0 = std::chrono::steady_clock::now();
  RunResult r = run_cuda(spec, *job, p.params, o, c, lim, &secs);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.error.empty()) << r.error;
  ASSERT_FALSE(r.problems.empty());
  EXPECT_EQ(r.problems[0].line, 6);
  EXPECT_LT(s, 30.0);
  EXPECT_GT(secs.compile, 0.0);
  // The next check of a solution runs on a fresh runner.
  spec.source_path = puzzle::solution_path(pf);
  r = run_cuda(spec, *job, p.params, o, c, Limits{}, &secs);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.verified) << r.verify_message;
  EXPECT_GT(secs.gpu_build + secs.run, 0.0);
}

// The device's counts (the traced NVRTC build, counted per site on the GPU) equal the
// emulator's for every puzzle's solution, field by field and launch by launch.
TEST(UserNvrtcGpu, TheTracedBuildsCountsEqualTheEmulatorsForEverySolution) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  for (const auto& f : puzzle::list_files(std::string(WS_SOURCE_DIR) + "/tests/kernels/fixtures/dialect_puzzles")) {
    puzzle::Puzzle p;
    std::vector<puzzle::Error> e;
    ASSERT_TRUE(puzzle::parse_file(f, p, e));
    const VariantInfo* job = find_variant(p.family, p.variant);
    ASSERT_NE(job, nullptr) << f;
    KernelSpec spec = p.spec;
    spec.source_path = puzzle::solution_path(f);
    RunOptions o;
    const Compiled emu = compile_emu(spec);
    ASSERT_TRUE(emu.ok) << f << emu.message();
    const RunResult want = run_emu(emu, spec, *job, p.params, o, Limits{});
    ASSERT_TRUE(want.error.empty()) << f << want.error;
    Compiled c;
    const RunResult got = run_cuda(spec, *job, p.params, o, c);
    ASSERT_TRUE(got.error.empty()) << f << ": " << got.error;
    EXPECT_TRUE(got.verified) << f << got.verify_message;
    ASSERT_EQ(got.launches.size(), want.launches.size()) << f;
    EXPECT_FALSE(got.launches.empty() || got.launches[0].sites.empty()) << f << ": no device sites";
    for (std::size_t i = 0; i < got.launches.size(); ++i) {
      const auto* a = reinterpret_cast<const std::uint64_t*>(static_cast<const sim::Counters*>(&got.launches[i].totals));
      const auto* b = reinterpret_cast<const std::uint64_t*>(static_cast<const sim::Counters*>(&want.launches[i].totals));
      for (int k = 0; k < sim::kCounterFields; ++k)
        EXPECT_EQ(a[k], b[k]) << f << " launch " << i << " counter field " << k;
    }
  }
}

// Every puzzle's plain CUDA solution runs unchanged on the GPU (NVRTC, the runner launching
// the student's own __global__ function by name): right output, a measured time, and the
// emulator's counts; every starter's verdict is the emulator's.
TEST(UserNvrtcGpu, EveryPlainCudaSolutionRunsUnchangedOnTheGpu) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  int n = 0;
  for (const auto& f : puzzle::list_files(std::string(WS_SOURCE_DIR) + "/puzzles")) {
    puzzle::Puzzle p;
    std::vector<puzzle::Error> e;
    ASSERT_TRUE(puzzle::parse_file(f, p, e));
    const VariantInfo* job = find_variant(p.family, p.variant);
    ASSERT_NE(job, nullptr) << f;
    KernelSpec spec = p.spec;
    spec.source_path = puzzle::solution_path(f);
    if (!is_cuda_file(spec.source_path)) continue;
    ++n;
    RunOptions o;
    o.timing = true;
    const Compiled emu = compile_emu(spec);
    ASSERT_TRUE(emu.ok) << f << emu.message();
    const RunResult want = run_emu(emu, spec, *job, p.params, o, Limits{});
    ASSERT_TRUE(want.error.empty()) << f << want.error;
    Compiled c;
    const RunResult got = run_cuda(spec, *job, p.params, o, c);
    ASSERT_TRUE(got.error.empty()) << f << ": " << got.error << c.message();
    EXPECT_TRUE(got.verified) << f << got.verify_message;
    EXPECT_GT(got.timing.median_ms, 0) << f;
    EXPECT_EQ(got.timing.source.source, sim::Source::Measured) << f;
    const auto* a = reinterpret_cast<const std::uint64_t*>(static_cast<const sim::Counters*>(&got.totals));
    const auto* b = reinterpret_cast<const std::uint64_t*>(static_cast<const sim::Counters*>(&want.totals));
    for (int k = 0; k < sim::kCounterFields; ++k) EXPECT_EQ(a[k], b[k]) << f << " counter field " << k;
  }
  EXPECT_GE(n, 10);
}

}  // namespace
}  // namespace ws::user
