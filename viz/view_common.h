#pragma once
// What every ImGui view shares: screen rectangles for draw descriptions, the colour
// scales (bank hues, conflict heat, lane masks) and the view style (normal or presenter).
// Colours are 0xRRGGBBAA like the chart's; to_imgui() converts at the draw call.
#include <cstdint>
#include <string>

namespace ws::viz {

// A screen rectangle in ImGui's coordinates (pixels, y down), as drawn this frame.
struct Rect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float cx() const { return (x0 + x1) / 2; }
  float cy() const { return (y0 + y1) / 2; }
  float w() const { return x1 - x0; }
  float h() const { return y1 - y0; }
  bool empty() const { return x1 <= x0 || y1 <= y0; }
};

// How a row of 32 cells was numbered: how many numbers, and the smallest font size used.
struct RowNumbers {
  int shown = 0;
  float px = 0;
};

struct ViewStyle {
  bool high_contrast = false;  // presenter mode: black ground, saturated colours, thick lines
  float line = 1.0f;           // line width multiplier
  static ViewStyle presenter() { return {true, 2.0f}; }
};

// Bank b's hue in the shared-array grid. Neighbouring banks get far-apart hues so a
// column of one bank reads as one colour and a diagonal as a rainbow.
// @post bank_colour(b) == bank_colour(b + 32); distinct for b in [0, 32).
std::uint32_t bank_colour(unsigned bank);

// The colour of a bank cell by the distinct words it serves in one pass: grey for none,
// green for one (no conflict), then yellow..red as the conflict degree grows.
// @post heat_colour(0) is grey, heat_colour(1) green, heat_colour(w) for w >= 2 warms
//       monotonically up to heat_colour(32) (red); values above 32 clamp.
std::uint32_t heat_colour(unsigned words);

// Lanes in the mask strip and sector map.
std::uint32_t lane_on_colour(const ViewStyle& s);
std::uint32_t lane_off_colour(const ViewStyle& s);
std::uint32_t ballot_true_colour(const ViewStyle& s);
std::uint32_t ballot_false_colour(const ViewStyle& s);
std::uint32_t text_colour(const ViewStyle& s);
std::uint32_t dim_text_colour(const ViewStyle& s);
std::uint32_t highlight_colour(const ViewStyle& s);
// Black or white, whichever reads better on `background`.
std::uint32_t ink_on(std::uint32_t background);

// 0xRRGGBBAA -> ImGui's packed ImU32 (0xAABBGGRR).
constexpr std::uint32_t to_imgui(std::uint32_t c) {
  return ((c & 0xFFu) << 24) | (((c >> 8) & 0xFFu) << 16) | (((c >> 16) & 0xFFu) << 8) |
         (c >> 24);
}

std::string percent(double fraction);  // "87.5 %"

}  // namespace ws::viz
