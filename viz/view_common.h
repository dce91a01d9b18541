#pragma once
// What every ImGui view shares: screen rectangles for draw descriptions, and the theme
// (viz/theme.h: the view style, colour scales and every named colour). Colours are
// 0xRRGGBBAA like the chart's; to_imgui() converts at the draw call.
#include <cstdint>
#include <cstdio>
#include <string>

#include "viz/theme.h"

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

// Numbers a lesson keeps back while a prediction about them is unanswered (app/gui decides
// which, from the predict's quantity): a view draws kPredictFirst where it would show them,
// and the rest of the view as usual (the picture is what the student reasons from).
struct Covered {
  bool shared = false;   // shared-memory wavefronts and bank conflicts
  bool global = false;   // global sectors and requests
  bool branch = false;   // SIMD efficiency, divergence
  bool lanes = false;    // how many lanes an access or branch has active
  bool barrier = false;  // barriers executed
  bool time = false;     // times, throughputs and every ratio of them
  bool launch = false;   // grid shape, resident blocks, registers, occupancy
  bool flops = false;    // floating-point operations and their intensity
  bool any() const { return shared || global || branch || lanes || barrier || time || launch || flops; }
};
inline constexpr const char* kPredictFirst = "predict first";

// 0xRRGGBBAA -> ImGui's packed ImU32 (0xAABBGGRR).
constexpr std::uint32_t to_imgui(std::uint32_t c) {
  return ((c & 0xFFu) << 24) | (((c >> 8) & 0xFFu) << 16) | (((c >> 16) & 0xFFu) << 8) |
         (c >> 24);
}

// "87.5 %"
inline std::string percent(double fraction) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f %%", fraction * 100);
  return b;
}

}  // namespace ws::viz
