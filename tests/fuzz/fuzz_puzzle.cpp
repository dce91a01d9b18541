// libFuzzer target: the puzzle loader's parser. @post of parse_text: true iff no errors,
// every error has a line >= 1.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/puzzle/puzzle.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ws::puzzle::Puzzle pz;
  std::vector<ws::puzzle::Error> errors;
  const bool ok = ws::puzzle::parse_text(text, "fuzz.md", pz, errors);
  if (ok != errors.empty()) __builtin_trap();
  for (const auto& e : errors)
    if (e.line < 1) __builtin_trap();
  return 0;
}
