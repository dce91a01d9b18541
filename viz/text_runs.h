#pragma once
// Text handed to Dear ImGui in bounded runs. ImGui 1.86 draws with 16-bit indices and
// reserves vertices for a whole text call up front (4 per character), and its Text*()
// formatters cut at 3 KB: one unbroken 17,000-character word aborted the window. Every
// text a user or a lesson supplies is drawn as pieces of at most kMaxTextRun bytes, cut
// between UTF-8 characters. No ImGui here, so it is tested alone.
#include <cstddef>
#include <string_view>
#include <vector>

namespace ws::viz {

// Far below ImGui's limits (16,383 characters a call, 3,072 bytes a formatted string),
// far above any word a lesson means.
constexpr std::size_t kMaxTextRun = 512;

// @post the pieces concatenate to `text`; each is at most max(max_bytes, 4) bytes, non-empty,
//       and never splits a UTF-8 sequence (a piece starts at a byte that is not 10xxxxxx,
//       unless the text itself starts with one).
std::vector<std::string_view> text_pieces(std::string_view text, std::size_t max_bytes = kMaxTextRun);

}  // namespace ws::viz
