// The CUDA backend on a real GPU (label gpu; every test skips when there is no device):
// every variant verifies, its trace equals the emulator's event for event, the model's
// whole-grid totals from the GPU trace equal the emulator's, bad input gets sentences.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <set>

#include "kernels/backends/backend.h"
#include "kernels/backends/cuda/cuda_backend.h"
#include "tests/kernels/backends/cuda/gpu_backend.h"
#include "tests/kernels/reference_output.h"
#include "sim/model.h"

using namespace ws;

namespace {

std::string id(const VariantInfo& v) { return v.family + "_" + v.name; }

std::vector<std::string> variant_ids() {
  std::vector<std::string> out;
  for (const VariantInfo& v : catalogue()) out.push_back(id(v));
  return out;
}

const VariantInfo& by_id(const std::string& s) {
  for (const VariantInfo& v : catalogue())
    if (id(v) == s) return v;
  throw std::runtime_error("no variant " + s);
}

// A CUDA error code leaking into a message ("cudaErrorInvalidValue", "error 1").
bool looks_like_a_code(const std::string& m) {
  return m.empty() || (m.find("cudaError") != std::string::npos && m.find(": ") == std::string::npos);
}

// Blocks worth comparing: first, middle and last of the first launch.
std::vector<std::uint32_t> chosen_blocks(const Plan& p) {
  const std::uint64_t n = p.launches.empty() ? 1 : p.launches[0].grid.count();
  std::set<std::uint32_t> s = {0, std::uint32_t(n / 2), std::uint32_t(n - 1)};
  return {s.begin(), s.end()};
}

}  // namespace

TEST(CudaBackend, DescribesTheDevice) {
  NEED_GPU();
  const DeviceInfo d = cuda->device();
  EXPECT_EQ(cuda->kind(), BackendKind::Cuda);
  EXPECT_FALSE(d.name.empty());
  EXPECT_FALSE(d.driver.empty());
  EXPECT_FALSE(d.runtime.empty());
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.l2_bytes, 0u);
  EXPECT_GT(d.mem_clock_mhz, 0);
  EXPECT_GT(d.bus_width_bits, 0);
  EXPECT_NEAR(d.peak_gbps, 2.0 * d.mem_clock_mhz * 1e6 * d.bus_width_bits / 8 / 1e9, 1e-6);
  EXPECT_EQ(d.limits.sm_count, d.sm_count);
  EXPECT_GE(d.limits.max_shared_per_block_optin, d.limits.max_shared_per_block);
  std::cout << d.name << ": " << d.sm_count << " SMs, " << d.l2_bytes / 1e6 << " MB L2, "
            << d.bus_width_bits << "-bit bus at " << d.mem_clock_mhz << " MHz, peak "
            << d.peak_gbps << " GB/s, driver " << d.driver << ", runtime " << d.runtime << "\n";
}

class EveryVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryVariant, VerifiesAndTimes) {
  NEED_GPU();
  const VariantInfo& v = by_id(GetParam());
  RunOptions opt;
  opt.totals = false;
  opt.keep_blocks = {};
  opt.timing = true;
  opt.warmup = 1;
  opt.repeats = 3;
  const RunResult r = cuda->run(v.family, v.name, {}, opt);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(r.verified) << r.verify_message;
  EXPECT_EQ(r.timing.source, sim::Provenance::measured(cuda->device().name));
  EXPECT_EQ(r.timing.samples_ms.size(), 3u);
  EXPECT_GT(r.timing.median_ms, 0);
  EXPECT_LE(r.timing.min_ms, r.timing.median_ms);
  EXPECT_LE(r.timing.median_ms, r.timing.max_ms);
  EXPECT_GT(r.timing.throughput, 0);
  EXPECT_EQ(r.timing.unit, std::string(r.plan.unit()));  // the family's unit (instr: Gop/s)
}

