// Presenter mode: one view at a time, the status strip, the keys line, and the classroom
// layout (lesson script beside the view); the shortcut lists.
#include "app/gui/panels/panel.h"

namespace ws::gui {

namespace {

// The keys, flowing onto as many lines as the panel needs.
void shortcut_list(FrameDraw& fd, const std::vector<std::pair<std::string, std::string>>& keys) {
  fd.shortcuts_shown = true;
  bool first = true;
  const float gap = ImGui::GetFontSize();
  const float right = ImGui::GetWindowContentRegionMax().x;
  for (const auto& [k, what] : keys) {
    fd.shortcut_keys.push_back(k);
    const float w = ImGui::CalcTextSize(k.c_str()).x + ImGui::GetStyle().ItemSpacing.x +
                    ImGui::CalcTextSize(what.c_str()).x;
    if (!first) {
      ImGui::SameLine(0, gap);
      if (ImGui::GetCursorPosX() + w > right) ImGui::NewLine();
    }
    first = false;
    ImGui::TextColored(viz::to_imvec4(viz::theme({}).key), "%s", k.c_str());
    ImGui::SameLine();
    ImGui::TextUnformatted(what.c_str());
  }
}

// The presenter's strip: one line with the kernel, its parameters (the one [ and ] step
// in brackets), the throughput and the current event; under it one line of keys, which
// `k` folds away. Its height: those lines, the panel's title and padding.
float keys_height(const AppState& s) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const int lines = s.keys_hidden ? 1 : 2;
  return ImGui::GetFrameHeight() + 2 * st.WindowPadding.y + ImGui::GetTextLineHeightWithSpacing() * float(lines) +
         st.ItemSpacing.y;
}

std::string status_text(const AppState& s) {
  std::string t = s.selection().family + "/" + s.selection().variant + "  ";
  const auto names = param_names(s);
  const Params& p = s.completed_params();
  for (std::size_t i = 0; i < names.size(); ++i) {
    auto it = p.find(names[i]);
    if (it == p.end()) continue;
    const std::string kv = names[i] + "=" + std::to_string(it->second);
    t += (i == s.param_cursor % names.size() ? "[" + kv + "]" : kv) + " ";
  }
  const RunResult* timed = s.timed_run();  // the time at the timing size, where there is one
  const bool has_time = s.results.main.valid() && s.results.main.run->error.empty() &&
                        (timed ? timed : s.results.main.run.get())->timing.throughput > 0;
  if (has_time && cover_of(s).views.time) {
    t += std::string(" time: ") + viz::kPredictFirst;
  } else if (has_time) {
    const Timing& tm = (timed ? timed : s.results.main.run.get())->timing;
    char b[64];
    std::snprintf(b, sizeof b, " %.4g %s", tm.throughput, tm.unit.c_str());
    t += b;
    if (timed)
      for (const auto& [k, v] : timed->params)
        if (auto it = p.find(k); it != p.end() && it->second != v) t += " " + k + "=" + std::to_string(v);
    // A recorded time is a measurement, but not of this run: say so (the title bar says where).
    const std::string src = sim::short_label(tm.source);
    if (!src.empty()) t += " (" + src + ")";
    if (!s.results.main.run->verified) t += " WRONG";
  }
  return t;
}

// The keys on one line: as many as fit, then "k hide keys".
void keys_line(FrameDraw& fd, const std::vector<std::pair<std::string, std::string>>& keys) {
  fd.shortcuts_shown = true;
  const float gap = ImGui::GetFontSize(), sp = ImGui::GetStyle().ItemSpacing.x;
  const float right = ImGui::GetWindowContentRegionMax().x - ImGui::GetCursorPosX();
  const std::string hide_key(1, 'k');  // the key, not a name: a char, as Keys::letter takes it
  const float tail = ImGui::CalcTextSize(hide_key.c_str()).x + sp + ImGui::CalcTextSize("hide keys").x + gap;
  float x = 0;
  bool first = true;
  fd.keys_line_fits = true;
  for (const auto& [k, what] : keys) {
    const float w = ImGui::CalcTextSize(k.c_str()).x + sp + ImGui::CalcTextSize(what.c_str()).x;
    if (x + (first ? 0 : gap) + w + tail > right) {
      fd.keys_line_fits = false;
      break;
    }
    if (!first) ImGui::SameLine(0, gap);
    x += (first ? 0 : gap) + w;
    first = false;
    fd.shortcut_keys.push_back(k);
    ImGui::TextColored(viz::to_imvec4(viz::theme({}).key), "%s", k.c_str());
    ImGui::SameLine();
    ImGui::TextUnformatted(what.c_str());
  }
  if (!first) ImGui::SameLine(0, gap);
  ImGui::TextColored(viz::to_imvec4(viz::theme({}).key), "%s", hide_key.c_str());
  ImGui::SameLine();
  ImGui::TextUnformatted("hide keys");
}

void keys_strip(AppState& s, FrameDraw& fd, const Rect& r,
                const std::vector<std::pair<std::string, std::string>>& keys) {
  if (begin_panel(fd, "Keys", r, ImGuiWindowFlags_NoScrollbar)) {
    std::string line = status_text(s);
    if (s.results.main.valid() && !s.results.main.order.empty()) {
      const WarpEvent& e = s.results.main.events()[s.results.stepper.current()];
      fd.stepper.label = "event " + std::to_string(s.results.stepper.pos + 1) + " of " + std::to_string(s.results.stepper.size()) +
                         ": " + (viz::covers(cover_of(s).views, e) ? viz::describe_event_covered(e) : viz::describe_event(e));
      line += "  |  " + fd.stepper.label;
    }
    // The kernel and its numbers first; the event's words give way when the line is full.
    const float avail = ImGui::GetContentRegionAvail().x;
    fd.status_strip = status_text(s);
    fd.status_width = ImGui::CalcTextSize(fd.status_strip.c_str()).x;
    fd.strip_width = avail;
    const std::size_t full = line.size();
    while (line.size() > fd.status_strip.size() && ImGui::CalcTextSize((line + "...").c_str()).x > avail) line.pop_back();
    if (line.size() < full) line += "...";
    ImGui::TextUnformatted(line.c_str());
    if (!s.keys_hidden) keys_line(fd, keys);
  }
  ImGui::End();
}

}  // namespace

