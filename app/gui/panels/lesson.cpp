// The Lesson panel, and the window's column that holds it with the controls.
#include "app/gui/panels/panel.h"

namespace ws::gui {

void lesson_panel(AppState& s, FrameDraw& fd) {
  if (s.lesson) fd.lesson = s.lesson->draw(s);
  fd.lesson_drawn = true;
}

void draw_lesson(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::Lesson).c_str(), r)) lesson_panel(s, fd);
  ImGui::End();
}

// A lesson open in the window: the player is the main column (the left 40 %, full
// height), the lab beside it: the stepper over the source and the kernel's controls, and
// the view the step names (or the map that fits the current event) over the numbers.
void lesson_window(AppState& s, FrameDraw& fd, const Rect& body) {
  const float W = body.w();
  const float split = body.x0 + std::clamp(W * 0.4f, std::min(ImGui::GetFontSize() * 24, W * 0.5f), W * 0.45f);
  if (begin_panel(fd, "Lesson", Rect{body.x0, body.y0, split, body.y1})) lesson_panel(s, fd);
  ImGui::End();
  const Rect right{split, body.y0, body.x1, body.y1};
  if (s.results.compare_mode) {
    compare_region(s, fd, right);
    return;
  }
  const float mid = right.x0 + right.w() * 0.5f;
  viz::View v = viz::View::Window;
  const bool named = viz::view_from_string(s.lesson->lab_view(), v) && viz::view_info(v).has(viz::kInLab);
  // The middle column: what the warp does, and what to change.
  float y = right.y0;
  if (s.panels[View::Stepper] || (named && v == viz::View::Stepper)) {
    const float h = stepper_height(mid - right.x0);
    if (begin_panel(fd, "Stepper", Rect{right.x0, y, mid, y + h})) fd.stepper = stepper_panel(s);
    ImGui::End();
    y += h;
  }
  const float src_y1 = s.panels.controls ? y + (right.y1 - y) * 0.56f : right.y1;
  const Rect src{right.x0, y, mid, src_y1};
  if (s.editor) {
    draw_view(View::Editor, s, fd, src);
  } else {
    if (begin_panel(fd, "Source", src)) fd.source = source_panel(s, s.results.main, s.results.stepper.pos);
    ImGui::End();
  }
  if (s.panels.controls) {
    if (begin_panel(fd, "Kernel", Rect{right.x0, src_y1, mid, right.y1})) controls_panel(s, fd);
    ImGui::End();
  }
  // The right column: the step's view over the numbers; a chart or the metrics the step
  // names take the whole column.
  const Rect col{mid, right.y0, right.x1, right.y1};
  if (named && (v == viz::View::Charts || v == viz::View::Metrics || viz::view_info(v).has(viz::kInNumbers) ||
                viz::view_info(v).has(viz::kFitsMma))) {
    draw_view(v, s, fd, col);
    return;
  }
  const bool numbers = numbers_shown(s);
  const float view_y1 = numbers ? col.y0 + col.h() * 0.6f : col.y1;
  const Rect top{col.x0, col.y0, col.x1, view_y1};
  if (named && viz::view_info(v).has(viz::kWithSource)) draw_view(v, s, fd, top);
  else auto_view(s, fd, top);
  if (numbers) numbers_panel(s, fd, Rect{col.x0, view_y1, col.x1, col.y1});
}

}  // namespace ws::gui
