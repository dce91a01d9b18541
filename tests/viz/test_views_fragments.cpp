// The fragments view: the mma tiles' cells against the PTX ISA's figures ("Matrix Fragments
// for mma.m16n8k16 with floating point type": A, B, C/D), the tiles' geometry, ldmatrix's
// rows, banks and wavefronts for the tensor family's plain and swizzled tiles, and what the
// painters draw, on a counting canvas.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "tests/viz/count_canvas.h"
#include "tests/viz/headless.h"
#include "viz/fragments.h"

using namespace ws;
using namespace ws::viz;

namespace {

struct Cell {
  int row, col;
  unsigned lane, elem;
};

// Cells read off the PTX ISA's figures (row, col, lane, register element): corners, the
// second 8 x 8 block of each register pair, and cells inside.
void expect_cells(const FragTile& t, std::initializer_list<Cell> want) {
  for (const Cell& w : want) {
    const FragCell& c = t.at(w.row, w.col);
    EXPECT_EQ(c.row, w.row);
    EXPECT_EQ(c.col, w.col);
    EXPECT_EQ(c.lane, w.lane) << to_string(t.op) << "[" << w.row << "][" << w.col << "]";
    EXPECT_EQ(c.elem, w.elem) << to_string(t.op) << "[" << w.row << "][" << w.col << "]";
  }
}

bool has_text(const std::vector<std::string>& v, const std::string& part) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.find(part) != std::string::npos; });
}

// One ldmatrix.x4 of the tensor family's A tile (rows of 32 halves, 64 bytes): lane l names
// row l % 8 + 8 ((l / 8) % 2) at chunk l / 16, stored at chunk c, or c ^ ((r / 2) % 4)
// swizzled (kernels/families/tensor.cuh).
WarpEvent ldmatrix_event(bool swizzle) {
  WarpEvent e;
  e.kind = EventKind::SharedLoad;
  e.bytes = 16;
  e.mask = 0xFFFFFFFFu;
  e.line = 47;
  for (unsigned l = 0; l < 32; ++l) {
    const unsigned r = l % 8 + (l / 8) % 2 * 8, c = l / 16;
    e.offset[l] = 64 * r + 16 * (swizzle ? c ^ ((r >> 1) & 3) : c);
  }
  return e;
}

}  // namespace

TEST(FragmentsMma, CellsAreThePtxFiguresLanesAndRegisters) {
  const MmaLayout L = layout_mma(0, 0, 700, 400, 10);
  // A: a0 a1 row g, a2 a3 row g + 8, a4..a7 the same 8 columns on.
  expect_cells(L.tiles[0], {{0, 0, 0, 0}, {0, 1, 0, 1}, {8, 0, 0, 2}, {0, 8, 0, 4}, {8, 9, 0, 7},
                            {9, 5, 6, 3}, {3, 12, 14, 4}, {15, 15, 31, 7}, {7, 6, 31, 0}});
  // B: column g, b0 b1 rows (k) 2t, 2t + 1, b2 b3 eight on.
  expect_cells(L.tiles[1], {{0, 0, 0, 0}, {1, 0, 0, 1}, {8, 0, 0, 2}, {9, 3, 12, 3}, {6, 7, 31, 0},
                            {15, 7, 31, 3}, {2, 1, 5, 0}});
  // C, D: c0 c1 row g, c2 c3 row g + 8, columns 2t, 2t + 1.
  expect_cells(L.tiles[2], {{0, 0, 0, 0}, {0, 1, 0, 1}, {8, 0, 0, 2}, {10, 7, 11, 3}, {5, 2, 21, 0},
                            {15, 7, 31, 3}});
  // Every lane holds 8 halves of A, 4 of B and 4 floats of C, each element once.
  for (const FragTile& t : L.tiles) {
    std::map<unsigned, int> per_lane;
    std::map<std::pair<unsigned, unsigned>, int> slot;
    for (const FragCell& c : t.cells) {
      ++per_lane[c.lane];
      ++slot[{c.lane, c.elem}];
    }
    ASSERT_EQ(per_lane.size(), 32u);
    for (const auto& [lane, n] : per_lane) EXPECT_EQ(n, t.op == Operand::A ? 8 : 4) << to_string(t.op) << lane;
    for (const auto& [s, n] : slot) EXPECT_EQ(n, 1);
  }
}

