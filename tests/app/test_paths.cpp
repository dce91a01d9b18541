// Where data and fonts are found (app/paths.h): the roots, the lessons folder and the font,
// and the CLI's `lesson --list` built on them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <iterator>
#include <set>

#include <unistd.h>

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

// Finding 3 of issue 10: a text file aborted ImGui's font loader, a truncated font
// crashed it, a missing one was ignored. Each is now one sentence naming the file.
namespace {
std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
std::string write_temp(const std::string& name, const std::string& data) {
  const fs::path p = fs::temp_directory_path() / ("ws-font-" + std::to_string(getpid()) + "-" + name);
  std::ofstream(p, std::ios::binary) << data;
  return p.string();
}
}  // namespace

TEST(FontProblem, TheDefaultFontIsUsable) {
  const std::string f = paths::default_font();
  ASSERT_NE(f, "");
  EXPECT_EQ(paths::font_problem(f), "");
}

TEST(FontProblem, MissingTextTruncatedAndDirectoriesAreNamed) {
  EXPECT_EQ(paths::font_problem("/nonexistent/x.ttf"), "font /nonexistent/x.ttf does not exist");
  EXPECT_NE(paths::font_problem("/tmp").find("is a directory"), std::string::npos);
  const std::string text = write_temp("passwd", "root:x:0:0:root:/root:/bin/bash\n");
  EXPECT_EQ(paths::font_problem(text),
            "font " + text + " is not a TrueType or OpenType font (no sfnt header)");
  const std::string tiny = write_temp("tiny", "abc");
  EXPECT_EQ(paths::font_problem(tiny), "font " + tiny + " is not a TrueType or OpenType font: 3 bytes, shorter than a font header");
  const std::string empty = write_temp("empty", "");
  EXPECT_NE(paths::font_problem(empty).find("not a TrueType"), std::string::npos);

  const std::string good = bytes_of(paths::default_font());
  ASSERT_GT(good.size(), 4096u);
  // Cut anywhere: in the table directory, in a table, near the end.
  for (std::size_t cut : {std::size_t(11), std::size_t(20), std::size_t(200), good.size() / 2,
                          good.size() - 1}) {
    const std::string t = write_temp("cut", good.substr(0, cut));
    const std::string why = paths::font_problem(t);
    EXPECT_NE(why.find("truncated or damaged"), std::string::npos) << cut << ": " << why;
    EXPECT_EQ(why.find('\n'), std::string::npos);
  }
  for (const std::string& p : {text, tiny, empty}) fs::remove(p);
}

// A flipped byte anywhere in the header and directory gets an answer, never a read
// outside the file (scripts/test_hardening runs this under ASan).
TEST(FontProblem, FlippedDirectoryBytesAreAnsweredWithoutCrashing) {
  const std::string good = bytes_of(paths::default_font());
  ASSERT_GT(good.size(), 4096u);
  for (std::size_t i = 0; i < 12 + 16 * 24 && i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = char(bad[i] ^ 0xA5);
    const std::string t = write_temp("flip", bad);
    const std::string why = paths::font_problem(t);  // any answer, but no crash
    EXPECT_EQ(why.find('\n'), std::string::npos);
    fs::remove(t);
  }
}
