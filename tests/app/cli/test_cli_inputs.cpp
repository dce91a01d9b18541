// Inputs that cannot break the command line (issue 27, item 3): empty and contradictory
// flags refused by name, files a user names that are FIFOs, devices or directories named
// at once (never a hang), no file replaced without --force, and every bad input one line
// on stderr with exit 2, even after the emulator's notice.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/cli/cli.h"
#include "app/cli/demo.h"

namespace ws::cli {
namespace {

namespace fs = std::filesystem;

struct Out {
  int code = -1;
  std::string out, err;
};

Out cli(const std::vector<std::string>& args) {
  std::ostringstream o, e;
  Out r;
  r.code = run(args, o, e, Hooks{});
  r.out = o.str();
  r.err = e.str();
  return r;
}

fs::path scratch() {
  const fs::path d = fs::temp_directory_path() /
                     ("ws_cli_inputs_" + std::to_string(::getpid()) + "_" +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The built binary, with a deadline: a FIFO must not hang it.
Out binary(const std::string& args, const fs::path& cwd, const std::string& env = "") {
  const fs::path o = cwd / "stdout.txt", e = cwd / "stderr.txt";
  const std::string cmd = "cd '" + cwd.string() + "' && " + env + " timeout 30 '" WS_BINARY_DIR "/warpscope' " +
                          args + " > '" + o.string() + "' 2> '" + e.string() + "'";
  const int st = std::system(cmd.c_str());
  Out r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = slurp(o);
  r.err = slurp(e);
  return r;
}

std::size_t lines(const std::string& s) { return std::size_t(std::count(s.begin(), s.end(), '\n')); }

#define EXPECT_BAD_INPUT(r, needle)                                              \
  do {                                                                           \
    EXPECT_EQ((r).code, kExitUsage) << (r).err;                                  \
    EXPECT_EQ(lines((r).err), 1u) << (r).err;                                    \
    EXPECT_NE((r).err.find(needle), std::string::npos) << (r).err;              \
  } while (0)

// `--csv ''`, `--format ''`, `--kernel ''` were silently taken as "not given".
TEST(CliInputs, EmptyValuesAreRefusedByName) {
  EXPECT_BAD_INPUT(cli({"bench", "--kernel", "transpose", "--variant", "naive", "--backend", "emu", "--csv", ""}),
                   "--csv is given an empty value");
  EXPECT_BAD_INPUT(cli({"export", "--kernel", "transpose", "--out", "x", "--format", ""}),
                   "--format is given an empty value");
  EXPECT_BAD_INPUT(cli({"puzzle", "--check", "puzzles/01-strided-copy.md", "--kernel", ""}),
                   "--kernel is given an empty value");
  EXPECT_BAD_INPUT(cli({"bench", "--kernel=", "--backend", "emu"}), "--kernel is given an empty value");
}

// `--sweep n=256 --set n=512` dropped the --set without a word; `--format svg,svg` ran
// everything, then failed on its own file and left it behind.
TEST(CliInputs, ContradictoryFlagsAreRefusedBeforeAnythingRuns) {
  const fs::path d = scratch();
  EXPECT_BAD_INPUT(cli({"bench", "--kernel", "transpose", "--variant", "naive", "--backend", "emu", "--sweep",
                        "n=256", "--set", "n=512"}),
                   "--sweep n=... and --set n=512 both give n");
  EXPECT_BAD_INPUT(cli({"bench", "--kernel", "transpose", "--variant", "naive", "--backend", "emu", "--sweep",
                        "n=64,128", "--sweep", "n=256"}),
                   "--sweep n is given twice");
  const Out r = cli({"export", "--kernel", "transpose", "--variant", "naive", "--backend", "emu", "--set", "n=64",
                     "--out", (d / "c").string(), "--format", "svg,svg"});
  EXPECT_BAD_INPUT(r, "--format names svg twice");
  EXPECT_EQ(r.out, "") << "refused before running";
  EXPECT_FALSE(fs::exists(d / "c.svg"));
  fs::remove_all(d);
}

// A FIFO or a directory as --kernel, --edit or --hardware-from hung with no message, or
// "did not exist"; /dev/zero read until memory ran out.
TEST(CliInputs, FifosDirectoriesAndDevicesAreNamedNotRead) {
  const fs::path d = scratch();
  ASSERT_EQ(::mkfifo((d / "k.cuh").c_str(), 0600), 0);
  fs::create_directories(d / "dir.cuh");
  const std::string puzzle = std::string(WS_SOURCE_DIR) + "/puzzles/01-strided-copy.md";
  Out r = binary("puzzle --check '" + puzzle + "' --kernel k.cuh", d);
  EXPECT_BAD_INPUT(r, "kernel file k.cuh is a FIFO (named pipe), not a regular file");
  r = binary("puzzle --check '" + puzzle + "' --kernel dir.cuh", d);
  EXPECT_BAD_INPUT(r, "kernel file dir.cuh is a directory");
  r = binary("puzzle --check '" + puzzle + "' --kernel /dev/zero", d);
  EXPECT_BAD_INPUT(r, "kernel file /dev/zero is a character device");
  r = binary("puzzle --check k.cuh", d);
  EXPECT_BAD_INPUT(r, "puzzle file k.cuh is a FIFO");
#if defined(WS_TEST_HAVE_GUI)
  r = binary("gui --puzzle '" + puzzle + "' --edit k.cuh", d, "env -u DISPLAY -u WAYLAND_DISPLAY");
  EXPECT_BAD_INPUT(r, "--edit file k.cuh is a FIFO");
  r = binary("gui --kernel transpose --variant tiled --hardware-from dir.cuh", d, "env -u DISPLAY -u WAYLAND_DISPLAY");
  EXPECT_BAD_INPUT(r, "--hardware-from file dir.cuh is a directory");
#endif
  r = binary("lesson --check k.cuh", d);
  EXPECT_BAD_INPUT(r, "lesson file k.cuh is a FIFO");
  fs::remove_all(d);
}

// `gui --screenshot EXISTING.png` replaced the file without --force.
TEST(CliInputs, AScreenshotNeverReplacesAFileWithoutForce) {
#if !defined(WS_TEST_HAVE_GUI)
  GTEST_SKIP() << "this build has no window (gui --screenshot)";
#endif
  const fs::path d = scratch();
  std::ofstream(d / "shot.png") << "mine";
  const Out r = binary("gui --kernel transpose --variant tiled --view bank-map --screenshot shot.png", d);
  EXPECT_BAD_INPUT(r, "shot.png already exists (not overwritten); pass --force to overwrite it");
  EXPECT_EQ(slurp(d / "shot.png"), "mine");
  std::ofstream(d / "other.txt") << "mine too";  // the text written beside other.png
  const Out t = binary("gui --kernel transpose --variant tiled --view bank-map --screenshot other.png", d);
  EXPECT_BAD_INPUT(t, "other.txt already exists");
  EXPECT_FALSE(fs::exists(d / "other.png"));
  fs::remove_all(d);
}

// `--view editor` without `--puzzle` exited 1, `--view lesson` without `--lesson` 2.
TEST(CliInputs, AViewMissingItsInputIsBadInputLikeTheOthers) {
  const fs::path d = scratch();
  for (const std::string& view : {"editor", "lesson"}) {
    const Out r = binary("gui --view " + view + " --screenshot v.png", d);
    EXPECT_EQ(r.code, kExitUsage) << view << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
  }
  fs::remove_all(d);
}

// The headless demo replaced its earlier charts: a second run writes transpose-2.*.
TEST(CliInputs, TheDemoNeverReplacesEarlierCharts) {
  const fs::path d = scratch();
  DemoOptions o;
  o.dir = d.string();
  o.backend = "emu";
  o.emu_sets = {{"n", 64}};
  std::ofstream(d / "transpose.svg") << "an earlier chart";
  std::ostringstream out, err;
  ASSERT_EQ(run_demo(o, out, err), 0) << out.str() << err.str();
  EXPECT_EQ(slurp(d / "transpose.svg"), "an earlier chart");
  EXPECT_TRUE(fs::exists(d / "transpose-2.svg"));
  EXPECT_TRUE(fs::exists(d / "transpose-2.csv"));
  EXPECT_NE(out.str().find("transpose-2.svg"), std::string::npos) << out.str();
  fs::remove_all(d);
}

// Bad input after the emulator's notice ("running on the emulator ...") printed two lines
// (30 of 204 bad-input exits): the notice is held until the command runs.
TEST(CliInputs, BadInputAfterTheBackendNoticeIsStillOneLine) {
  const Out r = cli({"bench", "--kernel", "transpose", "--variant", "nope", "--backend", "auto"});
  EXPECT_BAD_INPUT(r, "nope");
  const Out t = cli({"trace", "--kernel", "transpose", "--variant", "tiled", "--set", "tile=7", "--backend", "auto"});
  EXPECT_EQ(t.code, kExitUsage);
  EXPECT_EQ(lines(t.err), 1u) << t.err;
}

}  // namespace
}  // namespace ws::cli
