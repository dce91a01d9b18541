// The metrics table view.
#include "viz/metrics_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "viz/chart_paint.h"
#include "viz/imgui_util.h"

namespace ws::viz {

std::string format_ms(double ms) {
  char b[32];
  if (ms >= 1000) std::snprintf(b, sizeof b, "%.3g s", ms / 1000);
  else if (ms >= 1) std::snprintf(b, sizeof b, "%.3g ms", ms);
  else std::snprintf(b, sizeof b, "%.3g us", ms * 1000);
  return b;
}

std::string format_value(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e18) {
    std::string digits = std::to_string((long long)std::fabs(v));
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (i && (digits.size() - i) % 3 == 0) out += ',';
      out += digits[i];
    }
    return v < 0 ? "-" + out : out;
  }
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

namespace {

// A cell's text wrapped at the column's edge (a long metric name breaks inside the word
// rather than running under the next column).
void cell(const std::string& text) {
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
}

void row(MetricsDraw& d, const std::string& name, std::string value, std::uint32_t col = 0, bool covered = false) {
  if (covered) {
    value = kPredictFirst;
    col = 0;
  }
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  cell(name);
  ImGui::TableSetColumnIndex(1);
  if (col) ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(col));
  cell(value);
  if (col) ImGui::PopStyleColor();
  d.cells.emplace_back(name, value);
}

bool word_covered(const MetricsInput& in, const std::string& name) {
  for (const std::string& w : in.covered_words)
    if (name.find(w) != std::string::npos) return true;
  return false;
}

}  // namespace

std::vector<BaselineRow> baseline_rows(const sim::Totals& a, const sim::Totals& b) {
  std::vector<BaselineRow> out;
  const std::map<std::string, double> bm = b.ncu();
  for (const auto& [k, va] : a.ncu()) {
    BaselineRow r;
    r.metric = k;
    r.a = va;
    auto it = bm.find(k);
    r.b = it == bm.end() ? 0 : it->second;
    r.diff = r.b - r.a;
    r.ratio = r.a != 0 ? r.b / r.a : std::nan("");
    out.push_back(std::move(r));
  }
  return out;
}

int draw_baseline_table(const std::vector<BaselineRow>& rows, float height, const ViewStyle& style) {
  const Theme& th = theme(style);
  auto ratio_text = [](const BaselineRow& r) { return std::isnan(r.ratio) ? std::string("-") : format_value(r.ratio) + "x"; };
  auto diff_text = [](const BaselineRow& r) { return (r.diff > 0 ? "+" : "") + format_value(r.diff); };
  // The numbers' columns as wide as their widest text; the metric's name takes the rest
  // and wraps there. Narrow (a presenter's large type), the difference gives way: B / A
  // says it, and a number is never cut.
  const char* heads[] = {"metric", "A", "B", "B - A", "B / A"};
  float wv[5] = {0, 0, 0, 0, 0};
  for (int k = 1; k < 5; ++k) wv[k] = ImGui::CalcTextSize(heads[k]).x;
  for (const BaselineRow& r : rows) {
    wv[1] = std::max(wv[1], ImGui::CalcTextSize(format_value(r.a).c_str()).x);
    wv[2] = std::max(wv[2], ImGui::CalcTextSize(format_value(r.b).c_str()).x);
    wv[3] = std::max(wv[3], ImGui::CalcTextSize(diff_text(r).c_str()).x);
    wv[4] = std::max(wv[4], ImGui::CalcTextSize(ratio_text(r).c_str()).x);
  }
  const float cell = ImGui::GetStyle().CellPadding.x * 2 + 2;
  const float avail = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize;
  const bool with_diff = wv[1] + wv[2] + wv[3] + wv[4] + 5 * cell + ImGui::GetFontSize() * 8 <= avail;
  const int ncol = with_diff ? 5 : 4;
  int drawn = 0;
  const ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY;
  if (!ImGui::BeginTable("##baseline", ncol, tf, ImVec2(0, height))) return 0;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("metric", ImGuiTableColumnFlags_WidthStretch);
  for (int k = 1; k < 5; ++k)
    if (k != 3 || with_diff) ImGui::TableSetupColumn(heads[k], ImGuiTableColumnFlags_WidthFixed, wv[k]);
  // The header as plain text (ImGui's header row shortens a narrow label with "...").
  ImGui::TableNextRow();
  ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(th.dim_text));
  for (int k = 0; k < 5; ++k)
    if (k != 3 || with_diff) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(heads[k]);
    }
  ImGui::PopStyleColor();
  for (const BaselineRow& r : rows) {
    const bool same = r.diff == 0;
    if (same) ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(th.dim_text));
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", r.metric.c_str());  // wrapped, not cut, in a narrow column
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_value(r.a).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_value(r.b).c_str());
    if (with_diff) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(diff_text(r).c_str());
    }
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(ratio_text(r).c_str());
    if (same) ImGui::PopStyleColor();
    ++drawn;
  }
  ImGui::EndTable();
  return drawn;
}

