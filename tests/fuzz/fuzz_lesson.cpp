// libFuzzer target: the lesson parser and validator on arbitrary bytes. Never crashes,
// never recurses without a bound, and reports every problem as file:line (line >= 0).
#include <cstddef>
#include <cstdint>
#include <string>

#include "app/lesson/lesson_model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ws::lesson::ParseResult r = ws::lesson::parse_lesson_text(text, "fuzz.md");
  if (r.lesson) (void)ws::lesson::validate_lesson(*r.lesson);
  for (const auto& e : r.errors)
    if (e.line < 0 || e.message.empty()) __builtin_trap();
  return 0;
}
