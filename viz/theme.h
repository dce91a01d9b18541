#pragma once
// The colours of warpscope in one place: the window (ImGui style and status text), the
// views (lanes, banks, conflict heat, source and SASS), the metrics table, the editor, and
// the charts (light for exports, dark for the window, high contrast for presenter mode).
// Colours are 0xRRGGBBAA throughout; 0 means "none" for fills and strokes, and for an
// ImGui style colour "keep ImGui's dark default". No ImGui, no CUDA here: the window
// converts at the draw call (viz::to_imgui, viz::to_imvec4).
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
  static ChartTheme light() { return {}; }  // exports: SVG, PNG
  static ChartTheme dark();                 // the window
  static ChartTheme high_contrast();        // presenter mode
};

struct ViewStyle {
  bool high_contrast = false;  // presenter mode: black ground, saturated colours, thick lines
  float line = 1.0f;           // line width multiplier
  static ViewStyle presenter() { return {true, 2.0f}; }
};

// Every colour of the window, by what it shows. theme(style) gives the normal or the
// presenter (high contrast) set.
struct Theme {
  // ImGui style over StyleColorsDark (0: keep the dark default).
  std::uint32_t window_bg, child_bg, window_text, text_disabled, title_bg, border, frame_bg,
      button;
  // Status text of the window.
  std::uint32_t good;           // output matches the reference; a check passed
  std::uint32_t bad;            // did not run, an error notice, a failed export
  std::uint32_t wrong;          // a wrong result, a run's error
  std::uint32_t stale;          // "from the last parameters that could run"
  std::uint32_t measured_time;  // a time measured on the GPU
  std::uint32_t modelled_time;  // a time modelled by the emulator
  std::uint32_t notice;         // a notice that is not an error
  std::uint32_t key;            // key names in the help
  std::uint32_t timer;          // the presenter strip's timer
  std::uint32_t badge;          // the presenter strip's badge button
  std::uint32_t export_done, export_failed;  // the presenter strip's export line
  // The lesson player's text: body, *emphasis* and links, **strong**, `code`, headings,
  // dim notes, passed and failed checks, and the task box behind a step.
  std::uint32_t lesson_text, lesson_emphasis, lesson_strong, lesson_code, lesson_heading,
      lesson_dim, lesson_good, lesson_bad, lesson_box;
  // Views: lanes, text, the current position.
  std::uint32_t lane_on, lane_off, ballot_true, ballot_false, text, dim_text, highlight;
  std::uint32_t heat_none, heat_one;  // a bank serving no word, one word
  // Source view.
  std::uint32_t sass_row_bg, current_line_bg, current_line_text, sass_global, sass_shared,
      sass_local, sass_barrier, sass_diff, counters, note;
  // Metrics table.
  std::uint32_t modelled, run_error, problem, hardware_note, verified, equal, noise, differs,
      hardware_only;
  // Editor: the build status line, and the gutter.
  std::uint32_t editor_error, editor_ok, editor_dim;
  std::uint32_t gutter_mark, error_line, error_number, line_number;
  ChartTheme chart;
};
const Theme& theme(const ViewStyle& s);

// Colour scales of the views.
// Bank b's hue in the shared-array grid. Neighbouring banks get far-apart hues so a
// column of one bank reads as one colour and a diagonal as a rainbow.
// @post bank_colour(b) == bank_colour(b + 32); distinct for b in [0, 32).
std::uint32_t bank_colour(unsigned bank);

// Lane l's colour in the fragments view: its group (l / 4, the lanes that share a row of A
// and C) gives the hue, far apart for neighbouring groups; its place in the group (l % 4)
// the shade, light to dark.
// @post distinct for l in [0, 32); lane_colour(l) == lane_colour(l + 32).
std::uint32_t lane_colour(unsigned lane);

// The colour of a bank cell by the distinct words it serves in one pass: grey for none,
// green for one (no conflict), then yellow..red as the conflict degree grows.
// @post heat_colour(0) is grey, heat_colour(1) green, heat_colour(w) for w >= 2 warms
//       monotonically up to heat_colour(32) (red); values above 32 clamp.
std::uint32_t heat_colour(unsigned words);

// A sector's colour by the fraction of its 32 bytes used: red (1/8) -> amber -> green (all).
std::uint32_t use_colour(double fraction);

// Lanes in the mask strip and sector map, and the views' text (theme(s)'s fields).
std::uint32_t lane_on_colour(const ViewStyle& s);
std::uint32_t lane_off_colour(const ViewStyle& s);
std::uint32_t ballot_true_colour(const ViewStyle& s);
std::uint32_t ballot_false_colour(const ViewStyle& s);
std::uint32_t text_colour(const ViewStyle& s);
std::uint32_t dim_text_colour(const ViewStyle& s);
std::uint32_t highlight_colour(const ViewStyle& s);
// Black or white, whichever reads better on `background`.
std::uint32_t ink_on(std::uint32_t background);

}  // namespace ws::viz
