// The Controls panel: kernel, variant, parameters, block and warp, the result line.
#include "app/gui/panels/panel.h"
#include <filesystem>

namespace ws::gui {

namespace {

// Parameter widgets: choices are a combo (only valid values), ranges an input clamped to the
// range; whatever the combination still refuses is explained under them.
void param_widgets(AppState& s) {
  const VariantInfo* v = s.variant_info();
  if (!v) return;
  Params cur = s.selection().params;
  const Params completed = s.completed_params();
  for (const ParamSpec& ps : v->params) {
    long long value = ps.def;
    if (auto it = cur.find(ps.name); it != cur.end()) value = it->second;
    else if (auto jt = completed.find(ps.name); jt != completed.end()) value = jt->second;
    ImGui::PushID(ps.name.c_str());
    {
      // Wide enough for its value (a combo: its largest choice), beside its - and +
      // buttons: at 1280x720 a 7-em field read "104857" for n=1048576.
      const ImGuiStyle& st = ImGui::GetStyle();
      const long long widest = ps.choices.empty() ? value
                                                  : *std::max_element(ps.choices.begin(), ps.choices.end());
      const float text = ImGui::CalcTextSize(std::to_string(widest).c_str()).x + st.FramePadding.x * 2;
      const float extra = ps.choices.empty() ? 2 * (ImGui::GetFrameHeight() + st.ItemInnerSpacing.x)
                                             : ImGui::GetFrameHeight();
      ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 7, text + extra));
    }
    if (!ps.choices.empty()) {
      if (ImGui::BeginCombo(ps.name.c_str(), std::to_string(value).c_str())) {
        for (long long c : ps.choices)
          if (ImGui::Selectable(std::to_string(c).c_str(), c == value)) s.set_param(ps.name, c);
        ImGui::EndCombo();
      }
    } else {
      long long edit = value;
      const long long step = 1, fast = std::max(1LL, (ps.max - ps.min) / 16);
      if (ImGui::InputScalar(ps.name.c_str(), ImGuiDataType_S64, &edit, &step, &fast, "%lld",
                             ImGuiInputTextFlags_EnterReturnsTrue)) {
        edit = std::clamp(edit, ps.min, ps.max);
        if (edit != value) s.set_param(ps.name, edit);
      }
      if (ps.max >= 16 * std::max(1LL, ps.min)) {  // sizes: halve and double
        ImGui::SameLine();
        if (ImGui::SmallButton("/2") && value / 2 >= ps.min) s.set_param(ps.name, value / 2);
        ImGui::SameLine();
        if (ImGui::SmallButton("x2") && value * 2 <= ps.max) s.set_param(ps.name, value * 2);
      }
    }
    if (ImGui::IsItemHovered() || ImGui::IsItemActive()) {
      if (!ps.choices.empty())
        ImGui::SetTooltip("%s", ps.help.c_str());
      else
        ImGui::SetTooltip("%s (%lld..%lld)", ps.help.c_str(), ps.min, ps.max);
    }
    ImGui::PopID();
  }
}

