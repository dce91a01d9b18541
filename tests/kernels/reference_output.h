#pragma once
// Test helper: writes the output a variant's Reference accepts, computed on the CPU from
// the inputs by the reference's own rule (the product for Gemm in double precision, the
// gathered elements, the transposed matrix, the block sums, the histogram, async_copy's
// smoothing). Used by the CPU reference
// tests (test_catalogue.cpp) and the device reference tests (cuda/test_cuda_backend.cpp).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/catalogue/catalogue.h"
#include "sim/half.h"
#include "sim/smooth.h"

namespace ws::test {

inline void write_reference_output(HostArrays& h, const Reference& ref) {
  const std::size_t out = ref.out;
  switch (ref.kind) {
    case RefKind::Gemm: {
      auto A = h.as<float>(ref.a), B = h.as<float>(ref.b);
      auto C = h.as<float>(out);
      const std::uint64_t n = ref.n;
      for (std::uint64_t i = 0; i < n; ++i)
        for (std::uint64_t j = 0; j < n; ++j) {
          double s = 0;
          for (std::uint64_t k = 0; k < n; ++k) s += double(A[i * n + k]) * B[k * n + j];
          C[i * n + j] = float(s);
        }
      break;
    }
    case RefKind::Gather:
      for (std::uint64_t i = 0; i < ref.count; ++i)
        std::memcpy(h.data.at(out).data() + i * ref.elem,
                    h.data.at(ref.a).data() + (i * ref.step + ref.shift) * ref.elem, ref.elem);
      break;
    case RefKind::Transpose: {
      auto I = h.as<float>(ref.a);
      auto O = h.as<float>(out);
      const std::uint64_t n = ref.n;
      for (std::uint64_t y = 0; y < n; ++y)
        for (std::uint64_t x = 0; x < n; ++x) O[x * n + y] = I[y * n + x];
      break;
    }
    case RefKind::BlockSums: {
      auto I = h.as<int>(ref.a);
      auto O = h.as<int>(out);
      std::fill(O.begin(), O.end(), 0);
      for (std::uint64_t e = 0; e < ref.count; ++e) O[(e / ref.div) % ref.groups] += I[e];
      break;
    }
    case RefKind::Histogram: {
      auto I = h.as<std::uint32_t>(ref.a);
      auto O = h.as<std::uint32_t>(out);
      std::fill(O.begin(), O.end(), 0u);
      for (std::uint64_t e = 0; e < ref.count; ++e)
        if (I[e] < ref.groups) ++O[I[e]];
      break;
    }
    case RefKind::WeightedHistogram: {
      auto I = h.as<std::uint32_t>(ref.a);
      auto W = h.as<std::uint32_t>(ref.b);
      auto O = h.as<std::uint32_t>(out);
      std::fill(O.begin(), O.end(), 0u);
      for (std::uint64_t e = 0; e < ref.count; ++e)
        if (I[e] < ref.groups) O[I[e]] += W[e];
      break;
    }
    case RefKind::GemmHalf: {
      auto A = h.as<sim::half_bits>(ref.a), B = h.as<sim::half_bits>(ref.b);
      auto C = h.as<float>(out);
      const std::uint64_t n = ref.n;
      for (std::uint64_t i = 0; i < n; ++i)
        for (std::uint64_t j = 0; j < n; ++j) {
          double s = 0;
          for (std::uint64_t k = 0; k < n; ++k)
            s += double(sim::half_to_float(A[i * n + k])) * sim::half_to_float(B[j * n + k]);
          C[i * n + j] = float(s);
        }
      break;
    }
    case RefKind::Smooth: {
      auto I = h.as<float>(ref.a);
      auto O = h.as<float>(out);
      for (std::uint64_t e = 0; e < ref.count; ++e)
        O[e] = sim::smooth(I[e], I[sim::smooth_neighbour(e, ref.div)], int(ref.work));
      break;
    }
    default: break;
  }
}

}  // namespace ws::test
