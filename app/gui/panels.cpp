// The window's panels and their layout.
#include "app/gui/panels.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cstring>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

#include "app/gui/export.h"
#include "app/gui/platform/glfw_gl3.h"
#include "kernels/recording.h"
#include "viz/chart_paint.h"
#include "viz/imgui_util.h"

namespace ws::gui {

using platform::Keys;
using viz::Rect;

namespace {

// A view of the table (viz/views.h) drawn into r, and the Panels switch that shows it.
void draw_view(View v, AppState& s, FrameDraw& fd, const Rect& r);
bool* panel_switch(Panels& p, View v);

constexpr ImGuiWindowFlags kPanelFlags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                         ImGuiWindowFlags_NoCollapse |
                                         ImGuiWindowFlags_NoSavedSettings |
                                         ImGuiWindowFlags_NoBringToFrontOnFocus;

viz::ViewStyle style_of(const AppState& s) {
  return s.presenter_on ? viz::ViewStyle::presenter() : viz::ViewStyle{};
}

// The window's colours for the current style (viz/theme.h).
const viz::Theme& th(const AppState& s) { return viz::theme(style_of(s)); }

// What the open lesson's unanswered predicts keep back (nothing without a lesson in view):
// every panel below that shows such a number draws viz::kPredictFirst in its place.
LessonCover cover_of(const AppState& s) {
  if (!s.panels.lesson || !s.lesson || !s.lesson->is_open()) return {};
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
bool begin_panel(FrameDraw& fd, const char* title, const Rect& r, ImGuiWindowFlags extra = 0) {
  ImGui::SetNextWindowPos(ImVec2(r.x0, r.y0), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(r.w(), r.h()), ImGuiCond_Always);
  const bool open = ImGui::Begin(title, nullptr, kPanelFlags | extra);
  fd.panels[title] = r;
  ++fd.panels_drawn;
  return open;
}

// The event a map shows: the current one when it is of the map's kind, else the latest
// such event before it, else the next one after it.
struct MapPick {
  const WarpEvent* e = nullptr;
  std::size_t pos = 0;
  int where = 0;  // 0 current, -1 before, +1 after
};

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

// --- panels -----------------------------------------------------------------------------

viz::BankMapDraw bank_panel(AppState& s, const Loaded& l, std::size_t pos) {
  if (!l.valid()) {
    no_result(s, l);
    return {};
  }
  if (waiting_for(s, l, Stage::Block)) return {};
  const MapPick p = pick_event(l, pos, true);
  viz::BankMapInput in;
  in.event = p.e;
  in.array = p.e ? l.array_of(*p.e) : nullptr;
  in.row_elems = in.array ? in.array->cols : 0;  // the shape shared2d declared
  in.caption = p.e ? map_caption(l, p, "shared access") : "";
  in.covered = cover_of(s).views.shared;
  if (!p.e) {
    in.caption = l.sel.variant + ": this warp makes no shared-memory access";
  }
  return viz::draw_bank_map(in, style_of(s));
}

viz::SectorMapDraw sector_panel(AppState& s, const Loaded& l, std::size_t pos) {
  if (!l.valid()) {
    no_result(s, l);
    return {};
  }
  if (waiting_for(s, l, Stage::Block)) return {};
  const MapPick p = pick_event(l, pos, false);
  viz::SectorMapInput in;
  in.event = p.e;
  in.array = p.e ? l.array_of(*p.e) : nullptr;
  in.caption = p.e ? map_caption(l, p, "global access") : l.sel.variant + ": this warp makes no global access";
  in.covered = cover_of(s).views.global;
  return viz::draw_sector_map(in, style_of(s));
}

viz::SourceViewDraw source_panel(AppState& s, const Loaded& l, std::size_t pos, float height = 0) {
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
  // The family header as the catalogue names it (kernels/transpose.cuh): the same on every
  // machine, where the path it was read from is not.
  if (!l.source.path.empty())
    ImGui::TextDisabled("%s", (l.info ? l.info->source_file : l.source.path).c_str());
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

viz::MaskStripDraw mask_panel(AppState& s, const Loaded& l, std::size_t pos) {
  if (!l.valid()) {
    no_result(s, l);
    return {};
  }
  if (waiting_for(s, l, Stage::Block)) return {};
  viz::MaskStripInput in;
  in.history = &l.mask;
  in.current = l.order.empty() ? -1 : int(std::min(pos, l.order.size() - 1));
  in.covered = cover_of(s).views.branch;
  viz::MaskStripDraw d = viz::draw_mask_strip(in, style_of(s));
  if (d.clicked >= 0 && &l == &s.main) s.stepper.seek(std::size_t(d.clicked));
  return d;
}

viz::MetricsInput metrics_input(const AppState& s, const Loaded& l, std::vector<std::string>& problems) {
  viz::MetricsInput in;
  if (!l.valid()) return in;
  const RunResult& r = *l.run;
  in.ran = r.error.empty();
  in.error = r.error;
  in.totals = &r.totals;
  in.verified = r.verified;
  in.verify_message = r.verify_message;
  // The time at the timing size where there is one (the selected variant's bar), so the
  // time rows answer the question asked at that size, not the counting run's.
  const RunResult* timed = &l == &s.main ? s.timed_run() : nullptr;
  const Timing& tm = timed ? timed->timing : r.timing;
  in.source = tm.source;
  in.median_ms = tm.median_ms;
  in.min_ms = tm.min_ms;
  in.max_ms = tm.max_ms;
  in.samples = int(tm.samples_ms.size());
  in.throughput = tm.throughput;
  in.unit = tm.unit;
  if (timed) in.timed_at = s.sizes_line();
  in.copy_gbps = s.copy_gbps();
  in.copy_source = s.copy_source();
  in.peak = s.peak();
  const HardwareCounters& hw = l.hardware();
  in.hardware = hardware_rows(r.totals, hw);
  in.hardware_note = hardware_note(hw, s.collect_hardware);
  if (hw.ok()) in.hardware_source = "CUPTI, " + std::to_string(hw.passes.size()) + " runs on " + hw.device;
  in.occupancy = occupancy_rows(r, hw, l.sass.get(), l.sel.launch);
  const LessonCover cov = cover_of(s);
  in.covered = cov.views;
  in.covered_words = cov.metric_words;
  if (r.counts != CountsSource::Run) {
    in.counts_source = r.counts_label;
    in.counts_missing = r.counts == CountsSource::NotRecorded;
  }
  for (const sim::Problem& p : r.problems) problems.push_back(std::string(sim::to_string(p.kind)) + ": " + p.message);
  in.problems = problems;
  return in;
}

viz::MetricsDraw metrics_panel(AppState& s, const Loaded& l) {
  if (!l.valid()) {
    no_result(s, l);
    return {};
  }
  std::vector<std::string> problems;
  viz::MetricsInput in = metrics_input(s, l, problems);
  ImGui::TextWrapped("%s/%s  %s", l.sel.family.c_str(), l.sel.variant.c_str(), ws::to_string(l.sel.params).c_str());
  if (!in.timed_at.empty()) ImGui::TextWrapped("%s", in.timed_at.c_str());
  if (waiting_for(s, l, Stage::Counters)) {
    if (l.has(Stage::Measured) && l.run->timing.throughput > 0 && !cover_of(s).views.time)
      ImGui::Text("%.4g %s, %s (%s)", l.run->timing.throughput, l.run->timing.unit.c_str(),
                  viz::format_ms(l.run->timing.median_ms).c_str(),
                  sim::short_label(l.run->timing.source).c_str());
    return {};
  }
  if (&l == &s.main && !s.refusal().empty())
    ImGui::TextColored(viz::to_imvec4(th(s).stale), "(from the last parameters that could run)");
  if (&l == &s.main) in.collect_hardware = &s.collect_hardware;
  viz::MetricsDraw d = viz::draw_metrics_table(in, style_of(s));
  // Turned on for a run that has no counters yet: run again with them (they stay with
  // the run; turning the toggle off only hides them).
  if (d.toggled && s.collect_hardware && l.run->hardware.unavailable == HardwareUnavailable::NotAsked)
    s.request_run();
  return d;
}

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

// A chart kept back by a lesson's timed predict: its place, saying so (h 0: the rest).
void chart_covered(float h) {
  const float line = ImGui::GetTextLineHeightWithSpacing();
  ImGui::BeginChild("##covered", ImVec2(0, h > 0 ? h : 0), true);
  ImGui::SetCursorPosY(std::max(ImGui::GetCursorPosY(), (ImGui::GetContentRegionAvail().y - 2 * line) / 2));
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s: this chart shows the answer to the lesson's question; answer it to see the chart",
                      viz::kPredictFirst);
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
}

void charts_panel(AppState& s, FrameDraw& fd, bool stacked) {
  const viz::ViewStyle st = style_of(s);
  const bool covered = cover_of(s).views.time;
  auto history = [&](float h) {
    const viz::ChartSpec c = s.history_chart();
    ImGui::TextUnformatted("History: one point per run");
    if (covered) return chart_covered(h);
    export_buttons(s, "hist", c, chart_base(s, "history"));
    fd.history = viz::DrawChart("history", c, ImVec2(0, h), st);
  };
  auto bars = [&](float h) {
    const viz::ChartSpec c = s.bars_chart();
    fd.bars_spec = c;
    fd.bars_spec_set = true;
    ImGui::TextUnformatted("Every variant at these parameters");
    if (covered) return chart_covered(h);
    export_buttons(s, "bars", c, chart_base(s, "variants"));
    same_line_or_wrap(checkbox_w("follow changes"));
    ImGui::Checkbox("follow changes", &s.live_charts);
    same_line_or_wrap(small_button_w("run now"));
    if (ImGui::SmallButton("run now")) s.request_bars();
    if (s.bars_pending())
      dim_after(s.main_pending() ? "waiting for the run, then the variants..." : "measuring the variants...");
    if (s.worker().running() == JobKind::Bars) {
      const auto [done, total] = s.worker().progress();
      dim_after((std::to_string(done) + "/" + std::to_string(total)).c_str());
    }
    for (const BarPoint& b : s.bars)
      if (!b.skipped.empty()) wrapped_dim(b.variant + " not run: " + b.skipped);
    fd.bars = viz::DrawChart("bars", c, ImVec2(0, h), st);
  };
  auto sweep = [&](float h) {
    const viz::ChartSpec c = s.sweep_chart();
    ImGui::TextUnformatted("Sweep");
    if (covered) return chart_covered(h);
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
      combo("x##sweepx", s.sweep_x, false);
      combo("series##sweeps", s.sweep_series, true);
      // As wide as the metric's name (up to the panel's width), so the choice is not cut.
      const char* ypre = s.sweep_metric.empty() ? "throughput" : s.sweep_metric.c_str();
      const float yw = std::min(std::max(ImGui::GetFontSize() * 9, ImGui::CalcTextSize(ypre).x + ImGui::GetFrameHeight() +
                                                                       ImGui::GetStyle().FramePadding.x * 2 + 2),
                                ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("y").x -
                                    ImGui::GetStyle().ItemInnerSpacing.x);
      same_line_or_wrap(yw + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize("y").x);
      ImGui::SetNextItemWidth(yw);
      if (ImGui::BeginCombo("y##sweepy", ypre)) {
        if (ImGui::Selectable("throughput", s.sweep_metric.empty())) s.sweep_metric.clear();
        for (const SweepPoint& p : s.sweep) {
          if (p.plain.empty()) continue;
          for (const auto& kv : p.plain)
            if (ImGui::Selectable(kv.first.c_str(), kv.first == s.sweep_metric)) s.sweep_metric = kv.first;
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
    for (const SweepPoint& p : s.sweep)
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
  if (!s.main.valid()) {
    no_result(s, s.main);
    return;
  }
  const RunResult& r = *s.main.run;
  if (!r.error.empty()) {
    ImGui::TextColored(viz::to_imvec4(th(s).bad), "did not run");
    return;
  }
  ImGui::PushTextWrapPos(0.0f);  // a recording's label is longer than the panel
  // The time at the timing size where there is one, and the size it is at.
  const RunResult* timed = s.timed_run();
  const Timing& tm = timed ? timed->timing : r.timing;
  if (tm.throughput > 0 && cover_of(s).views.time)
    ImGui::TextDisabled("time: %s", viz::kPredictFirst);
  else if (tm.throughput > 0)
    ImGui::TextColored(tm.source.on_gpu() ? viz::to_imvec4(th(s).measured_time) : viz::to_imvec4(th(s).modelled_time),
                       "%.4g %s, %s (%s)%s", tm.throughput, tm.unit.c_str(), viz::format_ms(tm.median_ms).c_str(),
                       sim::long_label(tm.source).c_str(),
                       timed ? (", at " + ws::to_string(timed->params)).c_str() : "");
  ImGui::PopTextWrapPos();
  if (!s.main.has(Stage::Measured) && !s.main.final) {
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
  if (info && !info->why.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    // The description names what the variant achieves: the lesson's question answered.
    if (cover.description)
      ImGui::TextWrapped("description: %s", viz::kPredictFirst);
    else
      ImGui::TextWrapped("%s", info->why.c_str());
    ImGui::PopStyleColor();
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
    const Plan plan = info->plan(s.completed_params());
    if (plan.launches.size() > 1) {
      int li = int(sel.launch);
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
      if (ImGui::SliderInt("launch", &li, 0, int(plan.launches.size()) - 1)) s.set_launch(std::size_t(li));
    }
    if (!plan.launches.empty()) {
      const LaunchCfg& lc = plan.launches[std::min(sel.launch, plan.launches.size() - 1)];
      ImGui::PushTextWrapPos(0.0f);
      if (cover.views.launch)
        ImGui::TextDisabled("grid and block: %s", viz::kPredictFirst);
      else
        ImGui::TextDisabled("grid %ux%ux%u, block %ux%ux%u, %u B shared", lc.grid.x, lc.grid.y, lc.grid.z,
                            lc.block.x, lc.block.y, lc.block.z, lc.shared_bytes);
      ImGui::PopTextWrapPos();
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
  bool cmp = s.compare_mode;
  if (ImGui::Checkbox("compare with", &cmp)) s.set_compare(cmp);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##cmpvariant", s.compare_variant.empty() ? "(choose)" : s.compare_variant.c_str())) {
    for (const auto& v : cat)
      if (v.family == sel.family && ImGui::Selectable(v.name.c_str(), v.name == s.compare_variant))
        s.set_compare(true, v.name);
    ImGui::EndCombo();
  }
  // B's own values for the parameters it may change (padding, tile, ...): everything
  // else follows A.
  if (s.compare_mode)
    if (const VariantInfo* cv = find_variant(sel.family, s.compare_variant)) {
      for (const ParamSpec& ps : cv->params) {
        if (ps.choices.empty() && ps.max - ps.min > 8) continue;  // sizes stay A's
        const auto ov = s.compare_overrides.find(ps.name);
        const Params a = s.completed_params();
        long long value = ov != s.compare_overrides.end() ? ov->second
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
              Params over = s.compare_overrides;
              over[ps.name] = o;
              s.set_compare(true, s.compare_variant, over);
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

viz::StepperDraw stepper_panel(AppState& s) {
  if (!s.main.valid()) {
    no_result(s, s.main);
    return {};
  }
  return viz::draw_stepper(s.stepper, s.main.events(), {}, style_of(s), cover_of(s).views);
}

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
  return ImGui::CalcTextSize(presenter_toggle(s)).x + ImGui::CalcTextSize("panels").x +
         ImGui::CalcTextSize("keys").x + 6 * sty.FramePadding.x + 3 * sty.ItemSpacing.x;
}

// The toolbar's banner on the emulator: says so, and that recorded times are labelled.
static const char* emulated_banner() {
  return default_recording() ? kEmulatedRecordedNotice : kEmulatedNotice;
}

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
    if (s.last_latency.measured >= 0)
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
  if (s.last_latency.measured >= 0 && !s.presenter_on) {
    if (s.last_latency.counters >= 0)
      std::snprintf(b, sizeof b, "| last change: %s %.2f s, counters %.2f s", s.emulated() ? "modelled" : "measured",
                    s.last_latency.measured, s.last_latency.counters);
    else
      std::snprintf(b, sizeof b, "| last change: %s %.2f s", s.emulated() ? "modelled" : "measured",
                    s.last_latency.measured);
    optional(b);
  }
  if (s.frame_ms_median > 0 && !s.presenter_on) {
    std::snprintf(b, sizeof b, "| %.1f ms/frame", s.frame_ms_median);
    optional(b);
  }
  ImGui::SameLine();
  if (ImGui::GetCursorPosX() + buttons > r.w()) ImGui::NewLine();
  else ImGui::SameLine(r.w() - buttons - sty.WindowPadding.x);
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
      if (on == &s.panels.none) continue;
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

void lesson_panel(AppState& s, FrameDraw& fd) {
  if (s.lesson) fd.lesson = s.lesson->draw(s);
  fd.lesson_drawn = true;
}

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

// --- compare mode --------------------------------------------------------------------------

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
    const Loaded& a = s.main;
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
  if (b_side && s.main.valid() && s.main.run->error.empty() && r.error.empty()) {
    // The baseline, as a profiler shows it: A's value, B's, their difference and ratio.
    const float h = ImGui::GetTextLineHeightWithSpacing() * 6;
    fd.baseline_rows = viz::draw_baseline_table(viz::baseline_rows(s.main.run->totals, t), h, style_of(s));
  }
  char counts[200];
  std::snprintf(counts, sizeof counts, "ld/st sectors %llu / %llu, shared wavefronts ld/st %llu / %llu, conflicts %llu",
                (unsigned long long)t.global_ld_sectors, (unsigned long long)t.global_st_sectors,
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

void compare_region(AppState& s, FrameDraw& fd, const Rect& r) {
  const Rect top{r.x0, r.y0, r.x1, r.y0 + stepper_height(r.w())};
  if (begin_panel(fd, "Stepper (both sides in step)", top)) fd.stepper = stepper_panel(s);
  ImGui::End();
  const float mid = (r.x0 + r.x1) / 2;
  if (begin_panel(fd, "A: this variant", Rect{r.x0, top.y1, mid, r.y1}))
    compare_side(s, fd, s.main, s.stepper.pos, false);
  ImGui::End();
  if (begin_panel(fd, "B: compared with", Rect{mid, top.y1, r.x1, r.y1}))
    compare_side(s, fd, s.cmp, s.compare_pos(), true);
  ImGui::End();
}

// --- presenter ---------------------------------------------------------------------------

// The map that fits the current event, from the view table: sectors for a global access,
// lanes for a branch or a partial mask, banks otherwise.
void auto_view(AppState& s, FrameDraw& fd, const Rect& r) {
  const Loaded& l = s.main;
  const WarpEvent* cur = l.order.empty() ? nullptr : &l.events()[l.order[std::min(s.stepper.pos, l.order.size() - 1)]];
  unsigned fits = viz::kFitsShared;
  if (cur && is_global(cur->kind)) fits = viz::kFitsGlobal;
  else if (cur && (cur->kind == EventKind::Branch || cur->mask != 0xFFFFFFFFu) && !is_shared(cur->kind))
    fits = viz::kFitsBranch;
  for (const viz::ViewInfo& v : viz::kViews)
    if (v.has(fits | viz::kWithSource)) {
      draw_view(v.id, s, fd, r);
      return;
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

// The parameters of the shown variant in order, and which one the keys step.
std::vector<std::string> param_names(const AppState& s) {
  std::vector<std::string> out;
  if (const VariantInfo* v = s.variant_info())
    for (const ParamSpec& p : v->params) out.push_back(p.name);
  return out;
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
  const bool has_time = s.main.valid() && s.main.run->error.empty() &&
                        (timed ? timed : s.main.run.get())->timing.throughput > 0;
  if (has_time && cover_of(s).views.time) {
    t += std::string(" time: ") + viz::kPredictFirst;
  } else if (has_time) {
    const Timing& tm = (timed ? timed : s.main.run.get())->timing;
    char b[64];
    std::snprintf(b, sizeof b, " %.4g %s", tm.throughput, tm.unit.c_str());
    t += b;
    if (timed)
      for (const auto& [k, v] : timed->params)
        if (auto it = p.find(k); it != p.end() && it->second != v) t += " " + k + "=" + std::to_string(v);
    // A recorded time is a measurement, but not of this run: say so (the title bar says where).
    const std::string src = sim::short_label(tm.source);
    if (!src.empty()) t += " (" + src + ")";
    if (!s.main.run->verified) t += " WRONG";
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
    if (s.main.valid() && !s.main.order.empty()) {
      const WarpEvent& e = s.main.events()[s.stepper.current()];
      fd.stepper.label = "event " + std::to_string(s.stepper.pos + 1) + " of " + std::to_string(s.stepper.size()) +
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

void presenter_layout(AppState& s, FrameDraw& fd, const Rect& r) {
  const Rect body{r.x0, r.y0, r.x1, r.y1 - keys_height(s)};
  const float split = r.x0 + r.w() * 0.5f;
  if (begin_panel(fd, "Source", Rect{body.x0, body.y0, split, body.y1}))
    fd.source = source_panel(s, s.main, s.stepper.pos);
  ImGui::End();
  if (s.compare_mode) compare_region(s, fd, Rect{split, body.y0, body.x1, body.y1});
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
  const std::size_t pos = s.stepper.pos;
  bool source_under = true;
  viz::View v = viz::View::Window;
  const bool named = viz::view_from_string(view, v) && viz::view_info(v).has(viz::kInLab);
  if (s.compare_mode) {
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
    if (begin_panel(fd, "Source", under)) fd.source = source_panel(s, s.main, pos);
    ImGui::End();
  }
  const std::string label = fd.stepper.label;
  keys_strip(s, fd, Rect{r.x0, body.y1, r.x1, r.y1}, lesson_shortcuts());
  if (view == "stepper" && !label.empty()) fd.stepper.label = label;
}

// --- the view table's draw functions (viz/views.h, its fourth column) ----------------------

std::string title_of(View v) { return std::string(viz::view_info(v).title); }

void draw_bank_map(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::BankMap).c_str(), r)) fd.bank = bank_panel(s, s.main, s.stepper.pos);
  ImGui::End();
}

void draw_sector_map(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::SectorMap).c_str(), r)) fd.sector = sector_panel(s, s.main, s.stepper.pos);
  ImGui::End();
}

void draw_divergence(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::Divergence).c_str(), r)) fd.mask = mask_panel(s, s.main, s.stepper.pos);
  ImGui::End();
}

void draw_charts(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::Charts).c_str(), r)) charts_panel(s, fd, true);
  ImGui::End();
}

void draw_metrics(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::Metrics).c_str(), r)) fd.metrics = metrics_panel(s, s.main);
  ImGui::End();
}

// The stepper with the source under it, and the divergence strip beside the source when the
// rectangle is clearly wider than tall (a whole window; not the classroom's right half).
void draw_stepper(AppState& s, FrameDraw& fd, const Rect& r) {
  const Rect top{r.x0, r.y0, r.x1, r.y0 + stepper_height(r.w())};
  if (begin_panel(fd, title_of(View::Stepper).c_str(), top)) fd.stepper = stepper_panel(s);
  ImGui::End();
  const bool beside = r.w() > 1.4f * r.h();
  const Rect left{r.x0, top.y1, beside ? r.x0 + r.w() * 0.55f : r.x1, r.y1};
  if (begin_panel(fd, "Source", left)) fd.source = source_panel(s, s.main, s.stepper.pos);
  ImGui::End();
  if (beside) draw_divergence(s, fd, Rect{left.x1, top.y1, r.x1, r.y1});
}

void draw_compare(AppState& s, FrameDraw& fd, const Rect& r) { compare_region(s, fd, r); }

void draw_lesson(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::Lesson).c_str(), r)) lesson_panel(s, fd);
  ImGui::End();
}

