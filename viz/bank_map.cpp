// The bank map view.
#include "viz/bank_map.h"

#include <algorithm>
#include <cstdio>

#include "viz/imgui_util.h"

namespace ws::viz {

namespace {

std::uint32_t dimmed(std::uint32_t c, const ViewStyle& s) {
  // Untouched grid cells keep their bank hue but recede behind the touched ones.
  const double k = s.high_contrast ? 0.30 : 0.40;
  const std::uint32_t bg = s.high_contrast ? 0 : 0x24262B;
  auto mix = [&](int shift) {
    const double a = (c >> shift) & 0xFF, b = (bg >> (shift - 8)) & 0xFF;
    return unsigned(a * k + b * (1 - k));
  };
  return (mix(24) << 24) | (mix(16) << 16) | (mix(8) << 8) | 0xFF;
}

std::string summary(const sim::SharedAccess& a) {
  char b[200];
  if (a.conflicts == 0) {
    std::snprintf(b, sizeof b, "%u wavefront%s (ideal %u): no bank conflict%s", a.wavefronts,
                  a.wavefronts == 1 ? "" : "s", a.ideal_wavefronts,
                  a.broadcast ? " - lanes reading one word share it (broadcast)" : "");
  } else {
    std::snprintf(b, sizeof b,
                  "%u wavefronts (ideal %u): %u extra - a %u-way bank conflict, the bank "
                  "serves its words one after another",
                  a.wavefronts, a.ideal_wavefronts, a.conflicts, a.max_degree);
  }
  return b;
}

}  // namespace

BankMapDraw draw_bank_map(const BankMapInput& in, const ViewStyle& style) {
  BankMapDraw d;
  if (!in.caption.empty()) ImGui::TextWrapped("%s", in.caption.c_str());
  if (!in.event) {
    d.note = "No shared-memory access at this step.";
    ImGui::TextWrapped("%s", d.note.c_str());
    return d;
  }
  const WarpEvent& e = *in.event;
  if (!is_shared(e.kind) || e.mask == 0) {
    d.note = std::string("This step is a ") + std::string(to_string(e.kind)) +
             ", not a shared-memory access: the bank map shows shared loads and stores.";
    ImGui::TextWrapped("%s", d.note.c_str());
    return d;
  }
  d.drawn = true;
  d.access = sim::analyze_shared(e, in.model);
  const sim::SharedAccess& a = d.access;
  d.bank_words = a.bank_words;
  const unsigned banks = std::clamp(in.model.shared_banks, 1u, 32u);

  const std::uint32_t heat_col = a.conflicts ? heat_colour(a.max_degree) : heat_colour(1);
  // Covered, in the window's dim text: the heat colour would say how bad it is.
  d.summary = in.covered ? std::string(kPredictFirst) + ": how many wavefronts does this access need?" : summary(a);
  ImGui::PushStyleColor(ImGuiCol_Text, in.covered ? ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled)
                                                  : ImGui::ColorConvertU32ToFloat4(to_imgui(heat_col)));
  ImGui::TextWrapped("%s", d.summary.c_str());
  ImGui::PopStyleColor();

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float fh = ImGui::GetTextLineHeight();
  const float label_w = ImGui::CalcTextSize("lanes ").x + 4;
  const float cell = std::clamp((avail.x - label_w) / 32.0f, 9.0f, 44.0f);
  const float cell_h = std::max(fh + 4, cell);
  const float x0 = origin.x + label_w;
  // Lane numbers that do not fit in their cells go above them, as many as fit.
  const bool numbers_inside = numbers_fit_inside(cell);
  // Room for the lane -> bank lines; less in a short panel, so the bank numbers stay in it.
  const float fixed = 2 + (numbers_inside ? 0 : fh) + 2 * cell_h + fh * 1.3f;
  const float gap = std::clamp(avail.y - fixed, 1.5f * fh, std::max(3.0f * fh, cell * 2.2f));
  const float lane_y = origin.y + 2 + (numbers_inside ? 0 : fh);
  const float bank_y = lane_y + cell_h + gap;
  const std::uint32_t dim = dim_text_colour(style);

  text_at(dl, origin.x, lane_y + (cell_h - fh) / 2, "lanes", dim);
  text_at(dl, origin.x, bank_y + (cell_h - fh) / 2, "banks", dim);

