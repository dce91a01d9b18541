#pragma once
// The bank map: one shared-memory access of a warp. 32 lanes over 32 banks with a line
// from each lane to the bank it hits, banks coloured by the distinct words they serve
// (the conflict degree), and the shared array as a 2D grid coloured by bank, so that
// padding's effect on a column read shows as one colour (pad 0) or a diagonal (pad 1).
#include <array>
#include <string>
#include <vector>

#include "sim/model.h"
#include "sim/trace.h"
#include "viz/view_common.h"

namespace ws::viz {

struct BankMapInput {
  const WarpEvent* event = nullptr;  // a shared access; anything else shows a note
  const ArrayDesc* array = nullptr;  // the shared array it names (nullptr: no grid)
  unsigned row_elems = 0;            // grid row length in elements; 0: one row of banks
  sim::DeviceModel model;
  std::string caption;               // "line 47 - warp 0 - event 12 of 40"
  bool show_grid = true;
  bool covered = false;              // the wavefront summary says kPredictFirst instead
};

struct GridCell {
  unsigned row = 0, col = 0, bank = 0;
  int lane = -1;
  Rect rect;
  std::uint32_t colour = 0;
};

struct BankMapDraw {
  bool drawn = false;  // false: nothing to show; `note` says why
  std::string note;
  std::string summary;                       // the line over the map (wavefronts, or covered)
  sim::SharedAccess access;                  // the model's analysis that was drawn
  std::array<unsigned, 32> bank_words{};     // as drawn in each bank cell
  std::array<std::uint32_t, 32> bank_fill{};  // fill colour of each bank cell
  std::array<Rect, 32> bank_rect{}, lane_rect{};
  int lines = 0;       // lane -> bank lines drawn (one per active lane)
  RowNumbers lane_numbers;  // how many lane numbers were drawn, and at what font size
  int hot_banks = 0;   // banks serving more than one word
  unsigned grid_rows = 0, grid_cols = 0, grid_first_row = 0, grid_rows_drawn = 0;
  std::vector<GridCell> touched;  // grid cells of this access, one per active lane
  Rect grid;
};

// Draws at the cursor of the current ImGui window, using the available width.
// @post drawn == (event is a shared access with an active lane); when drawn,
//       bank_words == access.bank_words, bank_fill[b] == heat_colour(bank_words[b]) and
//       lines == number of active lanes.
BankMapDraw draw_bank_map(const BankMapInput& in, const ViewStyle& style = {});

}  // namespace ws::viz
