#pragma once
// The compilers' messages, read without regular expressions: a linear scan of each line,
// with bounded lines and messages (issue 27: std::regex ran out of stack on a 30,000-
// character identifier and took the app down).
#include <cstddef>
#include <string>
#include <string_view>

namespace ws::user {

// The most of a compiler's log that is read, and of one message that is kept.
constexpr std::size_t kMaxLogBytes = 256 * 1024;
constexpr std::size_t kMaxMessageBytes = 400;

// One diagnostic line.
struct Diagnostic {
  std::string_view file;
  int line = 0;
  std::string_view kind;     // "error", "fatal error", "warning", "note", or "" (none named)
  std::string_view message;  // the rest of the line
};

// GCC and Clang: "FILE:LINE[:COL]: [KIND: ]MESSAGE" (the first ":DIGITS:" ends FILE).
// @post true iff s has that shape with a non-empty FILE and 1 <= LINE <= 10^7; O(s.size()).
bool parse_gcc_line(std::string_view s, Diagnostic& d);
// NVRTC: "FILE(LINE): [catastrophic ]error: MESSAGE" (kind "error").
// @post true iff s has that shape with a non-empty FILE and 1 <= LINE <= 10^7; O(s.size()).
bool parse_nvrtc_line(std::string_view s, Diagnostic& d);
// A message fit to show: printable text, at most kMaxMessageBytes, then "[... N more bytes]".
std::string short_message(std::string_view m);

}  // namespace ws::user