namespace {

// The time rows: the kernel's time with its source, the throughput, its share of the copy
// and of the peak, and whether the output matched the CPU reference.
void time_table(const MetricsInput& in, const Theme& th, ImGuiTableFlags tf, MetricsDraw& d) {
  const std::uint32_t modelled_col = th.modelled;
  const bool measured = in.source.is(sim::Source::Measured);
  if (ImGui::BeginTable("##time", 2, tf)) {
    ImGui::TableSetupColumn("time", ImGuiTableColumnFlags_WidthStretch, 1.4f);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    const std::uint32_t tc = in.source.on_gpu() ? 0 : modelled_col;
    if (in.median_ms > 0) {
      std::string t = format_ms(in.median_ms) + " (" + d.time_label + ")";
      if (measured && in.samples > 1)
        t += ", " + format_ms(in.min_ms) + " .. " + format_ms(in.max_ms) + " over " +
             std::to_string(in.samples) + " runs";
      row(d, in.source.on_gpu() ? "kernel time, median" : "kernel time", t, tc, in.covered.time);
    } else {
      row(d, "kernel time", "not timed");
    }
    if (in.throughput > 0) {
      char b[64];
      std::snprintf(b, sizeof b, "%.4g %s (%s)", in.throughput, in.unit.c_str(), d.time_label.c_str());
      row(d, "throughput", b, tc, in.covered.time);
      if (in.copy_gbps > 0 && in.unit == "GB/s")
      {
        // A share across two sources is shown with both named, never as a plain ratio.
        const sim::SourcedRatio r = sim::ratio(in.throughput, in.source, in.copy_gbps, in.copy_source);
        const std::string src = sim::short_label(in.copy_source);
        row(d, "of device copy bandwidth",
            percent(r.value) + " of " + format_value(std::round(in.copy_gbps)) + " GB/s" +
                (src.empty() ? "" : " (" + src + ")") + (r.mixed ? " " + r.note : ""),
            0, in.covered.time);
      }
      if (in.peak > 0)
        row(d, "of theoretical peak", percent(in.throughput / in.peak) + " of " +
                                          format_value(std::round(in.peak)) + " " + in.unit +
                                          " (spec sheet)",
            0, in.covered.time);
    }
    row(d, "output", in.verified ? "matches the CPU reference" : "WRONG",
        in.verified ? th.verified : th.run_error);
    ImGui::EndTable();
  }
}

// The model's Nsight Compute counters beside CUPTI's: model | hardware | difference, a
// difference row opening to its one-sentence reason.
void hardware_table(const MetricsInput& in, const Theme& th, ImGuiTableFlags tf,
                    const std::map<std::string, double>& ncu, MetricsDraw& d) {
  if (!in.hardware_note.empty()) ImGui::TextDisabled("%s", in.hardware_note.c_str());
  // model | hardware | difference; a difference row opens to its one-sentence reason.
  auto colour = [&](DiffColour c) -> std::uint32_t {
    switch (c) {
      case DiffColour::Equal: return th.equal;
      case DiffColour::Noise: return th.noise;
      case DiffColour::Differs: return th.differs;
      case DiffColour::HardwareOnly: return th.hardware_only;
    }
    return 0;
  };
  std::map<std::string, const HardwareRow*> by_metric;
  for (const HardwareRow& r : in.hardware) by_metric[r.metric] = &r;
  if (ImGui::BeginTable("##ncuhw", 4, tf)) {
    ImGui::TableSetupColumn("Nsight Compute metric", ImGuiTableColumnFlags_WidthStretch, 2.2f);
    ImGui::TableSetupColumn("model", ImGuiTableColumnFlags_WidthStretch, 0.7f);
    ImGui::TableSetupColumn("hardware", ImGuiTableColumnFlags_WidthStretch, 0.7f);
    ImGui::TableSetupColumn("difference", ImGuiTableColumnFlags_WidthStretch, 0.9f);
    ImGui::TableHeadersRow();
    bool opened_one = false;
    auto hw_row = [&](const std::string& name, const double* model, const HardwareRow* h) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::PushID(name.c_str());
      bool open = false;
      const bool differs = h && !(h->colour == DiffColour::Equal);
      if (h && (differs || h->colour == DiffColour::Equal)) {
        ImGuiTreeNodeFlags fl = ImGuiTreeNodeFlags_SpanAvailWidth;
        // The first difference opens by itself, so its reason is seen without a click.
        if (differs && h->colour != DiffColour::HardwareOnly && !opened_one) {
          fl |= ImGuiTreeNodeFlags_DefaultOpen;
          opened_one = true;
        }
        open = ImGui::TreeNodeEx("##row", fl, "%s", name.c_str());
      } else {
        cell(name);
      }
      ImGui::TableSetColumnIndex(1);
      const bool cov = word_covered(in, name);
      const std::string mv = cov ? kPredictFirst : model ? format_value(*model) : "-";
      cell(mv);
      ImGui::TableSetColumnIndex(2);
      std::string hv = "-", dv = "-";
      if (h && cov) {
        cell(kPredictFirst);
        hv = dv = kPredictFirst;
      } else if (h) {
        // The median; the spread over the runs is in the row's summary and its tooltip.
        hv = format_value(h->hardware) + (h->hw_min != h->hw_max ? " ~" : "");
        cell(hv);
        if (h->hw_min != h->hw_max && ImGui::IsItemHovered())
          ImGui::SetTooltip("%s..%s over the runs", format_value(h->hw_min).c_str(), format_value(h->hw_max).c_str());
        ImGui::TableSetColumnIndex(3);
        if (h->modelled) {
          dv = h->diff == 0 && h->colour == DiffColour::Equal ? "0" : (h->diff > 0 ? "+" : "") + format_value(h->diff);
          if (h->model != 0 && h->diff != 0) {
            char b[32];
            std::snprintf(b, sizeof b, " (%+.2g%%)", 100.0 * h->diff / h->model);
            dv += b;
          }
        } else {
          dv = "hardware only";
        }
        ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(colour(h->colour)));
        cell(dv);
        ImGui::PopStyleColor();
        ++d.hardware_rows;
        if (h->modelled && h->diff != 0) ++d.differing_rows;
      } else {
        ImGui::TextDisabled("%s", hv.c_str());
      }
      if (open) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        if (cov) {
          ImGui::TextDisabled("%s", kPredictFirst);
        } else {
          ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(colour(h->colour)));
          ImGui::TextWrapped("%s", h->summary.c_str());
          ImGui::PopStyleColor();
          ImGui::TextWrapped("%s", h->explain.c_str());
        }
        ImGui::TreePop();
      }
      ImGui::PopID();
      d.cells.emplace_back(name, mv + " | " + hv + " | " + dv);
    };
    for (const auto& [k, v] : ncu) {
      auto it = by_metric.find(k);
      hw_row(k, &v, it == by_metric.end() ? nullptr : it->second);
      ++d.ncu_rows;
    }
    for (const HardwareRow& r : in.hardware)
      if (!r.modelled) hw_row(r.metric, nullptr, &r);
    ImGui::EndTable();
  }
}

}  // namespace

