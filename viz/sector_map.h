#pragma once
// The sector map: one global access of a warp. The 32 lanes over the 32-byte sectors and
// 128-byte lines they touch, sectors touched against the ideal, bytes used against bytes
// moved. Only the lines the access touches are drawn (a strided store touches lines far
// apart); untouched sectors inside them are drawn hollow.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/model.h"
#include "sim/trace.h"
#include "viz/view_common.h"

namespace ws::viz {

struct SectorMapInput {
  const WarpEvent* event = nullptr;  // a global access; anything else shows a note
  const ArrayDesc* array = nullptr;  // for its name and element size (optional)
  sim::DeviceModel model;
  std::string caption;
  bool covered = false;  // the sector and bytes-used lines say kPredictFirst instead
};

struct SectorCell {
  std::uint64_t sector = 0;  // sector number (byte offset / sector size)
  bool touched = false;
  int lanes = 0;             // active lanes whose first byte lies in it
  Rect rect;
  std::uint32_t colour = 0;
};

struct SectorMapDraw {
  bool drawn = false;  // false: nothing to show; `note` says why
  std::string note;
  sim::GlobalAccess access;  // the model's analysis that was drawn
  int sectors_drawn = 0;     // touched sector cells
  int idle_sectors_drawn = 0;  // untouched sectors of touched lines
  int lines_drawn = 0;
  int rows = 0;              // rows of 128 B lines drawn
  int links = 0;             // lane -> sector lines (drawn when the lines fit one row)
  // A load whose sectors DRAM must fetch in larger units than it uses: what that costs.
  std::string fetch_note;
  // A bulk store (the copy engine): the sectors it writes, which its pieces make more than
  // the sectors drawn when a row's shared source starts inside a 128-byte line.
  std::string engine_note;
  // The bytes used: each byte the lanes ask for counted once (lanes that ask for the same
  // word share it), against the sectors' bytes moved.
  std::uint64_t distinct_bytes = 0;
  std::string use_note;
  std::vector<SectorCell> cells;
  std::array<Rect, 32> lane_rect{};
  RowNumbers lane_numbers;  // how many lane numbers were drawn, and at what font size
};

// @post drawn == (event is a global access with an active lane); when drawn,
//       sectors_drawn == access.sectors, lines_drawn == access.lines and distinct_bytes ==
//       the size of the union of the active lanes' byte ranges.
SectorMapDraw draw_sector_map(const SectorMapInput& in, const ViewStyle& style = {});

}  // namespace ws::viz
