// The Numbers panel: charts and metrics as tabs.
#include "app/gui/panels/panel.h"

namespace ws::gui {

// The window: three columns. What to run (controls, lesson); what the warp does (stepper,
// source, divergence); what the memory does (bank map, sector map) over the numbers
// (charts, metrics).
// The Numbers panel: charts and metrics as tabs.
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
      ImGui::EndTabBar();
    }
  }
  ImGui::End();
}

}  // namespace ws::gui
