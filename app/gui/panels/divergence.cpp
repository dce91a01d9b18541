// The Divergence panel (viz/mask_strip.h): the warp's active-lane mask over its steps.
#include "app/gui/panels/panel.h"

namespace ws::gui {

namespace {

viz::MaskStripDraw mask_panel(AppState& s, const Loaded& l, std::size_t pos) {
  if (!l.valid()) {
    no_result(s, l);
    return {};
  }
  if (waiting_for(s, l, Stage::Block)) return {};
  viz::MaskStripInput in;
  in.history = &l.mask;
  in.current = l.order.empty() ? -1 : int(std::min(pos, l.order.size() - 1));
  in.covered = cover_of(s).views.branch;
  viz::MaskStripDraw d = viz::draw_mask_strip(in, style_of(s));
  if (d.clicked >= 0 && &l == &s.results.main) s.results.stepper.seek(std::size_t(d.clicked));
  return d;
}

}  // namespace

void draw_divergence(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::Divergence).c_str(), r)) fd.mask = mask_panel(s, s.results.main, s.results.stepper.pos);
  ImGui::End();
}

}  // namespace ws::gui
