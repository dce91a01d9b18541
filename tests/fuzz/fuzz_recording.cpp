// libFuzzer target: the recording loader (kernels/hardware/recording.h, assets/recordings/*.json).
// Any text is either a recording, whose JSON reads back to the same JSON and whose every
// time is finite, positive and in order (issue 27: -1, 0 and 1e308 were shown as
// recorded), or one line of error naming the file; nothing else escapes, nothing
// crashes, no undefined behaviour (UBSan).
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/hardware/recording.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ws::Recording r;
  std::string error;
  if (!ws::parse_recording(text, "fuzz.json", r, error)) {
    if (error.empty() || error.find('\n') != std::string::npos || error.rfind("fuzz.json: ", 0) != 0)
      __builtin_trap();
    return 0;
  }
  auto timed = [](const ws::Timing& t) {
    return std::isfinite(t.median_ms) && t.min_ms > 0 && t.min_ms <= t.median_ms && t.median_ms <= t.max_ms &&
           std::isfinite(t.max_ms) && std::isfinite(t.throughput) && t.throughput >= 0;
  };
  for (const auto& run : r.runs)
    if (!timed(run.timing) || !std::isfinite(run.copy_gbps) || run.copy_gbps < 0) __builtin_trap();
  for (const auto& p : r.peers)
    if (!timed(p.timing)) __builtin_trap();
  const std::string once = ws::recording_json(r);
  ws::Recording again;
  if (!ws::parse_recording(once, "again.json", again, error)) __builtin_trap();
  if (ws::recording_json(again) != once) __builtin_trap();
  return 0;
}
