#pragma once
// async_copy's arithmetic on one float, for its kernels (kernels/families/async_copy.cuh)
// and for both references of its output (the CPU's and the GPU's, kernels/catalogue): one
// fmaf a round, so the three give the same bits.
#include <cmath>
#include <cstdint>

#include "sim/hd.h"

namespace ws::sim {

// One round: x / 2 + y / 4.
WS_HD inline float smooth_round(float x, float y) { return fmaf(x, 0.5f, y * 0.25f); }

// `work` rounds of smooth_round.
// @post the value the kernels' smooth() gives for this lane of a float4
WS_HD inline float smooth(float x, float y, int work) {
  for (int r = 0; r < work; ++r) x = smooth_round(x, y);
  return x;
}

// The float that float e of an output is smoothed with: the same lane of the next float4
// in e's tile of `tile` float4s, the last wrapping to the first (the kernels' right
// neighbour in shared memory).
// @post < e - e % (4 tile) + 4 tile, and in e's tile
WS_HD inline std::uint64_t smooth_neighbour(std::uint64_t e, std::uint64_t tile) {
  const std::uint64_t i = e / 4, j = i % tile;
  return ((i - j) + (j + 1) % tile) * 4 + e % 4;
}

}  // namespace ws::sim
