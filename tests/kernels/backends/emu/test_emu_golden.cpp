// The emulator's output held to the serial emulator of commit 54ab4c8 (before the fibers'
// native switch, the per-warp arrays and the blocks on several cores): for several
// families, a digest of every event of every block (all bytes, in order), of the shared
// arrays announced and of the whole-grid counters per site. The digests were printed by
// this file built against that commit (WS_PRINT_GOLDEN=1); a change to what the emulator
// emits, or to its order, changes them. Runs on every core (the default) and on one.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/backends/backend.h"

namespace ws {
namespace {

struct Fnv {
  std::uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  void str(const std::string& s) { bytes(s.data(), s.size() + 1); }
  void num(double v) { bytes(&v, sizeof v); }
};

std::uint64_t digest(const RunResult& r) {
  Fnv f;
  for (const KeptLaunch& k : r.kept) {
    for (const WarpEvent& e : k.events) f.bytes(&e, sizeof e);
    for (const ArrayDesc& a : k.info.arrays) {
      f.str(a.name);
      f.num(a.base_offset);
      f.num(double(a.count));
    }
  }
  for (const LaunchTotals& l : r.launches)
    for (const sim::SiteTotals& s : l.sites) {
      f.num(s.line);
      f.num(s.array);
      f.num(double(s.kind));
      for (const auto& [name, v] : s.totals.ncu()) {
        // Counters added since (tensor instructions, cp.async's LDGSTS, bulk stores) are none
        // of these families' and were not in the digest then.
        if (name.find("ldgsts") != std::string::npos || name.find("tensor_op_hmma") != std::string::npos ||
            name.find("op_tma_st") != std::string::npos)
          continue;
        f.str(name);
        f.num(v);
      }
    }
  f.num(double(r.problems.size()));
  f.num(r.verified);
  return f.h;
}

struct Case {
  const char* family;
  const char* variant;
  Params params;
  std::uint64_t expected;
};

TEST(EmuGolden, TracesAndCountsAsBefore) {
  const std::vector<Case> cases = {
      {"transpose", "tiled", {{"n", 128}}, 0x78dc5b547de9cefaull},
      {"transpose", "naive", {{"n", 96}}, 0x185ee8201840b231ull},
      {"matmul", "tiled", {{"n", 64}}, 0xba6725bcb4add665ull},
      {"matmul", "warptiled", {{"n", 128}}, 0x305c897e3c794f73ull},
      {"reduce", "warp_shuffle", {{"n", 1 << 14}}, 0xa4cd7cfc3f7ef7f9ull},
      {"reduce", "two_pass", {{"n", 1 << 14}}, 0x1af7e4c378ab8ba4ull},
      {"reduce", "interleaved_modulo", {{"n", 4096}}, 0xf1150b923cd9e239ull},
      {"histogram", "shared_atomic", {{"n", 1 << 13}}, 0x707269a87bc27647ull},
      {"divergence", "odd_even", {{"n", 2048}}, 0xdb748566a5df35c5ull},
      {"access", "stride", {{"n", 8192}, {"stride", 3}}, 0x7a47303d9c31a41dull},
      {"instr", "shuffle", {{"n", 4096}, {"iters", 4}}, 0xf1ad8a21be0e8e3eull},
  };
  const bool print = std::getenv("WS_PRINT_GOLDEN") != nullptr;
  auto emu = make_emu_backend();
  for (const char* threads : {"", "1"}) {
    if (*threads) ::setenv("WARPSCOPE_EMU_THREADS", threads, 1);
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.family) + "/" + c.variant + " threads=" + threads);
      RunOptions o;
      o.keep_all_blocks = true;
      const RunResult r = emu->run(c.family, c.variant, c.params, o);
      ASSERT_TRUE(r.ok()) << r.error << r.verify_message;
      ASSERT_FALSE(r.kept.empty());
      const std::uint64_t d = digest(r);
      if (print) std::printf("      {\"%s\", \"%s\", 0x%016llxull},\n", c.family, c.variant, (unsigned long long)d);
      else EXPECT_EQ(d, c.expected) << std::hex << d;
    }
    ::unsetenv("WARPSCOPE_EMU_THREADS");
  }
}

}  // namespace
}  // namespace ws