TEST_P(EveryVariant, TraceEqualsTheEmulator) {
  NEED_GPU();
  const VariantInfo& v = by_id(GetParam());
  auto emu = make_emu_backend();
  Params done;
  ASSERT_EQ(validate(v, {}, DeviceLimits{}, done), "");
  RunOptions opt;
  opt.totals = false;
  opt.keep_blocks = chosen_blocks(v.plan(done));
  const RunResult g = cuda->run(v.family, v.name, {}, opt);
  const RunResult e = emu->run(v.family, v.name, {}, opt);
  ASSERT_EQ(g.error, "");
  ASSERT_EQ(e.error, "");
  EXPECT_TRUE(g.verified) << g.verify_message;
  EXPECT_TRUE(g.problems.empty()) << g.problems.front().message;
  ASSERT_EQ(g.kept.size(), e.kept.size());
  for (std::size_t i = 0; i < g.kept.size(); ++i) {
    const auto a = canonical(g.kept[i].events);
    const auto b = canonical(e.kept[i].events);
    EXPECT_FALSE(a.empty()) << "launch " << i << ": the GPU recorded nothing";
    EXPECT_EQ(a.size(), b.size()) << "launch " << i;
    EXPECT_TRUE(a == b) << "launch " << i << " (" << g.kept[i].info.kernel
                        << "), GPU vs emulator: " << first_difference(a, b);
    // Shared arrays as each side saw them allocated.
    auto shared = [](const LaunchInfo& l) {
      std::vector<std::tuple<int, std::string, std::uint32_t, std::uint64_t, std::uint32_t>> s;
      for (const ArrayDesc& d : l.arrays)
        if (d.space == Space::Shared)
          s.emplace_back(d.id, d.name, d.elem_bytes, d.count, d.base_offset);
      return s;
    };
    EXPECT_EQ(shared(g.kept[i].info), shared(e.kept[i].info)) << "launch " << i;
  }
}

TEST_P(EveryVariant, WholeGridTotalsEqualTheEmulator) {
  NEED_GPU();
  const VariantInfo& v = by_id(GetParam());
  auto emu = make_emu_backend();
  RunOptions opt;
  opt.totals = true;
  opt.keep_blocks = {};
  const RunResult g = cuda->run(v.family, v.name, {}, opt);
  const RunResult e = emu->run(v.family, v.name, {}, opt);
  ASSERT_EQ(g.error, "");
  ASSERT_EQ(e.error, "");
  ASSERT_EQ(g.launches.size(), e.launches.size());
  EXPECT_GT(g.totals.events, 0u);
  for (std::size_t i = 0; i < g.launches.size(); ++i)
    EXPECT_EQ(g.launches[i].totals.ncu(), e.launches[i].totals.ncu()) << "launch " << i;
  EXPECT_EQ(g.totals.ncu(), e.totals.ncu());
  EXPECT_EQ(g.totals.events, e.totals.events);
  EXPECT_EQ(g.totals.active_lane_sum, e.totals.active_lane_sum);
  EXPECT_EQ(g.totals.divergent_branches, e.totals.divergent_branches);
  EXPECT_EQ(g.totals.global_ld_fetches, e.totals.global_ld_fetches);
  EXPECT_EQ(g.totals.global_ld_lines, e.totals.global_ld_lines);
}

INSTANTIATE_TEST_SUITE_P(Catalogue, EveryVariant, ::testing::ValuesIn(variant_ids()),
                         [](const auto& info) { return info.param; });

// A small trace buffer forces the whole-grid totals through many chunks (and through the
// overflow retry); the sums must not depend on the chunking.
TEST(CudaBackend, TotalsDoNotDependOnChunks) {
  NEED_GPU();
  const Params p = {{"n", 256}};
  RunOptions opt;
  opt.keep_blocks = {};
  const RunResult whole = cuda->run("transpose", "tiled", p, opt);
  ASSERT_EQ(whole.error, "");
  setenv("WS_CUDA_TRACE_EVENTS", "1000", 1);
  std::string why;
  auto small = ws::cuda::make_backend(why);
  ASSERT_TRUE(small) << why;
  opt.keep_all_blocks = true;
  const RunResult chunked = small->run("transpose", "tiled", p, opt);
  unsetenv("WS_CUDA_TRACE_EVENTS");
  ASSERT_EQ(chunked.error, "");
  EXPECT_EQ(whole.totals.ncu(), chunked.totals.ncu());
  EXPECT_EQ(whole.totals.events, chunked.totals.events);
  ASSERT_EQ(chunked.kept.size(), 1u);
  std::set<std::uint32_t> blocks;
  for (const WarpEvent& e : chunked.kept[0].events) blocks.insert(e.block);
  EXPECT_EQ(blocks.size(), 64u);  // (256/32)^2 blocks, every one kept once
  EXPECT_EQ(chunked.kept[0].events.size(), chunked.totals.events);
  // Each of the 64 blocks: 8 warps, each loading 4 rows of its tile.
  EXPECT_EQ(whole.totals.global_ld_requests, 64u * 8 * 4);
}

