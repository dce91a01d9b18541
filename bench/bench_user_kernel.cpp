// Recompiling a student's kernel after a small edit (one constant changed, so no cached
// build matches): the emulator build with the system C++ compiler and the precompiled
// dialect prelude. The target is under 2 s. Wall time, on whatever machine runs it: one
// recompile per repetition, so the `_median` row is the p50 of single recompiles.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "kernels/user/user_kernel.h"
#if defined(WS_HAVE_NVRTC)
#include "kernels/user/user_nvrtc.h"
#endif

namespace {

std::string kernel(int k) {
  return "struct Copy {\n  Global<const float> in;\n  Global<float> out;\n"
         "  WS_DEVICE void operator()(Thread& t) const {\n"
         "    long long i = (long long)t.blockIdx.x * t.blockDim.x + t.threadIdx.x;\n"
         "    out(i) = in(i) * " + std::to_string(k) + ".f;\n  }\n};\n";
}

// The student's copy kernel, edited in `dir` (created).
ws::user::KernelSpec copy_spec(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  ws::user::KernelSpec spec;
  spec.source_path = (dir / "k.cuh").string();
  spec.struct_name = "Copy";
  spec.fields = {{"in", "float", true, true, ""}, {"out", "float", false, true, ""}};
  return spec;
}

void BM_RecompileEmu(benchmark::State& state) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "warpscope-bench-user";
  const ws::user::KernelSpec spec = copy_spec(dir);
  ws::user::CompileOptions opt;
  opt.cache_dir = (dir / "cache").string();
  int k = 0;
  std::ofstream(spec.source_path) << kernel(k++);
  if (!ws::user::compile_emu(spec, opt).ok) {  // builds the prelude once
    state.SkipWithError("the first build failed");
    return;
  }
  for (auto _ : state) {
    std::ofstream(spec.source_path) << kernel(k++);
    const auto c = ws::user::compile_emu(spec, opt);
    if (!c.ok || c.cached) state.SkipWithError("the recompile failed or was cached");
  }
  fs::remove_all(dir);
}
BENCHMARK(BM_RecompileEmu)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(9)
    ->ReportAggregatesOnly(true)
    ->UseRealTime();

#if defined(WS_HAVE_NVRTC)
// The same edit through NVRTC for sm_90 (no GPU needed to compile): the fast build (arg 0)
// or the traced one (arg 1) alone.
void BM_RecompileNvrtc(benchmark::State& state) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "warpscope-bench-nvrtc";
  const ws::user::KernelSpec spec = copy_spec(dir);
  int k = 0;
  std::ofstream(spec.source_path) << kernel(k++);
  if (!ws::user::compile_nvrtc(spec, false, "sm_90").compiled.ok) {
    state.SkipWithError("the first build failed");
    return;
  }
  for (auto _ : state) {
    std::ofstream(spec.source_path) << kernel(k++);
    if (!ws::user::compile_nvrtc(spec, state.range(0) != 0, "sm_90").compiled.ok)
      state.SkipWithError("the recompile failed");
  }
  fs::remove_all(dir);
}
BENCHMARK(BM_RecompileNvrtc)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(9)
    ->ReportAggregatesOnly(true)
    ->UseRealTime();

// What a GPU check recompiles after an edit: the fast build, then the traced one
// (compile_nvrtc_both, as run_cuda does). The target is under 1 s.
void BM_RecompileNvrtcBoth(benchmark::State& state) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "warpscope-bench-nvrtc2";
  const ws::user::KernelSpec spec = copy_spec(dir);
  int k = 0;
  std::ofstream(spec.source_path) << kernel(k++);
  for (auto _ : state) {
    std::ofstream(spec.source_path) << kernel(k++);
    const auto [fast, traced] = ws::user::compile_nvrtc_both(spec, "sm_90");
    if (!fast.compiled.ok || !traced.compiled.ok) state.SkipWithError("the recompile failed");
  }
  fs::remove_all(dir);
}
BENCHMARK(BM_RecompileNvrtcBoth)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(9)
    ->ReportAggregatesOnly(true)
    ->UseRealTime();
#endif

}  // namespace

BENCHMARK_MAIN();