void draw_editor(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::Editor).c_str(), r) && s.editor) fd.editor = s.editor->draw(s);
  ImGui::End();
}

void draw_window(AppState& s, FrameDraw& fd, const Rect& body);

using DrawFn = void (*)(AppState&, FrameDraw&, const Rect&);
constexpr DrawFn kDraw[] = {
#define WS_VIEW_DRAW(id, name, title, draw, panel, flags) &draw,
    WS_VIEW_TABLE(WS_VIEW_DRAW)
#undef WS_VIEW_DRAW
};

void draw_view(View v, AppState& s, FrameDraw& fd, const Rect& r) { kDraw[std::size_t(v)](s, fd, r); }

bool* panel_switch(Panels& p, View v) {
  switch (v) {
#define WS_VIEW_PANEL(id, name, title, draw, panel, flags) \
  case View::id:                                         \
    return &p.panel;
    WS_VIEW_TABLE(WS_VIEW_PANEL)
#undef WS_VIEW_PANEL
  }
  return &p.none;
}

// The window: three columns. What to run (controls, lesson); what the warp does (stepper,
// source, divergence); what the memory does (bank map, sector map) over the numbers
// (charts, metrics).
// The Numbers panel: charts and metrics as tabs.
void numbers_panel(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, "Numbers", r)) {
    if (ImGui::BeginTabBar("numbers")) {
      if (s.panels.charts && ImGui::BeginTabItem("Charts")) {
        charts_panel(s, fd, false);
        ImGui::EndTabItem();
      }
      if (s.panels.metrics && ImGui::BeginTabItem("Metrics")) {
        fd.metrics = metrics_panel(s, s.main);
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
    }
  }
  ImGui::End();
}

