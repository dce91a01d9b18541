// Text runs for ImGui (issue 27): any word length is drawn in bounded pieces, cut only
// between UTF-8 characters.
#include <gtest/gtest.h>

#include <string>

#include "viz/text_runs.h"

namespace ws::viz {
namespace {

std::string joined(const std::vector<std::string_view>& v) {
  std::string s;
  for (auto p : v) s += p;
  return s;
}

TEST(TextRuns, AHugeWordIsCutIntoBoundedPieces) {
  const std::string word(17000, 'x');
  const auto p = text_pieces(word);
  EXPECT_EQ(joined(p), word);
  EXPECT_EQ(p.size(), (17000 + kMaxTextRun - 1) / kMaxTextRun);
  for (auto s : p) EXPECT_LE(s.size(), kMaxTextRun);
}

TEST(TextRuns, UTF8CharactersAreNeverSplit) {
  std::string s;
  for (int i = 0; i < 3000; ++i) s += i % 3 ? "\xE2\x80\x94" : "\xF0\x9F\x98\x80";  // em dash, emoji
  for (std::size_t cap : {4u, 5u, 7u, 100u, 512u}) {
    const auto p = text_pieces(s, cap);
    EXPECT_EQ(joined(p), s);
    for (auto piece : p) {
      EXPECT_FALSE(piece.empty());
      EXPECT_LE(piece.size(), cap);
      EXPECT_NE(static_cast<unsigned char>(piece[0]) & 0xC0, 0x80) << cap;
    }
  }
}

TEST(TextRuns, ShortAndEmptyTextAndStrayContinuationBytes) {
  EXPECT_TRUE(text_pieces("").empty());
  EXPECT_EQ(text_pieces("word").size(), 1u);
  const std::string junk(2000, '\x80');  // not UTF-8: still cut, never stuck
  const auto p = text_pieces(junk, 100);
  EXPECT_EQ(joined(p), junk);
  for (auto piece : p) EXPECT_LE(piece.size(), 100u);
}

}  // namespace
}  // namespace ws::viz
