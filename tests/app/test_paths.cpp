// Where data and fonts are found (app/paths.h): the roots, the lessons folder and the font,
// and the CLI's `lesson --list` built on them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <set>

#include "app/paths.h"

namespace fs = std::filesystem;
using namespace ws;

TEST(Paths, RootsHaveNoDuplicatesAndEndWithTheWorkingDirectory) {
  const auto roots = paths::data_roots();
  ASSERT_FALSE(roots.empty());
  EXPECT_EQ(roots.back(), ".");
  std::set<std::string> seen(roots.begin(), roots.end());
  EXPECT_EQ(seen.size(), roots.size());
  for (std::size_t i = 0; i + 1 < roots.size(); ++i) EXPECT_TRUE(fs::is_directory(roots[i])) << roots[i];
}

TEST(Paths, TheDataDirVariableComesFirst) {
  const fs::path dir = fs::temp_directory_path() / "ws-paths-test";
  fs::create_directories(dir / "lessons");
  { std::ofstream(dir / "lessons" / "01-x.md") << "---\ntitle: X\n---\n"; }
  setenv("WARPSCOPE_DATA_DIR", dir.c_str(), 1);
  EXPECT_EQ(paths::data_roots().front(), fs::weakly_canonical(dir).string());
  EXPECT_EQ(paths::lessons_dir(), (fs::weakly_canonical(dir) / "lessons").string());
  unsetenv("WARPSCOPE_DATA_DIR");
  fs::remove_all(dir);
  // From the build tree the source tree's lessons are found.
  EXPECT_EQ(fs::weakly_canonical(paths::lessons_dir()),
            fs::weakly_canonical(fs::path(WS_SOURCE_DIR) / "lessons"));
  EXPECT_NE(paths::find_data("assets/fonts.txt"), "");
  EXPECT_EQ(paths::find_data("no/such/file"), "");
}

TEST(Paths, TheDefaultFontIsATrueTypeFileThatExists) {
  const std::string f = paths::default_font();
  ASSERT_NE(f, "") << "no font: install fonts-dejavu-core";
  EXPECT_TRUE(fs::exists(f)) << f;
  EXPECT_EQ(fs::path(f).extension(), ".ttf") << f;
}