MetricsDraw draw_metrics_table(const MetricsInput& in, const ViewStyle& style) {
  const Theme& th = theme(style);
  MetricsDraw d;
  if (!in.error.empty()) {
    d.note = in.error;
    ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(th.run_error));
    ImGui::TextWrapped("The run did not happen: %s", in.error.c_str());
    ImGui::PopStyleColor();
    return d;
  }
  if (!in.ran || !in.totals) {
    d.note = "No result yet.";
    ImGui::TextDisabled("%s", d.note.c_str());
    return d;
  }
  d.drawn = true;
  d.time_label = sim::long_label(in.source);
  if (!in.verified) {
    d.wrong_shown = true;
    ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(th.run_error));
    ImGui::TextWrapped("WRONG RESULT - the output differs from the CPU reference%s%s. Its time "
                       "is not a measurement of a working kernel.",
                       in.verify_message.empty() ? "" : ": ", in.verify_message.c_str());
    ImGui::PopStyleColor();
  }
  for (const std::string& p : in.problems) {
    ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(th.problem));
    ImGui::TextWrapped("%s", p.c_str());
    ImGui::PopStyleColor();
  }
  const ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                             ImGuiTableFlags_SizingStretchProp;
  time_table(in, th, tf, d);
  ImGui::Spacing();
  if (!in.counts_source.empty()) {
    // Counts this machine did not count: said before them, or instead of them.
    d.counts_line = in.counts_missing ? in.counts_source : "counts: " + in.counts_source;
    ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(th.modelled));
    ImGui::TextWrapped("%s", d.counts_line.c_str());
    ImGui::PopStyleColor();
    if (in.counts_missing) return d;
  }
  const auto plain = in.totals->plain();
  if (ImGui::BeginTable("##plain", 2, tf)) {
    ImGui::TableSetupColumn("In plain words", ImGuiTableColumnFlags_WidthStretch, 1.4f);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    for (const auto& [k, v] : plain) {
      row(d, k, format_value(v), 0, word_covered(in, k));
      ++d.plain_rows;
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();
  if (!in.occupancy.empty() && ImGui::BeginTable("##occ", 2, tf)) {
    ImGui::TableSetupColumn("occupancy", ImGuiTableColumnFlags_WidthStretch, 1.4f);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    for (const auto& [k, v] : in.occupancy) {
      // The row's name says the registers and threads it is for: covered with its value.
      const bool cov = in.covered.launch || word_covered(in, k);
      row(d, cov ? k.substr(0, k.find(" (")) : k, v, 0, cov);
    }
    ImGui::EndTable();
    ImGui::Spacing();
  }
  if (in.collect_hardware) {
    if (ImGui::Checkbox("hardware counters (CUPTI, replays the kernel)", in.collect_hardware))
      d.toggled = true;
    if (!in.hardware_source.empty() && !in.hardware.empty()) {
      ImGui::SameLine();
      ImGui::TextDisabled("%s", in.hardware_source.c_str());
    }
  }
  if (in.collect_hardware && *in.collect_hardware && in.hardware.empty() && !in.hardware_note.empty()) {
    d.hardware_note_shown = true;
    ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(th.hardware_note));
    ImGui::TextWrapped("%s", in.hardware_note.c_str());
    ImGui::PopStyleColor();
  }
  const auto ncu = in.totals->ncu();
  const bool hw = !in.hardware.empty();
  if (!hw) {
    if (ImGui::BeginTable("##ncu", 2, tf)) {
      ImGui::TableSetupColumn("Nsight Compute metric", ImGuiTableColumnFlags_WidthStretch, 2.2f);
      ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 0.8f);
      ImGui::TableHeadersRow();
      for (const auto& [k, v] : ncu) {
        row(d, k, format_value(v), 0, word_covered(in, k));
        ++d.ncu_rows;
      }
      ImGui::EndTable();
    }
    return d;
  }
  hardware_table(in, th, tf, ncu, d);
  return d;
}

}  // namespace ws::viz
