// The charts' model (see app/model/chart_model.h).
#include "app/model/chart_model.h"

#include <cmath>
#include <set>

namespace ws::gui {

double ChartModel::copy_gbps() const {
  for (const PeerResult& p : peers)
    if (p.peer == Peer::MemcpyD2D && p.error.empty() && p.timing.throughput > 0) return p.timing.throughput;
  return 0;
}

sim::Provenance ChartModel::copy_source() const {
  for (const PeerResult& p : peers)
    if (p.peer == Peer::MemcpyD2D && p.error.empty() && p.timing.throughput > 0) return p.timing.source;
  return {};
}

viz::ChartSpec ChartModel::history_chart(const ChartContext& ctx) const {
  viz::ChartSpec c;
  c.title = "Throughput per run";
  c.x_label = "run";
  const std::string unit = history.empty() ? "GB/s" : history.back().unit;
  c.y_label = unit;  // the sources drawn complete the axis title (viz::y_axis_title)
  std::map<std::string, std::size_t> index;
  for (const HistoryPoint& h : history) {
    if (h.unit != unit) continue;
    auto it = index.find(h.series);
    if (it == index.end()) {
      it = index.emplace(h.series, c.series.size()).first;
      viz::Series s;
      s.name = h.series;
      s.kind = viz::SeriesKind::Line;
      c.series.push_back(s);
    }
    viz::Series& s = c.series[it->second];
    s.x.push_back(h.run);
    s.y.push_back(h.throughput);
    s.wrong.push_back(h.wrong);
    s.source.push_back(h.source);
  }
  if (const double pk = ctx.peak; pk > 0) c.refs.push_back({ctx.peak_name, pk, 0, ctx.peak_source});
  if (const double cp = copy_gbps(); cp > 0 && unit == "GB/s")
    c.refs.push_back({"cudaMemcpy D2D", cp, 0, copy_source()});
  c.meta = ctx.meta;
  return c;
}

viz::ChartSpec ChartModel::bars_chart(const ChartContext& ctx) const {
  viz::ChartSpec c;
  c.title = "Variants of " + (bars_family.empty() ? ctx.family : bars_family) + " at " +
            ws::to_string(bars_at.empty() ? ctx.completed : bars_at);
  if (!bars_why.empty()) c.title += " (" + bars_why + ")";
  c.x_label = "variant";
  viz::Series s;
  s.name = "throughput";
  s.kind = viz::SeriesKind::Bars;
  std::string unit;
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const BarPoint& b = bars[i];
    const bool ran = b.skipped.empty() && b.result.error.empty();
    c.categories.push_back(ran ? b.variant : b.variant + " (n/a)");
    s.x.push_back(double(i));
    s.y.push_back(ran ? b.result.timing.throughput : NAN);
    s.wrong.push_back(ran && !b.result.ok());
    s.source.push_back(ran ? b.result.timing.source : sim::Provenance{});
    if (ran && unit.empty()) unit = b.result.timing.unit;
  }
  c.y_label = unit.empty() ? "GB/s" : unit;
  c.series.push_back(s);
  const std::string unit_label = c.y_label;
  if (const double pk = ctx.peak; pk > 0) c.refs.push_back({ctx.peak_name, pk, 0, ctx.peak_source});
  // Peers are measured beside the kernels or recorded: their own source, never modelled.
  for (const PeerResult& p : peers) {
    if (!p.error.empty() || p.timing.throughput <= 0 || p.timing.unit != unit_label) continue;
    c.refs.push_back({std::string(ws::to_string(p.peer)), p.timing.throughput, 0, p.timing.source});
  }
  c.meta = ctx.meta;
  return c;
}

viz::ChartSpec ChartModel::sweep_chart(const ChartContext& ctx) const {
  viz::ChartSpec c;
  c.title = "Sweep of " + sweep_x + (sweep_series.empty() ? "" : " x " + sweep_series) + " (" + sweep_for + ")";
  c.x_label = sweep_x;
  std::map<long long, std::size_t> index;
  std::string unit;
  for (const SweepPoint& p : sweep) {
    if (!p.skipped.empty() || !p.error.empty()) continue;
    auto it = index.find(p.s);
    if (it == index.end()) {
      it = index.emplace(p.s, c.series.size()).first;
      viz::Series s;
      s.name = sweep_series.empty() ? sweep_for : sweep_series + "=" + std::to_string(p.s);
      s.kind = viz::SeriesKind::Line;
      c.series.push_back(s);
    }
    viz::Series& s = c.series[it->second];
    double y = p.throughput;
    if (!sweep_metric.empty()) {
      y = NAN;
      for (const auto& [k, v] : p.plain)
        if (k == sweep_metric) y = v;
    }
    s.x.push_back(double(p.x));
    s.y.push_back(y);
    s.wrong.push_back(!p.verified);
    // Counts come from the model on every backend; only times can be modelled.
    s.source.push_back(sweep_metric.empty() ? p.source : sim::Provenance{});
    if (unit.empty()) unit = p.unit;
  }
  c.y_label = !sweep_metric.empty() ? sweep_metric : unit.empty() ? "GB/s" : unit;
  if (const double pk = ctx.peak; pk > 0 && sweep_metric.empty())
    c.refs.push_back({ctx.peak_name, pk, 0, ctx.peak_source});
  c.meta = ctx.meta;
  // The swept parameters as swept (x=8,16,32), not the controls' current values.
  std::set<long long> xs, ss;
  for (const SweepPoint& p : sweep) {
    xs.insert(p.x);
    ss.insert(p.s);
  }
  auto list = [](const std::set<long long>& v) {
    std::string t;
    for (long long x : v) t += (t.empty() ? "" : ",") + std::to_string(x);
    return t;
  };
  Params rest = ctx.completed;
  rest.erase(sweep_x);
  if (!sweep_series.empty()) rest.erase(sweep_series);
  std::string params = ws::to_string(rest);
  if (!xs.empty()) params += (params.empty() ? "" : " ") + sweep_x + "=" + list(xs);
  if (!sweep_series.empty() && !ss.empty()) params += " " + sweep_series + "=" + list(ss);
  c.meta["params"] = params;
  c.meta["kernel"] = sweep_for.empty() ? c.meta["kernel"] : sweep_for;
  return c;
}

}  // namespace ws::gui
