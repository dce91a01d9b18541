// The Numbers panel: charts and metrics as tabs.
#include "app/gui/panels/panel.h"

namespace ws::gui {

// The window: three columns. What to run (controls, lesson); what the warp does (stepper,
// source, divergence); what the memory does (bank map, sector map) over the numbers
// (charts, metrics).
void numbers_panel(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, "Numbers", r)) {
    if (ImGui::BeginTabBar("numbers")) {
      if (s.panels[View::Charts] && ImGui::BeginTabItem("Charts")) {
        charts_panel(s, fd, false);
        ImGui::EndTabItem();
      }
      if (s.panels[View::Metrics] && ImGui::BeginTabItem("Metrics")) {
        fd.metrics = metrics_panel(s, s.results.main);
        ImGui::EndTabItem();
      }
      // Every row that asks for a tab here (kInNumbers), drawn inside it: its panel file
      // and its row are all a new view of this kind needs.
      for (const viz::ViewInfo& v : viz::kViews)
        if (v.has(viz::kInNumbers) && s.panels[v.id] && ImGui::BeginTabItem(std::string(v.title).c_str())) {
          draw_view(v.id, s, fd, kInside);
          ImGui::EndTabItem();
        }
      ImGui::EndTabBar();
    }
  }
  ImGui::End();
}

bool numbers_shown(const AppState& s) {
  if (s.panels[View::Charts] || s.panels[View::Metrics]) return true;
  for (const viz::ViewInfo& v : viz::kViews)
    if (v.has(viz::kInNumbers) && s.panels[v.id]) return true;
  return false;
}

}  // namespace ws::gui
