// libFuzzer target: the record reader that takes a sandboxed kernel's stream apart
// (kernels/user/sandbox.h). The first byte picks the chunk size the bytes arrive in; every
// record taken has a known tag and a length within its kind's bounds, no more bytes are
// taken than were fed, and after an error nothing more is taken.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/user/sandbox.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = std::size_t(data[0]) + 1;
  // The kinds of kernels/user/user_kernel.cpp's stream (sizes as there).
  const std::vector<ws::sandbox::RecordKind> kinds = {
      {'B', 4, 4}, {'A', 22, 278}, {'E', 148, 148}, {'X', 0, 0}, {'P', 13, 1037}, {'R', 17, 17}, {'D', 0, 4096}};
  ws::sandbox::RecordReader rr(kinds, 1 << 16);
  std::uint64_t taken = 0;
  bool failed = false;
  for (std::size_t at = 1; at < size; at += chunk) {
    const std::size_t n = std::min(chunk, size - at);
    rr.feed(reinterpret_cast<const char*>(data + at), n);
    ws::sandbox::Record r;
    while (rr.next(r)) {
      if (failed) __builtin_trap();
      bool known = false;
      for (const auto& k : kinds)
        if (k.tag == r.tag) known = r.payload.size() >= k.min_len && r.payload.size() <= k.max_len;
      if (!known) __builtin_trap();
      taken += 5 + r.payload.size();
    }
    failed = failed || !rr.error().empty();
    const std::string text = ws::sandbox::printable(r.payload, 100, true);
    for (char c : text)
      if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') __builtin_trap();
  }
  if (taken > size) __builtin_trap();
  return 0;
}
