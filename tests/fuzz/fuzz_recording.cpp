// libFuzzer target: the recording loader (kernels/recording.h, assets/recordings/*.json).
// Any text is either a recording, whose JSON reads back to the same JSON, or one line
// of error; nothing else escapes, nothing crashes, no undefined behaviour (UBSan).
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/recording.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ws::Recording r;
  std::string error;
  if (!ws::parse_recording(text, "fuzz.json", r, error)) {
    if (error.empty() || error.find('\n') != std::string::npos) __builtin_trap();
    return 0;
  }
  const std::string once = ws::recording_json(r);
  ws::Recording again;
  if (!ws::parse_recording(once, "again.json", again, error)) __builtin_trap();
  if (ws::recording_json(again) != once) __builtin_trap();
  return 0;
}
