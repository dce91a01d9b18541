// Emulator throughput: TransposeTiled (tile 32, block_rows 8, pad 1) on a 1024 x 1024
// float matrix, the whole grid of 1024 blocks x 256 threads, streamed into a TotalsSink.
// One launch per iteration; the target is under 2 s per launch on one core.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/dialect/simt.h"
#include "kernels/families/transpose.cuh"
#include "sim/fiber.h"
#include "sim/model.h"

namespace {

void run_transpose(benchmark::State& state, bool races) {
  constexpr int n = 1024, tile = 32, rows = 8, pad = 1;
  std::vector<float> in(std::size_t(n) * n), out(std::size_t(n) * n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (float& v : in) v = d(rng);
  const std::vector<ws::ArrayDesc> arrays = {{0, ws::Space::Global, "in", 4, in.size(), 0},
                                             {1, ws::Space::Global, "out", 4, out.size(), 0}};
  const ws::LaunchCfg cfg{"transpose_tiled", {n / tile, n / tile, 1}, {tile, rows, 1},
                          std::uint32_t(tile * (tile + pad) * 4)};
  const ws::TransposeTiled<tile, rows> kernel{
      {in.data(), in.size(), 0}, {out.data(), out.size(), 1}, n, pad};
  ws::sim::EmuOptions opt;
  opt.detect_races = races;
  std::uint64_t events = 0;
  for (auto _ : state) {
    ws::sim::TotalsSink sink;
    ws::Launcher L(sink, arrays, "kernels/families/transpose.cuh", opt);
    L.launch(cfg, kernel);
    if (!L.result().ok) {
      state.SkipWithError("the launch reported a problem");
      break;
    }
    events = L.result().events;
    benchmark::DoNotOptimize(sink.totals().shared_ld_wavefronts);
  }
  state.counters["warp_events"] = double(events);
  state.counters["events_per_s"] =
      benchmark::Counter(double(events), benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string("fibers: ") +
                 std::string(ws::sim::to_string(ws::sim::default_fiber_backend())));
}

void BM_TransposeTiled1024(benchmark::State& state) { run_transpose(state, true); }
void BM_TransposeTiled1024_NoRaceCheck(benchmark::State& state) { run_transpose(state, false); }

BENCHMARK(BM_TransposeTiled1024)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_TransposeTiled1024_NoRaceCheck)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
