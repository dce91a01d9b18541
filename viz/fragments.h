#pragma once
// The fragments view (issue 25): for one warp's mma.sync.m16n8k16, which lane holds which
// element of A (16 x 16), B (16 x 8) and C/D (16 x 8), the three tiles drawn with every
// element in its lane's colour; for one ldmatrix, which lane supplies the address of which
// row of each 8 x 8 matrix, and which shared-memory banks those rows hit, phase by phase.
//
// The layouts are pure (tested exactly against the PTX ISA's figures): the fragment
// positions are sim/mma.h's (the functions the emulator computes D with), the ldmatrix
// lanes sim::ldmatrix_row_lane, the wavefronts sim::analyze_shared (the emulator's count).
// paint_fragments draws a layout on any Canvas; draw_fragments is the ImGui widget (hover
// a cell: its lane lit in every tile, its registers in a tooltip). No CUDA here.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "sim/model.h"
#include "sim/trace.h"
#include "viz/chart_paint.h"
#include "viz/view_common.h"

namespace ws::viz {

enum class FragmentEvent { None, Mma, Ldmatrix };

// What an event is to this view: an Mma event, an ldmatrix (a 16-byte SharedLoad whose
// source line calls ldmatrix: the trace records ldmatrix as the shared load of each lane's
// row address), or neither.
// @post Mma iff e.kind == Mma; Ldmatrix iff e is a SharedLoad of 16 bytes a lane and
//       line_text names "ldmatrix"; else None.
FragmentEvent fragment_event(const WarpEvent& e, std::string_view line_text);

// The register element a lane holds an element in: A a0..a7 (register reg, half h: a{2 reg
// + h}), B b0..b3, C c0..c3.
enum class Operand { A, B, C };
std::string_view to_string(Operand o);  // "A", "B", "C"

struct FragCell {
  int row = 0, col = 0;  // in the tile
  unsigned lane = 0;
  unsigned elem = 0;     // the register element: 2 reg + half (A, B) or i (C)
  Rect rect;             // screen rectangle
};
struct FragTile {
  Operand op = Operand::A;
  int rows = 0, cols = 0;
  Rect rect;                    // the cells' box
  std::vector<FragCell> cells;  // row-major: cells[row * cols + col]
  const FragCell& at(int r, int c) const { return cells[std::size_t(r * cols + c)]; }
};
struct MmaLayout {
  std::array<FragTile, 3> tiles;  // A, B, C
  float cell = 0;                 // a cell's side
  float font = 14;
  bool numbers = false;           // lane numbers fit in the cells
  bool stacked = false;           // A above, B and C side by side under it (narrow boxes)
  std::array<Rect, 32> lane_key{};  // the key: one cell per lane, under the tiles
};

// @post tiles A 16 x 16, B 16 x 8, C 16 x 8, each cell (row, col) with the lane and element
//       sim::mma_{a,b,c}_pos puts there (every element exactly once); cells square, inside
//       (x, y, w, h) when a cell of 6 px fits (else 6 px and the box overflows); the
//       arrangement (side by side or stacked) is the one with the larger cell; numbers iff
//       cell >= min(0.8 font, 13 px).
MmaLayout layout_mma(float x, float y, float w, float h, float font);

// One ldmatrix row: the lane that supplies its address, the address, the banks it covers.
struct LdmRow {
  unsigned matrix = 0, row = 0, lane = 0;
  std::uint32_t offset = 0;  // byte offset in the block's shared memory
  unsigned first_bank = 0;   // 16 bytes: first_bank .. first_bank + 3 (mod 32)
  int level = 0;             // its place in the stacks of its banks (0: first)
  std::array<Rect, 4> rects{};  // its four bank cells
  Rect chip;                    // the lane's address chip over the phase
};
struct LdmPhase {
  unsigned matrix = 0;
  unsigned wavefronts = 0;   // sim::analyze_shared of this phase's 8 lanes
  unsigned max_degree = 0;   // most distinct words one bank serves in it
  std::array<unsigned, 32> bank_rows{};  // rows of this phase on each bank
  float y0 = 0, y1 = 0;      // its band on screen
};
struct LdmatrixLayout {
  unsigned matrices = 4;
  std::vector<LdmRow> rows;      // matrix-major: rows[8 m + r]
  std::vector<LdmPhase> phases;  // one per matrix
  sim::SharedAccess access;      // the whole event, as the emulator counts it
  float x0 = 0, bank_x0 = 0, bank_w = 0, cell_h = 0, font = 14;
  float chip_label_w = 0;        // "rows (lane: byte)" before the chips
  float header_y = 0;            // the bank numbers' row
  bool numbers = false;          // lane numbers fit in the bank cells
};

// `matrices` (1, 2 or 4: .x1, .x2, .x4) phases of 8 lanes: matrix m's row r is lane
// sim::ldmatrix_row_lane(m, r)'s address.
// @post rows.size() == 8 matrices; phases[m].wavefronts == analyze_shared of e with only
//       lanes 8m .. 8m+7; sum of the phases' wavefronts == access.wavefronts when
//       matrices == 4 (access = analyze_shared(e)); bank_rows[b] counts the rows touching
//       bank b; each row's level < bank_rows of its banks; everything inside (x, y, w, ...)
//       horizontally.
LdmatrixLayout layout_ldmatrix(const WarpEvent& e, unsigned matrices, float x, float y, float w,
                               float font, const sim::DeviceModel& m = {});

struct FragmentsInput {
  FragmentEvent kind = FragmentEvent::None;
  const WarpEvent* event = nullptr;  // the mma or ldmatrix shown
  std::string caption;               // "tensor/swizzled - block 0 warp 0 - event 12 of 300, line 69"
  std::string notice;                // kind None: what to select, one line
  std::string array;                 // ldmatrix: the shared array's name ("as")
  unsigned array_base = 0, array_row_bytes = 0;  // its first byte and row pitch (0: unknown)
  int hover_lane = -1;               // a lane lit without the mouse (tests, screenshots)
  bool covered = false;              // the wavefronts are kept back (kPredictFirst)
  sim::DeviceModel model;
};

struct FragmentsGeometry {
  std::vector<std::string> texts;  // every string drawn
  int cells = 0;                   // element (mma) or bank (ldmatrix) cells drawn
  int numbered = 0;                // of them with a lane number
  int lit = 0;                     // cells of the lit lane drawn outlined
};

// @post mma: one cell per element of the three tiles; ldmatrix: four bank cells per row of
//       every phase, and the summary names access.wavefronts unless in.covered.
FragmentsGeometry paint_mma(const FragmentsInput& in, const MmaLayout& l, int lit, Canvas& cv,
                            const ViewStyle& style);
FragmentsGeometry paint_ldmatrix(const FragmentsInput& in, const LdmatrixLayout& l, int lit,
                                 Canvas& cv, const ViewStyle& style);

// "lane 5 (group 1, thread 1): A a0 a1 [1][2..3] ..." for the tooltip: every register
// element of the lane with where it sits.
// @post names 8 A elements, 4 B and 4 C.
std::string mma_lane_text(unsigned lane);

struct FragmentsDraw {
  bool drawn = false;
  FragmentEvent kind = FragmentEvent::None;
  std::string notice;  // drawn instead of tiles
  int lit = -1;        // the lane lit (hovered, or the input's)
  Rect rect;
  MmaLayout mma;
  LdmatrixLayout ldm;
  FragmentsGeometry geom;
  std::string tooltip;  // what the hovered cell's tooltip says
};

// The widget: takes the available region. Draws the notice alone for kind None.
FragmentsDraw draw_fragments(const FragmentsInput& in, const ViewStyle& style);

}  // namespace ws::viz
