#pragma once
// Small pure helpers of the command line: sweeps, sizes, dates, number formatting,
// text tables and CSV fields. No backend, no I/O: each is tested on its own.
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "kernels/catalogue/catalogue.h"

namespace ws::cli {

// `--sweep key=v1,v2,...`
struct Sweep {
  std::string key;
  std::vector<long long> values;
};

// @post true iff s is "key=v1[,v2...]" with a non-empty key and integer values; then
//       out holds them in the given order. On false, err names what is wrong.
bool parse_sweep(const std::string& s, Sweep& out, std::string& err);

// The cartesian product of the sweeps applied over `base` (the last sweep varies fastest).
// @post size == product of the sweeps' value counts (1 without sweeps); every result
//       equals base except that each swept key holds one of its values.
std::vector<Params> expand_sweeps(const Params& base, const std::vector<Sweep>& sweeps);

// "1600x1000"
// @post true iff s is WxH with both positive integers <= 16384; then w and h hold them.
bool parse_size(const std::string& s, int& w, int& h, std::string& err);

// @post "YYYY-MM-DDTHH:MM:SSZ" in UTC (ISO 8601).
std::string iso8601_utc(std::time_t t);

// @post splits on `sep`, dropping empty pieces ("svg,,png" -> {"svg","png"}).
std::vector<std::string> split(const std::string& s, char sep);

// Numbers for people: integers without a decimal point, others to `digits` significant
// digits. @post no exponent for |v| in [1e-4, 1e15); "nan"/"inf" spelled out.
std::string fmt(double v, int digits = 4);

// A text table with a header row, columns padded to their widest cell; `right` marks
// the right-aligned columns (numbers).
// @post one line per row plus the header and a rule; every line ends in '\n'.
std::string format_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows,
                         const std::vector<bool>& right = {});

// Where the app's data lives: the source tree (family headers, assets/, lessons/), then
// the install's share directory beside the executable.
// @post non-empty; the source tree first when the build knows it.
std::vector<std::string> data_roots();

// @post the field unchanged when it has no comma, quote or newline; else RFC 4180-quoted.
std::string csv_field(const std::string& s);

}  // namespace ws::cli
