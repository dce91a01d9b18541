// The built binary as a user runs it (issue 27, item 3): output that cannot be written
// (stdout on /dev/full, closed, or a reader gone) is an error with a message for every
// command, and a recording that cannot be loaded is one line naming it, exit 2, never a
// silent fall back to modelled times.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

struct Out {
  int code = -1;
  std::string err;
};

fs::path scratch() {
  const fs::path d = fs::temp_directory_path() /
                     ("ws_main_" + std::to_string(::getpid()) + "_" +
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

// Runs `env warpscope args` with stdout redirected as `out` ("> /dev/full", ">&-").
Out run(const std::string& args, const std::string& out, const fs::path& cwd, const std::string& env = "") {
  const fs::path e = cwd / "stderr.txt";
  const std::string cmd = "cd '" + cwd.string() + "' && " + env + " '" WS_BINARY_DIR "/warpscope' " + args +
                          " " + out + " 2> '" + e.string() + "'";
  const int st = std::system(cmd.c_str());
  Out r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.err = slurp(e);
  return r;
}

std::size_t lines(const std::string& s) { return std::size_t(std::count(s.begin(), s.end(), '\n')); }

// Seven of seven exited 0 and said nothing.
TEST(MainStdout, AFullOrClosedStdoutIsAnErrorWithAMessage) {
  const fs::path d = scratch();
  for (const std::string args : {"list", "info --json --backend emu", "list --json", "lesson --list",
                                 "bench --kernel transpose --variant naive --set n=64 --backend emu --csv -"}) {
    for (const std::string out : {"> /dev/full", ">&-"}) {
      const Out r = run(args, out, d);
      EXPECT_EQ(r.code, 1) << args << " " << out << ": " << r.err;
      // One line says so, the last (a bench's progress line may come before it).
      const std::string msg = "warpscope: cannot write to standard output (";
      EXPECT_NE(r.err.find(msg), std::string::npos) << args << " " << out << ": " << r.err;
      EXPECT_EQ(r.err.find(msg), r.err.rfind(msg)) << r.err;
      EXPECT_EQ(r.err.find('\n', r.err.find(msg)), r.err.size() - 1) << r.err;
      if (out == "> /dev/full") EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
    }
  }
  // Written normally, the same commands succeed and say nothing on stderr.
  const Out ok = run("list", "> /dev/null", d);
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(ok.err, "");
  fs::remove_all(d);
}

// A reader that goes away (`warpscope list | head -1`): SIGPIPE no longer kills the
// process mid-write; the broken pipe is reported and the exit status says so.
TEST(MainStdout, AReaderThatGoesAwayIsReportedNotASilentSignal) {
  const fs::path d = scratch();
  const std::string cmd = "bash -c \"'" WS_BINARY_DIR "/warpscope' list --json 2>'" + (d / "e.txt").string() +
                          "' | head -c 1 > /dev/null; exit \\${PIPESTATUS[0]}\"";
  const int st = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(st));
  const std::string err = slurp(d / "e.txt");
  // A small output may fit the pipe before head exits: then it succeeded, and says nothing.
  if (WEXITSTATUS(st) != 0) {
    EXPECT_EQ(WEXITSTATUS(st), 1) << err;
    EXPECT_NE(err.find("cannot write to standard output (Broken pipe)"), std::string::npos) << err;
  } else {
    EXPECT_EQ(err, "");
  }
  fs::remove_all(d);
}

// A truncated recording fell back to modelled times without notice, a directory gave
// "internal error: basic_filebuf::underflow", a FIFO hung: one line naming it, exit 2.
TEST(MainRecording, ARecordingThatCannotBeLoadedIsOneLineNamingIt) {
  const fs::path d = scratch();
  const std::string full = slurp(fs::path(WS_SOURCE_DIR) / "tests/fuzz/corpus/recording/small.json");
  ASSERT_FALSE(full.empty());
  std::ofstream(d / "cut.json", std::ios::binary) << full.substr(0, full.size() / 2);
  fs::create_directories(d / "dir.json");
  ASSERT_EQ(::mkfifo((d / "fifo.json").c_str(), 0600), 0);
  std::string bad_time = full;
  bad_time.replace(bad_time.find("\"median_ms\": ") + 13, 1, "-");
  std::ofstream(d / "negative.json", std::ios::binary) << bad_time;
  for (const std::string f : {"cut.json", "dir.json", "fifo.json", "negative.json"}) {
    const Out r = run("bench --kernel transpose --variant naive --set n=64 --backend emu", "> /dev/null", d,
                      "timeout 20 env WARPSCOPE_RECORDING='" + (d / f).string() + "'");
    EXPECT_EQ(r.code, 2) << f << ": " << r.err;
    EXPECT_NE(r.err.find((d / f).string()), std::string::npos) << f << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << f << ": " << r.err;
  }
  fs::remove_all(d);
}

}  // namespace
