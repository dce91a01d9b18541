// The divergence mask strip view.
#include "viz/mask_strip.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <vector>

#include "viz/imgui_util.h"

namespace ws::viz {

std::uint32_t mask_cell_colour(std::uint32_t mask, std::uint32_t ballot, EventKind kind, int lane,
                               const ViewStyle& style) {
  if (!((mask >> lane) & 1u)) return lane_off_colour(style);
  if (kind == EventKind::Branch || kind == EventKind::Vote)
    return ((ballot >> lane) & 1u) ? ballot_true_colour(style) : ballot_false_colour(style);
  return lane_on_colour(style);
}

MaskStripDraw draw_mask_strip(const MaskStripInput& in, const ViewStyle& style) {
  MaskStripDraw d;
  if (!in.history || in.history->masks.empty()) {
    d.note = "No events recorded for this warp.";
    ImGui::TextWrapped("%s", d.note.c_str());
    return d;
  }
  const sim::MaskHistory& h = *in.history;
  d.drawn = true;
  d.rows_total = int(h.masks.size());
  d.simd_efficiency = h.simd_efficiency();
  int branches = 0, divergent_branches = 0;
  for (std::size_t i = 0; i < h.masks.size(); ++i) {
    if (h.masks[i] != 0xFFFFFFFFu) ++d.divergent_rows;
    if (i < h.kinds.size() && h.kinds[i] == EventKind::Branch) {
      ++branches;
      const std::uint32_t b = i < h.ballots.size() ? h.ballots[i] : 0;
      if (b != 0 && b != h.masks[i]) ++divergent_branches;
    }
  }
  ImGui::TextWrapped("block %u warp %u: %d events, SIMD efficiency %s", h.block, unsigned(h.warp),
                     d.rows_total, in.covered ? kPredictFirst : percent(d.simd_efficiency).c_str());
  char br[96];
  if (in.covered)
    std::snprintf(br, sizeof br, "- %d marked branch%s, divergent: %s", branches, branches == 1 ? "" : "es",
                  kPredictFirst);
  else
    std::snprintf(br, sizeof br, "- %d marked branch%s, %d divergent", branches,
                  branches == 1 ? "" : "es", divergent_branches);
  // Beside the first line when it fits there, else under it.
  ImGui::SameLine();
  if (ImGui::CalcTextSize(br).x > ImGui::GetContentRegionAvail().x) ImGui::NewLine();
  ImGui::TextDisabled("%s", br);
  // A legend in the colours the cells use.
  bool first_swatch = true;
  auto swatch = [&](std::uint32_t c, const char* label) {
    const float s = ImGui::GetTextLineHeight();
    // An entry that does not fit the rest of the line starts the next one.
    if (!first_swatch &&
        s + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(label).x > ImGui::GetContentRegionAvail().x)
      ImGui::NewLine();
    first_swatch = false;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    fill(dl, Rect{p.x, p.y + 2, p.x + s, p.y + s - 2}, c, 2);
    ImGui::Dummy(v2(s, s));
    ImGui::SameLine();
    ImGui::TextUnformatted(label);
    ImGui::SameLine();
  };
  swatch(lane_on_colour(style), "active");
  swatch(lane_off_colour(style), "inactive");
  swatch(ballot_true_colour(style), "branch taken");
  swatch(ballot_false_colour(style), "branch not taken");
  ImGui::NewLine();

  const float fh = ImGui::GetTextLineHeight();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // The label column as wide as this warp's longest label ("#16 L103 shared_load"), so
  // a narrow panel keeps room for the cells and the counts.
  unsigned max_line = 0;
  float kind_w = ImGui::CalcTextSize("other side").x;
  std::vector<bool> seen(64, false);
  for (std::size_t i = 0; i < h.lines.size(); ++i) max_line = std::max(max_line, unsigned(h.lines[i]));
  for (EventKind k : h.kinds)
    if (std::size_t(k) < seen.size() && !seen[std::size_t(k)]) {
      seen[std::size_t(k)] = true;
      kind_w = std::max(kind_w, ImGui::CalcTextSize(std::string(to_string(k)).c_str()).x);
    }
  const std::string digits = "#" + std::string(std::to_string(std::max(0, d.rows_total - 1)).size(), '0') + " L" +
                             std::string(std::to_string(max_line).size(), '0') + "  ";
  const float label_w = ImGui::CalcTextSize(digits.c_str()).x + kind_w;
  const float count_w = ImGui::CalcTextSize(" 32/32").x + 6;
  d.cell_w = std::clamp((avail.x - label_w - count_w - ImGui::GetStyle().ScrollbarSize - 4) / 32.0f, 3.0f, 36.0f);
  d.cell_h = std::max(fh + 2, 6.0f);
  const float row_h = d.cell_h + 1;
  const float height = in.height > 0 ? in.height : std::max(avail.y, row_h * 3);

  // Display rows: each event, and under a divergent branch the two sides it splits into.
  struct DRow {
    int index, side;
  };
  std::vector<DRow> drows;
  drows.reserve(h.masks.size() + 8);
  int current_drow = -1;
  for (int i = 0; i < d.rows_total; ++i) {
    if (i == in.current) current_drow = int(drows.size());
    drows.push_back({i, 0});
    const std::uint32_t m = h.masks[std::size_t(i)];
    const std::uint32_t b = std::size_t(i) < h.ballots.size() ? h.ballots[std::size_t(i)] & m : 0;
    const bool branch = std::size_t(i) < h.kinds.size() && h.kinds[std::size_t(i)] == EventKind::Branch;
    if (branch && b != 0 && b != m) {
      drows.push_back({i, 1});
      drows.push_back({i, 2});
    }
  }
  d.display_rows = int(drows.size());

  ImGui::BeginChild("##maskrows", v2(0, height), false);
  const ImGuiID key = ImGui::GetID("##last_current");
  ImGuiStorage* st = ImGui::GetStateStorage();
  if (in.follow_current && current_drow >= 0 && st->GetInt(key, -1) != in.current) {
    const float target = current_drow * row_h - ImGui::GetWindowHeight() / 2 + row_h;
    ImGui::SetScrollY(std::max(0.0f, target));
    st->SetInt(key, in.current);
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImGuiListClipper clip;
  clip.Begin(d.display_rows, row_h);
  const std::uint32_t dim = dim_text_colour(style), ink = text_colour(style);
  while (clip.Step()) {
    for (int r = clip.DisplayStart; r < clip.DisplayEnd; ++r) {
      const int i = drows[std::size_t(r)].index;
      const ImVec2 p = ImGui::GetCursorScreenPos();
      MaskRow row;
      row.index = i;
      row.side = drows[std::size_t(r)].side;
      row.mask = h.masks[std::size_t(i)];
      row.ballot = std::size_t(i) < h.ballots.size() ? h.ballots[std::size_t(i)] : 0;
      row.kind = std::size_t(i) < h.kinds.size() ? h.kinds[std::size_t(i)] : EventKind::GlobalLoad;
      row.line = std::size_t(i) < h.lines.size() ? h.lines[std::size_t(i)] : 0;
      char lab[64];
      if (row.side == 0) {
        std::snprintf(lab, sizeof lab, "#%d L%u %s", i, unsigned(row.line),
                      std::string(to_string(row.kind)).c_str());
      } else {
        row.mask = row.side == 1 ? row.mask & row.ballot : row.mask & ~row.ballot;
        std::snprintf(lab, sizeof lab, "   %s side", row.side == 1 ? "taken" : "other");
      }
      const bool cur = i == in.current && row.side == 0;
      text_at(dl, p.x, p.y + (d.cell_h - fh) / 2, lab,
              cur ? highlight_colour(style) : (row.mask == 0xFFFFFFFFu || row.side ? dim : ink));
      const float x0 = p.x + label_w;
      row.rect = Rect{x0, p.y, x0 + 32 * d.cell_w, p.y + d.cell_h};
      for (int l = 0; l < 32; ++l) {
        const bool on = (row.mask >> l) & 1u;
        const std::uint32_t c =
            row.side == 0 ? mask_cell_colour(row.mask, row.ballot, row.kind, l, style)
            : !on         ? lane_off_colour(style)
            : row.side == 1 ? ballot_true_colour(style)
                            : ballot_false_colour(style);
        const float gap = d.cell_w >= 8 ? 1.0f : 0.0f;
        fill(dl, Rect{x0 + l * d.cell_w + gap, p.y, x0 + (l + 1) * d.cell_w - gap, p.y + d.cell_h}, c);
        on ? ++d.cells_on : ++d.cells_off;
      }
      const int active = std::popcount(row.mask);
      char right[16];
      std::snprintf(right, sizeof right, " %2d/32", active);
      text_at(dl, row.rect.x1 + 4, p.y + (d.cell_h - fh) / 2, right, active == 32 ? dim : ink);
      if (cur) frame(dl, Rect{p.x - 1, p.y - 1, row.rect.x1 + 1, row.rect.y1 + 1}, highlight_colour(style), 2);
      ImGui::Dummy(v2(row.rect.x1 - p.x + ImGui::CalcTextSize(" 32/32").x + 4, row_h));
      if (ImGui::IsItemClicked()) d.clicked = i;
      if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        if (row.side == 0) {
          ImGui::Text("event %d: %s at line %u", i, std::string(to_string(row.kind)).c_str(), unsigned(row.line));
          ImGui::Text("mask 0x%08x: %d of 32 lanes active", row.mask, active);
          if (row.kind == EventKind::Branch || row.kind == EventKind::Vote)
            ImGui::Text("ballot 0x%08x: condition true on %d lanes", row.ballot, std::popcount(row.ballot & row.mask));
        } else {
          ImGui::Text("the %s side of the branch at line %u runs with %d of 32 lanes;",
                      row.side == 1 ? "taken" : "other", unsigned(row.line), active);
          ImGui::TextUnformatted("the warp runs both sides, one after the other");
        }
        ImGui::EndTooltip();
      }
      d.rows.push_back(row);
    }
  }
  clip.End();
  ImGui::EndChild();
  return d;
}

}  // namespace ws::viz
