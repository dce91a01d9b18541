#pragma once
// Small drawing helpers on top of ImGui's draw list, shared by the views.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "viz/view_common.h"

namespace ws::viz {

inline ImVec2 v2(float x, float y) { return ImVec2(x, y); }
// 0xRRGGBBAA -> ImGui's float colour (for TextColored and style colours).
inline ImVec4 to_imvec4(std::uint32_t c) {
  return ImVec4(float(c >> 24) / 255.f, float((c >> 16) & 0xFF) / 255.f,
                float((c >> 8) & 0xFF) / 255.f, float(c & 0xFF) / 255.f);
}
inline Rect rect_of(ImVec2 a, ImVec2 b) { return Rect{a.x, a.y, b.x, b.y}; }

inline void fill(ImDrawList* dl, const Rect& r, std::uint32_t col, float rounding = 0) {
  dl->AddRectFilled(v2(r.x0, r.y0), v2(r.x1, r.y1), to_imgui(col), rounding);
}
inline void frame(ImDrawList* dl, const Rect& r, std::uint32_t col, float thick = 1,
                  float rounding = 0) {
  dl->AddRect(v2(r.x0, r.y0), v2(r.x1, r.y1), to_imgui(col), rounding, 0, thick);
}
// Text centred on (cx, cy). When it does not fit `max_w` (0: no limit) it is drawn
// smaller, down to 60 % of the font size, and skipped below that. Returns the size it was
// drawn at, 0 when skipped.
inline float text_centered(ImDrawList* dl, float cx, float cy, std::string_view s,
                           std::uint32_t col, float max_w = 0) {
  ImFont* font = ImGui::GetFont();
  const float base = ImGui::GetFontSize();
  for (float k : {1.0f, 0.8f, 0.6f}) {
    const ImVec2 sz = font->CalcTextSizeA(base * k, 1e9f, 0, s.data(), s.data() + s.size());
    if (max_w > 0 && sz.x > max_w) continue;
    dl->AddText(font, base * k, v2(cx - sz.x / 2, cy - sz.y / 2), to_imgui(col), s.data(),
                s.data() + s.size());
    return base * k;
  }
  return 0;
}
inline void text_at(ImDrawList* dl, float x, float y, std::string_view s, std::uint32_t col) {
  dl->AddText(v2(x, y), to_imgui(col), s.data(), s.data() + s.size());
}

// Whether two-digit numbers fit inside cells `cell` wide (at 60 % of the font, the
// smallest text_centered draws); when not, the numbers go beside the row.
inline bool numbers_fit_inside(float cell) {
  return ImGui::GetFont()->CalcTextSizeA(ImGui::GetFontSize() * 0.6f, 1e9f, 0, "31").x <= cell - 2;
}

// Numbers of a row of 32 cells at the full font size, centred on `cy`: every cell, every
// second, fourth or eighth, as many as fit without touching.
inline RowNumbers draw_row_numbers(ImDrawList* dl, const std::array<Rect, 32>& cells, float cy,
                                   std::uint32_t col) {
  const float cell = cells[1].cx() - cells[0].cx();
  const float num_w = ImGui::CalcTextSize("31").x + 4;
  const int every = cell >= num_w ? 1 : cell * 2 >= num_w ? 2 : cell * 4 >= num_w ? 4 : 8;
  RowNumbers n;
  n.px = ImGui::GetFontSize();
  for (int i = 0; i < 32; i += every, ++n.shown) text_centered(dl, cells[i].cx(), cy, std::to_string(i), col);
  return n;
}

// The row of 32 lane cells at the top of the bank and sector maps: lit where `mask` has
// the lane, each cell `cell` wide and `cell_h` tall from (x0, y), numbered inside when
// `numbered` (the caller numbers them beside the row otherwise, draw_row_numbers).
// @post out[l] is lane l's cell; cells are 2 px narrower than `cell` so they stay apart.
inline RowNumbers draw_lane_row(ImDrawList* dl, float x0, float y, float cell, float cell_h,
                                std::uint32_t mask, const ViewStyle& style,
                                std::array<Rect, 32>& out, bool numbered = true) {
  RowNumbers n;
  for (int l = 0; l < 32; ++l) {
    const Rect r{x0 + l * cell + 1, y, x0 + (l + 1) * cell - 1, y + cell_h};
    out[l] = r;
    const std::uint32_t c = (mask >> l) & 1u ? lane_on_colour(style) : lane_off_colour(style);
    fill(dl, r, c, 2);
    if (!numbered) continue;
    if (const float px = text_centered(dl, r.cx(), r.cy(), std::to_string(l), ink_on(c), r.w())) {
      n.px = n.shown ? std::min(n.px, px) : px;
      ++n.shown;
    }
  }
  return n;
}

}  // namespace ws::viz
