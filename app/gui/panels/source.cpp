// The Source panel (viz/source_view.h): the family header with the step's line, notes,
// counters and the SASS under each line.
#include "app/gui/panels/panel.h"

#include <filesystem>

namespace ws::gui {

viz::SourceViewDraw source_panel(AppState& s, const Loaded& l, std::size_t pos, float height) {
  if (!l.valid()) {
    no_result(s, l);
    return {};
  }
  viz::SourceViewInput in;
  in.file = &l.source;
  in.current_line = l.order.empty() ? 0 : l.events()[l.order[std::min(pos, l.order.size() - 1)]].line;
  in.focus_line = l.struct_line;
  in.notes = l.notes;
  in.marks = l.marks;
  in.counters = l.counters;
  in.height = height;
  if (l.sass && l.sass->found) {
    in.sass = l.sass->rows;
    in.sass_diffs = l.sass->diffs;
    for (const auto& [line, w] : l.sass->hw_lines) {
      std::string& n = in.notes[line];
      n += (n.empty() ? "" : "; ") + w;
    }
  }
  const viz::Covered cov = cover_of(s).views;
  for (auto* m : {&in.notes, &in.counters})
    for (auto& [line, text] : *m)
      if (note_covered(cov, text)) text = viz::kPredictFirst;
  in.unfold_all = s.sass_unfold_all;
  in.memory_only = !s.sass_all_instructions;
  in.fit_current = s.presenter_on;  // large type: the line being stepped stays whole
  // The family header as the catalogue names it (kernels/families/transpose.cuh): the same on every
  // machine, where the path it was read from is not.
  if (!l.source.path.empty()) {
    // Where the whole path does not fit (large type, half a window), its file name.
    std::string shown = l.info ? l.info->source_file : l.source.path;
    if (ImGui::CalcTextSize(shown.c_str()).x > ImGui::GetContentRegionAvail().x)
      shown = std::filesystem::path(shown).filename().string();
    ImGui::TextDisabled("%s", shown.c_str());
  }
  if (l.sass) {  // on the path's line where it fits: the code gets the height
    ImGui::PushID(&l);
    if (!l.source.path.empty()) same_line_or_wrap(checkbox_w("SASS"));
    ImGui::Checkbox("SASS", &s.sass_unfold_all);
    same_line_or_wrap(checkbox_w("all instructions"));
    ImGui::Checkbox("all instructions", &s.sass_all_instructions);
    ImGui::SameLine();
    // At a projector's width the note is longer than the panel: cut to the line with "...",
    // the whole of it under the mouse.
    text_fitted(l.sass->found ? sass_note(l.sass->note, cov.launch) + (l.sass->diffs.empty()
                                                    ? ""
                                                    : "; magenta: SASS differs from the model")
                              : "no SASS: " + l.sass->note);
    ImGui::PopID();
  }
  return viz::draw_source_view(in, style_of(s));
}

}  // namespace ws::gui
