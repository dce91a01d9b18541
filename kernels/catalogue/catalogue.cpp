// Validation and parameter parsing for catalogue variants. Every message names the
// parameter or the device limit at fault, so a student can fix the input without
// reading the source.
#include "kernels/catalogue/catalogue.h"
#include "sim/half.h"
#include "sim/smooth.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <charconv>
#include <limits>
#include <thread>

namespace ws {
namespace {

std::string join_names(const std::vector<ParamSpec>& ps) {
  std::string s;
  for (const auto& p : ps) s += (s.empty() ? "" : ", ") + p.name;
  return s.empty() ? "none" : s;
}

std::string join_values(const std::vector<long long>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

std::string dims(const Dim3& d) {
  std::string s = std::to_string(d.x);
  if (d.y != 1 || d.z != 1) s += "x" + std::to_string(d.y);
  if (d.z != 1) s += "x" + std::to_string(d.z);
  return s;
}

// Shared memory sizes read best in KB when they are whole or large, else in bytes.
std::string kb(std::uint64_t bytes) {
  if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KB";
  if (bytes >= 10 * 1024) return std::to_string((bytes + 1023) / 1024) + " KB";
  return std::to_string(bytes) + " bytes";
}

std::string check_launch(const LaunchCfg& c, const DeviceLimits& lim, std::size_t index,
                         std::size_t launches) {
  const std::string who =
      launches > 1 ? " (launch " + std::to_string(index + 1) + ", " + c.kernel + ")" : "";
  const unsigned long long threads = c.block.count();
  if (threads == 0 || c.grid.count() == 0)
    return "launch " + c.kernel + " has an empty grid or block (grid " + dims(c.grid) +
           ", block " + dims(c.block) + ")";
  if (threads > static_cast<unsigned long long>(lim.max_threads_per_block)) {
    std::string b = "block " + dims(c.block);
    if (c.block.y != 1 || c.block.z != 1) b += " = " + std::to_string(threads) + " threads";
    else b += " threads";
    return b + who + " exceeds the device's " + std::to_string(lim.max_threads_per_block) +
           " per block";
  }
  const char* axis[] = {"x", "y", "z"};
  const unsigned bv[] = {c.block.x, c.block.y, c.block.z};
  const unsigned bm[] = {lim.max_block.x, lim.max_block.y, lim.max_block.z};
  const unsigned gv[] = {c.grid.x, c.grid.y, c.grid.z};
  const unsigned gm[] = {lim.max_grid.x, lim.max_grid.y, lim.max_grid.z};
  for (int i = 0; i < 3; ++i) {
    if (bv[i] > bm[i])
      return "block " + dims(c.block) + who + ": " + std::to_string(bv[i]) + " threads in " +
             axis[i] + " exceeds the device's " + std::to_string(bm[i]);
    if (gv[i] > gm[i])
      return "grid " + dims(c.grid) + who + ": " + std::to_string(gv[i]) + " blocks in " +
             axis[i] + " exceeds the device's " + std::to_string(gm[i]);
  }
  // The launchers opt in above 48 KB (cudaFuncSetAttribute), so the opt-in limit is the one.
  if (c.shared_bytes > lim.max_shared_per_block_optin)
    return "shared memory " + kb(c.shared_bytes) + who + " exceeds the " +
           kb(lim.max_shared_per_block_optin) + " per block available";
  return "";
}

}  // namespace

std::string validate(const VariantInfo& v, const Params& given, const DeviceLimits& limits,
                     Params& out) {
  const std::string who = v.family + "/" + v.name;
  out.clear();
  for (const auto& [k, val] : given) {
    bool known = false;
    for (const auto& s : v.params) known = known || s.name == k;
    if (!known)
      return "unknown parameter '" + k + "' for " + who + " (it takes " + join_names(v.params) +
             ")";
  }
  for (const auto& s : v.params) {
    auto it = given.find(s.name);
    const long long val = it == given.end() ? s.def : it->second;
    if (!s.choices.empty()) {
      bool ok = false;
      for (long long c : s.choices) ok = ok || c == val;
      if (!ok)
        return s.name + "=" + std::to_string(val) + " is not one of " + join_values(s.choices);
    } else if (val < s.min || val > s.max) {
      return s.name + "=" + std::to_string(val) + " is outside the range " +
             std::to_string(s.min) + ".." + std::to_string(s.max);
    }
    out[s.name] = val;
  }
  if (v.check) {
    std::string why = v.check(out);
    if (!why.empty()) return why;
  }
  if (!v.plan) return who + " has no launch plan";
  const Plan plan = v.plan(out);
  if (plan.launches.empty()) return who + " plans no launch";
  for (std::size_t i = 0; i < plan.launches.size(); ++i) {
    std::string why = check_launch(plan.launches[i], limits, i, plan.launches.size());
    if (!why.empty()) return why;
  }
  return "";
}

std::string parse_param(const std::string& kv, Params& p) {
  const auto eq = kv.find('=');
  if (eq == std::string::npos)
    return "'" + kv + "' is not of the form name=value (e.g. tile=32)";
  const std::string key = kv.substr(0, eq), text = kv.substr(eq + 1);
  if (key.empty()) return "'" + kv + "' has no parameter name before '='";
  for (char c : key)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return "parameter name '" + key + "' may only contain letters, digits and '_'";
  if (text.empty()) return "parameter " + key + " has no value after '='";

  // Accepts 1048576, 0x100000 and 1<<20: sizes are usually powers of two. Decimal unless
  // written 0x..., so a zero-padded 010 means ten (strtoll's base 0 would read octal 8).
  enum class Num { Ok, Bad, TooBig };
  auto number = [](const std::string& s, long long& v) -> Num {
    const char* b = s.data();
    const char* e = b + s.size();
    const bool neg = b != e && *b == '-';
    if (b != e && (*b == '-' || *b == '+')) ++b;
    int base = 10;
    if (e - b > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X')) {
      base = 16;
      b += 2;
    }
    if (b == e || *b == '-' || *b == '+') return Num::Bad;
    unsigned long long u = 0;
    const auto [p, ec] = std::from_chars(b, e, u, base);
    if (p != e) return Num::Bad;
    const unsigned long long most = neg ? 1ull << 63 : (1ull << 63) - 1;
    if (ec == std::errc::result_out_of_range || u > most) return Num::TooBig;
    if (ec != std::errc()) return Num::Bad;
    v = neg ? static_cast<long long>(0 - u) : static_cast<long long>(u);
    return Num::Ok;
  };
  const std::string not_int =
      "parameter " + key + "=" + text + " is not an integer (e.g. 1024, 0x400, 1<<10)";
  const std::string too_big = "parameter " + key + "=" + text + " does not fit in 64 bits";
  long long v = 0;
  const auto shift = text.find("<<");
  if (shift != std::string::npos) {
    long long a = 0, b = 0;
    const Num na = number(text.substr(0, shift), a), nb = number(text.substr(shift + 2), b);
    if (na == Num::Bad || nb == Num::Bad) return not_int;
    if (na == Num::TooBig || nb == Num::TooBig) return too_big;
    if (a < 0)
      return "parameter " + key + "=" + text + ": only a non-negative number can be shifted";
    if (b < 0 || b > 62 || (a != 0 && a > (std::numeric_limits<long long>::max() >> b)))
      return too_big;
    v = a << b;
  } else {
    const Num n = number(text, v);
    if (n == Num::Bad) return not_int;
    if (n == Num::TooBig) return too_big;
  }
  p[key] = v;
  return "";
}

std::string to_string(const Params& p) {
  std::string s;
  for (const auto& [k, v] : p) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s;
}

std::string_view to_string(Peer p) {
  switch (p) {
    case Peer::MemcpyD2D: return "cudaMemcpy device-to-device";
    case Peer::CubReduceSum: return "CUB DeviceReduce::Sum";
    case Peer::CublasSgemm: return "cuBLAS Sgemm";
    case Peer::CublasGemmEx: return "cuBLAS GemmEx FP16";
  }
  return "unknown";
}

const ParamSpec* find_param(const VariantInfo& v, std::string_view name) {
  for (const ParamSpec& p : v.params)
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<Peer> peers_for(const FamilyInfo& f, bool gflops) {
  std::vector<Peer> out;
  for (Peer p : f.peers)
    if (peer_gflops(p) == gflops) out.push_back(p);
  return out;
}

SweepAxes default_sweep(const FamilyInfo& f, const VariantInfo& v) {
  SweepAxes a;
  if (v.params.empty()) return a;
  for (const SweepAxes& s : f.sweeps)
    if (find_param(v, s.x) && (s.series.empty() || find_param(v, s.series))) return s;
  auto is_size = [&](const std::string& n) {
    return std::find(f.size_params.begin(), f.size_params.end(), n) != f.size_params.end();
  };
  // Otherwise the knob the variant is about (stride, offset, k) along x, else a listed
  // parameter (elem, tile), else whatever there is; one line per value of a listed one.
  for (const ParamSpec& p : v.params)
    if (a.x.empty() && p.choices.empty() && !is_size(p.name)) a.x = p.name;
  for (const ParamSpec& p : v.params)
    if (a.x.empty() && !p.choices.empty()) a.x = p.name;
  if (a.x.empty()) a.x = v.params.front().name;
  for (const ParamSpec& p : v.params)
    if (a.series.empty() && !p.choices.empty() && p.name != a.x) a.series = p.name;
  return a;
}

HostArrays HostArrays::allocate(const Plan& p) {
  HostArrays h;
  h.data.reserve(p.arrays.size());
  for (const auto& a : p.arrays) h.data.emplace_back(std::size_t(a.count) * a.elem_bytes);
  return h;
}

}  // namespace ws

namespace ws {

std::string_view to_string(RefKind k) {
  switch (k) {
    case RefKind::None: return "none";
    case RefKind::Gather: return "gather";
    case RefKind::Transpose: return "transpose";
    case RefKind::BlockSums: return "block sums";
    case RefKind::Gemm: return "gemm";
    case RefKind::Histogram: return "histogram";
    case RefKind::WeightedHistogram: return "weighted histogram";
    case RefKind::Smooth: return "smooth";
    case RefKind::GemmHalf: return "gemm (halves)";
  }
  return "unknown";
}

void fill_inputs(HostArrays& h, const Plan& plan, std::uint64_t seed) {
  for (std::size_t a = 0; a < plan.arrays.size(); ++a) {
    const ArraySpec& s = plan.arrays[a];
    if (s.output || s.gen.fill == Fill::None) continue;
    auto words = h.as<std::uint32_t>(a);
    // Every word is independent of the others (a counter-based hash), so a large array is
    // made on every core: the emulator's one-block view of n=8192 needs 64 M of them.
    auto part = [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) words[i] = input_word(s.gen, seed, std::uint32_t(a), i);
    };
    const std::size_t n = words.size();
    const unsigned cores = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    if (n < (1u << 20) || cores == 1) {
      part(0, n);
      continue;
    }
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < cores; ++t) ts.emplace_back(part, n * t / cores, n * (t + 1) / cores);
    for (auto& t : ts) t.join();
  }
}

std::string CheckResult::message(const std::string& array) const {
  if (mismatches == 0) return "";
  auto num = [](double v) {
    char b[48];
    std::snprintf(b, sizeof b, "%.9g", v);
    return std::string(b);
  };
  return std::to_string(mismatches) + " element" + (mismatches == 1 ? "" : "s") +
         " wrong, first at " + array + "[" + std::to_string(first) + "]: " + num(got) +
         ", expected " + num(want);
}

namespace {

// The Gemm tolerance (as the CPU verify of matmul.cuh): FP32 rounding grows like
// sqrt(n), so `ulps` (16; 64 for the tensor cores' halves) sqrt(n) ulps of sum |a||b|, far
// below one wrong or missing term.
bool gemm_close(double got, double want, double mag, std::uint64_t n, std::uint32_t ulps) {
  return std::fabs(got - want) <= double(ulps) * std::sqrt(double(n)) * std::ldexp(1.0, -23) * mag + 1e-6;
}

// C (n x n floats) against dot(i, j) = {sum a b, sum |a b|} in double: every element up to
// n = 512, beyond it 16 rows and 16 columns spread over the matrix. wrong(index, got, want).
template <class Dot, class Wrong>
void check_gemm(std::span<const float> C, std::uint64_t n, std::uint32_t ulps, Dot dot, Wrong wrong) {
  std::vector<char> done(n * n, 0);
  auto check = [&](std::uint64_t i, std::uint64_t j) {
    if (done[i * n + j]) return;
    done[i * n + j] = 1;
    const auto [ref, mag] = dot(i, j);
    if (!gemm_close(C[i * n + j], ref, mag, n, ulps)) wrong(i * n + j, C[i * n + j], ref);
  };
  if (n <= 512) {
    for (std::uint64_t i = 0; i < n; ++i)
      for (std::uint64_t j = 0; j < n; ++j) check(i, j);
    return;
  }
  for (std::uint64_t s = 0; s < 16; ++s) {
    const std::uint64_t line = (s * (n - 1)) / 15;
    for (std::uint64_t j = 0; j < n; ++j) {
      check(line, j);
      check(j, line);
    }
  }
}

}  // namespace

CheckResult check_reference(const Reference& r, const HostArrays& h) {
  CheckResult c;
  auto wrong = [&](std::uint64_t i, double got, double want) {
    if (c.mismatches++ == 0) {
      c.first = std::int64_t(i);
      c.got = got;
      c.want = want;
    }
  };
  switch (r.kind) {
    case RefKind::None: break;
    case RefKind::Gather: {
      const std::byte* in = h.data.at(r.a).data();
      const std::byte* out = h.data.at(r.out).data();
      for (std::uint64_t i = 0; i < r.count; ++i) {
        const std::byte* o = out + i * r.elem;
        const std::byte* w = in + (i * r.step + r.shift) * r.elem;
        if (std::memcmp(o, w, r.elem) != 0) {
          float g = 0, x = 0;
          std::memcpy(&g, o, 4);
          std::memcpy(&x, w, 4);
          wrong(i, g, x);
        }
      }
      break;
    }
    case RefKind::Transpose: {
      auto in = h.as<std::uint32_t>(r.a);
      auto out = h.as<std::uint32_t>(r.out);
      const std::uint64_t n = r.n;
      for (std::uint64_t i = 0; i < n * n; ++i) {
        const std::uint64_t x = i / n, y = i % n;  // out[x][y] = in[y][x]
        if (out[i] != in[y * n + x]) {
          float g, w;
          std::memcpy(&g, &out[i], 4);
          std::memcpy(&w, &in[y * n + x], 4);
          wrong(i, g, w);
        }
      }
      break;
    }
    case RefKind::BlockSums: {
      auto in = h.as<int>(r.a);
      auto out = h.as<int>(r.out);
      std::vector<long long> want(r.groups, 0);
      for (std::uint64_t e = 0; e < r.count; ++e) want[(e / r.div) % r.groups] += in[e];
      for (std::uint64_t k = 0; k < r.groups; ++k)
        if (out[k] != want[k]) wrong(k, out[k], double(want[k]));
      break;
    }
    case RefKind::Histogram: {
      auto in = h.as<std::uint32_t>(r.a);
      auto out = h.as<std::uint32_t>(r.out);
      std::vector<std::uint64_t> want(r.groups, 0);
      for (std::uint64_t e = 0; e < r.count; ++e)
        if (in[e] < r.groups) ++want[in[e]];
      for (std::uint64_t k = 0; k < r.groups; ++k)
        if (out[k] != want[k]) wrong(k, double(out[k]), double(want[k]));
      break;
    }
    case RefKind::WeightedHistogram: {
      auto in = h.as<std::uint32_t>(r.a);
      auto w = h.as<std::uint32_t>(r.b);
      auto out = h.as<std::uint32_t>(r.out);
      std::vector<std::uint32_t> want(r.groups, 0);
      for (std::uint64_t e = 0; e < r.count; ++e)
        if (in[e] < r.groups) want[in[e]] += w[e];
      for (std::uint64_t k = 0; k < r.groups; ++k)
        if (out[k] != want[k]) wrong(k, double(out[k]), double(want[k]));
      break;
    }
    case RefKind::Gemm: {
      auto A = h.as<float>(r.a);
      auto B = h.as<float>(r.b);
      const std::uint64_t n = r.n;
      check_gemm(h.as<float>(r.out), n, r.ulps, [&](std::uint64_t i, std::uint64_t j) {
        double ref = 0, mag = 0;
        for (std::uint64_t k = 0; k < n; ++k) {
          const double x = A[i * n + k], y = B[k * n + j];
          ref += x * y;
          mag += std::fabs(x * y);
        }
        return std::pair{ref, mag};
      }, wrong);
      break;
    }
    case RefKind::Smooth: {
      auto in = h.as<float>(r.a);
      auto out = h.as<float>(r.out);
      for (std::uint64_t e = 0; e < r.count; ++e) {
        const float want = sim::smooth(in[e], in[sim::smooth_neighbour(e, r.div)], int(r.work));
        if (std::memcmp(&want, &out[e], 4) != 0) wrong(e, out[e], want);
      }
      break;
    }
    case RefKind::GemmHalf: {
      auto A = h.as<sim::half_bits>(r.a);
      auto B = h.as<sim::half_bits>(r.b);
      const std::uint64_t n = r.n;
      check_gemm(h.as<float>(r.out), n, r.ulps, [&](std::uint64_t i, std::uint64_t j) {
        double ref = 0, mag = 0;
        for (std::uint64_t k = 0; k < n; ++k) {
          const double x = double(sim::half_to_float(A[i * n + k])) * double(sim::half_to_float(B[j * n + k]));
          ref += x;
          mag += std::fabs(x);
        }
        return std::pair{ref, mag};
      }, wrong);
      break;
    }
  }
  return c;
}

}  // namespace ws