TEST(FragmentsMma, SideBySideInAWideBoxStackedInANarrowOne) {
  // 700 x 400 at font 10: titles 16, key min(700 / 32, 18) = 18 after 6: cells
  // floor(min(700 / 35, (400 - 40) / 16)) = 20 side by side against floor(min(700 / 17,
  // (400 - 56) / 32)) = 10 stacked.
  MmaLayout L = layout_mma(0, 0, 700, 400, 10);
  EXPECT_FALSE(L.stacked);
  EXPECT_EQ(L.cell, 20);
  EXPECT_TRUE(L.numbers);
  EXPECT_FLOAT_EQ(L.tiles[0].rect.x0, 0);
  EXPECT_FLOAT_EQ(L.tiles[0].rect.y0, 16);
  EXPECT_FLOAT_EQ(L.tiles[0].rect.x1, 320);
  EXPECT_FLOAT_EQ(L.tiles[0].rect.y1, 336);
  EXPECT_FLOAT_EQ(L.tiles[1].rect.x0, 350);
  EXPECT_FLOAT_EQ(L.tiles[2].rect.x0, 540);
  EXPECT_FLOAT_EQ(L.tiles[2].rect.x1, 700);
  const Rect c = L.tiles[0].at(1, 2).rect;
  EXPECT_FLOAT_EQ(c.x0, 40);
  EXPECT_FLOAT_EQ(c.y0, 36);
  EXPECT_FLOAT_EQ(c.x1, 60);
  EXPECT_FLOAT_EQ(L.lane_key[0].y0, 342);
  EXPECT_LE(L.lane_key[31].x1, 700);
  // 300 x 800: side by side 8, stacked floor(min(300 / 17, (800 - 31.375 - 16) / 32)) = 17.
  L = layout_mma(0, 0, 300, 800, 10);
  EXPECT_TRUE(L.stacked);
  EXPECT_EQ(L.cell, 17);
  EXPECT_FLOAT_EQ(L.tiles[1].rect.y0, 16 + 272 + 16);
  EXPECT_FLOAT_EQ(L.tiles[1].rect.x0, 0);
  EXPECT_FLOAT_EQ(L.tiles[2].rect.x0, 153);
  EXPECT_LE(L.tiles[2].rect.x1, 300);
  // Numbers from 0.8 font: 12 px cells are too small at font 16, large enough at 15.
  EXPECT_FALSE(layout_mma(0, 0, 35 * 12, 241, 16).numbers);
  EXPECT_TRUE(layout_mma(0, 0, 35 * 12, 241, 15).numbers);
  // Large type (presenter mode): 13 px cells are numbered at any font.
  EXPECT_TRUE(layout_mma(0, 0, 35 * 13, 16 * 13 + 81, 30).numbers);
  EXPECT_EQ(layout_mma(0, 0, 35 * 13, 16 * 13 + 81, 30).cell, 13);
  // Too small for numbers: cells of 6 px at least, no lane numbers.
  L = layout_mma(0, 0, 100, 100, 14);
  EXPECT_EQ(L.cell, 6);
  EXPECT_FALSE(L.numbers);
}

TEST(FragmentsLdmatrix, PlainTileIsAFourWayConflictInEveryPhase) {
  const WarpEvent e = ldmatrix_event(false);
  const LdmatrixLayout L = layout_ldmatrix(e, 4, 0, 0, 640, 10);
  ASSERT_EQ(L.rows.size(), 32u);
  ASSERT_EQ(L.phases.size(), 4u);
  // Matrix m's row r comes from lane 8 m + r.
  EXPECT_EQ(L.rows[8 * 2 + 5].lane, 21u);
  EXPECT_EQ(L.rows[8 * 2 + 5].matrix, 2u);
  EXPECT_EQ(L.rows[8 * 2 + 5].row, 5u);
  // Phase 0: rows 0..7 at 64 r: rows 0, 2, 4, 6 on banks 0-3, the odd rows on 16-19.
  EXPECT_EQ(L.rows[2].offset, 128u);
  EXPECT_EQ(L.rows[2].first_bank, 0u);
  EXPECT_EQ(L.rows[3].first_bank, 16u);
  EXPECT_EQ(L.rows[6].level, 3);
  EXPECT_EQ(L.rows[7].level, 3);
  EXPECT_EQ(L.phases[0].bank_rows[0], 4u);
  EXPECT_EQ(L.phases[0].bank_rows[19], 4u);
  EXPECT_EQ(L.phases[0].bank_rows[4], 0u);
  for (const LdmPhase& p : L.phases) {
    EXPECT_EQ(p.wavefronts, 4u) << p.matrix;
    EXPECT_EQ(p.max_degree, 4u) << p.matrix;
  }
  // The whole event, as the emulator counts it: 16 wavefronts for an ideal 4.
  EXPECT_EQ(L.access.wavefronts, 16u);
  EXPECT_EQ(L.access.ideal_wavefronts, 4u);
  EXPECT_EQ(L.access.conflicts, 12u);
  EXPECT_EQ(L.access.wavefronts, sim::analyze_shared(e).wavefronts);
  // Bank cells: 20 wide, stacked 12 high (min(20, 1.2 font)), inside the width.
  EXPECT_FLOAT_EQ(L.bank_w, 20);
  EXPECT_FLOAT_EQ(L.cell_h, 12);
  EXPECT_FLOAT_EQ(L.rows[6].rects[0].y0 - L.rows[0].rects[0].y0, 3 * 12);
  for (const LdmRow& r : L.rows) {
    EXPECT_GE(r.chip.x0, 0);
    EXPECT_LE(r.chip.x1, 640);
    for (const Rect& c : r.rects) EXPECT_LE(c.x1, 640);
  }
}

