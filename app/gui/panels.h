#pragma once
// The window's panels and their layout. draw_ui() draws one frame of the whole window (or
// of one view, for screenshots) from the app state and returns what every view drew, so
// tests can check the frame without guessing at pixels.
#include <any>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "app/gui/app_state.h"
#include "viz/bank_map.h"
#include "viz/chart_widget.h"
#include "viz/mask_strip.h"
#include "viz/metrics_table.h"
#include "viz/sector_map.h"
#include "viz/source_view.h"
#include "viz/stepper.h"

namespace ws::gui {

// A run of text (a line of one draw call, as its glyphs lie) that its panel cuts: some
// glyph crosses the panel's clip rectangle in a direction the panel cannot scroll. `text`
// is read back from the glyphs ('?' for one already trimmed); an empty `text` means
// items were laid out past the panel's edge and not drawn at all.
struct CutText {
  std::string panel, text;
  viz::Rect rect, clip;
  viz::Rect line;  // the line the run sits on (its top to top + the font's height)
};

// What the start page drew (app/gui/panels/start.cpp): its button to lesson 1, and each
// lesson's and puzzle's row as laid out (rect: the row's first line on screen).
struct StartDraw {
  bool drawn = false;
  std::string first_lesson;  // "Start with lesson 01: Warps and SIMT"
  struct Row {
    std::string title, level, status;
    int minutes = 0;
    viz::Rect rect;
  };
  std::vector<Row> lessons, puzzles;
  viz::Rect lessons_clip, puzzles_clip;  // where each list's rows are visible
};

struct FrameDraw {
  // What each view's panel drew, by the view table's row: a panel stores its widget's
  // draw description here (`fd.drawn[size_t(View::X)] = d`), tests read it with
  // drawn_as<T>(View::X), so a new view needs no field of its own. The fields below are
  // the older views', kept by name (their comparison sides too).
  std::array<std::any, std::size(viz::kViews)> drawn;
  template <class T>
  const T* drawn_as(View v) const { return std::any_cast<T>(&drawn[std::size_t(v)]); }
  viz::BankMapDraw bank, bank_b;        // _b: the comparison side
  viz::SectorMapDraw sector, sector_b;
  viz::MaskStripDraw mask, mask_b;
  viz::SourceViewDraw source, source_b;
  viz::MetricsDraw metrics, metrics_b;
  viz::StepperDraw stepper;
  viz::ChartDraw history, bars, sweep;
  // Compare: each side's source (sim::to_string), and B's throughput over A's with
  // "(mixed: ...)" when the two sources differ.
  std::string compare_a_source, compare_b_source, compare_ratio;
  bool emulated_notice = false;         // the "emulated: times are modelled" banner
  double progress = -1;                 // the toolbar's bar for the running job (-1: idle)
  bool shortcuts_shown = false;         // the presenter's shortcut list
  std::vector<std::string> shortcut_keys;  // the keys that list named, in order
  bool lesson_drawn = false;
  LessonDraw lesson;                    // what the lesson panel drew
  EditorDraw editor;                    // what the kernel editor drew
  bool classroom = false;               // presenter mode's lesson script layout
  std::string refusal_shown;            // the parameter refusal in the controls
  std::vector<std::string> notices_shown;
  std::map<std::string, viz::Rect> panels;  // panel title -> its window rectangle
  int panels_drawn = 0;
  // Presenter: the strip with kernel, parameters (the one the keys step in brackets) and
  // throughput; whether the one-line keys list fitted its width; the "saved to" toast.
  std::string status_strip;
  float status_width = 0, strip_width = 0;  // the strip's text extent and the window width
  bool keys_line_fits = true;
  std::string toast;
  // Filled by check_text() once the frame is rendered (Session::frame with capture).
  std::vector<CutText> cut_texts;
  int texts_checked = 0;                // runs of text looked at, over every panel
  std::vector<CutText> texts;           // every run of text drawn in view, in draw order
  viz::ChartSpec bars_spec;             // the Variants chart as drawn (or covered) this frame
  bool bars_spec_set = false;
  int baseline_rows = 0;                // compare: metrics in the baseline table (A, B, B - A, B / A)
};

// After ImGui::Render(): every glyph the frame drew, grouped into runs of text, checked
// against the clip rectangle of its draw call, and every window's laid-out items against
// its visible area. What a panel cuts goes to fd.cut_texts (text that scrolls with its
// panel is not cut).
void check_text(FrameDraw& fd);

// The text the frame drew (fd.texts, filled by check_text): one line per screen row, top
// to bottom, the runs of a row left to right with a space between them.
// @post one '\n' per row; every run of fd.texts that is in view is in exactly one row.
std::string frame_text(const FrameDraw& fd);

// The exact banner text for runs on the emulator.
inline constexpr const char* kEmulatedNotice = "emulated: times are modelled, not measured";
// With a shipped recording some times are real measurements, labelled where shown.
inline constexpr const char* kEmulatedRecordedNotice =
    "emulated: times modelled, or recorded on a GPU where labelled";

// Keyboard shortcuts (ignored while a text field has focus).
void handle_keys(AppState& s);

FrameDraw draw_ui(AppState& s);

// The shortcut list shown in presenter mode and in the help popup.
const std::vector<std::pair<std::string, std::string>>& shortcuts();
// The list while a lesson is open in presenter mode: n/b move between the lesson's steps
// there, so next conflict and next barrier take Shift.
const std::vector<std::pair<std::string, std::string>>& lesson_shortcuts();
// Presenter mode with a lesson open (and its panel on): the classroom script layout.
bool classroom(const AppState& s);

// Colours of the ImGui style for normal and presenter (high-contrast) mode. Returns the
// colour (0xRRGGBBAA) to clear each frame to: the panels tile the window, so their own
// background is left transparent and the clear paints it (a software rasteriser such as
// Mesa's llvmpipe spends a third of the frame on that one full-window fill otherwise).
std::uint32_t apply_style(bool presenter);

}  // namespace ws::gui