// A lesson open in the window: the player is the main column (the left 40 %, full
// height), the lab beside it: the stepper over the source and the kernel's controls, and
// the view the step names (or the map that fits the current event) over the numbers.
void lesson_window(AppState& s, FrameDraw& fd, const Rect& body) {
  const float W = body.w();
  const float split = body.x0 + std::clamp(W * 0.4f, std::min(ImGui::GetFontSize() * 24, W * 0.5f), W * 0.45f);
  if (begin_panel(fd, "Lesson", Rect{body.x0, body.y0, split, body.y1})) lesson_panel(s, fd);
  ImGui::End();
  const Rect right{split, body.y0, body.x1, body.y1};
  if (s.compare_mode) {
    compare_region(s, fd, right);
    return;
  }
  const float mid = right.x0 + right.w() * 0.5f;
  viz::View v = viz::View::Window;
  const bool named = viz::view_from_string(s.lesson->lab_view(), v) && viz::view_info(v).has(viz::kInLab);
  // The middle column: what the warp does, and what to change.
  float y = right.y0;
  if (s.panels.stepper || (named && v == viz::View::Stepper)) {
    const float h = stepper_height(mid - right.x0);
    if (begin_panel(fd, "Stepper", Rect{right.x0, y, mid, y + h})) fd.stepper = stepper_panel(s);
    ImGui::End();
    y += h;
  }
  const float src_y1 = s.panels.controls ? y + (right.y1 - y) * 0.56f : right.y1;
  const Rect src{right.x0, y, mid, src_y1};
  if (s.editor) {
    draw_view(View::Editor, s, fd, src);
  } else {
    if (begin_panel(fd, "Source", src)) fd.source = source_panel(s, s.main, s.stepper.pos);
    ImGui::End();
  }
  if (s.panels.controls) {
    if (begin_panel(fd, "Kernel", Rect{right.x0, src_y1, mid, right.y1})) controls_panel(s, fd);
    ImGui::End();
  }
  // The right column: the step's view over the numbers; a chart or the metrics the step
  // names take the whole column.
  const Rect col{mid, right.y0, right.x1, right.y1};
  if (named && (v == viz::View::Charts || v == viz::View::Metrics)) {
    draw_view(v, s, fd, col);
    return;
  }
  const bool numbers = s.panels.charts || s.panels.metrics;
  const float view_y1 = numbers ? col.y0 + col.h() * 0.6f : col.y1;
  const Rect top{col.x0, col.y0, col.x1, view_y1};
  if (named && viz::view_info(v).has(viz::kWithSource)) draw_view(v, s, fd, top);
  else auto_view(s, fd, top);
  if (numbers) numbers_panel(s, fd, Rect{col.x0, view_y1, col.x1, col.y1});
}

