// The Metrics panel (viz/metrics_table.h): the model's totals, the time and its parts, the
// hardware's counters beside them.
#include "app/gui/panels/panel.h"
#include "kernels/hardware/compiled.h"

namespace ws::gui {

namespace {

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
  const RunResult* timed = &l == &s.results.main ? s.timed_run() : nullptr;
  const Timing& tm = timed ? timed->timing : r.timing;
  in.source = tm.source;
  in.median_ms = tm.median_ms;
  in.min_ms = tm.min_ms;
  in.max_ms = tm.max_ms;
  in.samples = int(tm.samples_ms.size());
  in.throughput = tm.throughput;
  in.unit = tm.unit;
  if (timed) in.timed_at = s.sizes_line();
  in.copy_gbps = s.charts.copy_gbps();
  in.copy_source = s.charts.copy_source();
  // A tensor-core run against the FP32 peak would read "590 % of theoretical peak": no row.
  in.peak = s.tensor_run() ? 0 : s.peak();
  const HardwareCounters& hw = l.hardware();
  in.hardware = hardware_rows(r.totals, hw, compiled_surplus(l.sel.family, l.sel.variant, r.params));
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

}  // namespace

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
  if (&l == &s.results.main && !s.refusal().empty())
    ImGui::TextColored(viz::to_imvec4(th(s).stale), "(from the last parameters that could run)");
  if (&l == &s.results.main) in.collect_hardware = &s.collect_hardware;
  viz::MetricsDraw d = viz::draw_metrics_table(in, style_of(s));
  // Turned on for a run that has no counters yet: run again with them (they stay with
  // the run; turning the toggle off only hides them).
  if (d.toggled && s.collect_hardware && l.run->hardware.unavailable == HardwareUnavailable::NotAsked)
    s.request_run();
  return d;
}

void draw_metrics(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::Metrics).c_str(), r)) fd.metrics = metrics_panel(s, s.results.main);
  ImGui::End();
}

}  // namespace ws::gui
