#pragma once
// The one table of views. Every place that names a view reads it: the window and its
// panels popup, presenter mode (which map fits the current event), the screenshot option
// (`gui --view NAME`), the lesson format (a lab's `view:`) and its validator, the panels
// menu, the Numbers panel's tabs (kInNumbers). Adding a view is its widget in viz/, one row
// here, and its panel, app/gui/panels/<panel>.cpp, whose draw function is the row's fourth
// column (DESIGN.md, "A new view", has the steps; the roofline is the worked example).
//
// Plain C++ with no GUI header: the lesson library, built without ImGui, reads the names.
#include <string>
#include <string_view>

#include "sim/analysis.h"

namespace ws::viz {

// What a view needs, and where it fits. Flags of a row's last column.
enum ViewFlag : unsigned {
  kNeedsTrace = 1u << 0,    // draws the kept warp events of a run
  kNeedsTotals = 1u << 1,   // draws a run's totals
  kNeedsCharts = 1u << 2,   // asks for the variant bars and a sweep besides the run
  kNeedsCompare = 1u << 3,  // asks for a second run to compare with
  kNeedsLesson = 1u << 4,   // draws an open lesson (gui --lesson)
  kInLab = 1u << 5,         // a lesson's lab may name it (`view:` in a lab block)
  kWithSource = 1u << 6,    // presenter layouts put the source under it
  kFitsShared = 1u << 7,    // the map presenter mode shows for a shared access
  kFitsGlobal = 1u << 8,    // ... for a global access
  kFitsBranch = 1u << 9,    // ... for a branch or a partial mask
  kNeedsPuzzle = 1u << 10,  // draws a student's kernel in the editor (gui --puzzle)
  kInNumbers = 1u << 11,    // a tab of the window's Numbers panel (beside charts, metrics)
  kFitsMma = 1u << 12,      // the map for an mma.sync: in the bank map's place in the window,
                            // presenter mode's map, a lesson's whole column (no source under
                            // it: the tiles need the height)
};

// Columns: id, name (CLI and lessons), panel title, draw function (app/gui/panels/<panel>.cpp),
// the Panels switch that shows it in the window (app/gui/app_state.h; none: always there),
// flags.
#define WS_VIEW_TABLE(X)                                                                       \
  X(Window, "window", "Window", draw_window, none, kNeedsTrace | kNeedsTotals | kNeedsCharts)  \
  X(BankMap, "bank-map", "Bank map", draw_bank_map, bank,                                      \
    kNeedsTrace | kInLab | kWithSource | kFitsShared)                                          \
  X(SectorMap, "sector-map", "Sector map", draw_sector_map, sector,                            \
    kNeedsTrace | kInLab | kWithSource | kFitsGlobal)                                          \
  X(Divergence, "divergence", "Divergence", draw_divergence, mask,                             \
    kNeedsTrace | kInLab | kWithSource | kFitsBranch)                                          \
  X(Charts, "charts", "Charts", draw_charts, charts, kNeedsCharts | kInLab)                    \
  X(Metrics, "metrics", "Metrics", draw_metrics, metrics, kNeedsTotals | kInLab)               \
  X(Stepper, "stepper", "Stepper", draw_stepper, stepper, kNeedsTrace | kInLab)                \
  X(Roofline, "roofline", "Roofline", draw_roofline, roofline, kNeedsCharts | kInLab | kInNumbers) \
  X(Occupancy, "occupancy", "Occupancy", draw_occupancy, occupancy, kInLab | kInNumbers)      \
  X(Fragments, "fragments", "Fragments", draw_fragments, fragments,                            \
    kNeedsTrace | kInLab | kFitsMma)                                                           \
  X(Compare, "compare", "Compare", draw_compare, none, kNeedsTrace | kNeedsCompare | kFitsShared) \
  X(Lesson, "lesson", "Lesson", draw_lesson, lesson, kNeedsLesson)                            \
  X(Editor, "editor", "Editor", draw_editor, none, kNeedsPuzzle)                              \
  X(Start, "start", "Start", draw_start, none, 0)

enum class View {
#define WS_VIEW_ID(id, name, title, draw, panel, flags) id,
  WS_VIEW_TABLE(WS_VIEW_ID)
#undef WS_VIEW_ID
};

struct ViewInfo {
  View id;
  std::string_view name, title;
  unsigned flags;
  constexpr bool has(unsigned f) const { return (flags & f) == f; }
};

inline constexpr ViewInfo kViews[] = {
#define WS_VIEW_INFO(id, name, title, draw, panel, flags) {View::id, name, title, flags},
    WS_VIEW_TABLE(WS_VIEW_INFO)
#undef WS_VIEW_INFO
};

// @post view_info(v).id == v for every View.
constexpr const ViewInfo& view_info(View v) {
  for (const ViewInfo& i : kViews)
    if (i.id == v) return i;
  return kViews[0];
}

inline std::string_view to_string(View v) { return view_info(v).name; }

// @post true iff s is a row's name; then out is that row's id.
inline bool view_from_string(std::string_view s, View& out) {
  for (const ViewInfo& i : kViews)
    if (i.name == s) {
      out = i.id;
      return true;
    }
  return false;
}

// "window, bank-map, ..." for messages: the views that have every flag of `with`.
inline std::string view_names(unsigned with = 0) {
  std::string s;
  for (const ViewInfo& i : kViews)
    if (i.has(with)) s += (s.empty() ? "" : ", ") + std::string(i.name);
  return s;
}

// The event a view opens on: what its row fits, else the first conflict for views of the
// trace, else the first event.
constexpr sim::Focus focus_of(View v) {
  const ViewInfo& i = view_info(v);
  if (i.has(kFitsShared)) return sim::Focus::Shared;
  if (i.has(kFitsGlobal)) return sim::Focus::Global;
  if (i.has(kFitsBranch)) return sim::Focus::Branch;
  if (i.has(kNeedsTrace)) return sim::Focus::Conflict;
  return sim::Focus::None;
}

}  // namespace ws::viz
