// scripts/ncu_compare.py's second parameter set with no GPU: every case of
// scripts/ncu_second_set.txt is a variant the catalogue has, at parameters it accepts and
// that are not its defaults; and the script, given a stand-in for ncu that answers the
// emulator's counts (plus one hmma a warp for scan, as the H100's HFMA2.MMA moves do),
// writes one summary row a case: "equal", or the difference named.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "kernels/backends/backend.h"
#include "kernels/catalogue/catalogue.h"

namespace {

namespace fs = std::filesystem;
using namespace ws;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(NcuSecondSet, EveryCaseIsAVariantAtValidParametersOtherThanItsDefaults) {
  std::ifstream in(WS_SOURCE_DIR "/scripts/ncu_second_set.txt");
  ASSERT_TRUE(in) << "scripts/ncu_second_set.txt is missing";
  std::string line;
  int cases = 0;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string name;
    if (!(words >> name)) continue;
    SCOPED_TRACE(line);
    const auto slash = name.find('/');
    ASSERT_NE(slash, std::string::npos);
    const VariantInfo* v = find_variant(name.substr(0, slash), name.substr(slash + 1));
    ASSERT_NE(v, nullptr) << "no such variant";
    Params given, out;
    for (std::string kv; words >> kv;) {
      const auto eq = kv.find('=');
      ASSERT_NE(eq, std::string::npos) << kv;
      given[kv.substr(0, eq)] = std::stoll(kv.substr(eq + 1));
    }
    EXPECT_EQ(validate(*v, given, DeviceLimits{}, out), "");
    bool other = false;
    for (const ParamSpec& p : v->params) other = other || out.at(p.name) != p.def;
    EXPECT_TRUE(other) << "the second set is the defaults";
    ++cases;
  }
  // The families issue 25 names: tensor (5), async_copy (3), scan (2), stencil (2),
  // partial_histogram (2), and transpose/vec4, matmul/tuned, histogram/shared_weighted.
  EXPECT_EQ(cases, 17);
}

TEST(NcuSecondSet, TheSummarySaysEqualOrNamesTheDifference) {
  if (std::system("python3 -c 'import json' > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const fs::path dir = fs::temp_directory_path() / ("ws_ncu_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // The stand-in: ncu's raw CSV from `warpscope metrics --backend emu --json`, one row a
  // launch; scan gets one hmma a warp more than the model.
  std::ofstream(dir / "ncu") << R"py(#!/usr/bin/env python3
import csv, io, json, subprocess, sys
a = sys.argv[1:]
if "--query-metrics" in a: sys.exit(1)
metrics = a[a.index("--metrics") + 1].split(",")
cmd = a[next(k for k, x in enumerate(a) if x.endswith("warpscope")):]
cmd = cmd[:cmd.index("--backend")] + ["--backend", "emu", "--json"]
d = json.loads(subprocess.run(cmd, capture_output=True, text=True).stdout)
out = io.StringIO(); w = csv.writer(out, quoting=csv.QUOTE_ALL)
w.writerow(["ID", "Kernel Name"] + metrics); w.writerow(["", ""] + ["" for _ in metrics])
for n, l in enumerate(d["launches"]):
    g, b = l["grid"], l["block"]
    warps = g[0] * g[1] * g[2] * ((b[0] * b[1] * b[2] + 31) // 32)
    row = [str(n), "void ws::fast::ws_entry<K>(K)"]
    for m in metrics:
        v = l["metrics"].get(m, 0)
        if m.endswith("tensor_op_hmma.sum") and d["kernel"] == "scan": v += warps
        row.append(f"{v:,}")
    w.writerow(row)
print(out.getvalue())
)py";
  fs::permissions(dir / "ncu", fs::perms::owner_all);
  std::ofstream(dir / "cases.txt") << "# two cases\ntensor/warp64 n=128 stages=2\n"
                                      "scan/serial n=4096 block=128  # 32 blocks of 4 warps\n";
  const std::string script = "python3 '" WS_SOURCE_DIR "/scripts/ncu_compare.py' --warpscope '" WS_BINARY_DIR
                             "/warpscope' --ncu '" + (dir / "ncu").string() + "' --out '" + dir.string() + "'";
  const std::string log = (dir / "log.txt").string();
  ASSERT_EQ(std::system((script + " --cases '" + (dir / "cases.txt").string() + "' > '" + log + "' 2>&1").c_str()), 0)
      << slurp(log);
  const std::string md = slurp(dir / "ncu_summary.md");
  EXPECT_NE(md.find("| tensor/warp64 | n=128 stages=2 | **equal** in every counter ("), std::string::npos) << md;
  EXPECT_NE(md.find("hmma inst 1,024"), std::string::npos) << md;
  EXPECT_NE(md.find("| scan/serial | block=128 n=4096 | **hmma inst** 128 (model 0: one a warp, "
                    "HFMA2.MMA moves"),
            std::string::npos) << md;
  // A line that is not "family/variant key=value ...": one message naming it, status 1.
  std::ofstream(dir / "bad.txt") << "tensor/warp64 n=128\ntensor warp64\n";
  EXPECT_NE(std::system((script + " --cases '" + (dir / "bad.txt").string() + "' > '" + log + "' 2>&1").c_str()), 0);
  EXPECT_NE(slurp(log).find("bad.txt:2: expected 'family/variant key=value ...', got 'tensor warp64'"),
            std::string::npos) << slurp(log);
  fs::remove_all(dir);
}

}  // namespace
