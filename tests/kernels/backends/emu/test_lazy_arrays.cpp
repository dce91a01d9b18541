// Made-on-touch arrays (kernels/backends/emu/lazy_arrays.h): a run of the kept blocks only makes the
// pages those blocks touch, holds what the eager path holds there, and keeps the same
// events as a whole-grid run (issue 10, finding 10: a one-block trace of a 2 GB array
// allocated and filled all of it).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "kernels/backends/backend.h"
#include "kernels/backends/emu/lazy_arrays.h"
#include "sim/inputs.h"

namespace ws {
namespace {

Plan plan_of(const std::string& family, const std::string& variant, const Params& p) {
  const VariantInfo* v = find_variant(family, variant);
  EXPECT_TRUE(v);
  if (!v) return {};
  Params done;
  EXPECT_EQ(validate(*v, p, DeviceLimits{}, done), "");
  return v->plan(done);
}

TEST(LazyArrays, MakesOnlyTheTouchedChunkWithTheEagerContents) {
  const Plan plan = plan_of("access", "offset", {{"n", 1 << 20}, {"elem", 4}});
  ASSERT_EQ(plan.arrays.size(), 2u);
  ASSERT_FALSE(plan.arrays[0].output);
  ASSERT_TRUE(plan.arrays[1].output);
  LazyArrays a(plan, 7);
  EXPECT_EQ(a.bytes_made(), 0u);
  const std::size_t i = 100000;  // a word in the middle of chunk 1
  a.touch(a.data(0) + 4 * i, 4);
  EXPECT_EQ(a.bytes_made(), LazyArrays::kChunk);
  const auto* in = reinterpret_cast<const std::uint32_t*>(a.data(0));
  const std::size_t first = i / (LazyArrays::kChunk / 4) * (LazyArrays::kChunk / 4);
  for (std::size_t w : {first, i, first + LazyArrays::kChunk / 4 - 1})
    EXPECT_EQ(in[w], input_word(plan.arrays[0].gen, 7, 0, w)) << w;
  a.touch(a.data(0) + 4 * i + 8, 4);  // the same chunk: nothing more made
  EXPECT_EQ(a.bytes_made(), LazyArrays::kChunk);
  a.touch(a.data(1) + LazyArrays::kChunk - 2, 4);  // straddles two chunks of the output
  EXPECT_EQ(a.bytes_made(), 3 * LazyArrays::kChunk);
  const auto* out = reinterpret_cast<const std::uint8_t*>(a.data(1));
  EXPECT_EQ(out[0], 0xFF);
  EXPECT_EQ(out[2 * LazyArrays::kChunk - 1], 0xFF);
  a.touch(reinterpret_cast<const void*>(&i), 4);  // not in an array: ignored
  EXPECT_EQ(a.bytes_made(), 3 * LazyArrays::kChunk);
}

// The kept blocks' events of a run of those blocks alone equal those of a whole-grid run
// (which fills every array eagerly), for data-dependent families too.
TEST(LazyArrays, KeptBlocksAloneKeepTheWholeRunsEvents) {
  auto emu = make_emu_backend();
  for (const auto& [family, variant, p] : std::vector<std::tuple<std::string, std::string, Params>>{
           {"access", "offset", {{"n", 1 << 16}}},
           {"transpose", "tiled", {{"n", 256}}},
           {"reduce", "warp_shuffle", {{"n", 1 << 16}}},
           {"histogram", "global_atomic", {{"n", 1 << 16}}},
           {"matmul", "tiled", {{"n", 128}}}}) {
    SCOPED_TRACE(family + "/" + variant);
    ASSERT_TRUE(find_variant(family, variant));
    RunOptions o;
    o.keep_blocks = {0, 5};
    const RunResult whole = emu->run(family, variant, p, o);
    o.totals = false;
    const RunResult part = emu->run(family, variant, p, o);
    ASSERT_TRUE(whole.ok()) << whole.error << whole.verify_message;
    ASSERT_TRUE(part.error.empty()) << part.error;
    EXPECT_TRUE(part.problems.empty());
    EXPECT_FALSE(part.verified) << "only some blocks ran";
    ASSERT_EQ(whole.kept.size(), part.kept.size());
    for (std::size_t l = 0; l < whole.kept.size(); ++l) {
      EXPECT_FALSE(whole.kept[l].events.empty());
      EXPECT_TRUE(whole.kept[l].events == part.kept[l].events) << "launch " << l;
    }
  }
}

// Peak resident memory of this process since the last reset, in MiB (-1: not on Linux).
long peak_mib() {
  std::ifstream s("/proc/self/status");
  for (std::string line; std::getline(s, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6)) / 1024;
  return -1;
}

TEST(LazyArrays, AOneBlockTraceOfAHugeGridCostsWhatTheBlockTouches) {
  // Reset the peak (Linux >= 4.0), so that earlier tests in this process do not count.
  if (!(std::ofstream("/proc/self/clear_refs") << "5")) GTEST_SKIP() << "no /proc/self/clear_refs";
  const long before = peak_mib();
  if (before < 0) GTEST_SKIP() << "no VmHWM";
  // 2 GiB in, 2 GiB out: the eager path peaked at 4.3 GB and took 49 s.
  RunOptions o;
  o.totals = false;
  o.keep_blocks = {0};
  const RunResult r =
      make_emu_backend()->run("access", "offset", {{"n", 1 << 27}, {"elem", 16}}, o);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.kept.size(), 1u);
  EXPECT_FALSE(r.kept[0].events.empty());
  const long peak = peak_mib();
  EXPECT_LT(peak - before, 256) << "peak " << peak << " MiB, " << before << " MiB before";
}

}  // namespace
}  // namespace ws
