// The metrics table view.
#include "viz/metrics_table.h"

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

void row(MetricsDraw& d, const std::string& name, const std::string& value, std::uint32_t col = 0) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  cell(name);
  ImGui::TableSetColumnIndex(1);
  if (col) ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(col));
  cell(value);
  if (col) ImGui::PopStyleColor();
  d.cells.emplace_back(name, value);
}

}  // namespace

MetricsDraw draw_metrics_table(const MetricsInput& in, const ViewStyle& style) {
  const Theme& th = theme(style);
  const std::uint32_t modelled_col = th.modelled;
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
  const bool measured = in.source.is(sim::Source::Measured);
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
  if (ImGui::BeginTable("##time", 2, tf)) {
    ImGui::TableSetupColumn("time", ImGuiTableColumnFlags_WidthStretch, 1.4f);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    const std::uint32_t tc = in.source.on_gpu() ? 0 : modelled_col;
    if (in.median_ms > 0) {
      std::string t = format_ms(in.median_ms) + " (" + d.time_label + ")";
      if (measured && in.samples > 1)
        t += ", " + format_ms(in.min_ms) + " .. " + format_ms(in.max_ms) + " over " +
             std::to_string(in.samples) + " runs";
      row(d, in.source.on_gpu() ? "kernel time, median" : "kernel time", t, tc);
    } else {
      row(d, "kernel time", "not timed");
    }
    if (in.throughput > 0) {
      char b[64];
      std::snprintf(b, sizeof b, "%.4g %s (%s)", in.throughput, in.unit.c_str(), d.time_label.c_str());
      row(d, "throughput", b, tc);
      if (in.copy_gbps > 0 && in.unit == "GB/s")
      {
        // A share across two sources is shown with both named, never as a plain ratio.
        const sim::SourcedRatio r = sim::ratio(in.throughput, in.source, in.copy_gbps, in.copy_source);
        const std::string src = sim::short_label(in.copy_source);
        row(d, "of device copy bandwidth",
            percent(r.value) + " of " + format_value(std::round(in.copy_gbps)) + " GB/s" +
                (src.empty() ? "" : " (" + src + ")") + (r.mixed ? " " + r.note : ""));
      }
      if (in.peak > 0)
        row(d, "of theoretical peak", percent(in.throughput / in.peak) + " of " +
                                          format_value(std::round(in.peak)) + " " + in.unit +
                                          " (spec sheet)");
    }
    row(d, "output", in.verified ? "matches the CPU reference" : "WRONG",
        in.verified ? th.verified : th.run_error);
    ImGui::EndTable();
  }
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
      row(d, k, format_value(v));
      ++d.plain_rows;
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();
  if (!in.occupancy.empty() && ImGui::BeginTable("##occ", 2, tf)) {
    ImGui::TableSetupColumn("occupancy", ImGuiTableColumnFlags_WidthStretch, 1.4f);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    for (const auto& [k, v] : in.occupancy) row(d, k, v);
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
        row(d, k, format_value(v));
        ++d.ncu_rows;
      }
      ImGui::EndTable();
    }
    return d;
  }
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
      const std::string mv = model ? format_value(*model) : "-";
      cell(mv);
      ImGui::TableSetColumnIndex(2);
      std::string hv = "-", dv = "-";
      if (h) {
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
        ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(colour(h->colour)));
        ImGui::TextWrapped("%s", h->summary.c_str());
        ImGui::PopStyleColor();
        ImGui::TextWrapped("%s", h->explain.c_str());
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
  return d;
}

}  // namespace ws::viz
