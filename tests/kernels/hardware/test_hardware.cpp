// Hardware counters beside the model, with no GPU: statistics over passes, the kinds of
// difference and their sentences, and the refusal messages (what the emulator and a
// build without CUDA say).
#include <gtest/gtest.h>

#include "kernels/backends/backend.h"
#include "kernels/hardware/hardware.h"

using namespace ws;

namespace {
const std::string kSld = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
const std::string kSst = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
const std::string kGld = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
const std::string kGst = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";

HardwareCounters passes(std::vector<std::map<std::string, double>> p) {
  HardwareCounters h;
  h.unavailable = HardwareUnavailable::None;
  h.passes = std::move(p);
  return h;
}
}  // namespace

TEST(Hardware, StatisticsOverPasses) {
  const HardwareCounters h = passes({{{kSst, 144006}}, {{kSst, 143893}}, {{kSst, 144413}}});
  EXPECT_TRUE(h.ok());
  EXPECT_EQ(h.min(kSst), 143893);
  EXPECT_EQ(h.max(kSst), 144413);
  EXPECT_EQ(h.median(kSst), 144006);
  EXPECT_EQ(h.median("nope"), 0);
  EXPECT_FALSE(h.has("nope"));
  EXPECT_FALSE(HardwareCounters{}.ok());
}

TEST(Hardware, KindsOfDifference) {
  const std::map<std::string, double> model = {{kSst, 131072}, {kGld, 1000}, {kSld, 100}, {kGst, 64}};
  const HardwareCounters h = passes({
      {{kSst, 143893}, {kGld, 1000}, {kSld, 80}, {kGst, 70}, {kDramRead, 4e6}},
      {{kSst, 144413}, {kGld, 1000}, {kSld, 80}, {kGst, 70}, {kDramRead, 4.1e6}},
      {{kSst, 144006}, {kGld, 1000}, {kSld, 80}, {kGst, 70}, {kDramRead, 4e6}},
  });
  std::map<std::string, CounterDiff> d;
  for (const CounterDiff& c : compare_counters(model, h)) d[c.metric] = c;
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(d[kSst].kind, DiffKind::Arbitration);
  EXPECT_EQ(d[kSst].diff, 144006 - 131072);
  EXPECT_EQ(diff_summary(d[kSst]),
            "arbitration with other warps; varies run to run; 3 runs: 143,893..144,413");
  EXPECT_EQ(d[kGld].kind, DiffKind::Equal);
  // Below the model, or the same surplus in every run: no cause is guessed, both figures shown.
  EXPECT_EQ(d[kSld].kind, DiffKind::NotExplained);
  EXPECT_EQ(diff_summary(d[kSld]), "not explained: model 100, hardware 80; 3 runs: 80");
  EXPECT_NE(d[kSld].explain.find("Not explained"), std::string::npos);
  EXPECT_NE(d[kSld].explain.find("100"), std::string::npos);
  EXPECT_NE(d[kSld].explain.find("80"), std::string::npos);
  EXPECT_EQ(d[kSld].explain.find("compiler"), std::string::npos) << "no guessed cause";
  EXPECT_EQ(d[kGst].kind, DiffKind::NotExplained);
  EXPECT_EQ(diff_summary(d[kGst]), "not explained: model 64, hardware 70; 3 runs: 70");
  EXPECT_EQ(d[kDramRead].kind, DiffKind::HardwareOnly);
  EXPECT_FALSE(d[kDramRead].modelled);
  for (DiffKind k : {DiffKind::Equal, DiffKind::Arbitration, DiffKind::NotExplained,
                     DiffKind::HardwareOnly, DiffKind::MmaPipeMoves, DiffKind::CompiledLoop})
    EXPECT_NE(to_string(k), "unknown");
}

TEST(Hardware, TensorPipeSurplusIsTheCompilersHfma2MmaMoves) {
  // Measured on the H100: 2,048 "hmma" in scan/serial, whose SASS has no HMMA but one
  // HFMA2.MMA (a register set to 0) per warp. The same surplus each run: named; one that
  // varies, or a shortfall, stays not explained.
  const auto same = compare_counters({{kTensorPipeHmma, 0}},
                                     passes({{{kTensorPipeHmma, 2048}}, {{kTensorPipeHmma, 2048}}}));
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ(same[0].kind, DiffKind::MmaPipeMoves);
  EXPECT_NE(same[0].explain.find("HFMA2.MMA"), std::string::npos);
  EXPECT_EQ(diff_summary(same[0]),
            "HFMA2.MMA register moves on the tensor pipe: model 0, hardware 2,048; 2 runs: 2,048");
  const auto varies = compare_counters({{kTensorPipeHmma, 0}},
                                       passes({{{kTensorPipeHmma, 2048}}, {{kTensorPipeHmma, 2050}}}));
  EXPECT_EQ(varies[0].kind, DiffKind::NotExplained);
  const auto fewer = compare_counters({{kTensorPipeHmma, 100}}, passes({{{kTensorPipeHmma, 90}}}));
  EXPECT_EQ(fewer[0].kind, DiffKind::NotExplained);
}

