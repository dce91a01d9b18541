#include "app/cli/util.h"

#include <filesystem>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace ws::cli {

namespace {

bool parse_ll(const std::string& s, long long& v) {
  if (s.empty()) return false;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (*b == '+') ++b;
  auto [p, ec] = std::from_chars(b, e, v);
  return ec == std::errc() && p == e;
}

}  // namespace

bool parse_sweep(const std::string& s, Sweep& out, std::string& err) {
  const auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0) {
    err = "--sweep '" + s + "' is not key=v1,v2,... (example: --sweep tile=8,16,32)";
    return false;
  }
  Sweep sw;
  sw.key = s.substr(0, eq);
  const std::string list = s.substr(eq + 1);
  for (const auto& piece : split(list, ',')) {
    // The same numbers --set takes (1024, 0x400, 1<<10): one parser for both.
    Params one;
    if (const std::string why = parse_param(sw.key + "=" + piece, one); !why.empty()) {
      err = "--sweep " + sw.key + ": " + why;
      return false;
    }
    sw.values.push_back(one.begin()->second);
  }
  if (sw.values.empty()) {
    err = "--sweep " + sw.key + " has no values (example: --sweep " + sw.key + "=1,2)";
    return false;
  }
  out = std::move(sw);
  return true;
}

std::vector<Params> expand_sweeps(const Params& base, const std::vector<Sweep>& sweeps) {
  std::vector<Params> out = {base};
  for (const auto& sw : sweeps) {
    std::vector<Params> next;
    next.reserve(out.size() * sw.values.size());
    for (const auto& p : out)
      for (long long v : sw.values) {
        Params q = p;
        q[sw.key] = v;
        next.push_back(std::move(q));
      }
    out = std::move(next);
  }
  return out;
}

bool parse_size(const std::string& s, int& w, int& h, std::string& err) {
  const auto x = s.find_first_of("xX");
  long long a = 0, b = 0;
  if (x == std::string::npos || !parse_ll(s.substr(0, x), a) || !parse_ll(s.substr(x + 1), b)) {
    err = "--size '" + s + "' is not WIDTHxHEIGHT (example: --size 1600x1000)";
    return false;
  }
  if (a <= 0 || b <= 0 || a > 16384 || b > 16384) {
    err = "--size " + s + ": width and height must be between 1 and 16384";
    return false;
  }
  w = int(a);
  h = int(b);
  return true;
}

std::string iso8601_utc(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    auto end = s.find(sep, start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string fmt(double v, int digits) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  const double a = std::fabs(v);
  if (a >= 1e-4 && a < 1e15) {
    // Fixed notation with `digits` significant digits.
    const int mag = int(std::floor(std::log10(a)));
    const int dec = std::max(0, digits - 1 - mag);
    std::snprintf(buf, sizeof buf, "%.*f", dec, v);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string format_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows,
                         const std::vector<bool>& right) {
  std::vector<std::size_t> width(header.size(), 0);
  auto widen = [&](const std::vector<std::string>& r) {
    if (r.size() > width.size()) width.resize(r.size(), 0);
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  };
  widen(header);
  for (const auto& r : rows) widen(r);
  auto line = [&](const std::vector<std::string>& r) {
    std::string s;
    for (std::size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < r.size() ? r[i] : "";
      const std::size_t pad = width[i] - cell.size();
      const bool is_right = i < right.size() && right[i];
      if (i) s += "  ";
      if (is_right) s.append(pad, ' ');
      s += cell;
      if (!is_right && i + 1 < width.size()) s.append(pad, ' ');
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = line(header);
  std::size_t total = 0;
  for (std::size_t i = 0; i < width.size(); ++i) total += width[i] + (i ? 2 : 0);
  out += std::string(total, '-') + "\n";
  for (const auto& r : rows) out += line(r);
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::vector<std::string> data_roots() {
  std::vector<std::string> roots;
#if defined(WS_SOURCE_DIR)
  roots.push_back(WS_SOURCE_DIR);
#endif
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) roots.push_back((exe.parent_path() / "../share/warpscope").lexically_normal().string());
  roots.push_back(".");
  return roots;
}

}  // namespace ws::cli