TEST(FragmentsLdmatrix, SwizzledTileHasEightBankGroupsAPhase) {
  const WarpEvent e = ldmatrix_event(true);
  const LdmatrixLayout L = layout_ldmatrix(e, 4, 0, 0, 640, 10);
  // Phase 0: row r's chunk 0 at chunk (r / 2) % 4: banks 0, 16, 4, 20, 8, 24, 12, 28.
  const unsigned want[8] = {0, 16, 4, 20, 8, 24, 12, 28};
  for (unsigned r = 0; r < 8; ++r) {
    EXPECT_EQ(L.rows[r].first_bank, want[r]) << r;
    EXPECT_EQ(L.rows[r].level, 0) << r;
  }
  for (const LdmPhase& p : L.phases) {
    EXPECT_EQ(p.wavefronts, 1u);
    EXPECT_EQ(p.max_degree, 1u);
  }
  EXPECT_EQ(L.access.wavefronts, 4u);
  EXPECT_EQ(L.access.conflicts, 0u);
  // .x2: two phases, lanes 0-15.
  const LdmatrixLayout two = layout_ldmatrix(e, 2, 0, 0, 640, 10);
  EXPECT_EQ(two.rows.size(), 16u);
  EXPECT_EQ(two.phases.size(), 2u);
}

TEST(FragmentsEvent, MmaAndLdmatrixAreTold) {
  WarpEvent m;
  m.kind = EventKind::Mma;
  EXPECT_EQ(fragment_event(m, ""), FragmentEvent::Mma);
  const WarpEvent l = ldmatrix_event(false);
  EXPECT_EQ(fragment_event(l, "    ldmatrix_x4(t, af[mt], as, abase + r, chunk_at<SWIZZLE>(r, c));"),
            FragmentEvent::Ldmatrix);
  EXPECT_EQ(fragment_event(l, "    int4 v = as(r, c);"), FragmentEvent::None) << "a plain 16-byte load";
  WarpEvent narrow = l;
  narrow.bytes = 4;
  EXPECT_EQ(fragment_event(narrow, "ldmatrix_x4(...)"), FragmentEvent::None);
  WarpEvent store = l;
  store.kind = EventKind::SharedStore;
  EXPECT_EQ(fragment_event(store, "ldmatrix_x4(...)"), FragmentEvent::None);
}

TEST(FragmentsPaint, MmaCellsNumberedAndTheLitLaneOutlinedInEveryTile) {
  const MmaLayout L = layout_mma(0, 0, 700, 400, 10);
  test::CountCanvas cv;
  const FragmentsGeometry g = paint_mma({}, L, 5, cv, {});
  EXPECT_EQ(g.cells, 16 * 16 + 16 * 8 + 16 * 8);
  EXPECT_EQ(g.numbered, g.cells);
  EXPECT_EQ(g.lit, 8 + 4 + 4) << "lane 5: 8 halves of A, 4 of B, 4 floats of C";
  EXPECT_TRUE(has_text(g.texts, "A  16 x 16  (a0..a7)"));
  EXPECT_TRUE(has_text(g.texts, "C, D  16 x 8  (c0..c3)"));
  test::CountCanvas small;
  const FragmentsGeometry s = paint_mma({}, layout_mma(0, 0, 100, 100, 14), -1, small, {});
  EXPECT_EQ(s.numbered, 0);
  EXPECT_EQ(s.lit, 0);
}

