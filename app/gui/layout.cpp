// The window's layout: the view table's draw functions, the three columns, draw_ui.
#include "app/gui/panels/panel.h"

namespace ws::gui {

namespace {

using DrawFn = void (*)(AppState&, FrameDraw&, const Rect&);

constexpr DrawFn kDraw[] = {
#define WS_VIEW_DRAW(id, name, title, draw, panel, flags) &draw,
    WS_VIEW_TABLE(WS_VIEW_DRAW)
#undef WS_VIEW_DRAW
};

}  // namespace

void draw_view(View v, AppState& s, FrameDraw& fd, const Rect& r) { kDraw[std::size_t(v)](s, fd, r); }

bool* panel_switch(Panels& p, View v) {
  // A row whose panel column is `none` is always there.
  static constexpr bool kSwitch[] = {
#define WS_VIEW_SWITCH(id, name, title, draw, panel, flags) std::string_view(#panel) != "none",
      WS_VIEW_TABLE(WS_VIEW_SWITCH)
#undef WS_VIEW_SWITCH
  };
  return kSwitch[std::size_t(v)] ? &p[v] : nullptr;
}

void draw_window(AppState& s, FrameDraw& fd, const Rect& body) {
  if (s.panels[View::Lesson] && s.lesson && s.lesson->is_open()) {
    lesson_window(s, fd, body);
    return;
  }
  const float W = body.w(), H = body.h(), y0 = body.y0;
  const float x1 = std::max(W * 0.21f, std::min(ImGui::GetFontSize() * 19, W * 0.3f));
  const float x2 = x1 + (W - x1) * 0.47f;

  const float ctrl_h = s.panels[View::Lesson] ? H * 0.56f : H;
  if (s.panels.controls) {
    if (begin_panel(fd, "Kernel", Rect{0, y0, x1, y0 + ctrl_h})) controls_panel(s, fd);
    ImGui::End();
  }
  if (s.panels[View::Lesson]) {
    if (begin_panel(fd, "Lesson", Rect{0, s.panels.controls ? y0 + ctrl_h : y0, x1, body.y1})) lesson_panel(s, fd);
    ImGui::End();
  }

  if (s.results.compare_mode) {
    compare_region(s, fd, Rect{x1, y0, body.x1, body.y1});
    return;
  }

  float y = y0;
  if (s.panels[View::Stepper]) {
    const float h = stepper_height(x2 - x1);
    if (begin_panel(fd, "Stepper", Rect{x1, y, x2, y + h})) fd.stepper = stepper_panel(s);
    ImGui::End();
    y += h;
  }
  // The student's kernel needs lines of code: with the editor open the divergence strip
  // gets less of the column (at 1280x720 an even split left the editor two lines).
  const float src_share = s.editor ? 0.72f : 0.55f;
  const float src_h = (body.y1 - y) * (s.panels[View::Divergence] ? src_share : 1.0f);
  if (s.editor) {  // the student's kernel takes the source's place
    draw_view(View::Editor, s, fd, Rect{x1, y, x2, y + src_h});
    y += src_h;
  } else if (s.panels.source) {
    if (begin_panel(fd, "Source", Rect{x1, y, x2, y + src_h})) fd.source = source_panel(s, s.results.main, s.results.stepper.pos);
    ImGui::End();
    y += src_h;
  }
  if (s.panels[View::Divergence]) {
    draw_view(View::Divergence, s, fd, Rect{x1, y, x2, body.y1});
  }

  float yr = y0;
  // The map of the access being stepped gets the larger share: at 1280x720 a quarter of
  // the height left the sector map its summary and one row of lanes.
  bool global_first = false;
  if (const Loaded& l = s.results.main; l.valid()) {
    const sim::Totals& t = l.run->totals;
    global_first = t.shared_ld_requests + t.shared_st_requests + t.shared_atom_requests == 0;
    if (!l.order.empty()) {
      const WarpEvent& e = l.events()[l.order[std::min(s.results.stepper.pos, l.order.size() - 1)]];
      if (is_global(e.kind)) global_first = true;
      if (is_shared(e.kind)) global_first = false;
    }
  }
  const float bank_h = H * (global_first ? 0.25f : 0.42f), sector_h = H * (global_first ? 0.42f : 0.25f);
  // On an mma.sync the bank map has no access to draw: the fragments take its place.
  bool on_mma = false;
  if (const Loaded& l = s.results.main; l.valid() && !l.order.empty())
    on_mma = l.events()[l.order[std::min(s.results.stepper.pos, l.order.size() - 1)]].kind == EventKind::Mma;
  if (on_mma && s.panels[View::Fragments]) {
    draw_view(View::Fragments, s, fd, Rect{x2, yr, body.x1, yr + bank_h});
    yr += bank_h;
  } else if (s.panels[View::BankMap]) {
    draw_view(View::BankMap, s, fd, Rect{x2, yr, body.x1, yr + bank_h});
    yr += bank_h;
  }
  if (s.panels[View::SectorMap]) {
    draw_view(View::SectorMap, s, fd, Rect{x2, yr, body.x1, yr + sector_h});
    yr += sector_h;
  }
  if (numbers_shown(s)) numbers_panel(s, fd, Rect{x2, yr, body.x1, body.y1});
}

FrameDraw draw_ui(AppState& s) {
  FrameDraw fd;
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  const float fh = ImGui::GetFrameHeightWithSpacing();

  // Screenshots of one view: that view fills the window.
  if (s.single_view != View::Window) {
    draw_view(s.single_view, s, fd, Rect{0, 0, ds.x, ds.y});
    return fd;
  }

  const float bar_h = fh * ((toolbar_wraps(s, ds.x) ? 2.15f : 1.15f) + 0.9f * float(s.notices.size()));
  toolbar(s, fd, Rect{0, 0, ds.x, bar_h});
  const Rect body{0, bar_h, ds.x, ds.y};
  if (s.start_page) {
    draw_view(View::Start, s, fd, body);
    export_toast(s, fd, ds);
    return fd;
  }
  if (classroom(s)) {
    classroom_layout(s, fd, body);
    export_toast(s, fd, ds);
    return fd;
  }
  if (s.presenter_on) {
    presenter_layout(s, fd, body);
    export_toast(s, fd, ds);
    return fd;
  }

  draw_window(s, fd, body);
  export_toast(s, fd, ds);
  return fd;
}

}  // namespace ws::gui
