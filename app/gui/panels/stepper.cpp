// The Stepper panel (viz/stepper.h), with the source under it.
#include "app/gui/panels/panel.h"

namespace ws::gui {

viz::StepperDraw stepper_panel(AppState& s) {
  if (!s.results.main.valid()) {
    no_result(s, s.results.main);
    return {};
  }
  return viz::draw_stepper(s.results.stepper, s.results.main.events(), {}, style_of(s), cover_of(s).views);
}

// The stepper with the source under it, and the divergence strip beside the source when the
// rectangle is clearly wider than tall (a whole window; not the classroom's right half).
void draw_stepper(AppState& s, FrameDraw& fd, const Rect& r) {
  const Rect top{r.x0, r.y0, r.x1, r.y0 + stepper_height(r.w())};
  if (begin_panel(fd, title_of(View::Stepper).c_str(), top)) fd.stepper = stepper_panel(s);
  ImGui::End();
  const bool beside = r.w() > 1.4f * r.h();
  const Rect left{r.x0, top.y1, beside ? r.x0 + r.w() * 0.55f : r.x1, r.y1};
  if (begin_panel(fd, "Source", left)) fd.source = source_panel(s, s.results.main, s.results.stepper.pos);
  ImGui::End();
  if (beside) draw_divergence(s, fd, Rect{left.x1, top.y1, r.x1, r.y1});
}

}  // namespace ws::gui
