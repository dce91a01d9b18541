// scripts/calibrate.py remade with no GPU: measured times from bench files, counts from
// the emulator, DRAM bytes from the ncu cache; both DRAM-bound checks and the order.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Calibrate, RemadeFromBenchFilesTheEmulatorAndTheNcuCache) {
  if (std::system("python3 -c 'import json' > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const fs::path dir = fs::temp_directory_path() / ("ws_calib_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Measured: copy at about its modelled time, naive 2.8 times slower than modelled.
  std::ofstream(dir / "bench_1.json") << R"({"kernel": "transpose", "device": {"name": "Test GPU"},
    "set": {"n": 256}, "rows": [
    {"variant": "copy", "params": {"n": 256, "tile": 32, "block_rows": 8}, "verified": true,
     "timing": {"median_ms": 0.0032}},
    {"variant": "naive", "params": {"n": 256, "tile": 32, "block_rows": 32}, "verified": true,
     "timing": {"median_ms": 0.0100}},
    {"variant": "tiled", "params": {"n": 256, "tile": 32, "block_rows": 8, "pad": 0},
     "verified": false, "timing": {"median_ms": 0.0001}}]})";
  // copy: 6 MB in 3.2 us is 1875 GB/s, at least half the copy rate; naive: 200 kB is not.
  std::ofstream(dir / "ncu.json") << R"({
    "transpose/copy block_rows=8 n=256 tile=32": [3000000, 3000000],
    "transpose/naive block_rows=32 n=256 tile=32": [100000, 100000]})";
  const std::string cmd = "python3 '" WS_SOURCE_DIR "/scripts/calibrate.py' --warpscope '" WS_BINARY_DIR
                          "/warpscope' --backend emu --ncu-cache '" + (dir / "ncu.json").string() +
                          "' '" + (dir / "bench_1.json").string() + "' > '" + (dir / "out.md").string() +
                          "' 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir / "out.md");
  const std::string md = slurp(dir / "out.md");
  // The modelled copy at n = 256 is 3.188 us (the README's bench sample).
  EXPECT_NE(md.find("| copy | 0.0032 | 0.0032 | 1.00 | latency | 100% | 1 | 3 + 3 | 1875 |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| naive | 0.0100 | 0.0036 | 0.36 | l2 |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| tiled |"), std::string::npos) << "an unverified row is left out\n" << md;
  EXPECT_NE(md.find("- order: as measured"), std::string::npos) << md;
  EXPECT_NE(md.find("- DRAM-bound within 25%: 0 of 0"), std::string::npos) << md;
  EXPECT_NE(md.find("- DRAM-bound on the GPU (DRAM >= 1493 GB/s) within 25%: 1 of 1"),
            std::string::npos) << md;
  // The cache is read, not rewritten, without --ncu.
  EXPECT_NE(slurp(dir / "ncu.json").find("[3000000, 3000000]"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
