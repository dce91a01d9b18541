// Compare mode: two variants side by side, and the baseline table.
#include "app/gui/panels/panel.h"

namespace ws::gui {

namespace {

void compare_side(AppState& s, FrameDraw& fd, const Loaded& l, std::size_t pos, bool b_side) {
  if (!l.valid()) {
    ImGui::TextDisabled(b_side ? "Comparison: running %s..." : "Running %s...",
                        b_side ? s.compare_label().c_str() : s.selection().variant.c_str());
    return;
  }
  const RunResult& r = *l.run;
  ImGui::TextWrapped("%s/%s %s", l.sel.family.c_str(), l.sel.variant.c_str(), ws::to_string(l.sel.params).c_str());
  const viz::Covered cov = cover_of(s).views;
  if (r.error.empty() && r.timing.throughput > 0 && cov.time) {
    ImGui::TextDisabled("time: %s", viz::kPredictFirst);
  } else if (r.error.empty() && r.timing.throughput > 0) {
    // Each side names its source; B against A says when the two differ (sim::ratio).
    ImGui::TextColored(r.ok() ? viz::to_imvec4(th(s).good) : viz::to_imvec4(th(s).wrong), "%.4g %s (%s)%s",
                       r.timing.throughput, r.timing.unit.c_str(), sim::short_label(r.timing.source).c_str(),
                       r.ok() ? "" : " WRONG RESULT");
    (b_side ? fd.compare_b_source : fd.compare_a_source) = sim::to_string(r.timing.source);
    const Loaded& a = s.results.main;
    if (b_side && a.valid() && a.run->error.empty() && a.run->timing.throughput > 0 &&
        a.run->timing.unit == r.timing.unit) {
      const sim::SourcedRatio q = sim::ratio(r.timing.throughput, r.timing.source,
                                             a.run->timing.throughput, a.run->timing.source);
      fd.compare_ratio = "B / A: " + q.text();
      wrapped_dim(fd.compare_ratio);
    }
  } else if (!r.error.empty()) {
    ImGui::TextColored(viz::to_imvec4(th(s).wrong), "%s", r.error.c_str());
  }
  const sim::Totals& t = r.totals;
  if (b_side && s.results.main.valid() && s.results.main.run->error.empty() && r.error.empty()) {
    // The baseline, as a profiler shows it: A's value, B's, their difference and ratio.
    const float h = ImGui::GetTextLineHeightWithSpacing() * 6;
    fd.baseline_rows = viz::draw_baseline_table(viz::baseline_rows(s.results.main.run->totals, t), h, style_of(s));
  }
  char counts[260];
  std::snprintf(counts, sizeof counts, "ld/st sectors %llu / %llu%s, shared wavefronts ld/st %llu / %llu, conflicts %llu",
                (unsigned long long)t.global_ld_sectors, (unsigned long long)t.global_st_sectors,
                t.global_bulk_st_copies
                    ? (" (+ " + std::to_string(t.global_bulk_st_sectors) + " by the copy engine)").c_str()
                    : "",
                (unsigned long long)t.shared_ld_wavefronts, (unsigned long long)t.shared_st_wavefronts,
                (unsigned long long)(t.shared_ld_conflicts() + t.shared_st_conflicts()));
  if (cov.shared || cov.global)
    std::snprintf(counts, sizeof counts, "sectors, wavefronts and conflicts: %s", viz::kPredictFirst);
  wrapped_dim(counts);
  const float h = ImGui::GetContentRegionAvail().y;
  ImGui::BeginChild("##src", ImVec2(0, h * 0.30f), true);
  (b_side ? fd.source_b : fd.source) = source_panel(s, l, pos);
  ImGui::EndChild();
  ImGui::BeginChild("##bank", ImVec2(0, h * 0.42f), true);
  (b_side ? fd.bank_b : fd.bank) = bank_panel(s, l, pos);
  ImGui::EndChild();
  ImGui::BeginChild("##sector", ImVec2(0, 0), true);
  (b_side ? fd.sector_b : fd.sector) = sector_panel(s, l, pos);
  ImGui::EndChild();
}

}  // namespace

void compare_region(AppState& s, FrameDraw& fd, const Rect& r) {
  const Rect top{r.x0, r.y0, r.x1, r.y0 + stepper_height(r.w())};
  if (begin_panel(fd, "Stepper (both sides in step)", top)) fd.stepper = stepper_panel(s);
  ImGui::End();
  const float mid = (r.x0 + r.x1) / 2;
  if (begin_panel(fd, "A: this variant", Rect{r.x0, top.y1, mid, r.y1}))
    compare_side(s, fd, s.results.main, s.results.stepper.pos, false);
  ImGui::End();
  if (begin_panel(fd, "B: compared with", Rect{mid, top.y1, r.x1, r.y1}))
    compare_side(s, fd, s.results.cmp, s.results.compare_pos(), true);
  ImGui::End();
}

void draw_compare(AppState& s, FrameDraw& fd, const Rect& r) { compare_region(s, fd, r); }

}  // namespace ws::gui
