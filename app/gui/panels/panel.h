#pragma once
// Inside the window's panels (app/gui/panels/, the layout, toolbar, presenter): what one
// room calls in another. Each panel is one file, panels/<panel>.cpp; the view table's draw
// functions (viz/views.h, its fourth column) are declared here.
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

#include "app/gui/export.h"
#include "app/gui/panels.h"
#include "app/gui/platform/glfw_gl3.h"
#include "kernels/hardware/recording.h"
#include "viz/chart_paint.h"
#include "viz/imgui_util.h"

namespace ws::gui {

using viz::Rect;

constexpr ImGuiWindowFlags kPanelFlags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                         ImGuiWindowFlags_NoCollapse |
                                         ImGuiWindowFlags_NoSavedSettings |
                                         ImGuiWindowFlags_NoBringToFrontOnFocus;

// The event a map shows: the current one when it is of the map's kind, else the latest
// such event before it, else the next one after it.
struct MapPick {
  const WarpEvent* e = nullptr;
  std::size_t pos = 0;
  int where = 0;  // 0 current, -1 before, +1 after
};

// shared by the panels (panels/panel.cpp)
viz::ViewStyle style_of(const AppState& s);
const viz::Theme& th(const AppState& s);
LessonCover cover_of(const AppState& s);
std::string sass_note(std::string note, bool launch_covered);
bool note_covered(const viz::Covered& c, const std::string& note);
float stepper_height(float width);
// A panel drawn inside the current window (a tab of the Numbers panel, kInNumbers) rather
// than as a window of its own: begin_panel opens a child filling what is left there.
// (A marker, never a rectangle a layout computes: a degenerate one still opens a window.)
inline constexpr Rect kInside{-1, -1, -1, -1};
inline bool is_inside(const Rect& r) { return r.x0 == -1 && r.y0 == -1 && r.x1 == -1 && r.y1 == -1; }
bool begin_panel(FrameDraw& fd, const char* title, const Rect& r, ImGuiWindowFlags extra = 0);
// Closes what begin_panel opened (the window, or the child for kInside).
void end_panel(const Rect& r);
MapPick pick_event(const Loaded& l, std::size_t pos, bool shared);
void same_line_or_wrap(float width);
float small_button_w(const char* label);
float checkbox_w(const char* label);
void wrapped_dim(const std::string& text);
void dim_after(const char* text);
void text_fitted(const std::string& text);
std::string map_caption(const Loaded& l, const MapPick& p, const char* what);
void no_result(const AppState& s, const Loaded& l);
bool waiting_for(const AppState& s, const Loaded& l, Stage st);
std::string title_of(View v);

// the layout (layout.cpp)
void draw_view(View v, AppState& s, FrameDraw& fd, const Rect& r);
// The switch that shows a view in the window; nullptr for a row that is always there.
bool* panel_switch(Panels& p, View v);
void draw_window(AppState& s, FrameDraw& fd, const Rect& body);

// the toolbar (toolbar.cpp)
bool toolbar_wraps(const AppState& s, float width);
void toolbar(AppState& s, FrameDraw& fd, const Rect& r);
void export_toast(AppState& s, FrameDraw& fd, const ImVec2& ds);

// presenter mode (presenter.cpp)
void auto_view(AppState& s, FrameDraw& fd, const Rect& r);
std::vector<std::string> param_names(const AppState& s);
void presenter_layout(AppState& s, FrameDraw& fd, const Rect& r);
void classroom_layout(AppState& s, FrameDraw& fd, const Rect& r);

// Every row's draw function (the view table's fourth column), each defined in its panel's
// file, app/gui/panels/<panel>.cpp: a new view's panel needs no declaration here.
#define WS_VIEW_DECLARE(id, name, title, draw, panel, flags) void draw(AppState&, FrameDraw&, const Rect&);
WS_VIEW_TABLE(WS_VIEW_DECLARE)
#undef WS_VIEW_DECLARE

// bank map (panels/bank_map.cpp)
viz::BankMapDraw bank_panel(const AppState& s, const Loaded& l, std::size_t pos);

// charts (panels/charts.cpp)
void charts_panel(AppState& s, FrameDraw& fd, bool stacked);

// compare (panels/compare.cpp)
void compare_region(AppState& s, FrameDraw& fd, const Rect& r);

// controls (panels/controls.cpp)
void controls_panel(AppState& s, FrameDraw& fd);

// divergence (panels/divergence.cpp)

// lesson (panels/lesson.cpp)
void lesson_panel(AppState& s, FrameDraw& fd);
void lesson_window(AppState& s, FrameDraw& fd, const Rect& body);

// metrics (panels/metrics.cpp)
viz::MetricsDraw metrics_panel(AppState& s, const Loaded& l);

// numbers (panels/numbers.cpp)
void numbers_panel(AppState& s, FrameDraw& fd, const Rect& r);
// Whether the Numbers panel has a tab to show: charts, metrics or a kInNumbers row.
bool numbers_shown(const AppState& s);

// sector map (panels/sector_map.cpp)
viz::SectorMapDraw sector_panel(const AppState& s, const Loaded& l, std::size_t pos);

// source (panels/source.cpp)
viz::SourceViewDraw source_panel(AppState& s, const Loaded& l, std::size_t pos, float height = 0);

// stepper (panels/stepper.cpp)
viz::StepperDraw stepper_panel(AppState& s);

}  // namespace ws::gui