// The run's verdict in one line, always in view: throughput, time, whether it was right.
void result_line(const AppState& s) {
  ImGui::Separator();
  if (!s.results.main.valid()) {
    no_result(s, s.results.main);
    return;
  }
  const RunResult& r = *s.results.main.run;
  if (!r.error.empty()) {
    ImGui::TextColored(viz::to_imvec4(th(s).bad), "did not run");
    return;
  }
  ImGui::PushTextWrapPos(0.0f);  // a recording's label is longer than the panel
  // The time at the timing size where there is one, and the size it is at.
  const RunResult* timed = s.timed_run();
  const Timing& tm = timed ? timed->timing : r.timing;
  // A wrong result has no speed worth showing: the verdict below says why.
  const bool done = s.results.main.has(Stage::Measured) || s.results.main.final;
  const bool wrong = done && !(timed ? timed->ok() && r.ok() : r.ok());
  if (tm.throughput > 0 && wrong)
    ImGui::TextDisabled("time: not shown, the output is wrong");
  else if (tm.throughput > 0 && cover_of(s).views.time)
    ImGui::TextDisabled("time: %s", viz::kPredictFirst);
  else if (tm.throughput > 0)
    ImGui::TextColored(tm.source.on_gpu() ? viz::to_imvec4(th(s).measured_time) : viz::to_imvec4(th(s).modelled_time),
                       "%.4g %s, %s (%s)%s", tm.throughput, tm.unit.c_str(), viz::format_ms(tm.median_ms).c_str(),
                       sim::long_label(tm.source).c_str(),
                       timed ? (", at " + ws::to_string(timed->params)).c_str() : "");
  ImGui::PopTextWrapPos();
  if (!s.results.main.has(Stage::Measured) && !s.results.main.final) {
    // The emulator's selected block is in; time and verdict come with the whole grid.
    ImGui::TextDisabled("waiting for the whole grid: modelled time and verification...");
    return;
  }
  if (r.ok())
    ImGui::TextColored(viz::to_imvec4(th(s).good), "output matches the CPU reference");
  else
    ImGui::TextColored(viz::to_imvec4(th(s).wrong), "WRONG RESULT%s%s", r.verify_message.empty() ? "" : ": ",
                       r.verify_message.c_str());
  if (s.main_pending()) ImGui::TextDisabled("re-running with the new parameters...");
}

}  // namespace