void draw_window(AppState& s, FrameDraw& fd, const Rect& body) {
  if (s.panels.lesson && s.lesson && s.lesson->is_open()) {
    lesson_window(s, fd, body);
    return;
  }
  const float W = body.w(), H = body.h(), y0 = body.y0;
  const float x1 = std::max(W * 0.21f, std::min(ImGui::GetFontSize() * 19, W * 0.3f));
  const float x2 = x1 + (W - x1) * 0.47f;

  const float ctrl_h = s.panels.lesson ? H * 0.56f : H;
  if (s.panels.controls) {
    if (begin_panel(fd, "Kernel", Rect{0, y0, x1, y0 + ctrl_h})) controls_panel(s, fd);
    ImGui::End();
  }
  if (s.panels.lesson) {
    if (begin_panel(fd, "Lesson", Rect{0, s.panels.controls ? y0 + ctrl_h : y0, x1, body.y1})) lesson_panel(s, fd);
    ImGui::End();
  }

  if (s.compare_mode) {
    compare_region(s, fd, Rect{x1, y0, body.x1, body.y1});
    return;
  }

  float y = y0;
  if (s.panels.stepper) {
    const float h = stepper_height(x2 - x1);
    if (begin_panel(fd, "Stepper", Rect{x1, y, x2, y + h})) fd.stepper = stepper_panel(s);
    ImGui::End();
    y += h;
  }
  const float src_h = (body.y1 - y) * (s.panels.mask ? 0.55f : 1.0f);
  if (s.editor) {  // the student's kernel takes the source's place
    draw_view(View::Editor, s, fd, Rect{x1, y, x2, y + src_h});
    y += src_h;
  } else if (s.panels.source) {
    if (begin_panel(fd, "Source", Rect{x1, y, x2, y + src_h})) fd.source = source_panel(s, s.main, s.stepper.pos);
    ImGui::End();
    y += src_h;
  }
  if (s.panels.mask) {
    draw_view(View::Divergence, s, fd, Rect{x1, y, x2, body.y1});
  }

  float yr = y0;
  // The map of the access being stepped gets the larger share: at 1280x720 a quarter of
  // the height left the sector map its summary and one row of lanes.
  bool global_first = false;
  if (const Loaded& l = s.main; l.valid()) {
    const sim::Totals& t = l.run->totals;
    global_first = t.shared_ld_requests + t.shared_st_requests + t.shared_atom_requests == 0;
    if (!l.order.empty()) {
      const WarpEvent& e = l.events()[l.order[std::min(s.stepper.pos, l.order.size() - 1)]];
      if (is_global(e.kind)) global_first = true;
      if (is_shared(e.kind)) global_first = false;
    }
  }
  const float bank_h = H * (global_first ? 0.25f : 0.42f), sector_h = H * (global_first ? 0.42f : 0.25f);
  if (s.panels.bank) {
    draw_view(View::BankMap, s, fd, Rect{x2, yr, body.x1, yr + bank_h});
    yr += bank_h;
  }
  if (s.panels.sector) {
    draw_view(View::SectorMap, s, fd, Rect{x2, yr, body.x1, yr + sector_h});
    yr += sector_h;
  }
  if (s.panels.charts || s.panels.metrics) numbers_panel(s, fd, Rect{x2, yr, body.x1, body.y1});
}


}  // namespace

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
  return s.presenter_on && s.panels.lesson && s.lesson && s.lesson->is_open();
}

