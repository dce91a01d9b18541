#pragma once
// IEEE binary16 ("half") as a plain 16-bit pattern, with its conversions, for the host
// model, the emulator and the host references of the tensor-core kernels. No CUDA header:
// the device kernels only move halves (two to a 32-bit register) and never convert them.
#include <cstdint>

#include "sim/hd.h"

namespace ws::sim {

using half_bits = std::uint16_t;

// @post exact: every half is a float.
WS_HD inline float half_to_float(half_bits h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
  std::uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (man << 13);  // inf, NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112u) << 23) | (man << 13);  // normal: rebias 15 -> 127
  } else if (man == 0) {
    bits = sign;  // +-0
  } else {
    // Subnormal: man * 2^-24, normalised.
    int e = -1;
    std::uint32_t m = man;
    do {
      m <<= 1;
      ++e;
    } while (!(m & 0x400u));
    bits = sign | (std::uint32_t(112 - e) << 23) | ((m & 0x3FFu) << 13);
  }
  float f;
  __builtin_memcpy(&f, &bits, 4);
  return f;
}

// Round to nearest, ties to even (cvt.rn.f16.f32); overflow gives infinity, NaN stays NaN.
// @post half_to_float(float_to_half(f)) == f for every f that a half holds exactly.
WS_HD inline half_bits float_to_half(float f) {
  std::uint32_t x;
  __builtin_memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t exp = (x >> 23) & 0xFFu;
  std::uint32_t man = x & 0x7FFFFFu;
  if (exp == 0xFF) return half_bits(sign | 0x7C00u | (man ? 0x200u : 0u));
  const int e = int(exp) - 127 + 15;
  if (e >= 0x1F) return half_bits(sign | 0x7C00u);
  if (e <= 0) {
    if (e < -10) return half_bits(sign);  // below half the smallest subnormal
    man |= 0x800000u;
    const unsigned shift = unsigned(14 - e);
    std::uint32_t h = man >> shift;
    const std::uint32_t rest = man & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (h & 1u))) ++h;
    return half_bits(sign | h);
  }
  std::uint32_t h = (std::uint32_t(e) << 10) | (man >> 13);
  const std::uint32_t rest = man & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent
  return half_bits(sign | h);
}

// Two halves in one 32-bit register, as .f16x2 holds them: `lo` in bits 0-15.
WS_HD constexpr std::uint32_t pack_half2(half_bits lo, half_bits hi) {
  return std::uint32_t(lo) | (std::uint32_t(hi) << 16);
}
WS_HD constexpr half_bits half2_lo(std::uint32_t v) { return half_bits(v & 0xFFFFu); }
WS_HD constexpr half_bits half2_hi(std::uint32_t v) { return half_bits(v >> 16); }

}  // namespace ws::sim
