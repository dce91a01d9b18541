#pragma once
// Global-memory access patterns: every thread copies one element, and only the index
// changes. A warp's 32 accesses are served in 32-byte sectors; what the student sees is
// how many sectors one request touches when the warp's addresses are shifted (offset)
// or spread out (stride). Elements are 4, 8 or 16 bytes (float, float2, float4), so the
// same lesson shows why wide loads help. Bodies are the lesson's code: keep each access
// on its own line.
#include <cstring>
#include <type_traits>

#include "kernels/dialect/registry.h"

WS_BEGIN_MODE

// Offset copy: out[i] = in[i + offset]. With offset 0 a warp of 4-byte elements reads
// 128 aligned bytes: 4 sectors, all of them used. Any offset that is not a multiple of
// 8 floats makes the same 128 bytes straddle a sector boundary: 5 sectors per request,
// 160 bytes moved for 128 used. Modern GPUs absorb most of that in L1/L2, so the cost in
// time is small; the sector count is the lesson.
template <class T>
struct CopyOffset {
  Global<const T> in;
  Global<T> out;
  int offset;
  WS_DEVICE void operator()(Thread& t) const {
    long long i = (long long)t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    out(i) = in(i + offset);
  }
};

// Strided copy: out[i] = in[i * stride]. Stride 2 spreads a warp's 32 floats over 256
// bytes, so it touches 8 sectors to use 4 of them: half of every sector moved is
// wasted. From stride 8 on (4-byte elements) each lane has a sector to itself: 32
// sectors per request and 1/8 of the bandwidth used. This is the pattern of the naive
// transpose's store and of array-of-structs layouts.
template <class T>
struct CopyStride {
  Global<const T> in;
  Global<T> out;
  int stride;
  WS_DEVICE void operator()(Thread& t) const {
    long long i = (long long)t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    out(i) = in(i * stride);
  }
};

namespace access_detail {

// Bytes per element, each with its own instance (float, float2, float4).
using Elems = Choices<4, 8, 16>;
template <long long E>
using ElemType = std::conditional_t<E == 4, float, std::conditional_t<E == 8, float2, float4>>;

// Inputs larger than this are refused: they would not fit most GPUs beside the output.
constexpr long long kMaxInputBytes = 4ll << 30;

inline long long input_count(const Params& p, bool strided) {
  const long long n = p.at("n");
  return strided ? n * p.at("stride") : n + p.at("offset");
}

inline Plan plan(const Params& p, bool strided) {
  const long long n = p.at("n"), block = p.at("block"), elem = p.at("elem");
  Plan pl;
  pl.arrays = {{"in", std::uint32_t(elem), std::uint64_t(input_count(p, strided)), false,
                {Fill::UnitFloat}},
               {"out", std::uint32_t(elem), std::uint64_t(n), true}};
  LaunchCfg c;
  c.kernel = strided ? "copy_stride" : "copy_offset";
  c.grid = {unsigned(n / block), 1, 1};
  c.block = {unsigned(block), 1, 1};
  pl.launches = {c};
  pl.logical_bytes = 2.0 * double(n) * double(elem);
  pl.ref.kind = RefKind::Gather;  // out[i] = in[i * stride] or in[i + offset]
  pl.ref.count = std::uint64_t(n);
  pl.ref.step = std::uint64_t(strided ? p.at("stride") : 1);
  pl.ref.shift = std::uint64_t(strided ? 0 : p.at("offset"));
  pl.ref.elem = std::uint32_t(elem);
  return pl;
}

inline std::string check(const Params& p, bool strided) {
  const long long n = p.at("n"), block = p.at("block");
  if (n % block != 0)
    return "n=" + std::to_string(n) + " is not a multiple of block=" + std::to_string(block);
  const long long bytes = input_count(p, strided) * p.at("elem");
  if (bytes > kMaxInputBytes)
    return "the input of " + std::to_string(bytes >> 20) + " MB (n x " +
           (strided ? std::string("stride x elem") : std::string("elem")) +
           ") exceeds the 4096 MB limit";
  return "";
}

inline std::string verify(const HostArrays& h, const Params& p, bool strided) {
  const long long n = p.at("n"), elem = p.at("elem");
  const long long step = strided ? p.at("stride") : 1, shift = strided ? 0 : p.at("offset");
  const std::byte* in = h.data.at(0).data();
  const std::byte* out = h.data.at(1).data();
  for (long long i = 0; i < n; ++i)
    if (std::memcmp(out + i * elem, in + (i * step + shift) * elem, std::size_t(elem)) != 0)
      return "out[" + std::to_string(i) + "] differs from in[" +
             std::to_string(i * step + shift) + "]";
  return "";
}

inline std::vector<ParamSpec> params(bool strided) {
  std::vector<ParamSpec> ps = {
      {"n", 1 << 20, 32, 1 << 28, {}, "threads, one element each"},
      {"block", 256, 1, 4096, {}, "threads per block"},
  };
  if (strided)
    ps.push_back({"stride", 2, 1, 64, {}, "distance between the elements of adjacent threads"});
  else
    ps.push_back({"offset", 1, 0, 128, {}, "elements skipped at the start of the input"});
  ps.push_back({"elem", 4, 0, 0, Elems::list(), "bytes per element: float, float2 or float4"});
  return ps;
}

template <template <class> class K>
void launch(Launcher& L, const Params& p, const Plan& pl, const Args& a, int arg) {
  with_choice<Elems>(L, "elem", p.at("elem"), [&]<long long E>() {
    using T = ElemType<E>;
    static_assert(sizeof(T) == E, "elem is the element's size in bytes");
    L.launch(pl.launches[0], K<T>{a.in<T>(0), a.out<T>(1), arg});
  });
}

}  // namespace access_detail

