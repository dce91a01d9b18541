// The source view.
#include "viz/source_view.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <vector>

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
  const float height = in.height > 0 ? in.height : ImGui::GetContentRegionAvail().y;
  ImGui::BeginChild("##source", v2(0, height), false, ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::SetWindowFontScale(1.0f);  // the scale stays with the child: set it every frame
  if (in.fit_current && in.current_line > 0 && in.current_line <= int(f.lines.size())) {
    // The line the step is about, whole: a presenter's large type cut the conflicting
    // column read of the transpose at `s(t.threadIdx.x, t.threa`.
    const float need = ImGui::CalcTextSize("0000  ").x +
                       ImGui::CalcTextSize(f.lines[std::size_t(in.current_line - 1)].c_str()).x +
                       ImGui::GetStyle().ScrollbarSize;
    const float avail = ImGui::GetContentRegionAvail().x;
    if (need > avail && avail > 0) ImGui::SetWindowFontScale(std::max(0.6f, avail / need));
  }
  const float fh = ImGui::GetTextLineHeightWithSpacing();
  const int target = in.current_line > 0 ? in.current_line : in.focus_line;
  const ImGuiID key = ImGui::GetID("##last_target");
  ImGuiStorage* st = ImGui::GetStateStorage();
  bool scroll_to_target = target > 0 && st->GetInt(key, 0) != target;
  if (scroll_to_target) st->SetInt(key, target);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float num_w = ImGui::CalcTextSize("0000  ").x;
  // Rows: every source line, and under each unfolded line its SASS (and the difference
  // note), so the clipper still sees rows of one height.
  struct Row {
    int line;
    int sass;  // -1: the source line; k: the k-th SASS row; -2: the difference note
  };
  ImGuiStorage* fold = ImGui::GetStateStorage();
  auto unfolded = [&](int line) {
    return in.unfold_all ? !fold->GetBool(ImGui::GetID(("##fold" + std::to_string(line)).c_str()), false)
                         : fold->GetBool(ImGui::GetID(("##fold" + std::to_string(line)).c_str()), false);
  };
  std::vector<Row> rows;
  rows.reserve(f.lines.size());
  std::map<int, std::vector<const SassRow*>> shown;
  for (const auto& [line, v] : in.sass)
    for (const SassRow& r : v)
      if (!in.memory_only || r.mem != SassMem::None) shown[line].push_back(&r);
  for (int i = 0; i < int(f.lines.size()); ++i) {
    const int line = i + 1;
    rows.push_back({line, -1});
    const bool has = in.sass.count(line) || in.sass_diffs.count(line);
    if (has && unfolded(line)) {
      auto it = shown.find(line);
      if (it != shown.end())
        for (int k = 0; k < int(it->second.size()); ++k) rows.push_back({line, k});
      if (in.sass_diffs.count(line)) rows.push_back({line, -2});
    }
  }
  const Theme& th = theme(style);
  auto mem_colour = [&](const SassRow& r) -> std::uint32_t {
    switch (r.mem) {
      case SassMem::Global: return th.sass_global;
      case SassMem::Shared: return th.sass_shared;
      case SassMem::Local: return th.sass_local;
      case SassMem::Barrier: return th.sass_barrier;
      case SassMem::None: break;
    }
    return dim_text_colour(style);
  };
  const std::uint32_t diff_col = th.sass_diff;
  if (scroll_to_target) {
    // Keep the line a third from the top: the loop around it stays in view.
    int row_of_target = 0;
    while (row_of_target < int(rows.size()) && rows[std::size_t(row_of_target)].line < target) ++row_of_target;
    ImGui::SetScrollY(std::max(0.0f, row_of_target * fh - ImGui::GetWindowHeight() / 3));
  }
  ImGuiListClipper clip;
  clip.Begin(int(rows.size()), fh);
  bool first = true;
  while (clip.Step()) {
    for (int ri = clip.DisplayStart; ri < clip.DisplayEnd; ++ri) {
      const Row row = rows[std::size_t(ri)];
      const int line = row.line;
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float w = std::max(ImGui::GetWindowWidth(), ImGui::GetContentRegionAvail().x);
      if (row.sass == -2) {
        const std::string t = "   ^ " + in.sass_diffs.at(line);
        text_at(dl, p.x + num_w + 24, p.y, t, diff_col);
        ImGui::Dummy(v2(num_w + 24 + ImGui::CalcTextSize(t.c_str()).x + 8, fh));
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", in.sass_diffs.at(line).c_str());
        continue;
      }
      if (row.sass >= 0) {
        const SassRow& r = *shown.at(line)[std::size_t(row.sass)];
        fill(dl, Rect{p.x + num_w + 8, p.y, p.x + w, p.y + fh}, th.sass_row_bg);
        std::uint32_t c = mem_colour(r);
        text_at(dl, p.x + num_w + 24, p.y, r.text, c);
        float right = p.x + num_w + 24 + ImGui::CalcTextSize(r.text.c_str()).x;
        std::string tag;
        if (r.wide) tag += "  wide";
        if (r.predicated) tag += "  predicated";
        if (!tag.empty()) {
          text_at(dl, right + 8, p.y, tag, diff_col);
          right += 8 + ImGui::CalcTextSize(tag.c_str()).x;
        }
        ImGui::Dummy(v2(right - p.x + 8, fh));
        ++d.sass_rows_drawn;
        continue;
      }
      const int i = line - 1;
      if (first) {
        d.first_line = line;
        first = false;
      }
      if (line == in.current_line) {
        d.current_rect = Rect{p.x, p.y, p.x + w, p.y + fh};
        fill(dl, d.current_rect, th.current_line_bg);
        fill(dl, Rect{p.x, p.y, p.x + 4, p.y + fh}, highlight_colour(style));
      }
      char num[16];
      std::snprintf(num, sizeof num, "%4d", line);
      text_at(dl, p.x + 6, p.y, num, dim_text_colour(style));
      if (auto m = in.marks.find(line); m != in.marks.end()) {
        dl->AddCircleFilled(v2(p.x + 5, p.y + fh / 2), std::max(2.5f, fh * 0.18f), to_imgui(m->second));
        ++d.marks_drawn;
      }
      const bool has_sass = in.sass.count(line) || in.sass_diffs.count(line);
      if (has_sass) {
        // The fold marker between the number and the text; a line whose SASS is not what
        // the model assumes is marked with a magenta bar.
        text_at(dl, p.x + num_w - ImGui::CalcTextSize("+ ").x, p.y, unfolded(line) ? "-" : "+",
                dim_text_colour(style));
        if (in.sass_diffs.count(line)) {
          fill(dl, Rect{p.x + num_w - 4, p.y + 1, p.x + num_w - 1, p.y + fh - 1}, diff_col);
          ++d.diff_marks_drawn;
        }
      }
      const std::string& text = f.lines[std::size_t(i)];
      text_at(dl, p.x + num_w, p.y, text, line == in.current_line ? th.current_line_text : text_colour(style));
      float right = p.x + num_w + ImGui::CalcTextSize(text.c_str()).x;
      const float column = p.x + num_w + ImGui::CalcTextSize(std::string(64, 'x').c_str()).x;
      auto counted = in.counters.find(line);
      if (counted != in.counters.end()) {
        const float cx = std::max(right + 24, column);
        const std::string c = "| " + counted->second;
        text_at(dl, cx, p.y, c, th.counters);
        right = cx + ImGui::CalcTextSize(c.c_str()).x;
        ++d.counters_drawn;
      }
      auto note = in.notes.find(line);
      if (note != in.notes.end()) {
        const float nx = std::max(right + 24, column);
        text_at(dl, nx, p.y, "// " + note->second, th.note);
        right = nx + ImGui::CalcTextSize(("// " + note->second).c_str()).x;
      }
      if (has_sass) {
        const ImGuiID fid = ImGui::GetID(("##fold" + std::to_string(line)).c_str());
        ImGui::PushID(line);
        if (ImGui::InvisibleButton("##line", v2(std::max(right - p.x + 8, 1.0f), fh))) {
          fold->SetBool(fid, !fold->GetBool(fid, false));
          d.toggled_line = line;
        }
        ImGui::PopID();
      } else {
        ImGui::Dummy(v2(right - p.x + 8, fh));
      }
      if ((note != in.notes.end() || counted != in.counters.end()) && ImGui::IsItemHovered())
        ImGui::SetTooltip("line %d: %s%s%s", line,
                          counted != in.counters.end() ? ("whole grid: " + counted->second).c_str() : "",
                          counted != in.counters.end() && note != in.notes.end() ? "\nthis warp: " : "",
                          note != in.notes.end() ? note->second.c_str() : "");
      ++d.lines_drawn;
    }
  }
  clip.End();
  ImGui::EndChild();
  return d;
}

}  // namespace ws::viz