TEST(CudaBackend, BadInputGetsSentences) {
  NEED_GPU();
  RunOptions opt;
  struct Case {
    std::string family, variant;
    Params p;
    std::string mentions;
  };
  const std::vector<Case> cases = {
      {"nosuch", "tiled", {}, "nosuch"},
      {"transpose", "nosuch", {}, "nosuch"},
      {"transpose", "tiled", {{"tile", 7}}, "tile"},
      {"transpose", "tiled", {{"n", 1000}}, "n"},
      {"transpose", "tiled", {{"bogus", 1}}, "bogus"},
  };
  for (const Case& c : cases) {
    const RunResult r = cuda->run(c.family, c.variant, c.p, opt);
    EXPECT_FALSE(r.error.empty()) << c.family << "/" << c.variant << " " << to_string(c.p);
    EXPECT_NE(r.error.find(c.mentions), std::string::npos) << r.error;
    EXPECT_FALSE(looks_like_a_code(r.error)) << r.error;
  }
  // The backend still works after refusing.
  const RunResult ok = cuda->run("transpose", "tiled", {{"n", 64}}, opt);
  EXPECT_TRUE(ok.ok()) << ok.error << ok.verify_message;
}

TEST(CudaBackend, PeersRunAndRefuseBadSizes) {
  NEED_GPU();
  RunOptions opt;
  opt.warmup = 1;
  opt.repeats = 3;
  const PeerResult m = cuda->run_peer(Peer::MemcpyD2D, {{"bytes", 1 << 24}}, opt);
  EXPECT_EQ(m.error, "");
  EXPECT_GT(m.timing.throughput, 0);
  EXPECT_EQ(m.timing.unit, "GB/s");
  // A variant's own parameters size the copy, as its family declares (copy_bytes).
  const PeerResult mt = cuda->run_peer(
      Peer::MemcpyD2D,
      peer_params(Peer::MemcpyD2D, *find_family("transpose"),
                  {{"n", 1024}, {"tile", 32}, {"block_rows", 8}, {"pad", 1}}),
      opt);
  EXPECT_EQ(mt.error, "");
  const PeerResult c = cuda->run_peer(Peer::CubReduceSum, {{"n", 1 << 20}}, opt);
  EXPECT_EQ(c.error, "");
  EXPECT_GT(c.timing.throughput, 0);
  const PeerResult s = cuda->run_peer(Peer::CublasSgemm, {{"n", 512}}, opt);
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.timing.unit, "GFLOP/s");
  EXPECT_GT(s.timing.throughput, 0);

  const PeerResult bad_copy = cuda->run_peer(Peer::MemcpyD2D, {{"zzz", 3}}, opt);
  EXPECT_NE(bad_copy.error.find("bytes"), std::string::npos) << bad_copy.error;
  const PeerResult bad_gemm = cuda->run_peer(Peer::CublasSgemm, {{"n", 0}}, opt);
  EXPECT_NE(bad_gemm.error.find("n="), std::string::npos) << bad_gemm.error;
  const PeerResult huge = cuda->run_peer(Peer::MemcpyD2D, {{"bytes", 1ll << 50}}, opt);
  EXPECT_NE(huge.error.find("GPU memory"), std::string::npos) << huge.error;
  EXPECT_FALSE(looks_like_a_code(huge.error)) << huge.error;
}

TEST(CudaFactory, SaysWhyWhenThereIsNoDevice) {
  // With a device the factory succeeds and leaves `why` empty; without one it must say
  // why in words. Either way the contract is checked.
  std::string why = "untouched";
  auto b = ws::cuda::make_backend(why);
  if (b) {
    EXPECT_EQ(why, "");
  } else {
    EXPECT_FALSE(why.empty());
    EXPECT_EQ(why.find("untouched"), std::string::npos);
  }
}

// --- Counters on the device, verification on the device ---

