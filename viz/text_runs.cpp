#include "viz/text_runs.h"

#include <algorithm>

namespace ws::viz {

std::vector<std::string_view> text_pieces(std::string_view text, std::size_t max_bytes) {
  max_bytes = std::max<std::size_t>(max_bytes, 4);  // one UTF-8 character always fits
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = std::min(text.size(), at + max_bytes);
    // Back up to the start of a character (continuation bytes are 10xxxxxx), at most 3.
    if (end < text.size()) {
      std::size_t e = end;
      while (e > at + 1 && e + 3 >= end && (static_cast<unsigned char>(text[e]) & 0xC0) == 0x80) --e;
      if ((static_cast<unsigned char>(text[e]) & 0xC0) != 0x80) end = e;
    }
    out.push_back(text.substr(at, end - at));
    at = end;
  }
  return out;
}

}  // namespace ws::viz