  d.lane_numbers = draw_lane_row(dl, x0, lane_y, cell, cell_h, e.mask, style, d.lane_rect, numbers_inside);
  if (!numbers_inside) d.lane_numbers = draw_row_numbers(dl, d.lane_rect, lane_y - fh * 0.55f, dim);
  for (unsigned b = 0; b < 32; ++b) {
    Rect r{x0 + b * cell + 1, bank_y, x0 + (b + 1) * cell - 1, bank_y + cell_h};
    d.bank_rect[b] = r;
    const unsigned words = b < banks ? a.bank_words[b] : 0;
    d.bank_fill[b] = heat_colour(words);
    if (words > 1) ++d.hot_banks;
    fill(dl, r, d.bank_fill[b], 2);
    if (words > 0) text_centered(dl, r.cx(), r.cy(), std::to_string(words), ink_on(d.bank_fill[b]), r.w());
  }
  // Bank numbers under the cells, as many as fit.
  draw_row_numbers(dl, d.bank_rect, bank_y + cell_h + fh * 0.6f, dim);

  for (int l = 0; l < 32; ++l) {
    const int b = a.lane_bank[l];
    if (b < 0 || b >= 32) continue;
    const std::uint32_t c = heat_colour(a.bank_words[b]);
    dl->AddLine(v2(d.lane_rect[l].cx(), d.lane_rect[l].y1), v2(d.bank_rect[b].cx(), d.bank_rect[b].y0),
                to_imgui(c), 1.5f * style.line);
    ++d.lines;
  }
  float y = bank_y + cell_h + fh * 1.3f;
  ImGui::Dummy(v2(avail.x, y - origin.y));

  // --- the shared array, coloured by bank ---
  if (!in.show_grid || !in.array || in.array->count == 0) {
    if (in.show_grid)
      ImGui::TextDisabled("(the shared array's shape is not known for this access)");
    return d;
  }
  const ArrayDesc& arr = *in.array;
  const unsigned eb = std::max(1u, arr.elem_bytes);
  const unsigned bank_bytes = std::max(1u, in.model.bank_bytes);
  const unsigned cols = in.row_elems ? in.row_elems : std::max(1u, banks * bank_bytes / eb);
  const unsigned rows = unsigned((arr.count + cols - 1) / cols);
  d.grid_cols = cols;
  d.grid_rows = rows;
  ImGui::TextWrapped("Shared array '%s': %u x %u %s, coloured by bank; framed: this access", arr.name.c_str(),
              rows, cols, eb == 4 ? "words" : (std::to_string(eb) + "-byte elements").c_str());

