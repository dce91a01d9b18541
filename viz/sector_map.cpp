// The sector map view.
#include "viz/sector_map.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <map>

#include "viz/chart_paint.h"
#include "viz/imgui_util.h"

namespace ws::viz {

namespace {

// "7", "0-7", or "5 lanes": which lanes a sector serves, as short as fits.
std::string lane_label(std::uint32_t bits) {
  if (bits == 0) return "";
  const int lo = std::countr_zero(bits), hi = 31 - std::countl_zero(bits);
  if (lo == hi) return std::to_string(lo);
  if (std::popcount(bits) == hi - lo + 1) return std::to_string(lo) + "-" + std::to_string(hi);
  return std::to_string(std::popcount(bits)) + " lanes";
}

// Bytes the active lanes ask for, each counted once.
std::uint64_t distinct_bytes(const WarpEvent& e) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> r;
  for (int l = 0; l < 32; ++l)
    if (e.mask >> l & 1u) r.push_back({lane_offset(e, l), std::uint64_t(lane_offset(e, l)) + lane_bytes(e)});
  std::sort(r.begin(), r.end());
  std::uint64_t n = 0, end = 0;
  for (const auto& [lo, hi] : r) {
    const std::uint64_t from = std::max(lo, end);
    if (hi > from) n += hi - from;
    end = std::max(end, hi);
  }
  return n;
}

}  // namespace