// @post appends the access family and its variants to r in teaching order (offset, then
//       stride).
inline void add_access(Registry& r) {
  using namespace access_detail;
  r.family({.name = "access",
            .source_file = "kernels/families/access.cuh",
            .peers = {Peer::MemcpyD2D},
            .copy_bytes = [](const Params& p) { return double(p.at("n")) * double(p.at("elem")); },
            .size_params = {"n", "block"},
            .timing = {{"n", 1 << 26}},
            .small = {{"n", 4096}, {"block", 128}},
            .bar_sizes = {{{"n", 1 << 24}}},
            .recorded_sweeps = {{"stride", {{"n", 1 << 24}, {"elem", 4}}, "stride", {1, 2, 4, 8, 16, 32, 64}},
                                {"stride", {{"n", 1 << 24}, {"elem", 16}}, "stride", {1, 2, 4, 8, 16, 32, 64}},
                                {"offset", {{"n", 1 << 24}}, "offset", {0, 1, 8, 16, 32}}}});
  r.add({.info = {.name = "offset",
                  .title = "Offset copy",
                  .why = "The baseline copy with its addresses shifted: offset 0 is perfectly "
                         "coalesced; any other offset that is not a whole sector makes each "
                         "request touch one sector more than it uses.",
                  .entry = "CopyOffset",
                  .params = params(false),
                  .check = [](const Params& p) { return check(p, false); },
                  .plan = [](const Params& p) { return plan(p, false); },
                  .verify = [](const HostArrays& h, const Params& p) { return verify(h, p, false); }},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           launch<CopyOffset>(L, p, pl, a, int(p.at("offset")));
         }});
  r.add({.info = {.name = "stride",
                  .title = "Strided copy",
                  .why = "Slower than the offset copy: a stride spreads each warp over more "
                         "sectors than it uses, so the bytes moved grow with the stride until "
                         "every lane has a sector of its own.",
                  .entry = "CopyStride",
                  .params = params(true),
                  .check = [](const Params& p) { return check(p, true); },
                  .plan = [](const Params& p) { return plan(p, true); },
                  .verify = [](const HostArrays& h, const Params& p) { return verify(h, p, true); }},
         .launch = [](Launcher& L, const Params& p, const Plan& pl, const Args& a) {
           launch<CopyStride>(L, p, pl, a, int(p.at("stride")));
         }});
}

WS_END_MODE
