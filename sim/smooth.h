#pragma once
// async_copy's arithmetic on one float, for its kernels (kernels/families/async_copy.cuh)
// and for both references of its output (the CPU's and the GPU's, kernels/catalogue): one
// fmaf a round, so the three give the same bits.
#include <cmath>

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

}  // namespace ws::sim
