// libFuzzer target: recorded SASS listings (kernels/hardware/sass.h, assets/sass/*.sass), a file a
// user may replace under $WARPSCOPE_DATA_DIR. Any text is either a listing or one line of
// error naming a line; no crash, no stack overflow in the regexes, no undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/hardware/sass.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ws::sass::Listing l;
  std::string err;
  if (!ws::sass::parse(text, l, err)) {
    if (err.empty() || err.find('\n') != std::string::npos || err.rfind("line ", 0) != 0) __builtin_trap();
    return 0;
  }
  // What the SASS view asks of a parsed listing.
  for (const auto& f : l.functions) {
    (void)f.spill_stores();
    (void)f.spill_loads();
    for (const auto& ins : f.code) (void)ins.text();
    (void)ws::sass::by_line(f, "kernels/families/transpose.cuh");
  }
  return 0;
}
