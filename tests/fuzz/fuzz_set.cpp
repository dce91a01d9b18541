// libFuzzer target: the --set and --sweep parsers. A value is accepted with a number or
// refused with a sentence; never both, never a crash or an overflow (UBSan).
#include <cstddef>
#include <cstdint>
#include <string>

#include "app/cli/report.h"
#include "app/cli/util.h"
#include "kernels/catalogue/catalogue.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ws::Params p;
  const std::string why = ws::parse_param(text, p);
  if (why.empty() == p.empty()) __builtin_trap();  // exactly one of: a value, a reason
  ws::cli::Sweep sw;
  std::string err;
  if (ws::cli::parse_sweep(text, sw, err) == !err.empty() && !err.empty()) __builtin_trap();
  ws::Params q;
  (void)ws::cli::parse_sets({text, text}, q, err);
  return 0;
}