// The map that fits the current event, from the view table: sectors for a global access,
// lanes for a branch or a partial mask, banks otherwise.
void auto_view(AppState& s, FrameDraw& fd, const Rect& r) {
  const Loaded& l = s.results.main;
  const WarpEvent* cur = l.order.empty() ? nullptr : &l.events()[l.order[std::min(s.results.stepper.pos, l.order.size() - 1)]];
  unsigned fits = viz::kFitsShared;
  if (cur && cur->kind == EventKind::Mma) fits = viz::kFitsMma;
  else if (cur && is_global(cur->kind)) fits = viz::kFitsGlobal;
  else if (cur && (cur->kind == EventKind::Branch || cur->mask != 0xFFFFFFFFu) && !is_shared(cur->kind))
    fits = viz::kFitsBranch;
  // The maps that fit an access have the source under them; the fragments need the height.
  const unsigned want = fits == viz::kFitsMma ? fits : fits | viz::kWithSource;
  for (const viz::ViewInfo& v : viz::kViews)
    if (v.has(want)) {
      draw_view(v.id, s, fd, r);
      return;
    }
}

// The parameters of the shown variant in order, and which one the keys step.
std::vector<std::string> param_names(const AppState& s) {
  std::vector<std::string> out;
  if (const VariantInfo* v = s.variant_info())
    for (const ParamSpec& p : v->params) out.push_back(p.name);
  return out;
}

