// The toolbar: backend, presenter, compare, export and help buttons, the job's progress,
// the notices under it, and the export toast.
#include "app/gui/panels/panel.h"

namespace ws::gui {

namespace {

void notices_bar(AppState& s, FrameDraw& fd) {
  for (std::size_t i = 0; i < s.notices.size(); ++i) {
    const Notice& n = s.notices[i];
    ImGui::PushID(int(i));
    if (ImGui::SmallButton("x")) {
      s.notices.erase(s.notices.begin() + long(i));
      ImGui::PopID();
      break;
    }
    ImGui::SameLine();
    ImGui::TextColored(n.error ? viz::to_imvec4(th(s).bad) : viz::to_imvec4(th(s).notice), "%s", n.text.c_str());
    fd.notices_shown.push_back(n.text);
    ImGui::PopID();
  }
}

const char* presenter_toggle(const AppState& s) {
  return s.presenter_on ? "leave presenter (F5)" : "presenter (F5)";
}

float toolbar_buttons_width(const AppState& s) {
  const ImGuiStyle& sty = ImGui::GetStyle();
  return ImGui::CalcTextSize("start").x + ImGui::CalcTextSize(presenter_toggle(s)).x +
         ImGui::CalcTextSize("panels").x + ImGui::CalcTextSize("keys").x + 8 * sty.FramePadding.x +
         4 * sty.ItemSpacing.x;
}

// The toolbar's banner on the emulator: says so, and that recorded times are labelled.
static const char* emulated_banner() {
  return default_recording() ? kEmulatedRecordedNotice : kEmulatedNotice;
}

}  // namespace

// Whether the toolbar's buttons go on a second line (the presenter's large font on a
// narrow window): measured on the longest texts the bar shows, so the bar keeps its height
// while a run's elapsed time ticks.
bool toolbar_wraps(const AppState& s, float width) {
  const ImGuiStyle& sty = ImGui::GetStyle();
  float w = ImGui::CalcTextSize("warpscope").x + ImGui::CalcTextSize(("| " + s.backend_line()).c_str()).x +
            4 * sty.ItemSpacing.x;
  if (s.presenter_on) {
    w += ImGui::CalcTextSize("| running 00.0 s").x;
  } else {
    float kind = 0;
    for (int k = 0; k < kJobKinds; ++k)
      kind = std::max(kind, ImGui::CalcTextSize(("| " + std::string(to_string(JobKind(k))) + " 00.0 s").c_str()).x);
    w += kind;
    if (s.frame_ms_median > 0) w += ImGui::CalcTextSize("| 000.0 ms/frame").x + sty.ItemSpacing.x;
    if (s.results.last_latency.measured >= 0)
      w += ImGui::CalcTextSize("| last change: measured 00.00 s, counters 00.00 s").x + sty.ItemSpacing.x;
  }
  if (s.emulated()) w += ImGui::CalcTextSize(emulated_banner()).x + 2 * sty.FramePadding.x + sty.ItemSpacing.x;
  return w + toolbar_buttons_width(s) + 2 * sty.WindowPadding.x > width;
}

void toolbar(AppState& s, FrameDraw& fd, const Rect& r) {
  ImGui::SetNextWindowPos(ImVec2(r.x0, r.y0), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(r.w(), r.h()), ImGuiCond_Always);
  ImGui::Begin("##toolbar", nullptr, kPanelFlags | ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar);
  ImGui::TextUnformatted("warpscope");
  ImGui::SameLine();
  ImGui::TextDisabled("| %s", s.backend_line().c_str());
  if (s.emulated()) {
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Button, viz::to_imvec4(th(s).badge));
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, viz::to_imvec4(th(s).badge));
    ImGui::SmallButton(emulated_banner());
    ImGui::PopStyleColor(2);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.worker().notice().c_str());
    fd.emulated_notice = true;
  }
  ImGui::SameLine();
  if (auto k = s.worker().running()) {
    // The class needs to know that something runs, not which job: the bar stays one line.
    ImGui::TextColored(viz::to_imvec4(th(s).timer), "| %s %.1f s",
                       s.presenter_on ? "running" : std::string(to_string(*k)).c_str(), s.worker().running_seconds());
    // One bar for the job, over all its runs: it never goes back, and the time left is
    // the time so far scaled by the work still to do.
    const RunProgress p = s.worker().run_progress();
    char pct[16];
    std::snprintf(pct, sizeof pct, "%d%%", int(100 * p.fraction()));
    ImGui::SameLine();
    ImGui::ProgressBar(float(p.fraction()), ImVec2(ImGui::GetFontSize() * 5, ImGui::GetTextLineHeight()), pct);
    fd.progress = p.fraction();
    if (p.eta_s > 0.5) {
      ImGui::SameLine();
      ImGui::TextDisabled("about %.0f s left", p.eta_s);
    }
  } else {
    ImGui::TextDisabled("| idle");
  }
  // The buttons sit at the right end of the bar, or on a line of their own when the
  // presenter's large font leaves no room.
  const char* toggle = presenter_toggle(s);
  const ImGuiStyle& sty = ImGui::GetStyle();
  const float buttons = toolbar_buttons_width(s);
  // How long the last change took and the frame time: shown where the line has room for
  // them (before the buttons when they share it), left out rather than cut.
  const bool wraps = toolbar_wraps(s, r.w());
  const float right = r.w() - sty.WindowPadding.x - (wraps ? 0 : buttons + sty.ItemSpacing.x);
  auto optional = [&](const std::string& text) {
    ImGui::SameLine();
    if (ImGui::GetCursorPosX() + ImGui::CalcTextSize(text.c_str()).x > right) return;
    ImGui::TextDisabled("%s", text.c_str());
  };
  char b[128];
  if (s.results.last_latency.measured >= 0 && !s.presenter_on) {
    if (s.results.last_latency.counters >= 0)
      std::snprintf(b, sizeof b, "| last change: %s %.2f s, counters %.2f s", s.emulated() ? "modelled" : "measured",
                    s.results.last_latency.measured, s.results.last_latency.counters);
    else
      std::snprintf(b, sizeof b, "| last change: %s %.2f s", s.emulated() ? "modelled" : "measured",
                    s.results.last_latency.measured);
    optional(b);
  }
  if (s.frame_ms_median > 0 && !s.presenter_on) {
    std::snprintf(b, sizeof b, "| %.1f ms/frame", s.frame_ms_median);
    optional(b);
  }
  ImGui::SameLine();
  if (ImGui::GetCursorPosX() + buttons > r.w()) ImGui::NewLine();
  else ImGui::SameLine(r.w() - buttons - sty.WindowPadding.x);
  // Back to the start page: lesson 1, the lessons and the puzzles.
  if (ImGui::SmallButton("start")) s.start_page = !s.start_page;
  ImGui::SameLine();
  if (ImGui::SmallButton(toggle)) {
    s.presenter_on = !s.presenter_on;
    s.font_dirty = true;
  }
  ImGui::SameLine();
  if (ImGui::SmallButton("panels")) ImGui::OpenPopup("panels");
  if (ImGui::BeginPopup("panels")) {
    // The kernel controls and the source are panels, not views; the rest come from the
    // view table, each under its title.
    ImGui::Checkbox("controls", &s.panels.controls);
    ImGui::Checkbox("source", &s.panels.source);
    for (const viz::ViewInfo& v : viz::kViews) {
      bool* on = panel_switch(s.panels, v.id);
      if (!on) continue;
      std::string label(v.title);
      for (char& c : label) c = char(std::tolower(static_cast<unsigned char>(c)));
      ImGui::Checkbox(label.c_str(), on);
    }
    ImGui::EndPopup();
  }
  ImGui::SameLine();
  if (ImGui::SmallButton("keys")) ImGui::OpenPopup("keys");
  if (ImGui::BeginPopup("keys")) {
    for (const auto& [k, what] : classroom(s) ? lesson_shortcuts() : shortcuts())
      ImGui::Text("%-12s %s", k.c_str(), what.c_str());
    ImGui::EndPopup();
  }
  notices_bar(s, fd);
  ImGui::End();
}

// What F12 (or an export button) just wrote, over everything for four seconds.
void export_toast(AppState& s, FrameDraw& fd, const ImVec2& ds) {
  if (s.last_export.empty() || s.last_export_at < 0 || ImGui::GetTime() - s.last_export_at >= 4.0) return;
  fd.toast = s.last_export;
  ImGui::SetNextWindowPos(ImVec2(ds.x - ImGui::GetFontSize(), ImGui::GetFontSize() * 2.5f), ImGuiCond_Always,
                          ImVec2(1, 0));
  ImGui::SetNextWindowBgAlpha(0.92f);
  ImGui::Begin("##toast", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoFocusOnAppearing |
                   ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoInputs);
  ImGui::PushTextWrapPos(ds.x * 0.6f);
  ImGui::TextColored(s.last_export_failed ? viz::to_imvec4(th(s).export_failed) : viz::to_imvec4(th(s).export_done), "%s",
                     s.last_export.c_str());
  ImGui::PopTextWrapPos();
  ImGui::End();
}

}  // namespace ws::gui
