// A hand-written, linear reading of compiler diagnostics (see compile_log.h).
#include "kernels/user/compile_log.h"

#include "kernels/user/sandbox.h"

namespace ws::user {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

// Digits at s[i...]: their end (i when none); the value, capped above 10^7.
std::size_t read_number(std::string_view s, std::size_t i, long& v) {
  v = 0;
  std::size_t j = i;
  while (j < s.size() && digit(s[j])) {
    if (v <= 10000000) v = v * 10 + (s[j] - '0');
    ++j;
  }
  return j;
}

bool starts(std::string_view s, std::size_t at, std::string_view w) {
  return s.size() >= at && s.substr(at, w.size()) == w;
}

}  // namespace

bool parse_gcc_line(std::string_view s, Diagnostic& d) {
  d = {};
  // The first ':' followed by digits and ':' ends the file name. Each character is looked
  // at a bounded number of times: a failed digit run is skipped past.
  std::size_t i = 0;
  long line = 0;
  std::size_t after = std::string_view::npos;
  while (i < s.size()) {
    const std::size_t c = s.find(':', i);
    if (c == std::string_view::npos) return false;
    const std::size_t e = read_number(s, c + 1, line);
    if (e > c + 1 && e < s.size() && s[e] == ':') {
      d.file = s.substr(0, c);
      after = e + 1;
      break;
    }
    i = e > c + 1 ? e : c + 1;
  }
  if (after == std::string_view::npos || d.file.empty() || line < 1 || line > 10000000) return false;
  d.line = int(line);
  // An optional column.
  long col = 0;
  const std::size_t ce = read_number(s, after, col);
  if (ce > after && ce < s.size() && s[ce] == ':') after = ce + 1;
  while (after < s.size() && s[after] == ' ') ++after;
  for (std::string_view k : {"fatal error", "error", "warning", "note"}) {
    if (starts(s, after, k) && (after + k.size() == s.size() || s[after + k.size()] == ':')) {
      d.kind = s.substr(after, k.size());
      after += k.size();
      break;
    }
  }
  if (after < s.size() && s[after] == ':') ++after;
  if (after < s.size() && s[after] == ' ') ++after;
  d.message = s.substr(std::min(after, s.size()));
  return true;
}

bool parse_nvrtc_line(std::string_view s, Diagnostic& d) {
  d = {};
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t p = s.find('(', i);
    if (p == std::string_view::npos) return false;
    long line = 0;
    const std::size_t e = read_number(s, p + 1, line);
    if (e > p + 1 && starts(s, e, "): ")) {
      std::size_t at = e + 3;
      if (starts(s, at, "catastrophic ")) at += 13;
      if (!starts(s, at, "error: ") || p == 0 || line < 1 || line > 10000000) {
        i = e;  // a later "(N): " may be the one
        continue;
      }
      d.file = s.substr(0, p);
      d.line = int(line);
      d.kind = "error";
      d.message = s.substr(at + 7);
      return true;
    }
    i = e > p + 1 ? e : p + 1;
  }
  return false;
}

std::string short_message(std::string_view m) { return sandbox::printable(m, kMaxMessageBytes); }

}  // namespace ws::user
