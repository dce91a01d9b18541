// What every panel shares: the panel window, its style and colours, what a lesson keeps
// back, the event a map shows, small layout helpers.
#include "app/gui/panels/panel.h"

namespace ws::gui {

viz::ViewStyle style_of(const AppState& s) {
  return s.presenter_on ? viz::ViewStyle::presenter() : viz::ViewStyle{};
}

// The window's colours for the current style (viz/theme.h).
const viz::Theme& th(const AppState& s) { return viz::theme(style_of(s)); }

// What the open lesson's unanswered predicts keep back (nothing without a lesson in view):
// every panel below that shows such a number draws viz::kPredictFirst in its place.
LessonCover cover_of(const AppState& s) {
  if (!s.panels[View::Lesson] || !s.lesson || !s.lesson->is_open()) return {};
  return s.lesson->cover();
}

// The SASS note ("..., 96 registers, ...") with its register count kept back while a
// launch-shape predict (registers, occupancy) is open.
std::string sass_note(std::string note, bool launch_covered) {
  const std::size_t at = note.find(" registers");
  if (!launch_covered || at == std::string::npos) return note;
  std::size_t from = at;
  while (from > 0 && std::isdigit(static_cast<unsigned char>(note[from - 1]))) --from;
  return note.substr(0, from) + "registers: " + viz::kPredictFirst + note.substr(at + 10);
}

// A source line's note or counters that name a covered number.
bool note_covered(const viz::Covered& c, const std::string& note) {
  auto has = [&](const char* w) { return note.find(w) != std::string::npos; };
  return (c.shared && (has("bank") || has("wavefront") || has("conflict"))) ||
         (c.global && (has("sector") || has("req"))) || (c.branch && (has("diverg") || has("SIMD")));
}

// The stepper panel `width` wide: title, rows of buttons, scrub bar, the description.
float stepper_height(float width) {
  const ImGuiStyle& st = ImGui::GetStyle();
  return ImGui::GetFrameHeight() + 2 * st.WindowPadding.y + viz::stepper_content_height(width - 2 * st.WindowPadding.x);
}

// Opens a panel window at a fixed place; false when it is not visible this frame.
bool begin_panel(FrameDraw& fd, const char* title, const Rect& r, ImGuiWindowFlags extra) {
  if (is_inside(r)) {
    const ImVec2 p = ImGui::GetCursorScreenPos(), a = ImGui::GetContentRegionAvail();
    fd.panels[title] = Rect{p.x, p.y, p.x + a.x, p.y + a.y};
    ++fd.panels_drawn;
    return ImGui::BeginChild(title, ImVec2(0, 0), false, extra);
  }
  ImGui::SetNextWindowPos(ImVec2(r.x0, r.y0), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(r.w(), r.h()), ImGuiCond_Always);
  const bool open = ImGui::Begin(title, nullptr, kPanelFlags | extra);
  fd.panels[title] = r;
  ++fd.panels_drawn;
  return open;
}

void end_panel(const Rect& r) {
  if (is_inside(r))
    ImGui::EndChild();
  else
    ImGui::End();
}

MapPick pick_event(const Loaded& l, std::size_t pos, bool shared) {
  MapPick p;
  const auto& ev = l.events();
  if (l.order.empty()) return p;
  pos = std::min(pos, l.order.size() - 1);
  auto match = [&](std::size_t q) {
    const WarpEvent& e = ev[l.order[q]];
    return shared ? is_shared(e.kind) : is_global(e.kind);
  };
  for (std::size_t q = pos + 1; q-- > 0;)
    if (match(q)) {
      p.e = &ev[l.order[q]];
      p.pos = q;
      p.where = q == pos ? 0 : -1;
      return p;
    }
  for (std::size_t q = pos + 1; q < l.order.size(); ++q)
    if (match(q)) {
      p.e = &ev[l.order[q]];
      p.pos = q;
      p.where = 1;
      return p;
    }
  return p;
}

// The next item on this line when its `width` fits before the panel's edge, else on the
// next line: rows of buttons wrap instead of running off the panel.
void same_line_or_wrap(float width) {
  ImGui::SameLine();
  if (ImGui::GetCursorPosX() + width > ImGui::GetWindowContentRegionMax().x) ImGui::NewLine();
}

float small_button_w(const char* label) {
  return ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
}

float checkbox_w(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}

void wrapped_dim(const std::string& text) {
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s", text.c_str());
  ImGui::PopTextWrapPos();
}

// A dim text after the items on this line, or under them when it does not fit there.
void dim_after(const char* text) {
  same_line_or_wrap(ImGui::CalcTextSize(text).x);
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s", text);
  ImGui::PopTextWrapPos();
}

// Dim text cut to the rest of the line with "..." when longer; the whole text as a tooltip.
void text_fitted(const std::string& text) {
  if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize("mmmm...").x) ImGui::NewLine();
  const float avail = ImGui::GetContentRegionAvail().x;
  std::string shown = text;
  if (ImGui::CalcTextSize(text.c_str()).x > avail) {
    while (!shown.empty() && ImGui::CalcTextSize((shown + "...").c_str()).x > avail) shown.pop_back();
    shown += "...";
  }
  ImGui::TextDisabled("%s", shown.c_str());
  if (shown != text && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text.c_str());
}

std::string map_caption(const Loaded& l, const MapPick& p, const char* what) {
  char b[200];
  std::snprintf(b, sizeof b, "%s/%s - block %u warp %u - event %zu of %zu, line %u%s%s", l.sel.family.c_str(),
                l.sel.variant.c_str(), l.sel.block, unsigned(l.sel.warp), p.pos + 1, l.order.size(),
                p.e ? unsigned(p.e->line) : 0u, p.where == 0 ? "" : p.where < 0 ? " - the latest " : " - the next ",
                p.where == 0 ? "" : what);
  return b;
}

void no_result(const AppState& s, const Loaded& l) {
  if (l.valid()) return;
  if (s.main_pending() || !s.worker().ready())
    ImGui::TextDisabled("Running %s/%s on the %s...", s.selection().family.c_str(),
                        s.selection().variant.c_str(), s.emulated() ? "emulator" : "backend");
  else
    ImGui::TextDisabled("No result yet.");
}

// What a panel waits for while its stage of the run has not landed: one dim line, and
// true when the panel has nothing of this run to draw yet.
bool waiting_for(const AppState& s, const Loaded& l, Stage st) {
  if (!l.valid() || l.has(st) || l.final) return false;
  const char* on = s.emulated() ? "emulator" : "GPU";
  switch (st) {
    case Stage::Measured: ImGui::TextDisabled("waiting for the measured time (%s)...", on); break;
    case Stage::Block:
      ImGui::TextDisabled("waiting for block %u's events (traced build, %s)...", l.sel.block, on);
      break;
    case Stage::Counters:
      ImGui::TextDisabled("waiting for the whole-grid counters (%s, %s)...", on,
                          s.emulated() ? "every block emulated" : "counted on the device");
      break;
  }
  return true;
}

std::string title_of(View v) { return std::string(viz::view_info(v).title); }

}  // namespace ws::gui
