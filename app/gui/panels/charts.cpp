// The Charts panel (viz/chart_widget.h): history, variant bars, sweep, with their exports.
#include "app/gui/panels/panel.h"
#include "app/gui/lesson_step.h"

namespace ws::gui {

namespace {

void export_buttons(AppState& s, const char* id, const viz::ChartSpec& spec, const std::string& base) {
  ImGui::PushID(id);
  for (const char* fmt : {"png", "svg", "csv"}) {
    char label[16];
    std::snprintf(label, sizeof label, "%s", fmt);
    for (char* c = label; *c; ++c) *c = char(std::toupper(*c));
    same_line_or_wrap(small_button_w(label));
    if (ImGui::SmallButton(label)) {
      std::string err;
      const std::string path = export_chart(spec, fmt, s.export_dir, base, err);
      s.last_export = path.empty() ? err : "saved to " + path;
      s.last_export_failed = path.empty();
      s.last_export_at = ImGui::GetTime();
    }
  }
  ImGui::PopID();
}

std::string chart_base(const AppState& s, const char* what) {
  return std::string(what) + "-" + s.selection().family + "-" + s.selection().variant;
}

// A chart kept back by a lesson's timed predict: its place, saying whose (h 0: the rest).
// `id` keeps the three charts' places apart (one shared child would stack their texts).
void chart_covered(const AppState& s, const char* id, float h) {
  const float line = ImGui::GetTextLineHeightWithSpacing();
  ImGui::PushID(id);
  ImGui::BeginChild("##covered", ImVec2(0, h > 0 ? h : 0), true);
  ImGui::SetCursorPosY(std::max(ImGui::GetCursorPosY(), (ImGui::GetContentRegionAvail().y - 2 * line) / 2));
  ImGui::PushTextWrapPos(0);
  const LessonCover c = cover_of(s);
  const std::string text = std::string(viz::kPredictFirst) + ": this chart would show the answer to " +
                           step::time_cover_reason(c) + "; answer it" + (c.time_by_steps.empty() ? "" : " there") +
                           " to see the chart";
  ImGui::TextDisabled("%s", text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
  ImGui::PopID();
}

}  // namespace

void charts_panel(AppState& s, FrameDraw& fd, bool stacked) {
  const viz::ViewStyle st = style_of(s);
  const bool covered = cover_of(s).views.time;
  auto history = [&](float h) {
    const viz::ChartSpec c = s.history_chart();
    ImGui::TextUnformatted("History: one point per run");
    if (covered) return chart_covered(s, "hist", h);
    export_buttons(s, "hist", c, chart_base(s, "history"));
    fd.history = viz::DrawChart("history", c, ImVec2(0, h), st);
  };
  auto bars = [&](float h) {
    const viz::ChartSpec c = s.bars_chart();
    fd.bars_spec = c;
    fd.bars_spec_set = true;
    ImGui::TextUnformatted("Every variant at these parameters");
    if (covered) return chart_covered(s, "bars", h);
    export_buttons(s, "bars", c, chart_base(s, "variants"));
    same_line_or_wrap(checkbox_w("follow changes"));
    ImGui::Checkbox("follow changes", &s.charts.live_charts);
    same_line_or_wrap(small_button_w("run now"));
    if (ImGui::SmallButton("run now")) s.request_bars();
    if (s.bars_pending())
      dim_after(s.main_pending() ? "waiting for the run, then the variants..." : "measuring the variants...");
    if (s.worker().running() == JobKind::Bars) {
      const auto [done, total] = s.worker().progress();
      dim_after((std::to_string(done) + "/" + std::to_string(total)).c_str());
    }
    for (const BarPoint& b : s.charts.bars)
      if (!b.skipped.empty()) wrapped_dim(b.variant + " not run: " + b.skipped);
    fd.bars = viz::DrawChart("bars", c, ImVec2(0, h), st);
  };
  auto sweep = [&](float h) {
    const viz::ChartSpec c = s.sweep_chart();
    ImGui::TextUnformatted("Sweep");
    if (covered) return chart_covered(s, "sweep", h);
    export_buttons(s, "sweep", c, chart_base(s, "sweep"));
    const VariantInfo* v = s.variant_info();
    if (v) {
      auto combo = [&](const char* label, std::string& value, bool allow_none) {
        same_line_or_wrap(ImGui::GetFontSize() * 7 + ImGui::GetStyle().ItemInnerSpacing.x +
                          ImGui::CalcTextSize(label, nullptr, true).x);
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
        if (ImGui::BeginCombo(label, value.empty() ? "(none)" : value.c_str())) {
          if (allow_none && ImGui::Selectable("(none)", value.empty())) value.clear();
          for (const ParamSpec& p : v->params)
            if (ImGui::Selectable(p.name.c_str(), p.name == value)) value = p.name;
          ImGui::EndCombo();
        }
      };
      combo("x##sweepx", s.charts.sweep_x, false);
      combo("series##sweeps", s.charts.sweep_series, true);
      // As wide as the metric's name (up to the panel's width), so the choice is not cut.
      const char* ypre = s.charts.sweep_metric.empty() ? "throughput" : s.charts.sweep_metric.c_str();
      const float yw = std::min(std::max(ImGui::GetFontSize() * 9, ImGui::CalcTextSize(ypre).x + ImGui::GetFrameHeight() +
                                                                       ImGui::GetStyle().FramePadding.x * 2 + 2),
                                ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("y").x -
                                    ImGui::GetStyle().ItemInnerSpacing.x);
      same_line_or_wrap(yw + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize("y").x);
      ImGui::SetNextItemWidth(yw);
      if (ImGui::BeginCombo("y##sweepy", ypre)) {
        if (ImGui::Selectable("throughput", s.charts.sweep_metric.empty())) s.charts.sweep_metric.clear();
        for (const SweepPoint& p : s.charts.sweep) {
          if (p.plain.empty()) continue;
          for (const auto& kv : p.plain)
            if (ImGui::Selectable(kv.first.c_str(), kv.first == s.charts.sweep_metric)) s.charts.sweep_metric = kv.first;
          break;
        }
        ImGui::EndCombo();
      }
      same_line_or_wrap(small_button_w("run sweep"));
      if (ImGui::SmallButton("run sweep")) s.request_sweep();
      if (s.worker().running() == JobKind::Sweep) {
        const auto [done, total] = s.worker().progress();
        dim_after((std::to_string(done) + "/" + std::to_string(total)).c_str());
      }
    }
    int skipped = 0;
    std::string first_why;
    for (const SweepPoint& p : s.charts.sweep)
      if (!p.skipped.empty() || !p.error.empty()) {
        if (!skipped++) first_why = p.skipped.empty() ? p.error : p.skipped;
      }
    if (skipped)
      wrapped_dim(std::to_string(skipped) + (skipped == 1 ? " point" : " points") + " not run (" + first_why + ")");
    fd.sweep = viz::DrawChart("sweep", c, ImVec2(0, h), st);
  };
  // Three header rows of buttons and the spacing between the charts; the rest is plot.
  const float h = (ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeightWithSpacing() * 3.5f -
                   ImGui::GetStyle().ItemSpacing.y * 3) / 3;
  // A chart needs its axis label, ticks, x label and a plot of five lines: where three
  // stacked ones would be strips (presenter type on a projector), they become tabs.
  if (stacked && h < ImGui::GetFontSize() * 11) stacked = false;
  if (stacked) {
    history(h);
    bars(h);
    sweep(0);  // the rest of the panel
    return;
  }
  if (ImGui::BeginTabBar("charts")) {
    if (ImGui::BeginTabItem("Variants")) {
      bars(0);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("History")) {
      history(0);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Sweep")) {
      sweep(0);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
}

void draw_charts(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::Charts).c_str(), r)) charts_panel(s, fd, true);
  ImGui::End();
}

}  // namespace ws::gui
