// app/ names no kernel family, variant or parameter: what it knows about a family it reads
// from the catalogue (kernels/catalogue/catalogue.h FamilyInfo, VariantInfo), so a family is added
// in its header alone. This test reads every source file under app/ and fails on a string
// literal that is a family's, a variant's or a parameter's name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "kernels/backends/backend.h"

namespace fs = std::filesystem;
using namespace ws;

namespace {

// The string literals of a C++ source, with the line each starts on.
std::vector<std::pair<int, std::string>> literals(const std::string& src) {
  std::vector<std::pair<int, std::string>> out;
  int line = 1;
  for (std::size_t i = 0; i < src.size(); ++i) {
    const char c = src[i];
    if (c == '\n') ++line;
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {  // a comment to the line's end
      while (i < src.size() && src[i] != '\n') ++i;
      --i;
      continue;
    }
    if (c == '\'' ) {  // a character literal, possibly '"'
      i += (i + 1 < src.size() && src[i + 1] == '\\') ? 3 : 2;
      continue;
    }
    if (c != '"') continue;
    std::string s;
    const int at = line;
    for (++i; i < src.size() && src[i] != '"'; ++i) {
      if (src[i] == '\\' && i + 1 < src.size()) s += src[i++];
      if (src[i] == '\n') ++line;
      s += src[i];
    }
    out.push_back({at, s});
  }
  return out;
}

}  // namespace

TEST(AppNames, LiteralsFindTheirStrings) {
  const auto l = literals("a(\"tile\"); // \"pad\"\nchar q = '\"'; b(\"x\\\"y\");\n");
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].second, "tile");
  EXPECT_EQ(l[1].first, 2);
  EXPECT_EQ(l[1].second, "x\\\"y");
}

TEST(AppNames, AppNamesNoFamilyVariantOrParameter) {
  std::map<std::string, std::string> names;  // name -> what it is
  for (const FamilyInfo& f : families()) names[f.name] = "family";
  for (const VariantInfo& v : catalogue()) {
    names.emplace(v.name, "variant of " + v.family);
    for (const ParamSpec& p : v.params) names.emplace(p.name, "parameter of " + v.family);
  }
  // Words that are also names of something else in app/, each with the reason it stays:
  const std::set<std::string> elsewhere = {
      "block",       // a launch's block dimensions in JSON, and the block the stepper shows
      "divergence",  // the name of a view (the divergence strip), not the family
      "stages",      // the latency report's stages of a result (measured, block, counters)
  };
  std::vector<std::string> found;
  const fs::path root = fs::path(WS_SOURCE_DIR) / "app";
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const auto ext = e.path().extension();
    if (ext != ".cpp" && ext != ".h" && ext != ".cu") continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    for (const auto& [line, s] : literals(ss.str())) {
      auto it = names.find(s);
      if (it == names.end() || elsewhere.count(s)) continue;
      found.push_back(fs::relative(e.path(), WS_SOURCE_DIR).string() + ":" +
                      std::to_string(line) + ": \"" + s + "\" is the name of a " + it->second);
    }
  }
  std::string all;
  for (const auto& f : found) all += "\n  " + f;
  EXPECT_TRUE(found.empty()) << "app/ names the catalogue's families, variants or parameters "
                                "(read them from FamilyInfo/VariantInfo instead):"
                             << all;
}