std::uint32_t apply_style(bool presenter) {
  ImGuiStyle& st = ImGui::GetStyle();
  st = ImGuiStyle();
  auto clear_from_window_bg = [&] {
    const ImVec4 bg = st.Colors[ImGuiCol_WindowBg];
    st.Colors[ImGuiCol_WindowBg].w = 0;
    return viz::rgba(unsigned(bg.x * 255 + 0.5f), unsigned(bg.y * 255 + 0.5f), unsigned(bg.z * 255 + 0.5f));
  };
  // The theme's colours over ImGui's dark style; 0 keeps the dark default.
  ImGui::StyleColorsDark(&st);
  const viz::Theme& t = viz::theme(presenter ? viz::ViewStyle::presenter() : viz::ViewStyle{});
  ImVec4* c = st.Colors;
  auto set = [](ImVec4& slot, std::uint32_t col) {
    if (col) slot = viz::to_imvec4(col);
  };
  set(c[ImGuiCol_WindowBg], t.window_bg);
  set(c[ImGuiCol_ChildBg], t.child_bg);
  set(c[ImGuiCol_Text], t.window_text);
  set(c[ImGuiCol_TextDisabled], t.text_disabled);
  set(c[ImGuiCol_TitleBg], t.title_bg);
  set(c[ImGuiCol_TitleBgActive], t.title_bg);
  set(c[ImGuiCol_Border], t.border);
  set(c[ImGuiCol_FrameBg], t.frame_bg);
  set(c[ImGuiCol_Button], t.button);
  if (!presenter) {
    st.WindowRounding = 0;
    st.FrameRounding = 2;
    return clear_from_window_bg();
  }
  st.WindowBorderSize = 2;
  st.WindowRounding = 0;
  return clear_from_window_bg();
}

