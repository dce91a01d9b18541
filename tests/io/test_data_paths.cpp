// The one data resolver (issue 27): $WARPSCOPE_DATA_DIR comes first for lessons, assets,
// recordings, recorded SASS and the dialect's headers, as README says. Recordings and SASS
// used to ignore it, and the headers had a lookup of their own ($WARPSCOPE_INCLUDE only).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "io/data_paths.h"

namespace fs = std::filesystem;
using namespace ws::paths;

namespace {

struct Env {
  std::string name;
  Env(std::string n, const std::string& v) : name(std::move(n)) { ::setenv(name.c_str(), v.c_str(), 1); }
  ~Env() { ::unsetenv(name.c_str()); }
};

struct DataDir {
  fs::path p = fs::temp_directory_path() / ("ws_data_" + std::to_string(::getpid()));
  DataDir() {
    fs::remove_all(p);
    fs::create_directories(p / "assets" / "recordings");
    fs::create_directories(p / "include" / "kernels" / "dialect");
    std::ofstream(p / "assets" / "recordings" / "mine.json") << "{}";
    std::ofstream(p / "include" / "kernels" / "dialect" / "simt.h") << "// mine";
  }
  ~DataDir() { fs::remove_all(p); }
};

TEST(DataPaths, DataDirComesFirstForEveryKindOfData) {
  DataDir d;
  ::unsetenv("WARPSCOPE_INCLUDE");
  Env e("WARPSCOPE_DATA_DIR", d.p.string());
  const auto roots = data_roots();
  ASSERT_FALSE(roots.empty());
  EXPECT_EQ(roots.front(), fs::weakly_canonical(d.p).string());
  EXPECT_EQ(find_data("assets/recordings/mine.json"),
            (fs::weakly_canonical(d.p) / "assets/recordings/mine.json").string());
  // An install keeps the headers under include/: found there, before the source tree's.
  EXPECT_EQ(dialect_include_dir(), (fs::weakly_canonical(d.p) / "include").string());
  const auto h = header_roots();
  ASSERT_GE(h.size(), 2u);
  EXPECT_EQ(h[0], roots[0]);
  EXPECT_EQ(h[1], (fs::weakly_canonical(d.p) / "include").string());
}

TEST(DataPaths, TheOlderIncludeOverrideStillWins) {
  DataDir d;
  Env e("WARPSCOPE_DATA_DIR", d.p.string());
  Env i("WARPSCOPE_INCLUDE", "/somewhere/else");
  EXPECT_EQ(dialect_include_dir(), "/somewhere/else");
}

TEST(DataPaths, AMissingDataDirIsSkippedAndTheWorkingDirectoryIsLast) {
  Env e("WARPSCOPE_DATA_DIR", "/nonexistent/warpscope-data");
  const auto roots = data_roots();
  ASSERT_FALSE(roots.empty());
  EXPECT_NE(roots.front(), "/nonexistent/warpscope-data");
  EXPECT_EQ(roots.back(), ".");
}

}  // namespace
