#pragma once
// The inputs of every run, from a seed: a counter-based hash of (seed, array, element), so
// element i is known without computing the ones before it. The emulator fills host arrays
// with it, the CUDA backend fills device arrays with the same functions in a kernel, and
// both see the same values. Plain C++ behind WS_HD (no CUDA header).
#include <cstdint>

#include "sim/hd.h"

namespace ws {

// How the 4-byte words of an input array are made. Outputs use None (they are poisoned).
enum class Fill : std::uint8_t {
  None = 0,
  UnitFloat = 1,  // floats in [-1, 1), multiples of 2^-23
  IntRange = 2,   // ints in [lo, hi]
  Bits = 3,       // any 32-bit pattern (unsigned)
  FloatRange = 4, // floats in [lo, hi), multiples of (hi - lo) 2^-24
  Skewed = 5,     // ints in [0, hi], except that about lo percent of the words are 0
  HalfUnit = 6,   // two FP16 values a word (bits 0-15, 16-31), each in [-1, 1), multiples of 2^-10
};

struct InputGen {
  Fill fill = Fill::None;
  int lo = 0, hi = 0;  // IntRange, FloatRange: the range; Skewed: percent at 0, top
};

// splitmix64's finaliser over (seed, stream, index): every output bit depends on every
// input bit, and it is one multiply-xorshift chain, cheap on both sides.
WS_HD inline std::uint32_t hash_word(std::uint64_t seed, std::uint32_t stream, std::uint64_t i) {
  std::uint64_t z = i * 0x9E3779B97F4A7C15ull + (seed << 8) + stream + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return std::uint32_t(z ^ (z >> 31));
}

// The raw bits of word `i` of input array `stream` (the array's index in the plan).
// @post UnitFloat: the bits of a float f with -1 <= f < 1; IntRange: an int in [lo, hi];
//       FloatRange: the bits of a float f with lo <= f < hi; Skewed: an int in [0, hi];
//       HalfUnit: two halves, each k / 1024 with -1024 <= k < 1024; None: 0.
WS_HD inline std::uint32_t input_word(const InputGen& g, std::uint64_t seed,
                                      std::uint32_t stream, std::uint64_t i) {
  const std::uint32_t h = hash_word(seed, stream, i);
  switch (g.fill) {
    case Fill::UnitFloat: {
      const float f = float(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
      std::uint32_t bits;
      __builtin_memcpy(&bits, &f, 4);
      return bits;
    }
    case Fill::IntRange: {
      const std::uint32_t span = std::uint32_t(g.hi - g.lo) + 1u;
      return std::uint32_t(g.lo + int(h % span));
    }
    case Fill::FloatRange: {
      const float f = float(g.lo) + float(h >> 8) * (float(g.hi - g.lo) / 16777216.0f);
      std::uint32_t bits;
      __builtin_memcpy(&bits, &f, 4);
      return bits;
    }
    case Fill::Skewed: {
      // The top 8 bits pick the percentile, the low 24 the value: independent draws.
      const bool zero = ((h >> 24) * 100u >> 8) < std::uint32_t(g.lo);
      return zero ? 0u : (h & 0xFFFFFFu) % (std::uint32_t(g.hi) + 1u);
    }
    case Fill::HalfUnit: {
      // k / 1024 for k in [-1024, 1023]: exact in a half (11 significant bits at most).
      auto half = [](std::uint32_t bits11) -> std::uint32_t {
        const int k = int(bits11) - 1024;
        if (k == 0) return 0u;
        const std::uint32_t sign = k < 0 ? 0x8000u : 0u;
        std::uint32_t m = std::uint32_t(k < 0 ? -k : k);  // value m * 2^-10, 1 <= m <= 1024
        int e = 0;  // m = 1.f * 2^e
        while ((m >> (e + 1)) != 0) ++e;
        const std::uint32_t frac = (m << (10 - e)) & 0x3FFu;
        return sign | (std::uint32_t(e - 10 + 15) << 10) | frac;
      };
      return half(h & 0x7FFu) | (half((h >> 16) & 0x7FFu) << 16);
    }
    case Fill::Bits: return h;
    case Fill::None: break;
  }
  return 0;
}

}  // namespace ws