void controls_panel(AppState& s, FrameDraw& fd) {
  const auto& cat = catalogue();
  const Selection& sel = s.selection();
  // Family and variant.
  std::vector<std::string> families;
  for (const auto& v : cat)
    if (std::find(families.begin(), families.end(), v.family) == families.end()) families.push_back(v.family);
  ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 4);
  if (ImGui::BeginCombo("kernel", sel.family.c_str())) {
    for (const auto& f : families)
      if (ImGui::Selectable(f.c_str(), f == sel.family))
        for (const auto& v : cat)
          if (v.family == f) {
            s.select(v.family, v.name);
            break;
          }
    ImGui::EndCombo();
  }
  const VariantInfo* info = s.variant_info();
  ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 4);
  // The title where it fits the box, else the variant's name: a preview is never cut
  // ("2. Interleaved addressing, strided in" at 1280x720).
  std::string preview = info ? info->title : sel.variant;
  const float box = ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 4 - ImGui::GetFrameHeight() -
                    ImGui::GetStyle().FramePadding.x * 2;
  if (ImGui::CalcTextSize(preview.c_str()).x > box) preview = sel.variant;
  if (ImGui::BeginCombo("variant", preview.c_str())) {
    for (const auto& v : cat)
      if (v.family == sel.family && ImGui::Selectable((v.name + ": " + v.title).c_str(), v.name == sel.variant))
        s.select(v.family, v.name);
    ImGui::EndCombo();
  }
  const LessonCover cover = cover_of(s);
  if (s.user_shown()) {
    // The views show the student's kernel, run as this job: the catalogue variant's
    // description is not about it (and names what a puzzle asks the student to find).
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("your kernel (%s), run with this job's launch and parameters",
                       std::filesystem::path(s.results.main.user_source).filename().string().c_str());
    ImGui::PopStyleColor();
  } else if (info && !info->why.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    // The description names what the variant achieves: the lesson's question answered.
    if (cover.description)
      ImGui::TextWrapped("description: %s", viz::kPredictFirst);
    else
      ImGui::TextWrapped("%s", info->why.c_str());
    ImGui::PopStyleColor();
  }
  // The launch's shape above the parameters, where it stays in view on a small screen
  // (lesson 11 asks about the grid; below the parameters it sat under the fold at 1280x720).
  const Plan plan = info ? info->plan(s.completed_params()) : Plan{};
  const LaunchCfg* shown = plan.launches.empty() ? nullptr : &plan.launches[std::min(sel.launch, plan.launches.size() - 1)];
  if (shown) {
    ImGui::PushTextWrapPos(0.0f);
    if (cover.views.launch)
      ImGui::TextDisabled("grid and block: %s", viz::kPredictFirst);
    else
      ImGui::TextDisabled("grid %ux%ux%u, block %ux%ux%u, %u B shared", shown->grid.x, shown->grid.y,
                          shown->grid.z, shown->block.x, shown->block.y, shown->block.z, shown->shared_bytes);
    ImGui::PopTextWrapPos();
  }
  ImGui::Separator();
  param_widgets(s);
  if (!s.refusal().empty()) {
    fd.refusal_shown = s.refusal();
    ImGui::PushStyleColor(ImGuiCol_Text, viz::to_imvec4(th(s).bad));
    ImGui::TextWrapped("Not run: %s", s.refusal().c_str());
    ImGui::PopStyleColor();
  }
  // Which block's and warp's events to walk.
  if (info) {
    if (plan.launches.size() > 1) {
      int li = int(sel.launch);
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
      if (ImGui::SliderInt("launch", &li, 0, int(plan.launches.size()) - 1)) s.set_launch(std::size_t(li));
    }
    if (!plan.launches.empty()) {
      const LaunchCfg& lc = plan.launches[std::min(sel.launch, plan.launches.size() - 1)];
      int b = int(sel.block);
      const int blocks = int(std::min<unsigned long long>(lc.grid.count(), 1u << 30));
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
      if (ImGui::InputInt("block", &b, 1, 16, ImGuiInputTextFlags_EnterReturnsTrue)) {
        b = std::clamp(b, 0, blocks - 1);
        if (b != int(sel.block)) s.set_block(std::uint32_t(b));
      }
      int w = sel.warp;
      const int warps = int((lc.block.count() + 31) / 32);
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
      if (ImGui::SliderInt("warp", &w, 0, std::max(0, warps - 1))) s.set_warp(std::uint16_t(w));
    }
  }
  result_line(s);
  ImGui::Separator();
  bool cmp = s.results.compare_mode;
  if (ImGui::Checkbox("compare with", &cmp)) s.set_compare(cmp);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##cmpvariant", s.results.compare_variant.empty() ? "(choose)" : s.results.compare_variant.c_str())) {
    for (const auto& v : cat)
      if (v.family == sel.family && ImGui::Selectable(v.name.c_str(), v.name == s.results.compare_variant))
        s.set_compare(true, v.name);
    ImGui::EndCombo();
  }
  // B's own values for the parameters it may change (padding, tile, ...): everything
  // else follows A.
  if (s.results.compare_mode)
    if (const VariantInfo* cv = find_variant(sel.family, s.results.compare_variant)) {
      for (const ParamSpec& ps : cv->params) {
        if (ps.choices.empty() && ps.max - ps.min > 8) continue;  // sizes stay A's
        const auto ov = s.results.compare_overrides.find(ps.name);
        const Params a = s.completed_params();
        long long value = ov != s.results.compare_overrides.end() ? ov->second
                          : a.count(ps.name)               ? a.at(ps.name)
                                                           : ps.def;
        ImGui::PushID(("cmp" + ps.name).c_str());
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
        const std::string label = "B " + ps.name;
        std::vector<long long> options = ps.choices;
        if (options.empty())
          for (long long x = ps.min; x <= ps.max; ++x) options.push_back(x);
        if (ImGui::BeginCombo(label.c_str(), std::to_string(value).c_str())) {
          for (long long o : options)
            if (ImGui::Selectable(std::to_string(o).c_str(), o == value)) {
              Params over = s.results.compare_overrides;
              over[ps.name] = o;
              s.set_compare(true, s.results.compare_variant, over);
            }
          ImGui::EndCombo();
        }
        ImGui::PopID();
        ImGui::SameLine();
      }
      ImGui::NewLine();
    }
  ImGui::Separator();
  // The field's text lives in this window's state, not in a static shared by every
  // window of the process.
  char* dir = s.export_dir_edit.data();
  if (dir[0] == 0) std::snprintf(dir, s.export_dir_edit.size(), "%s", s.export_dir.c_str());
  ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 6);
  if (ImGui::InputText("export to", dir, s.export_dir_edit.size())) s.export_dir = dir;
  if (ImGui::Button("save window PNG (F12)")) s.window_png_request = true;
  if (!s.last_export.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, s.last_export_failed ? viz::to_imvec4(th(s).bad) : viz::to_imvec4(th(s).good));
    ImGui::TextWrapped("%s", s.last_export.c_str());
    ImGui::PopStyleColor();
  }
}

}  // namespace ws::gui