void presenter_layout(AppState& s, FrameDraw& fd, const Rect& r) {
  const Rect body{r.x0, r.y0, r.x1, r.y1 - keys_height(s)};
  const float split = r.x0 + r.w() * 0.5f;
  if (begin_panel(fd, "Source", Rect{body.x0, body.y0, split, body.y1}))
    fd.source = source_panel(s, s.results.main, s.results.stepper.pos);
  ImGui::End();
  if (s.results.compare_mode) compare_region(s, fd, Rect{split, body.y0, body.x1, body.y1});
  else auto_view(s, fd, Rect{split, body.y0, body.x1, body.y1});
  keys_strip(s, fd, Rect{r.x0, body.y1, r.x1, r.y1}, shortcuts());
}

// The classroom script: the open step on the left in large type, the view its lab names on
// the right (with the source under the maps, so the class sees which line made the access),
// the keys along the bottom.
void classroom_layout(AppState& s, FrameDraw& fd, const Rect& r) {
  fd.classroom = true;
  const Rect body{r.x0, r.y0, r.x1, r.y1 - keys_height(s)};
  const float split = r.x0 + r.w() * 0.5f;
  if (begin_panel(fd, "Lesson", Rect{body.x0, body.y0, split, body.y1})) lesson_panel(s, fd);
  ImGui::End();
  const Rect right{split, body.y0, body.x1, body.y1};
  const std::string view = s.lesson->lab_view();
  const float src_y = body.y0 + body.h() * 0.66f;
  const Rect top{right.x0, right.y0, right.x1, src_y}, under{right.x0, src_y, right.x1, right.y1};
  const std::size_t pos = s.results.stepper.pos;
  bool source_under = true;
  viz::View v = viz::View::Window;
  const bool named = viz::view_from_string(view, v) && viz::view_info(v).has(viz::kInLab);
  if (s.results.compare_mode) {
    compare_region(s, fd, right);
    source_under = false;
  } else if (named && viz::view_info(v).has(viz::kWithSource)) {
    draw_view(v, s, fd, top);
  } else if (named) {
    draw_view(v, s, fd, right);  // it brings what it needs (the stepper brings the source)
    source_under = false;
  } else {
    auto_view(s, fd, top);
  }
  if (source_under) {
    if (begin_panel(fd, "Source", under)) fd.source = source_panel(s, s.results.main, pos);
    ImGui::End();
  }
  const std::string label = fd.stepper.label;
  keys_strip(s, fd, Rect{r.x0, body.y1, r.x1, r.y1}, lesson_shortcuts());
  if (view == "stepper" && !label.empty()) fd.stepper.label = label;
}

// Short words: the presenter shows the keys on one line (as many as fit, most used first).
const std::vector<std::pair<std::string, std::string>>& shortcuts() {
  static const std::vector<std::pair<std::string, std::string>> k = {
      {"<- ->", "step"},      {"space", "play"},     {"n / p", "conflict"},   {"b", "barrier"},
      {"[ ]", "param -/+"},   {", .", "pick param"}, {"v", "variant"},        {"c", "compare"},
      {"Up/Down", "warp"},    {"Home/End", "ends"},  {"+ / -", "font"},       {"F12", "save PNG"},
      {"F5", "presenter"},    {"F11", "full screen"},
  };
  return k;
}

const std::vector<std::pair<std::string, std::string>>& lesson_shortcuts() {
  static const std::vector<std::pair<std::string, std::string>> k = {
      {"PgDn / n", "next step"}, {"PgUp / b", "back"},       {"<- ->", "event"},
      {"space", "play"},         {"Shift+n / p", "conflict"}, {"Shift+b", "barrier"},
      {"[ ]", "param -/+"},      {", .", "pick param"},      {"v", "variant"},
      {"c", "compare"},          {"Up/Down", "warp"},        {"Home/End", "ends"},
      {"+ / -", "font"},         {"F12", "save PNG"},        {"F5", "leave"},
      {"F11", "full screen"},
  };
  return k;
}

bool classroom(const AppState& s) {
  return s.presenter_on && s.panels[View::Lesson] && s.lesson && s.lesson->is_open();
}

}  // namespace ws::gui