void handle_keys(AppState& s) {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  auto pressed = [](int key, bool repeat = true) { return ImGui::IsKeyPressed(key, repeat); };
  const auto& ev = s.main.events();
  if (pressed(Keys::Right)) s.stepper.apply(viz::StepAction::Forward, ev);
  if (pressed(Keys::Left)) s.stepper.apply(viz::StepAction::Back, ev);
  if (pressed(Keys::Home, false)) s.stepper.apply(viz::StepAction::First, ev);
  if (pressed(Keys::End, false)) s.stepper.apply(viz::StepAction::Last, ev);
  if (pressed(Keys::Space, false))
    s.stepper.apply(s.stepper.playing ? viz::StepAction::Pause : viz::StepAction::Play, ev);
  // A lesson's steps: PageDown/PageUp wherever its panel is shown; in the presenter's script
  // also n/b (a clicker's keys), which then leave next conflict/barrier to Shift+n/Shift+b.
  const bool lesson_open = s.panels.lesson && s.lesson && s.lesson->is_open();
  const bool script = classroom(s);
  const bool shift = io.KeyShift;
  // A predict still to answer takes the typed number: its '-' and '.' are not shortcuts.
  const bool typing = lesson_open && s.lesson->takes_typing();
  if (lesson_open && pressed(Keys::PageDown, false)) s.lesson->next_step();
  if (lesson_open && pressed(Keys::PageUp, false)) s.lesson->prev_step();
  if (script && !shift && pressed(Keys::letter('n'), false)) s.lesson->next_step();
  if (script && !shift && pressed(Keys::letter('b'), false)) s.lesson->prev_step();
  if ((!script || shift) && pressed(Keys::letter('n'))) s.stepper.apply(viz::StepAction::NextConflict, ev);
  if (pressed(Keys::letter('p'))) s.stepper.apply(viz::StepAction::PrevConflict, ev);
  if ((!script || shift) && pressed(Keys::letter('b'))) s.stepper.apply(viz::StepAction::NextBarrier, ev);
  if (pressed(Keys::Up) && s.main.valid() && s.main.kept()) {
    const unsigned warps = s.main.kept()->info.warps_per_block();
    if (s.selection().warp + 1u < warps) s.set_warp(std::uint16_t(s.selection().warp + 1));
  }
  if (pressed(Keys::Down) && s.selection().warp > 0) s.set_warp(std::uint16_t(s.selection().warp - 1));
  if (pressed(Keys::letter('c'), false)) s.set_compare(!s.compare_mode);
  if (pressed(Keys::letter('v'), false)) {
    std::vector<std::string> names;
    for (const auto& v : catalogue())
      if (v.family == s.selection().family) names.push_back(v.name);
    auto it = std::find(names.begin(), names.end(), s.selection().variant);
    if (!names.empty()) {
      const std::size_t i = it == names.end() ? 0 : std::size_t(it - names.begin() + 1) % names.size();
      s.select(s.selection().family, names[i]);
    }
  }
  float& size = s.presenter_on ? s.presenter_font_size : s.font_size;
  if (pressed(Keys::Equal) || pressed(Keys::KpAdd)) {
    size = std::min(72.0f, size + 2);
    s.font_dirty = true;
  }
  if (!typing && (pressed(Keys::Minus) || pressed(Keys::KpSubtract))) {
    size = std::max(10.0f, size - 2);
    s.font_dirty = true;
  }
  if (pressed(Keys::F5, false)) {
    s.presenter_on = !s.presenter_on;
    s.font_dirty = true;
  }
  if (pressed(Keys::Escape, false) && s.presenter_on) {
    s.presenter_on = false;
    s.font_dirty = true;
  }
  if (pressed(Keys::F11, false)) s.fullscreen_request = true;
  if (pressed(Keys::F12, false)) s.window_png_request = true;
  // What a lecturer flips: , and . pick a parameter, [ and ] step it (the next allowed
  // value; sizes double and halve; others move by one), k folds the keys line away.
  if (s.presenter_on) {
    const auto names = param_names(s);
    if (!names.empty()) {
      if (!typing && pressed(Keys::Period, false)) s.param_cursor = (s.param_cursor + 1) % names.size();
      if (!typing && pressed(Keys::Comma, false)) s.param_cursor = (s.param_cursor + names.size() - 1) % names.size();
      const int dir = pressed(Keys::RightBracket) ? 1 : pressed(Keys::LeftBracket) ? -1 : 0;
      const VariantInfo* v = s.variant_info();
      if (dir != 0 && v) {
        const ParamSpec& ps = v->params[s.param_cursor % v->params.size()];
        const long long cur = s.completed_params().count(ps.name) ? s.completed_params().at(ps.name) : ps.def;
        long long next = cur;
        if (!ps.choices.empty()) {
          auto it = std::find(ps.choices.begin(), ps.choices.end(), cur);
          const long long i = it == ps.choices.end() ? 0 : (it - ps.choices.begin()) + dir;
          next = ps.choices[std::size_t(std::clamp<long long>(i, 0, (long long)ps.choices.size() - 1))];
        } else if (cur >= 16 && (cur & (cur - 1)) == 0) {
          next = dir > 0 ? cur * 2 : cur / 2;
        } else {
          next = cur + dir;
        }
        next = ps.choices.empty() ? std::clamp(next, ps.min, ps.max) : next;
        if (next != cur) s.set_param(ps.name, next);
      }
    }
    if (pressed(Keys::letter('k'), false)) s.keys_hidden = !s.keys_hidden;
  }
}