TEST(FragmentsPaint, LdmatrixSummaryIsTheEmulatorsCountUnlessCovered) {
  const WarpEvent e = ldmatrix_event(false);
  const LdmatrixLayout L = layout_ldmatrix(e, 4, 0, 0, 640, 10);
  FragmentsInput in;
  in.kind = FragmentEvent::Ldmatrix;
  in.event = &e;
  test::CountCanvas cv;
  const FragmentsGeometry g = paint_ldmatrix(in, L, 9, cv, {});
  EXPECT_EQ(g.cells, 4 * 8 * 4);
  EXPECT_EQ(g.lit, 4);
  EXPECT_TRUE(has_text(g.texts, "ldmatrix.x4: 16 wavefronts (ideal 4), 12 bank conflicts")) << g.texts[0];
  EXPECT_TRUE(has_text(g.texts, "matrix 1: lanes 8-15 give its 8 row addresses: 4 wavefronts, 4-way conflict"));
  EXPECT_TRUE(has_text(g.texts, "lane 9: 576"));
  in.covered = true;
  test::CountCanvas cc;
  const FragmentsGeometry c = paint_ldmatrix(in, L, -1, cc, {});
  EXPECT_TRUE(has_text(c.texts, kPredictFirst));
  EXPECT_FALSE(has_text(c.texts, "wavefront"));
}

TEST(FragmentsText, ALanesRegistersWithWhereTheySit) {
  const std::string t = mma_lane_text(5);
  EXPECT_NE(t.find("group 1, thread 1"), std::string::npos) << t;
  EXPECT_NE(t.find("a0 a1 = A[1][2..3]"), std::string::npos) << t;
  EXPECT_NE(t.find("a6 a7 = A[9][10..11]"), std::string::npos) << t;
  EXPECT_NE(t.find("b0 b1 = B[2..3][1]"), std::string::npos) << t;
  EXPECT_NE(t.find("b2 b3 = B[10..11][1]"), std::string::npos) << t;
  EXPECT_NE(t.find("c2 c3 = C[9][2..3]"), std::string::npos) << t;
}

// The widget: the pointer over a cell lights its lane in the three tiles and names its
// registers; over an ldmatrix bank cell, the row it supplies.
TEST(FragmentsWidget, ThePointerLightsALaneAndItsTooltipNamesItsRegisters) {
  test::Headless ui;
  WarpEvent m;
  m.kind = EventKind::Mma;
  m.mask = 0xFFFFFFFFu;
  FragmentsInput in;
  in.kind = FragmentEvent::Mma;
  in.event = &m;
  FragmentsDraw d;
  ui.frame([&] { d = draw_fragments(in, {}); });
  ASSERT_TRUE(d.drawn);
  EXPECT_EQ(d.lit, -1);
  const Rect a95 = d.mma.tiles[0].at(9, 5).rect;
  ImGui::GetIO().MousePos = ImVec2(a95.cx(), a95.cy());
  ui.frame([&] { d = draw_fragments(in, {}); });
  ui.frame([&] { d = draw_fragments(in, {}); });
  EXPECT_EQ(d.lit, 6);
  EXPECT_EQ(d.geom.lit, 16) << "8 halves of A, 4 of B, 4 floats of C";
  EXPECT_NE(d.tooltip.find("a2 a3 = A[9][4..5]"), std::string::npos) << d.tooltip;
  EXPECT_NE(d.tooltip.find("b2 b3 = B[12..13][1]"), std::string::npos) << d.tooltip;
  // An ldmatrix: the pointer on a bank cell of lane 9's row.
  const WarpEvent e = ldmatrix_event(false);
  in.kind = FragmentEvent::Ldmatrix;
  in.event = &e;
  in.array = "as";
  in.array_row_bytes = 64;
  ui.frame([&] { d = draw_fragments(in, {}); });
  const Rect b = d.ldm.rows[9].rects[1];
  ImGui::GetIO().MousePos = ImVec2(b.cx(), b.cy());
  ui.frame([&] { d = draw_fragments(in, {}); });
  ui.frame([&] { d = draw_fragments(in, {}); });
  EXPECT_EQ(d.lit, 9);
  EXPECT_NE(d.tooltip.find("lane 9 supplies the address of row 1 of matrix 1"), std::string::npos) << d.tooltip;
  EXPECT_NE(d.tooltip.find("shared byte 576 (row 9 of as, byte 0 of it), banks 16-19"), std::string::npos) << d.tooltip;
  // Nothing to show: the notice alone.
  FragmentsInput none;
  none.notice = "no mma here";
  ui.frame([&] { d = draw_fragments(none, {}); });
  EXPECT_FALSE(d.drawn);
  EXPECT_EQ(d.notice, "no mma here");
}