TEST(Hardware, ASurplusTheCompiledLoopAccountsForIsNamed) {
  // The hardware equals the model plus what the SASS adds, in every run: named, with the
  // compiler's story. Off by one, varying, or a metric the surplus does not cover: not
  // explained, as before.
  CompiledSurplus s;
  s.extra[kGld] = 24832;
  s.why = "The compiler unrolled the loop.";
  const auto named = compare_counters({{kGld, 294912}}, passes({{{kGld, 319744}}, {{kGld, 319744}}}), s);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0].kind, DiffKind::CompiledLoop);
  EXPECT_EQ(named[0].diff, 24832);
  EXPECT_NE(named[0].explain.find("The compiler unrolled the loop."), std::string::npos);
  EXPECT_NE(named[0].explain.find("319,744"), std::string::npos) << named[0].explain;
  EXPECT_EQ(diff_summary(named[0]),
            "the compiler's unrolled loop (SASS): model 294,912, hardware 319,744; 2 runs: 319,744");
  EXPECT_EQ(compare_counters({{kGld, 294912}}, passes({{{kGld, 319745}}}), s)[0].kind,
            DiffKind::NotExplained);
  EXPECT_EQ(compare_counters({{kGld, 294912}}, passes({{{kGld, 319744}}, {{kGld, 319746}}}), s)[0].kind,
            DiffKind::NotExplained);
  EXPECT_EQ(compare_counters({{kGld, 294912}}, passes({{{kGld, 319744}}}))[0].kind,
            DiffKind::NotExplained);
  // The model's own figure still reads equal with a surplus at hand.
  EXPECT_EQ(compare_counters({{kGld, 294912}}, passes({{{kGld, 294912}}}), s)[0].kind, DiffKind::Equal);
}

TEST(Hardware, AGlobalSurplusThatVariesIsNotArbitration) {
  // Arbitration is a shared-memory finding (a probe shows it); a global counter that
  // varies is not explained, with its spread.
  const HardwareCounters h = passes({{{kGld, 1001}}, {{kGld, 1003}}});
  const auto d = compare_counters({{kGld, 1000}}, h);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kind, DiffKind::NotExplained);
  EXPECT_EQ(diff_summary(d[0]), "not explained: model 1,000, hardware 1,002; 2 runs: 1,001..1,003");
  EXPECT_NE(d[0].explain.find("1,001 to 1,003 over 2 runs"), std::string::npos);
}

TEST(Hardware, ASharedShortfallIsNotArbitration) {
  // Arbitration only adds wavefronts: a shared counter below the model is not explained.
  const HardwareCounters h = passes({{{kSld, 90}}, {{kSld, 95}}});
  const auto d = compare_counters({{kSld, 100}}, h);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kind, DiffKind::NotExplained);
}

TEST(Hardware, RefusalSaysWhyAndHowAnAdminEnablesIt) {
  const std::string t =
      hardware_unavailable_text(HardwareUnavailable::NotPermitted, "cuptiProfilerInitialize: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  EXPECT_NE(t.find("administrator"), std::string::npos);
  EXPECT_NE(t.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
  EXPECT_NE(t.find("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), std::string::npos);
  EXPECT_EQ(t.find('\n'), std::string::npos) << "one line";
  EXPECT_EQ(hardware_unavailable_text(HardwareUnavailable::None, "x"), "");
  for (auto u : {HardwareUnavailable::NotAsked, HardwareUnavailable::NoCudaBuild, HardwareUnavailable::NoGpu,
                 HardwareUnavailable::NoCupti, HardwareUnavailable::Unsupported, HardwareUnavailable::Busy,
                 HardwareUnavailable::Failed}) {
    EXPECT_FALSE(hardware_unavailable_text(u, "").empty());
    EXPECT_NE(to_string(u), "unknown");
  }
}

TEST(Hardware, TheEmulatorSaysThereIsNoGpuAndKeepsTheModel) {
  auto emu = make_emu_backend();
  RunOptions o;
  o.hardware_runs = 3;
  const RunResult r = emu->run("transpose", "tiled", {{"n", 64}}, o);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.hardware.unavailable, HardwareUnavailable::NoGpu);
  EXPECT_FALSE(r.hardware.ok());
  EXPECT_NE(r.hardware.why().find("emulator"), std::string::npos);
  EXPECT_GT(r.totals.ncu().at(kGld), 0);
  // Not asked: says so.
  const RunResult q = emu->run("transpose", "tiled", {{"n", 64}}, RunOptions{});
  EXPECT_EQ(q.hardware.unavailable, HardwareUnavailable::NotAsked);
}

TEST(Hardware, MetricListHasTheModelsCountersAndTheHardwareOnlyOnes) {
  const auto& m = hardware_metrics();
  std::map<std::string, double> model = sim::Totals{}.ncu();
  for (const auto& [k, v] : model)
    EXPECT_NE(std::find(m.begin(), m.end(), k), m.end()) << k << " is not asked of CUPTI";
  EXPECT_TRUE(hardware_only(kDramRead));
  EXPECT_TRUE(hardware_only(kDramWrite));
  EXPECT_TRUE(hardware_only(kAchievedOccupancy));
  EXPECT_FALSE(hardware_only(kGld));
}

TEST(Hardware, TheoreticalOccupancy) {
  // The tiled transpose: 256 threads, 26 registers, 4 KB shared: 8 blocks, every warp slot.
  Occupancy o = theoretical_occupancy(256, 26, 4096);
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_EQ(o.warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(o.fraction, 1.0);
  EXPECT_EQ(o.limiter, "warps");
  // 128 registers a thread: 4096 per warp, 16 warps an SM.
  o = theoretical_occupancy(256, 128, 0);
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_DOUBLE_EQ(o.fraction, 0.25);
  // 100 KB of shared memory a block: two fit in 228 KB.
  o = theoretical_occupancy(64, 32, 100 * 1024);
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.limiter, "shared memory");
  // Tiny blocks: 32 blocks an SM at most.
  o = theoretical_occupancy(32, 16, 0);
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.limiter, "blocks");
  EXPECT_DOUBLE_EQ(o.fraction, 0.5);
  EXPECT_EQ(theoretical_occupancy(0, 10, 0).blocks_per_sm, 0);
}
