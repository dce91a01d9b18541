// libFuzzer target: the compilers' messages read without regexes (kernels/user/compile_log.h).
// Any line is either a diagnostic with a file, a line in range and a message inside the
// line, or nothing; a shown message is bounded and printable; nothing crashes, no stack
// grows with the input (the regexes it replaced did), no undefined behaviour (UBSan).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/user/compile_log.h"

namespace {
void check(std::string_view s, bool ok, const ws::user::Diagnostic& d) {
  if (!ok) return;
  if (d.file.empty() || d.line < 1 || d.line > 10000000) __builtin_trap();
  if (!d.kind.empty() && d.kind != "error" && d.kind != "fatal error" && d.kind != "warning" && d.kind != "note")
    __builtin_trap();
  // The file and the message are views into the line (the kind may be a constant).
  for (std::string_view part : {d.file, d.message})
    if (!part.empty() && (part.data() < s.data() || part.data() + part.size() > s.data() + s.size())) __builtin_trap();
  const std::string m = ws::user::short_message(d.message);
  if (m.size() > ws::user::kMaxMessageBytes + 40) __builtin_trap();
  for (char c : m)
    if (static_cast<unsigned char>(c) < 0x20) __builtin_trap();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view s(reinterpret_cast<const char*>(data), size);
  ws::user::Diagnostic d;
  check(s, ws::user::parse_gcc_line(s, d), d);
  check(s, ws::user::parse_nvrtc_line(s, d), d);
  return 0;
}
