// The Bank map panel (viz/bank_map.h): shared-memory banks of the step shown.
#include "app/gui/panels/panel.h"

namespace ws::gui {

viz::BankMapDraw bank_panel(const AppState& s, const Loaded& l, std::size_t pos) {
  if (!l.valid()) {
    no_result(s, l);
    return {};
  }
  if (waiting_for(s, l, Stage::Block)) return {};
  const MapPick p = pick_event(l, pos, true);
  viz::BankMapInput in;
  in.event = p.e;
  in.array = p.e ? l.array_of(*p.e) : nullptr;
  in.row_elems = in.array ? in.array->cols : 0;  // the shape shared2d declared
  in.caption = p.e ? map_caption(l, p, "shared access") : "";
  in.covered = cover_of(s).views.shared;
  if (!p.e) {
    in.caption = l.sel.variant + ": this warp makes no shared-memory access";
  }
  return viz::draw_bank_map(in, style_of(s));
}

void draw_bank_map(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::BankMap).c_str(), r)) fd.bank = bank_panel(s, s.results.main, s.results.stepper.pos);
  ImGui::End();
}

}  // namespace ws::gui