  const ImVec2 g0 = ImGui::GetCursorScreenPos();
  const ImVec2 gavail = ImGui::GetContentRegionAvail();
  const float row_label_w = ImGui::CalcTextSize("000 ").x;
  // Cells shrink to show every row, down to a size where a lane number still fits;
  // below that only the rows around this access are shown.
  const float room = std::max(gavail.y - fh * 1.5f, 40.0f);
  float gc = std::min({(gavail.x - row_label_w) / float(cols), 28.0f, room / float(rows)});
  gc = std::max(gc, std::min(10.0f, (gavail.x - row_label_w) / float(cols)));
  gc = std::max(gc, 3.0f);
  unsigned fit_rows = std::max(1u, unsigned(room / gc));
  // Which grid cell each lane touches (offsets are bytes into the block's shared memory).
  struct Hit { unsigned row, col; int lane; };
  std::vector<Hit> hits;
  unsigned min_row = rows, max_row = 0;
  for (int l = 0; l < 32; ++l) {
    if (!((e.mask >> l) & 1u) || e.offset[l] < arr.base_offset) continue;
    const std::uint64_t elem = (e.offset[l] - arr.base_offset) / eb;
    if (elem >= arr.count) continue;
    hits.push_back({unsigned(elem / cols), unsigned(elem % cols), l});
    min_row = std::min(min_row, unsigned(elem / cols));
    max_row = std::max(max_row, unsigned(elem / cols));
  }
  unsigned first = 0;
  if (rows > fit_rows && !hits.empty()) {
    // Show the rows this access touches; a column read of a tall tile keeps its top.
    first = min_row;
    if (max_row - min_row + 1 < fit_rows) first = min_row > 0 ? min_row - 1 : 0;
    if (first + fit_rows > rows) first = rows - fit_rows;
  }
  const unsigned shown = std::min(rows - first, fit_rows);
  d.grid_first_row = first;
  d.grid_rows_drawn = shown;
  const float gx = g0.x + row_label_w;
  d.grid = Rect{gx, g0.y, gx + gc * cols, g0.y + gc * shown};
  const float pad = gc >= 8 ? 1.0f : 0.0f;
  for (unsigned r = first; r < first + shown; ++r) {
    const float ry = g0.y + (r - first) * gc;
    if (gc * 1.0f >= fh * 0.9f && (r % (gc >= fh ? 1 : 4) == 0))
      text_at(dl, g0.x, ry + (gc - fh) / 2, std::to_string(r), dim);
    for (unsigned c = 0; c < cols; ++c) {
      const std::uint64_t elem = std::uint64_t(r) * cols + c;
      if (elem >= arr.count) break;
      const unsigned bank = unsigned((arr.base_offset + elem * eb) / bank_bytes % banks);
      Rect cr{gx + c * gc + pad, ry + pad, gx + (c + 1) * gc - pad, ry + gc - pad};
      fill(dl, cr, dimmed(bank_colour(bank), style));
    }
  }
  for (const Hit& h : hits) {
    if (h.row < first || h.row >= first + shown) continue;
    const std::uint64_t elem = std::uint64_t(h.row) * cols + h.col;
    const unsigned bank = unsigned((arr.base_offset + elem * eb) / bank_bytes % banks);
    GridCell gcell;
    gcell.row = h.row;
    gcell.col = h.col;
    gcell.bank = bank;
    gcell.lane = h.lane;
    gcell.colour = bank_colour(bank);
    const float ry = g0.y + (h.row - first) * gc;
    gcell.rect = Rect{gx + h.col * gc + pad, ry + pad, gx + (h.col + 1) * gc - pad, ry + gc - pad};
    fill(dl, gcell.rect, gcell.colour);
    frame(dl, gcell.rect, highlight_colour(style), gc >= 10 ? 2.0f : 1.0f);
    text_centered(dl, gcell.rect.cx(), gcell.rect.cy(), std::to_string(h.lane),
                  ink_on(gcell.colour), gcell.rect.w());
    d.touched.push_back(gcell);
  }
  // A key beside the grid when there is room: the heat scale of the bank cells above.
  const float key_x = d.grid.x1 + fh * 1.5f;
  // Its measured extent: drawn only where all of it fits beside the grid.
  const float key_h = fh * (1.4f + 7 * 1.3f + 0.6f + 1.2f) + ImGui::GetTextLineHeight();
  const float key_w = std::max({ImGui::CalcTextSize("bank cells: distinct words served").x,
                                ImGui::CalcTextSize("framed, with the lane: this access").x,
                                fh * 2.1f + ImGui::CalcTextSize("32 words: 32 passes").x});
  if (gavail.x - (key_x - g0.x) >= key_w && gavail.y >= key_h) {
    float ky = g0.y;
    text_at(dl, key_x, ky, "bank cells: distinct words served", dim);
    ky += fh * 1.4f;
    for (unsigned w : {0u, 1u, 2u, 4u, 8u, 16u, 32u}) {
      const Rect sw{key_x, ky, key_x + fh * 1.6f, ky + fh};
      fill(dl, sw, heat_colour(w), 2);
      const char* what = w == 0 ? "idle" : w == 1 ? "1 word: one pass" : nullptr;
      const std::string label = what ? std::string(what) : std::to_string(w) + " words: " + std::to_string(w) + " passes";
      text_at(dl, sw.x1 + fh * 0.5f, ky, label, dim);
      ky += fh * 1.3f;
    }
    ky += fh * 0.6f;
    text_at(dl, key_x, ky, "grid: each word's bank by colour;", dim);
    text_at(dl, key_x, ky + fh * 1.2f, "framed, with the lane: this access", dim);
  }
  ImGui::Dummy(v2(gavail.x, gc * shown + 2));
  if (shown < rows)
    ImGui::TextDisabled("rows %u-%u of %u shown", first, first + shown - 1, rows);
  return d;
}

}  // namespace ws::viz
