#pragma once
// The divergence mask strip: one row per event of a warp, one column per lane. Lit cells
// are active lanes; on a marked branch the cells show the ballot (condition true / false),
// so a `% 2` branch reads as alternate lanes. SIMD efficiency above the strip.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/model.h"
#include "sim/trace.h"
#include "viz/view_common.h"

namespace ws::viz {

struct MaskStripInput {
  const sim::MaskHistory* history = nullptr;
  int current = -1;            // the stepper's event (index into history), highlighted
  bool follow_current = true;  // scroll so the current row is visible
  float height = 0;            // 0: the rest of the window
  bool covered = false;        // SIMD efficiency and divergent branches say kPredictFirst
};

struct MaskRow {
  int index = 0;               // event index in the history
  int side = 0;                // 0: the event; 1/2: the taken/not-taken side of a divergent
                               // branch, which the warp runs one after the other
  std::uint32_t mask = 0, ballot = 0;  // side rows: mask = the lanes that run that side
  EventKind kind = EventKind::GlobalLoad;
  std::uint16_t line = 0;
  Rect rect;                   // the 32 cells of the row
};

struct MaskStripDraw {
  bool drawn = false;
  std::string note;
  int rows_total = 0;          // events
  int display_rows = 0;        // events plus two side rows per divergent branch
  double simd_efficiency = 0;  // from the history (the model)
  int divergent_rows = 0;      // rows with some lane off
  std::vector<MaskRow> rows;   // the rows drawn this frame (only visible ones)
  float cell_w = 0, cell_h = 0;
  int cells_on = 0, cells_off = 0;  // over the rows drawn
  int clicked = -1;            // a row the user clicked this frame (event index)
};

// Lane l of a drawn row r sits at rect (r.rect.x0 + l * cell_w, r.rect.y0) .. +(cell_w, cell_h).
// @post rows_total == history->masks.size(); cells_on + cells_off == 32 * rows.size();
//       for each drawn row, cells_on counts popcount(mask); a divergent branch (ballot
//       neither 0 nor the whole mask) is followed by its two sides, masks mask & ballot
//       and mask & ~ballot.
MaskStripDraw draw_mask_strip(const MaskStripInput& in, const ViewStyle& style = {});

// The colour of lane l in an event: off, on, or for a branch the ballot's side.
std::uint32_t mask_cell_colour(std::uint32_t mask, std::uint32_t ballot, EventKind kind, int lane,
                               const ViewStyle& style);

}  // namespace ws::viz
