// The one reader of user-named files (issue 27, item 3): a FIFO, a directory or a device
// is refused by name at once (a FIFO used to hang, /dev/zero to read until memory ran out,
// a directory to surface as "basic_filebuf::underflow"), and a size cap holds.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "io/read_file.h"

namespace fs = std::filesystem;
using namespace ws::io;

namespace {

struct TempDir {
  fs::path p;
  TempDir() {
    p = fs::temp_directory_path() / ("ws_read_" + std::to_string(::getpid()) + "_" +
                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(p);
    fs::create_directories(p);
  }
  ~TempDir() { fs::remove_all(p); }
  std::string operator/(const std::string& n) const { return (p / n).string(); }
};

TEST(ReadFile, ReadsARegularFileWhole) {
  TempDir d;
  std::ofstream(d / "k.cuh", std::ios::binary) << std::string("a\0b\n", 4);
  const ReadResult r = read_file(d / "k.cuh", kDefaultReadCap, "kernel file");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, std::string("a\0b\n", 4));
  EXPECT_EQ(check_readable(d / "k.cuh"), "");
}

TEST(ReadFile, AFifoIsRefusedAtOnceNotWaitedOn) {
  TempDir d;
  ASSERT_EQ(::mkfifo((d / "pipe").c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  const ReadResult r = read_file(d / "pipe", kDefaultReadCap, "kernel file");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "kernel file " + (d / "pipe") + " is a FIFO (named pipe), not a regular file");
  EXPECT_EQ(r.reason, "is a FIFO (named pipe), not a regular file");
}

TEST(ReadFile, DirectoriesAndDevicesAreNamed) {
  TempDir d;
  EXPECT_EQ(read_file(d.p.string(), kDefaultReadCap, "recording").error,
            "recording " + d.p.string() + " is a directory, not a file");
  // /dev/zero would never end: refused before a byte is read.
  EXPECT_EQ(read_file("/dev/zero", kDefaultReadCap, "hardware file").error,
            "hardware file /dev/zero is a character device, not a regular file");
  EXPECT_EQ(check_readable("/dev/null"), "/dev/null is a character device, not a regular file");
}

TEST(ReadFile, MissingEmptyNameAndCap) {
  TempDir d;
  const ReadResult m = read_file(d / "none.md", kDefaultReadCap, "lesson");
  EXPECT_TRUE(m.missing);
  EXPECT_EQ(m.error, "lesson " + (d / "none.md") + " does not exist");
  EXPECT_EQ(read_file("", kDefaultReadCap, "kernel file").error, "kernel file: no file name given");
  std::ofstream(d / "big", std::ios::binary) << std::string(2000, 'x');
  const ReadResult big = read_file(d / "big", 1000, "puzzle");
  EXPECT_FALSE(big.ok);
  EXPECT_TRUE(big.text.empty());
  EXPECT_NE(big.error.find("is larger than 1000 bytes"), std::string::npos) << big.error;
  EXPECT_TRUE(read_file(d / "big", 2000).ok);
}

TEST(ReadFile, ALinkToARegularFileIsFollowedALinkToAFifoIsNot) {
  TempDir d;
  std::ofstream(d / "real") << "x";
  fs::create_symlink(d / "real", d / "link");
  EXPECT_TRUE(read_file(d / "link").ok);
  ASSERT_EQ(::mkfifo((d / "pipe").c_str(), 0600), 0);
  fs::create_symlink(d / "pipe", d / "plink");
  EXPECT_NE(read_file(d / "plink").error.find("FIFO"), std::string::npos);
}

}  // namespace
