// libFuzzer target: the progress loader's parser. Anything but a valid progress file
// throws std::exception with a reason; nothing else escapes, nothing crashes.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "app/lesson/lesson_model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)ws::lesson::parse_progress(text);
  } catch (const std::exception& e) {
    if (!*e.what()) __builtin_trap();
  }
  return 0;
}
