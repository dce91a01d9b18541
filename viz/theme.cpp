// The colours of warpscope (see viz/theme.h).
#include "viz/theme.h"

#include <algorithm>
#include <cmath>

namespace ws::viz {

std::uint32_t palette(std::size_t i) {
  static constexpr std::uint32_t p[] = {
      rgba(0x00, 0x72, 0xB2), rgba(0xE6, 0x9F, 0x00), rgba(0x00, 0x9E, 0x73),
      rgba(0xCC, 0x79, 0xA7), rgba(0x56, 0xB4, 0xE9), rgba(0xD5, 0x5E, 0x00),
      rgba(0x7F, 0x7F, 0x7F), rgba(0xBC, 0xBD, 0x22)};
  return p[i % (sizeof p / sizeof p[0])];
}

ChartTheme ChartTheme::dark() {
  ChartTheme t;
  t.background = rgba(30, 32, 36);
  t.text = rgba(225, 225, 225);
  t.axis = rgba(170, 170, 170);
  t.grid = rgba(62, 64, 70);
  t.ref = rgba(200, 200, 200);
  return t;
}

ChartTheme ChartTheme::high_contrast() {
  ChartTheme t;
  t.background = rgba(0, 0, 0);
  t.text = rgba(255, 255, 255);
  t.axis = rgba(255, 255, 255);
  t.grid = rgba(70, 70, 70);
  t.ref = rgba(255, 255, 255);
  return t;
}

namespace {

// What the normal and the presenter sets share; each then sets what differs.
Theme common() {
  Theme t{};
  t.good = rgba(128, 217, 128);
  t.bad = rgba(255, 115, 89);
  t.wrong = rgba(255, 102, 102);
  t.stale = rgba(255, 179, 77);
  t.measured_time = rgba(153, 217, 255);
  t.modelled_time = rgba(242, 204, 89);
  t.notice = rgba(230, 217, 128);
  t.key = rgba(255, 255, 0);
  t.timer = rgba(140, 204, 255);
  t.badge = rgba(140, 107, 13);
  t.export_done = rgba(128, 242, 128);
  t.export_failed = rgba(255, 128, 102);
  t.lesson_text = rgba(235, 235, 235);
  t.lesson_emphasis = rgba(158, 209, 255);
  t.lesson_strong = rgba(255, 219, 128);
  t.lesson_code = rgba(153, 242, 153);
  t.lesson_heading = rgba(255, 255, 255);
  t.lesson_dim = rgba(158, 158, 168);
  t.lesson_good = rgba(115, 230, 115);
  t.lesson_bad = rgba(255, 128, 102);
  t.lesson_box = rgba(41, 46, 56);
  t.editor_error = rgba(237, 84, 79);
  t.editor_ok = rgba(102, 204, 115);
  t.editor_dim = rgba(153, 153, 153);
  t.heat_none = rgba(88, 90, 96);
  t.heat_one = rgba(50, 168, 82);
  t.current_line_text = rgba(255, 255, 255);
  t.sass_local = rgba(255, 100, 100);
  t.sass_barrier = rgba(180, 140, 255);
  t.run_error = rgba(255, 90, 90);
  t.problem = rgba(255, 170, 60);
  t.hardware_note = rgba(240, 170, 80);
  t.verified = rgba(80, 200, 110);
  t.equal = rgba(80, 200, 110);
  t.differs = rgba(255, 110, 90);
  t.hardware_only = rgba(150, 170, 200);
  t.gutter_mark = rgba(230, 190, 60, 110);
  t.error_line = rgba(200, 60, 50, 110);
  t.error_number = rgba(240, 90, 80);
  t.line_number = rgba(130, 130, 130);
  return t;
}

Theme normal() {
  Theme t = common();
  t.window_bg = rgba(15, 15, 17);
  t.lane_on = rgba(66, 135, 245);
  t.lane_off = rgba(52, 54, 60);
  t.ballot_true = rgba(50, 168, 82);
  t.ballot_false = rgba(230, 140, 30);
  t.text = rgba(230, 230, 230);
  t.dim_text = rgba(150, 152, 160);
  t.highlight = rgba(255, 214, 10);
  t.sass_row_bg = rgba(0x1C, 0x22, 0x30);
  t.current_line_bg = rgba(0x2D, 0x4F, 0x8A);
  t.sass_global = rgba(0x5F, 0xB4, 0xE8);
  t.sass_shared = rgba(0xE6, 0xA2, 0x3C);
  t.sass_diff = rgba(0xE0, 0x70, 0xE0);
  t.counters = rgba(0x6F, 0xB7, 0xD8);
  t.note = rgba(0xE6, 0xA2, 0x3C);
  t.modelled = rgba(240, 200, 90);
  t.noise = rgba(240, 200, 90);
  t.chart = ChartTheme::dark();
  return t;
}

Theme presenter() {
  Theme t = common();
  t.window_bg = rgba(0, 0, 0);
  t.window_text = rgba(255, 255, 255);
  t.text_disabled = rgba(204, 204, 204);
  t.title_bg = rgba(26, 26, 89);
  t.border = rgba(255, 255, 255, 153);
  t.frame_bg = rgba(38, 38, 38);
  t.button = rgba(26, 64, 153);
  t.lane_on = rgba(0, 200, 255);
  t.lane_off = rgba(25, 25, 25);
  t.ballot_true = rgba(0, 255, 110);
  t.ballot_false = rgba(255, 150, 0);
  t.text = rgba(255, 255, 255);
  t.dim_text = rgba(200, 200, 200);
  t.highlight = rgba(255, 255, 0);
  t.sass_row_bg = rgba(0x10, 0x10, 0x10);
  t.current_line_bg = rgba(0x00, 0x50, 0xA0);
  t.sass_global = rgba(0x66, 0xCC, 0xFF);
  t.sass_shared = rgba(0xFF, 0xB0, 0x00);
  t.sass_diff = rgba(0xFF, 0x40, 0xFF);
  t.counters = rgba(0x40, 0xE0, 0xFF);
  t.note = rgba(0xFF, 0xB0, 0x00);
  t.modelled = rgba(255, 220, 0);
  t.noise = rgba(255, 220, 0);
  t.chart = ChartTheme::high_contrast();
  return t;
}

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

const Theme& theme(const ViewStyle& s) {
  static const Theme n = normal(), p = presenter();
  return s.high_contrast ? p : n;
}

std::uint32_t bank_colour(unsigned bank) {
  // 13 is coprime with 32, so this permutes the 32 hues: neighbours land 13/32 apart.
  const unsigned h = (bank % 32) * 13 % 32;
  return hsv(h / 32.0, 0.62, 0.93);
}

std::uint32_t lane_colour(unsigned lane) {
  const unsigned g = (lane % 32) / 4, t = lane % 4;
  // 3 is coprime with 8: neighbouring groups (neighbouring rows) land 3/8 of the wheel apart.
  static constexpr double kSat[4] = {0.30, 0.50, 0.70, 0.85}, kVal[4] = {1.0, 0.93, 0.82, 0.68};
  return hsv((g * 3 % 8) / 8.0, kSat[t], kVal[t]);
}

std::uint32_t heat_colour(unsigned words) {
  const Theme& t = theme(ViewStyle{});
  if (words == 0) return t.heat_none;
  if (words == 1) return t.heat_one;
  const double w = std::min(words, 32u);
  const double k = (std::log2(w) - 1) / 4;  // 2 words -> 0, 32 words -> 1
  return rgba(unsigned(std::lround(240 - 25 * k)), unsigned(std::lround(205 * (1 - k) + 28 * k)),
              unsigned(std::lround(40 * (1 - k) + 28 * k)));
}

std::uint32_t use_colour(double f) {
  f = std::clamp(f, 0.0, 1.0);
  // red (1/8 used) -> amber -> green (all used)
  const double t = std::clamp((f - 0.125) / 0.875, 0.0, 1.0);
  const unsigned r = unsigned(220 * (1 - t) + 50 * t), g = unsigned(60 * (1 - t) + 168 * t),
                 b = unsigned(50 * (1 - t) + 82 * t);
  return rgba(r, g, b);
}

std::uint32_t lane_on_colour(const ViewStyle& s) { return theme(s).lane_on; }
std::uint32_t lane_off_colour(const ViewStyle& s) { return theme(s).lane_off; }
std::uint32_t ballot_true_colour(const ViewStyle& s) { return theme(s).ballot_true; }
std::uint32_t ballot_false_colour(const ViewStyle& s) { return theme(s).ballot_false; }
std::uint32_t text_colour(const ViewStyle& s) { return theme(s).text; }
std::uint32_t dim_text_colour(const ViewStyle& s) { return theme(s).dim_text; }
std::uint32_t highlight_colour(const ViewStyle& s) { return theme(s).highlight; }

std::uint32_t ink_on(std::uint32_t bg) {
  const double r = (bg >> 24) & 0xFF, g = (bg >> 16) & 0xFF, b = (bg >> 8) & 0xFF;
  return 0.299 * r + 0.587 * g + 0.114 * b > 140 ? rgba(0, 0, 0) : rgba(255, 255, 255);
}

}  // namespace ws::viz