namespace {
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
}  // namespace

FrameDraw draw_ui(AppState& s) {
  FrameDraw fd;
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  const float fh = ImGui::GetFrameHeightWithSpacing();

  // Screenshots of one view: that view fills the window.
  if (s.single_view != View::Window) {
    draw_view(s.single_view, s, fd, Rect{0, 0, ds.x, ds.y});
    return fd;
  }

  const float bar_h = fh * ((toolbar_wraps(s, ds.x) ? 2.15f : 1.15f) + 0.9f * float(s.notices.size()));
  toolbar(s, fd, Rect{0, 0, ds.x, bar_h});
  const Rect body{0, bar_h, ds.x, ds.y};
  if (classroom(s)) {
    classroom_layout(s, fd, body);
    export_toast(s, fd, ds);
    return fd;
  }
  if (s.presenter_on) {
    presenter_layout(s, fd, body);
    export_toast(s, fd, ds);
    return fd;
  }

  draw_window(s, fd, body);
  export_toast(s, fd, ds);
  return fd;
}

}  // namespace ws::gui

namespace ws::gui {

void check_text(FrameDraw& fd) {
  const ImDrawData* dd = ImGui::GetDrawData();
  if (!dd || !dd->Valid) return;
  ImFontAtlas* atlas = ImGui::GetIO().Fonts;
  // A glyph is a quad of two triangles with the font atlas's texture on it: neither the
  // white pixel (filled shapes) nor the baked lines (anti-aliased strokes).
  const ImVec2 white = atlas->TexUvWhitePixel;
  ImRect lines(0, 0, 0, 0);
  if (atlas->PackIdLines >= 0 && atlas->PackIdLines < atlas->CustomRects.Size) {
    const ImFontAtlasCustomRect& r = atlas->CustomRects[atlas->PackIdLines];
    lines = ImRect(float(r.X) * atlas->TexUvScale.x, float(r.Y) * atlas->TexUvScale.y,
                   float(r.X + r.Width) * atlas->TexUvScale.x, float(r.Y + r.Height) * atlas->TexUvScale.y);
  }
  // A glyph's top-left UV -> the glyph and its font's size: its character, where its ink
  // sits in its line (so that a '.' or ',' joins the line it is on, not a line of its own),
  // and its bottom-right UV, which a glyph clipped on the CPU at its frame's edge (a combo's
  // preview, an input field) lacks.
  struct Glyph {
    const ImFontGlyph* g;
    float size;
  };
  std::map<std::pair<float, float>, Glyph> by_uv;
  for (const ImFont* f : atlas->Fonts)
    for (const ImFontGlyph& gl : f->Glyphs) by_uv[{gl.U0, gl.V0}] = {&gl, f->FontSize};
  const float tol = 1.5f;  // a glyph's quad has a pixel of padding around its ink
  for (int n = 0; n < dd->CmdListsCount; ++n) {
    const ImDrawList* dl = dd->CmdLists[n];
    const char* owner = dl->_OwnerName ? dl->_OwnerName : "";
    ImGuiWindow* w = ImGui::FindWindowByName(owner);
    // Only a scrollbar in view says that there is more (ScrollMax counts without one): the
    // window's own or that of a window it sits in.
    bool scrolls_x = false, scrolls_y = false;
    for (ImGuiWindow* a = w; a; a = (a->Flags & ImGuiWindowFlags_ChildWindow) ? a->ParentWindow : nullptr) {
      scrolls_x |= a->ScrollbarX;
      scrolls_y |= a->ScrollbarY;
    }
    // The panel's name as begin_panel gave it; a child window is named after its parent.
    std::string panel = owner;
    panel.resize(std::min(panel.size(), panel.find('/')));
    struct Run {
      std::string text;
      ImRect rect, clip;
      float top = 0, lh = 0;  // the line's top and height
      bool open = false;
      bool shortened = false;  // ImGui's ellipsis, or a glyph cut at its frame's edge
    } run;
    auto flush = [&] {
      if (!run.open) return;
      ++fd.texts_checked;
      const ImRect& r = run.rect;
      const ImRect& c = run.clip;
      const bool cut_x = !scrolls_x && (r.Min.x < c.Min.x - tol || r.Max.x > c.Max.x + tol);
      const bool cut_y = !scrolls_y && (r.Min.y < c.Min.y - tol || r.Max.y > c.Max.y + tol);
      if (r.Max.x > c.Min.x && r.Min.x < c.Max.x && r.Max.y > c.Min.y && r.Min.y < c.Max.y)
        fd.texts.push_back({panel, run.text, Rect{r.Min.x, r.Min.y, r.Max.x, r.Max.y},
                            Rect{c.Min.x, c.Min.y, c.Max.x, c.Max.y}, Rect{r.Min.x, run.top, r.Max.x, run.top + run.lh}});
      if (cut_x || cut_y || run.shortened)
        fd.cut_texts.push_back({panel, run.text, Rect{r.Min.x, r.Min.y, r.Max.x, r.Max.y},
                                Rect{c.Min.x, c.Min.y, c.Max.x, c.Max.y}});
      run = Run{};
    };
    for (const ImDrawCmd& cmd : dl->CmdBuffer) {
      if (cmd.UserCallback) continue;
      const ImRect clip(cmd.ClipRect.x, cmd.ClipRect.y, cmd.ClipRect.z, cmd.ClipRect.w);
      const ImDrawIdx* idx = dl->IdxBuffer.Data + cmd.IdxOffset;
      const ImDrawVert* vtx = dl->VtxBuffer.Data + cmd.VtxOffset;
      for (unsigned i = 0; i + 6 <= cmd.ElemCount; i += 3) {
        const unsigned a = idx[i];
        if (idx[i + 1] != a + 1 || idx[i + 2] != a + 2 || idx[i + 3] != a || idx[i + 4] != a + 2 ||
            idx[i + 5] != a + 3)
          continue;
        const ImDrawVert *v0 = vtx + a, *v2 = vtx + a + 2;
        const ImVec2 uv0 = v0->uv, uv2 = v2->uv;
        if ((uv0.x == white.x && uv0.y == white.y) || !(uv0.x < uv2.x && uv0.y < uv2.y) ||
            lines.Contains(ImVec2((uv0.x + uv2.x) / 2, (uv0.y + uv2.y) / 2)) || v0[1].pos.y != v0->pos.y ||
            v0[3].pos.x != v0->pos.x)
          continue;
        i += 3;  // the quad's second triangle
        const ImRect g(v0->pos, v2->pos);
        auto it = by_uv.find({uv0.x, uv0.y});
        const ImFontGlyph* gl = it == by_uv.end() ? nullptr : it->second.g;
        // The character as UTF-8 ("µs" reads as drawn); '?' for a glyph not in the atlas.
        std::string ch = "?";
        float top = g.Min.y, lh = g.GetHeight();
        if (gl) {
          char u[5] = {};
          ImTextCharToUtf8(u, gl->Codepoint);
          ch = u;
          const float scale = gl->Y1 > gl->Y0 ? g.GetHeight() / (gl->Y1 - gl->Y0) : 1.f;
          top = g.Min.y - gl->Y0 * scale;
          lh = it->second.size * scale;
        }
        // Cut at its frame's right edge by more than the glyph's padding (a small button's
        // frame trims a pixel of every glyph's quad: that is no cut).
        bool shortened = gl && gl->Codepoint == 0x2026;
        if (gl && !shortened && uv2.x < gl->U1 && gl->U1 > gl->U0) {
          const float kept = (uv2.x - gl->U0) / (gl->U1 - gl->U0);
          const float drawn = v2->pos.x - v0->pos.x;
          shortened = kept > 0 && drawn / kept - drawn > tol;
        }
        // A glyph continues the run on its line when it follows close after it, under the
        // same clip rectangle.
        const bool same = run.open && std::abs(top - run.top) < run.lh * 0.3f && g.Min.x >= run.rect.Max.x - 1 &&
                          g.Min.x - run.rect.Max.x < lh * 0.9f && clip.Min.x == run.clip.Min.x &&
                          clip.Max.x == run.clip.Max.x && clip.Min.y == run.clip.Min.y && clip.Max.y == run.clip.Max.y;
        if (!same) {
          flush();
          run.open = true;
          run.rect = g;
          run.clip = clip;
          run.top = top;
          run.lh = lh;
          run.shortened = shortened;
        } else {
          run.shortened |= shortened;
          if (g.Min.x - run.rect.Max.x > lh * 0.2f) run.text += ' ';
          run.rect.Add(g);
        }
        run.text += ch;
      }
    }
    flush();
    // Items laid out past the right edge (or below a panel without a scrollbar) are not
    // drawn at all, so no glyph shows them: the window's extent of laid-out items does.
    if (w && !(w->Flags & (ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_Popup))) {
      // A table reaches into the window's padding with its cell padding: what passes that
      // is a widget the panel does not show.
      const ImRect& vis = w->InnerClipRect;
      const ImVec2 pad = w->WindowPadding;
      // The editor's text box scrolls its text with the caret (ImGui's multiline input).
      const bool text_box = std::strstr(w->Name, (std::string("/") + kEditorTextLabel + "_").c_str()) != nullptr;
      const bool over_x = !scrolls_x && !text_box && !(w->Flags & ImGuiWindowFlags_HorizontalScrollbar) &&
                          w->DC.CursorMaxPos.x > vis.Max.x + pad.x + 1;
      const bool over_y = !scrolls_y && (w->Flags & ImGuiWindowFlags_NoScrollbar) &&
                          w->DC.CursorMaxPos.y > vis.Max.y + pad.y + 1;
      if (over_x || over_y)
        fd.cut_texts.push_back({panel, "", Rect{vis.Min.x, vis.Min.y, w->DC.CursorMaxPos.x, w->DC.CursorMaxPos.y},
                                Rect{vis.Min.x, vis.Min.y, vis.Max.x, vis.Max.y}});
    }
  }
}

std::string frame_text(const FrameDraw& fd) {
  // Rows by the runs' vertical centres: a run joins the row whose centre is within half
  // its height; rows top to bottom, runs left to right.
  std::vector<const CutText*> runs;
  for (const CutText& t : fd.texts) runs.push_back(&t);
  std::stable_sort(runs.begin(), runs.end(), [](const CutText* a, const CutText* b) { return a->line.cy() < b->line.cy(); });
  std::vector<std::vector<const CutText*>> rows;
  float row_cy = 0;
  for (const CutText* t : runs) {
    if (rows.empty() || t->line.cy() - row_cy > std::max(2.f, t->line.h() * 0.5f)) {
      rows.emplace_back();
      row_cy = t->line.cy();
    }
    rows.back().push_back(t);
  }
  std::string out;
  for (auto& row : rows) {
    std::stable_sort(row.begin(), row.end(), [](const CutText* a, const CutText* b) { return a->rect.x0 < b->rect.x0; });
    for (std::size_t i = 0; i < row.size(); ++i) out += (i ? " " : "") + row[i]->text;
    out += "\n";
  }
  return out;
}

}  // namespace ws::gui