namespace {

// A second size per family, other than its default, so the device's counters are held to
// the host model on two grids.
Params second_size(const VariantInfo& v) {
  if (v.family == "transpose") return {{"n", 512}};
  if (v.family == "reduce") return {{"n", 1 << 16}};
  if (v.family == "matmul") return {{"n", 256}};
  // At most 512: the CPU's matrix references check every element there (sampled above),
  // so DeviceReferenceEqualsTheCpu compares whole counts.
  if (v.family == "tensor") return {{"n", 256}};
  if (v.family == "access") return {{"n", 1 << 16}};
  if (v.family == "divergence") return v.name == "boundary" ? Params{{"n", 77}} : Params{{"n", 4096}};
  return {};
}

bool same_counters(const sim::Counters& a, const sim::Counters& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

// The device adds every event to its site's counters with the host's own code
// (sim/access.h); the events of every block, streamed to the host and added there by the
// model, must give the same counters, site by site, at two sizes.
TEST_P(EveryVariant, DeviceTotalsEqualTheHostModel) {
  NEED_GPU();
  const VariantInfo& v = by_id(GetParam());
  for (const Params& p : {Params{}, second_size(v)}) {
    SCOPED_TRACE(to_string(p));
    RunOptions opt;
    opt.totals = true;
    opt.keep_all_blocks = true;
    const RunResult g = cuda->run(v.family, v.name, p, opt);
    ASSERT_EQ(g.error, "");
    ASSERT_EQ(g.kept.size(), g.launches.size());
    for (std::size_t i = 0; i < g.launches.size(); ++i) {
      sim::TotalsSink host;
      sim::SiteSink sites;
      for (const WarpEvent& e : g.kept[i].events) {
        host.on_event(e);
        sites.on_event(e);
      }
      EXPECT_GT(host.totals().events, 0u);
      EXPECT_TRUE(same_counters(g.launches[i].totals, host.totals()))
          << "launch " << i << ": device " << g.launches[i].totals.events << " events, host "
          << host.totals().events;
      EXPECT_EQ(g.launches[i].totals.ncu(), host.totals().ncu());
      const sim::SiteList want = sites.sites();
      ASSERT_EQ(g.launches[i].sites.size(), want.size()) << "launch " << i;
      for (std::size_t k = 0; k < want.size(); ++k) {
        EXPECT_EQ(g.launches[i].sites[k].line, want[k].line);
        EXPECT_EQ(g.launches[i].sites[k].kind, want[k].kind);
        EXPECT_TRUE(same_counters(g.launches[i].sites[k].totals, want[k].totals))
            << "line " << want[k].line;
      }
    }
    // The whole grid counted on the device with only block 0 kept: the same counters.
    RunOptions dev;
    dev.totals = true;
    dev.keep_blocks = {0};
    const RunResult d = cuda->run(v.family, v.name, p, dev);
    ASSERT_EQ(d.error, "");
    EXPECT_TRUE(same_counters(d.totals, g.totals));
    ASSERT_FALSE(d.kept.empty());
    for (const WarpEvent& e : d.kept[0].events) ASSERT_EQ(e.block, 0u);
  }
}

// The GPU reference of each variant equals its CPU reference: on the right output, and on
// outputs with elements changed (count, first index and the values there).
TEST_P(EveryVariant, DeviceReferenceEqualsTheCpu) {
  NEED_GPU();
  const VariantInfo& v = by_id(GetParam());
  Params p;
  ASSERT_EQ(validate(v, second_size(v), DeviceLimits{}, p), "");
  const Plan plan = v.plan(p);
  if (plan.ref.kind == RefKind::None) GTEST_SKIP() << "verified on the CPU";
  HostArrays h = HostArrays::allocate(plan);
  fill_inputs(h, plan, 9);
  // The right output, from the fast build on the device: run it and take the verdict.
  RunOptions opt;
  opt.totals = false;
  opt.keep_blocks = {};
  opt.seed = 9;
  const RunResult r = cuda->run(v.family, v.name, p, opt);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(r.verified) << r.verify_message;
  // Poisoned output: every element wrong on both sides.
  const std::size_t out = plan.ref.out;
  std::memset(h.data[out].data(), 0xFF, h.data[out].size());
  std::string err;
  CheckResult cpu = check_reference(plan.ref, h);
  CheckResult gpu = ws::cuda::check_on_device(plan.ref, h, err);
  ASSERT_EQ(err, "");
  EXPECT_GT(cpu.mismatches, 0u);
  EXPECT_EQ(gpu.mismatches, cpu.mismatches);
  EXPECT_EQ(gpu.first, cpu.first);
  // Then right everywhere but a few elements: the CPU's output rule fills it.
  ws::test::write_reference_output(h, plan.ref);
  cpu = check_reference(plan.ref, h);
  gpu = ws::cuda::check_on_device(plan.ref, h, err);
  EXPECT_EQ(cpu.mismatches, 0u);
  EXPECT_EQ(gpu.mismatches, 0u) << gpu.message("out");
  auto words = h.as<std::uint32_t>(out);
  for (std::size_t k : {words.size() / 3, words.size() / 2, words.size() - 1}) words[k] ^= 0x40000000u;
  cpu = check_reference(plan.ref, h);
  gpu = ws::cuda::check_on_device(plan.ref, h, err);
  EXPECT_GE(cpu.mismatches, 1u);
  EXPECT_EQ(gpu.mismatches, cpu.mismatches);
  EXPECT_EQ(gpu.first, cpu.first);
  EXPECT_EQ(gpu.got, cpu.got);
  // cuBLAS's product is the GPU's reference value, within the stated tolerance of the
  // CPU's double-precision one; the other kinds are exact.
  if (plan.ref.kind == RefKind::Gemm || plan.ref.kind == RefKind::GemmHalf)
    EXPECT_NEAR(gpu.want, cpu.want, 1e-3 * (1 + std::fabs(cpu.want)));
  else
    EXPECT_EQ(float(gpu.want), float(cpu.want));
}
