#pragma once
// The colours of warpscope in one place: the chart themes (light for exports, dark for
// the window, high contrast for presenter mode) and the series palette. Colours are
// 0xRRGGBBAA throughout viz/; 0 means "none" for fills and strokes. No ImGui, no CUDA.
#include <cstddef>
#include <cstdint>

namespace ws::viz {

constexpr std::uint32_t rgba(unsigned r, unsigned g, unsigned b, unsigned a = 255) {
  return (std::uint32_t(r) << 24) | (std::uint32_t(g) << 16) | (std::uint32_t(b) << 8) | a;
}

// The series palette (Okabe-Ito: tells apart for colour-blind students and on projectors).
std::uint32_t palette(std::size_t i);
// A wrong result, everywhere it is marked.
constexpr std::uint32_t kWrongRed = rgba(0xD0, 0x10, 0x10);

struct ChartTheme {
  std::uint32_t background = rgba(255, 255, 255);
  std::uint32_t text = rgba(20, 20, 20);
  std::uint32_t axis = rgba(60, 60, 60);
  std::uint32_t grid = rgba(225, 225, 225);
  std::uint32_t ref = rgba(90, 90, 90);
  static ChartTheme light() { return {}; }
  static ChartTheme dark();
  static ChartTheme high_contrast();
};

}  // namespace ws::viz
