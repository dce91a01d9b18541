#pragma once
// The warp-level tensor-core instruction the dialect offers, as the PTX ISA defines it:
// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 (D = A B + C, A 16 x 16 row-major,
// B 16 x 8 column-major, C and D 16 x 8 FP32), and ldmatrix's lane-to-row mapping. One
// definition of the fragment layouts for the emulator (which computes D per lane from the
// warp's registers), the tests and the views. No CUDA here.
//
// Fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type"), with
// groupID = lane >> 2 and threadID_in_group = lane % 4:
//   A: four .f16x2 registers; register r, half h holds A[g + 8 (r & 1)][2 t + h + 8 (r >> 1)]
//   B: two .f16x2 registers;  register r, half h holds B[2 t + h + 8 r][g]
//   C, D: four floats;        element i holds C[g + 8 (i >> 1)][2 t + (i & 1)]
#include <cstdint>

#include "sim/half.h"
#include "sim/hd.h"

namespace ws::sim {

struct FragPos {
  int row = 0, col = 0;
};

constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;

// @post 0 <= row < 16, 0 <= col < 16; the 32 lanes x 4 registers x 2 halves cover A once.
WS_HD constexpr FragPos mma_a_pos(unsigned lane, unsigned reg, unsigned half) {
  return {int(lane >> 2) + 8 * int(reg & 1u), 2 * int(lane & 3u) + int(half) + 8 * int(reg >> 1)};
}
// @post 0 <= row (k) < 16, 0 <= col (n) < 8; the 32 lanes x 2 registers x 2 halves cover B once.
WS_HD constexpr FragPos mma_b_pos(unsigned lane, unsigned reg, unsigned half) {
  return {2 * int(lane & 3u) + int(half) + 8 * int(reg), int(lane >> 2)};
}
// @post 0 <= row < 16, 0 <= col < 8; the 32 lanes x 4 elements cover C once.
WS_HD constexpr FragPos mma_c_pos(unsigned lane, unsigned i) {
  return {int(lane >> 2) + 8 * int(i >> 1), 2 * int(lane & 3u) + int(i & 1u)};
}

// One lane's registers of an mma, in the order the emulator exchanges them.
struct MmaRegs {
  std::uint32_t a[4];
  std::uint32_t b[2];
  float c[4];
};

// Where A[row][k] and B[k][col] live: the inverse of mma_a_pos and mma_b_pos.
struct FragSlot {
  unsigned lane = 0, reg = 0, half = 0;
};
// @post mma_a_pos(s.lane, s.reg, s.half) == {row, k}.
WS_HD constexpr FragSlot mma_a_slot(unsigned row, unsigned k) {
  return {(row & 7u) * 4u + ((k & 7u) >> 1), (row >> 3) | ((k >> 3) << 1), k & 1u};
}
// @post mma_b_pos(s.lane, s.reg, s.half) == {k, col}.
WS_HD constexpr FragSlot mma_b_slot(unsigned k, unsigned col) {
  return {col * 4u + ((k & 7u) >> 1), k >> 3, k & 1u};
}

// D for `lane` from the registers of all 32 lanes: d[i] = c[i] + sum over k (in order) of
// A[row][k] B[k][col], products exact in FP32 (11-bit significands), sums rounded to FP32.
// Only this lane's two rows of A and two columns of B are decoded.
// @post d[i] is C + A B at mma_c_pos(lane, i), within FP32 rounding of the 16-term sum.
inline void mma_m16n8k16(const MmaRegs* warp, unsigned lane, float (&d)[4]) {
  auto half_of = [](std::uint32_t reg, unsigned h) {
    return half_to_float(h ? half2_hi(reg) : half2_lo(reg));
  };
  float a[2][kMmaK], b[2][kMmaK];
  for (unsigned r = 0; r < 2; ++r) {
    const unsigned row = (lane >> 2) + 8 * r, col = 2 * (lane & 3u) + r;
    for (unsigned k = 0; k < unsigned(kMmaK); ++k) {
      const FragSlot sa = mma_a_slot(row, k), sb = mma_b_slot(k, col);
      a[r][k] = half_of(warp[sa.lane].a[sa.reg], sa.half);
      b[r][k] = half_of(warp[sb.lane].b[sb.reg], sb.half);
    }
  }
  for (unsigned i = 0; i < 4; ++i) {
    float s = 0.f;
    for (int k = 0; k < kMmaK; ++k) s += a[i >> 1][k] * b[i & 1u][k];
    d[i] = warp[lane].c[i] + s;
  }
}

// ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16: lane l supplies the address of row
// l % 8 of matrix l / 8; register i of lane l receives matrix i's row l / 4, halves
// 2 (l % 4) and 2 (l % 4) + 1 (with .trans: column l / 4, rows 2 (l % 4) and 2 (l % 4) + 1).
// @post the lane whose address holds row `row` of matrix `m`.
WS_HD constexpr unsigned ldmatrix_row_lane(unsigned m, unsigned row) { return 8 * m + row; }

}  // namespace ws::sim
