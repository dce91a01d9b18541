// The source view.
#include "viz/source_view.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "viz/imgui_util.h"

namespace ws::viz {

SourceFile load_source(const std::string& rel, const std::vector<std::string>& roots) {
  SourceFile f;
  if (rel.empty()) {
    f.error = "this variant names no source file";
    return f;
  }
  std::string tried;
  for (const std::string& root : roots) {
    if (root.empty()) continue;
    const std::string p = root + "/" + rel;
    std::ifstream in(p);
    if (!in) {
      tried += (tried.empty() ? "" : ", ") + p;
      continue;
    }
    std::string line;
    while (std::getline(in, line)) {
      for (char& c : line)
        if (c == '\t') c = ' ';
      f.lines.push_back(line);
    }
    f.path = p;
    return f;
  }
  f.error = "cannot find " + rel + (tried.empty() ? " (no source directory known)" : " (looked in " + tried + ")");
  return f;
}

int find_struct_line(const SourceFile& f, const std::string& entry) {
  if (entry.empty()) return 0;
  const std::string want = "struct " + entry;
  for (std::size_t i = 0; i < f.lines.size(); ++i) {
    const std::string& l = f.lines[i];
    const auto at = l.find(want);
    if (at == std::string::npos) continue;
    const std::size_t end = at + want.size();
    if (end == l.size() || l[end] == ' ' || l[end] == '{' || l[end] == ':') return int(i) + 1;
  }
  return 0;
}

SourceViewDraw draw_source_view(const SourceViewInput& in, const ViewStyle& style) {
  SourceViewDraw d;
  if (!in.file || in.file->lines.empty()) {
    d.note = in.file && !in.file->error.empty() ? in.file->error : "No source to show.";
    ImGui::TextWrapped("%s", d.note.c_str());
    return d;
  }
  const SourceFile& f = *in.file;
  d.drawn = true;
  d.current_line = in.current_line;
  const float fh = ImGui::GetTextLineHeightWithSpacing();
  const float height = in.height > 0 ? in.height : ImGui::GetContentRegionAvail().y;
  ImGui::BeginChild("##source", v2(0, height), false, ImGuiWindowFlags_HorizontalScrollbar);
  const int target = in.current_line > 0 ? in.current_line : in.focus_line;
  const ImGuiID key = ImGui::GetID("##last_target");
  ImGuiStorage* st = ImGui::GetStateStorage();
  if (target > 0 && st->GetInt(key, 0) != target) {
    // Keep the line a third from the top: the loop around it stays in view.
    ImGui::SetScrollY(std::max(0.0f, (target - 1) * fh - ImGui::GetWindowHeight() / 3));
    st->SetInt(key, target);
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float num_w = ImGui::CalcTextSize("0000  ").x;
  ImGuiListClipper clip;
  clip.Begin(int(f.lines.size()), fh);
  bool first = true;
  while (clip.Step()) {
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const int line = i + 1;
      const ImVec2 p = ImGui::GetCursorScreenPos();
      if (first) {
        d.first_line = line;
        first = false;
      }
      const float w = std::max(ImGui::GetWindowWidth(), ImGui::GetContentRegionAvail().x);
      if (line == in.current_line) {
        d.current_rect = Rect{p.x, p.y, p.x + w, p.y + fh};
        fill(dl, d.current_rect, style.high_contrast ? 0x0050A0FFu : 0x2D4F8AFFu);
        fill(dl, Rect{p.x, p.y, p.x + 4, p.y + fh}, highlight_colour(style));
      }
      char num[16];
      std::snprintf(num, sizeof num, "%4d", line);
      text_at(dl, p.x + 6, p.y, num, dim_text_colour(style));
      if (auto m = in.marks.find(line); m != in.marks.end()) {
        dl->AddCircleFilled(v2(p.x + 5, p.y + fh / 2), std::max(2.5f, fh * 0.18f), to_imgui(m->second));
        ++d.marks_drawn;
      }
      const std::string& text = f.lines[std::size_t(i)];
      text_at(dl, p.x + num_w, p.y, text, line == in.current_line ? 0xFFFFFFFFu : text_colour(style));
      float right = p.x + num_w + ImGui::CalcTextSize(text.c_str()).x;
      auto note = in.notes.find(line);
      if (note != in.notes.end()) {
        const float nx = std::max(right + 24, p.x + num_w + ImGui::CalcTextSize(std::string(64, 'x').c_str()).x);
        text_at(dl, nx, p.y, "// " + note->second, style.high_contrast ? 0xFFB000FFu : 0xE6A23CFFu);
        right = nx + ImGui::CalcTextSize(("// " + note->second).c_str()).x;
      }
      ImGui::Dummy(v2(right - p.x + 8, fh));
      if (note != in.notes.end() && ImGui::IsItemHovered()) ImGui::SetTooltip("line %d: %s", line, note->second.c_str());
      ++d.lines_drawn;
    }
  }
  clip.End();
  ImGui::EndChild();
  return d;
}

}  // namespace ws::viz