SectorMapDraw draw_sector_map(const SectorMapInput& in, const ViewStyle& style) {
  SectorMapDraw d;
  if (!in.caption.empty()) ImGui::TextWrapped("%s", in.caption.c_str());
  if (!in.event) {
    d.note = "No global-memory access at this step.";
    ImGui::TextWrapped("%s", d.note.c_str());
    return d;
  }
  const WarpEvent& e = *in.event;
  if (!is_global(e.kind) || e.mask == 0) {
    d.note = std::string("This step is a ") + std::string(to_string(e.kind)) +
             ", not a global-memory access: the sector map shows global loads and stores.";
    ImGui::TextWrapped("%s", d.note.c_str());
    return d;
  }
  d.drawn = true;
  d.access = sim::analyze_global(e, in.model);
  const sim::GlobalAccess& a = d.access;
  const unsigned sb = std::max(1u, in.model.sector_bytes);
  const unsigned lb = std::max(sb, in.model.line_bytes);
  const unsigned per_line = lb / sb;

  // Lanes reading one word share it (a broadcast): the bytes used are the distinct ones,
  // or a broadcast would read as more than 100% useful.
  d.distinct_bytes = distinct_bytes(e);
  // A bulk store's traffic is what the copy engine writes, cut at its shared source's lines:
  // the rows' own sectors would read 100 % useful beside the engine's 1.125 times as many.
  const bool bulk = e.kind == EventKind::BulkStore;
  const std::uint64_t engine_sectors = bulk ? sim::bulk_store_sectors(e, in.model.access()) : 0;
  const std::uint64_t moved = bulk ? engine_sectors * sb : a.bytes_moved;
  const double eff = moved ? double(d.distinct_bytes) / double(moved) : 0;
  const std::uint32_t verdict =
      a.sectors > a.ideal_sectors || (bulk && engine_sectors > a.sectors) ? use_colour(eff) : use_colour(1);
  if (in.covered) {
    // The picture stays: counting its sectors is the prediction.
    d.use_note = std::string(kPredictFirst) + ": how many sectors does this request touch?";
    ImGui::TextWrapped("%s", d.use_note.c_str());
  } else {
    if (bulk)
      ImGui::TextWrapped("%u copies, one a lane - the rows cover %u sectors (ideal %u) in %u lines of %u B",
                         unsigned(std::popcount(e.mask)), a.sectors, a.ideal_sectors, a.lines, lb);
    else
      ImGui::TextWrapped("%u request - %u sector%s touched (ideal %u) in %u line%s of %u B", a.requests,
                         a.sectors, a.sectors == 1 ? "" : "s", a.ideal_sectors, a.lines,
                         a.lines == 1 ? "" : "s", lb);
    ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(verdict));
    d.use_note = "bytes used " + std::to_string(d.distinct_bytes) + " of " + std::to_string(moved) +
                 (bulk ? " the engine writes: " : " moved: ") + percent(eff) + " of the traffic is useful";
    if (d.distinct_bytes < a.bytes_requested)
      d.use_note += "; " + std::to_string(std::popcount(e.mask)) + " lanes share " +
                    std::to_string(d.distinct_bytes) + " B (a broadcast: one read serves every " +
                    "lane that asks for the same word)";
    ImGui::TextWrapped("%s", d.use_note.c_str());
    ImGui::PopStyleColor();
  }
  if (!in.covered && e.kind == EventKind::GlobalLoad && a.fetch_bytes > a.bytes_moved) {
    const unsigned unit = in.model.access().fetch_unit();
    d.fetch_note = "from DRAM, on a miss: " + std::to_string(a.fetches) + " fetches of " +
                   std::to_string(unit) + " B = " + std::to_string(a.fetch_bytes) +
                   " B; the L2 reads sectors in pairs, so a sector used alone costs two";
    ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(verdict));
    ImGui::TextWrapped("%s", d.fetch_note.c_str());
    ImGui::PopStyleColor();
  }

  if (!in.covered && bulk) {
    const std::uint64_t written = engine_sectors;
    d.engine_note = "the lanes store nothing: each hands the copy engine (TMA) its " +
                    std::to_string(lane_bytes(e)) + " B row, and the engine writes " +
                    std::to_string(written) + " sectors for these " + std::to_string(a.sectors) +
                    (written > a.sectors ? ": it cuts a row where its shared source crosses a "
                                           "128-byte line, and counts every piece's sectors"
                                         : "");
    ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(use_colour(double(a.sectors) / double(written ? written : 1))));
    ImGui::TextWrapped("%s", d.engine_note.c_str());
    ImGui::PopStyleColor();
  }

  // Lanes per sector (by each lane's first byte), from the model's lane -> sector map.
  std::vector<int> lanes(a.sector_ids.size(), 0);
  std::vector<std::uint32_t> lane_bits(a.sector_ids.size(), 0);
  for (int l = 0; l < 32; ++l)
    if (a.lane_sector[l] >= 0 && std::size_t(a.lane_sector[l]) < lanes.size()) {
      ++lanes[std::size_t(a.lane_sector[l])];
      lane_bits[std::size_t(a.lane_sector[l])] |= 1u << l;
    }
  // The distinct lines, in address order, each with its sectors.
  std::map<std::uint64_t, std::vector<std::size_t>> lines;  // line -> indices in sector_ids
  for (std::size_t i = 0; i < a.sector_ids.size(); ++i)
    lines[a.sector_ids[i] / per_line].push_back(i);

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float fh = ImGui::GetTextLineHeight();
  const float label_w = ImGui::CalcTextSize("sectors ").x + 4;
  const float cell = std::clamp((avail.x - label_w) / 32.0f, 9.0f, 44.0f);
  const float cell_h = std::max(fh + 4, cell);
  const float x0 = origin.x + label_w;
  const bool numbers_inside = numbers_fit_inside(cell);
  const float lane_y = origin.y + 2 + (numbers_inside ? 0 : fh);
  const std::uint32_t dim = dim_text_colour(style);
  text_at(dl, origin.x, lane_y + (cell_h - fh) / 2, "lanes", dim);
  d.lane_numbers = draw_lane_row(dl, x0, lane_y, cell, cell_h, e.mask, style, d.lane_rect, numbers_inside);
  if (!numbers_inside) d.lane_numbers = draw_row_numbers(dl, d.lane_rect, lane_y - fh * 0.55f, dim);

  const float gap_line = std::max(6.0f, cell * 0.5f);
  const float sc = cell;  // one sector as wide as one lane: 4 coalesced sectors sit under 32 lanes' worth
  const float line_w = per_line * sc;
  const unsigned lines_per_row =
      std::max(1u, unsigned((avail.x - label_w + gap_line) / (line_w + gap_line)));
  const float row_h = cell_h + fh * 1.4f;
  // Room for the lane -> sector lines only when they will be drawn (one row of lines).
  const std::size_t rows_needed = (lines.size() + lines_per_row - 1) / lines_per_row;
  const float sectors_y = lane_y + cell_h + (rows_needed <= 1 ? std::max(3.0f * fh, cell * 2.0f) : fh * 0.6f);
  text_at(dl, origin.x, sectors_y + fh * 1.2f + (cell_h - fh) / 2, "sectors", dim);

  // Place every sector of every touched line.
  std::vector<Rect> sector_rect(a.sector_ids.size());
  unsigned li = 0;
  for (const auto& [line, idx] : lines) {
    const unsigned row = li / lines_per_row, col = li % lines_per_row;
    const float lx = x0 + col * (line_w + gap_line);
    const float ly = sectors_y + row * row_h;
    char lab[48];
    std::snprintf(lab, sizeof lab, "+%llu", (unsigned long long)(line * lb));
    if (ImGui::CalcTextSize(lab).x <= line_w) text_at(dl, lx, ly, lab, dim);
    const float sy = ly + fh * 1.2f;
    for (unsigned s = 0; s < per_line; ++s) {
      const std::uint64_t sector = line * per_line + s;
      Rect r{lx + s * sc + 1, sy, lx + (s + 1) * sc - 1, sy + cell_h};
      SectorCell c;
      c.sector = sector;
      c.rect = r;
      auto it = std::find_if(idx.begin(), idx.end(),
                             [&](std::size_t i) { return a.sector_ids[i] == sector; });
      if (it != idx.end()) {
        c.touched = true;
        c.lanes = lanes[*it];
        const double used = std::min<double>(sb, double(c.lanes) * lane_bytes(e)) / sb;
        c.colour = use_colour(c.lanes ? used : 1.0);
        sector_rect[*it] = r;
        fill(dl, r, c.colour, 2);
        text_centered(dl, r.cx(), r.cy(), lane_label(lane_bits[*it]), ink_on(c.colour), r.w());
        ++d.sectors_drawn;
      } else {
        c.colour = 0;
        frame(dl, r, dim, 1, 2);
        ++d.idle_sectors_drawn;
      }
      d.cells.push_back(c);
    }
    ++d.lines_drawn;
    ++li;
  }
  // Lines from lanes to sectors read well over one row of lines; over several rows they
  // would cross the rows, and the lane numbers in the sectors say it instead.
  const unsigned rows = (li + lines_per_row - 1) / lines_per_row;
  d.rows = int(rows);
  for (int l = 0; l < 32 && rows <= 1; ++l) {
    const int s = a.lane_sector[l];
    if (s < 0 || std::size_t(s) >= sector_rect.size()) continue;
    const Rect& r = sector_rect[std::size_t(s)];
    dl->AddLine(v2(d.lane_rect[l].cx(), d.lane_rect[l].y1), v2(r.cx(), r.y0),
                to_imgui((lane_on_colour(style) & 0xFFFFFF00u) | 0xB0u), 1.2f * style.line);
    ++d.links;
  }
  const float bottom = sectors_y + rows * row_h + fh * 0.5f;
  ImGui::Dummy(v2(avail.x, bottom - origin.y));
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("In each sector: the lanes it serves. Hollow: sectors of a touched line that "
                      "this access does not need (not moved).");
  ImGui::PopTextWrapPos();
  return d;
}

}  // namespace ws::viz
