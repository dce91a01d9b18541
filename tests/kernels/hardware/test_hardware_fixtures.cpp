// The explanations held against the hardware's own counters, with no GPU: every file of
// tests/fixtures/hardware/ is what CUPTI read on an H100 (`metrics --hardware --lines`, 3
// profiled runs) for one variant of every family, histograms included. Here the emulator
// counts the same launches and compare_counters classifies each difference: every one must
// be equal, arbitration (a probe shows it) or hardware-only, except the differences listed
// below, which must say "not explained" with both figures and no guessed cause.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "kernels/backends/backend.h"
#include "kernels/hardware/hardware.h"

namespace fs = std::filesystem;
using namespace ws;
using json = nlohmann::json;

namespace {

const fs::path kDir = fs::path(WS_SOURCE_DIR) / "tests/fixtures/hardware";

std::vector<std::string> fixture_names() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kDir, ec))
    if (e.path().extension() == ".json") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

json load(const std::string& name) {
  std::ifstream in(kDir / (name + ".json"));
  return json::parse(in);
}

// The differences that stay, by fixture: the flush of the privatised histogram when a
// thread walks more than one bin (bins > block). The emulator issues the next iteration's
// shared load of the lanes that skipped the merge before the merge of the others, so the
// load is counted twice where the hardware's predicated code issues it once, and the merge's
// requests are split (docs/HARDWARE.md, 8): no rule of the model covers it, so the app says
// "not explained".
// And the global histogram's reduction sectors: the model's passes (sim::red_sector_passes)
// come within 1.7 % (skew 0) and 0.2 % (skew 50) of the hardware's count, not to it.
const std::map<std::string, std::set<std::string>> kNotExplained = {
    {"histogram_global_atomic", {"l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"}},
    {"histogram_global_atomic_n262144_bins256_block256_skew50",
     {"l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"}},
    {"histogram_shared_atomic_n262144_bins1024_block512_skew5",
     {"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
      "smsp__sass_inst_executed_op_shared_ld.sum"}},
};

HardwareCounters counters(const json& f) {
  HardwareCounters h;
  h.unavailable = HardwareUnavailable::None;
  h.device = f.at("device").get<std::string>();
  for (const auto& p : f.at("passes")) {
    std::map<std::string, double> m;
    for (const auto& [k, v] : p.items()) m[k] = v.get<double>();
    h.passes.push_back(m);
  }
  return h;
}

RunResult emulate(const json& f) {
  Params p;
  for (const auto& [k, v] : f.at("params").items()) p[k] = v.get<long long>();
  RunOptions opt;
  opt.totals = true;
  return make_emu_backend()->run(f.at("kernel").get<std::string>(),
                                 f.at("variant").get<std::string>(), p, opt);
}

}  // namespace

TEST(HardwareFixtures, EveryFamilyIsRecorded) {
  std::set<std::string> families;
  for (const auto& n : fixture_names()) families.insert(load(n).at("kernel").get<std::string>());
  for (const char* f : {"access", "transpose", "reduce", "matmul", "divergence", "histogram", "instr"})
    EXPECT_TRUE(families.count(f)) << "no CUPTI fixture of " << f;
}

class HardwareFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(HardwareFixture, EveryDifferenceIsEqualExplainedOrNotExplained) {
  const json f = load(GetParam());
  const RunResult r = emulate(f);
  ASSERT_TRUE(r.error.empty()) << r.error;
  const auto it = kNotExplained.find(GetParam());
  const std::set<std::string> open = it == kNotExplained.end() ? std::set<std::string>{} : it->second;
  std::set<std::string> seen;
  for (const CounterDiff& d : compare_counters(r.totals.ncu(), counters(f))) {
    SCOPED_TRACE(d.metric + ": " + diff_summary(d));
    // No sentence guesses at the compiler.
    EXPECT_EQ(d.explain.find("compiler"), std::string::npos);
    EXPECT_EQ(diff_summary(d).find("merged"), std::string::npos);
    if (open.count(d.metric)) {
      EXPECT_EQ(d.kind, DiffKind::NotExplained);
      EXPECT_EQ(diff_summary(d).rfind("not explained", 0), 0u);
      seen.insert(d.metric);
      continue;
    }
    EXPECT_TRUE(d.kind == DiffKind::Equal || d.kind == DiffKind::Arbitration ||
                d.kind == DiffKind::HardwareOnly)
        << to_string(d.kind);
  }
  EXPECT_EQ(seen, open) << "a difference listed as open was not found";
}

// Per source line, CUPTI's per-instruction figures (summed through the recorded SASS when
// the fixture was made) against the model's per-line counts: shared wavefronts (loads,
// stores and atomics), and global sectors of loads and stores. A reduction's line is left
// out: its SASS metric counts each request's distinct sectors, the L1 counter (and the
// model) the sectors of each pass (sim::red_sector_passes).
TEST_P(HardwareFixture, PerLineCountersEqualTheModel) {
  const json f = load(GetParam());
  if (GetParam() == "histogram_shared_atomic_n262144_bins1024_block512_skew5")
    GTEST_SKIP() << "its flush differs (see kNotExplained)";
  const RunResult r = emulate(f);
  ASSERT_TRUE(r.error.empty()) << r.error;
  std::map<int, double> hw_shared, hw_sectors, model_shared, model_sectors;
  for (const auto& [kernel, lines] : f.at("lines").items())
    for (const auto& [line, m] : lines.items()) {
      hw_shared[std::stoi(line)] += m.value("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", 0.0);
      hw_sectors[std::stoi(line)] += m.value("smsp__sass_sectors_mem_global", 0.0);
    }
  std::set<int> red_lines;
  for (const LaunchTotals& l : r.launches)
    for (const auto& [line, t] : sim::by_line(l.sites)) {
      model_shared[line] += double(t.shared_ld_wavefronts + t.shared_st_wavefronts + t.shared_atom_wavefronts);
      model_sectors[line] += double(t.global_ld_sectors + t.global_st_sectors);
      if (t.global_red_requests) red_lines.insert(line);
    }
  int cells = 0;
  for (const auto* pair : {&hw_shared, &hw_sectors}) {
    const auto& model = pair == &hw_shared ? model_shared : model_sectors;
    for (const auto& [line, v] : *pair) {
      if (red_lines.count(line) && pair == &hw_sectors) continue;
      const auto m = model.find(line);
      EXPECT_EQ(m == model.end() ? 0.0 : m->second, v) << "line " << line;
      ++cells;
    }
  }
  EXPECT_GT(cells, 0) << "no per-line figure to compare";
}

INSTANTIATE_TEST_SUITE_P(Recorded, HardwareFixture, ::testing::ValuesIn(fixture_names()),
                         [](const auto& info) { return info.param; });
