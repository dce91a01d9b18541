// The Sector map panel (viz/sector_map.h): global-memory sectors of the step shown.
#include "app/gui/panels/panel.h"

namespace ws::gui {

viz::SectorMapDraw sector_panel(const AppState& s, const Loaded& l, std::size_t pos) {
  if (!l.valid()) {
    no_result(s, l);
    return {};
  }
  if (waiting_for(s, l, Stage::Block)) return {};
  const MapPick p = pick_event(l, pos, false);
  viz::SectorMapInput in;
  in.event = p.e;
  in.array = p.e ? l.array_of(*p.e) : nullptr;
  in.caption = p.e ? map_caption(l, p, "global access") : l.sel.variant + ": this warp makes no global access";
  in.covered = cover_of(s).views.global;
  return viz::draw_sector_map(in, style_of(s));
}

void draw_sector_map(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::SectorMap).c_str(), r)) fd.sector = sector_panel(s, s.results.main, s.results.stepper.pos);
  ImGui::End();
}

}  // namespace ws::gui
