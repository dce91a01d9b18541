// Colour scales shared by the views.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/chart_paint.h"
#include "viz/view_common.h"

namespace ws::viz {

namespace {

std::uint32_t hsv(double h, double s, double v) {
  const double i = std::floor(h * 6), f = h * 6 - i;
  const double p = v * (1 - s), q = v * (1 - f * s), t = v * (1 - (1 - f) * s);
  double r, g, b;
  switch (int(i) % 6) {
    case 0: r = v, g = t, b = p; break;
    case 1: r = q, g = v, b = p; break;
    case 2: r = p, g = v, b = t; break;
    case 3: r = p, g = q, b = v; break;
    case 4: r = t, g = p, b = v; break;
    default: r = v, g = p, b = q; break;
  }
  return rgba(unsigned(std::lround(r * 255)), unsigned(std::lround(g * 255)),
              unsigned(std::lround(b * 255)));
}

}  // namespace

std::uint32_t bank_colour(unsigned bank) {
  // 13 is coprime with 32, so this permutes the 32 hues: neighbours land 13/32 apart.
  const unsigned h = (bank % 32) * 13 % 32;
  return hsv(h / 32.0, 0.62, 0.93);
}

std::uint32_t heat_colour(unsigned words) {
  if (words == 0) return rgba(88, 90, 96);
  if (words == 1) return rgba(50, 168, 82);
  const double w = std::min(words, 32u);
  const double t = (std::log2(w) - 1) / 4;  // 2 words -> 0, 32 words -> 1
  return rgba(unsigned(std::lround(240 - 25 * t)), unsigned(std::lround(205 * (1 - t) + 28 * t)),
              unsigned(std::lround(40 * (1 - t) + 28 * t)));
}

std::uint32_t lane_on_colour(const ViewStyle& s) {
  return s.high_contrast ? rgba(0, 200, 255) : rgba(66, 135, 245);
}
std::uint32_t lane_off_colour(const ViewStyle& s) {
  return s.high_contrast ? rgba(25, 25, 25) : rgba(52, 54, 60);
}
std::uint32_t ballot_true_colour(const ViewStyle& s) {
  return s.high_contrast ? rgba(0, 255, 110) : rgba(50, 168, 82);
}
std::uint32_t ballot_false_colour(const ViewStyle& s) {
  return s.high_contrast ? rgba(255, 150, 0) : rgba(230, 140, 30);
}
std::uint32_t text_colour(const ViewStyle& s) {
  return s.high_contrast ? rgba(255, 255, 255) : rgba(230, 230, 230);
}
std::uint32_t dim_text_colour(const ViewStyle& s) {
  return s.high_contrast ? rgba(200, 200, 200) : rgba(150, 152, 160);
}
std::uint32_t highlight_colour(const ViewStyle& s) {
  return s.high_contrast ? rgba(255, 255, 0) : rgba(255, 214, 10);
}

std::uint32_t ink_on(std::uint32_t bg) {
  const double r = (bg >> 24) & 0xFF, g = (bg >> 16) & 0xFF, b = (bg >> 8) & 0xFF;
  return 0.299 * r + 0.587 * g + 0.114 * b > 140 ? rgba(0, 0, 0) : rgba(255, 255, 255);
}

std::string percent(double fraction) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f %%", fraction * 100);
  return b;
}

}  // namespace ws::viz
