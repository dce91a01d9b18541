#pragma once
// The charts' model on the UI thread: the run history, the variants' bars, the sweep and
// the peers, and the ChartSpecs built from them. Plain data and functions: no window, no
// worker; what a chart says besides its data (the device's peak from its data sheet, the
// export metadata) comes in a ChartContext from the app's state. Each point and reference
// carries its source; the charts derive their words from them (viz::chart_sources).
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "app/model/worker.h"
#include "kernels/backends/backend.h"
#include "viz/chart.h"

namespace ws::gui {

struct HistoryPoint {
  int run = 0;
  std::string label;  // "tiled n=1024 tile=32 pad=1"
  std::string series; // variant name: one colour per variant
  double throughput = 0;
  std::string unit;
  bool wrong = false;
  sim::Provenance source;  // the run's time: measured, recorded or modelled
};

// What the charts need from the rest of the app.
struct ChartContext {
  double peak = 0;          // the device's theoretical peak in the run's unit (0: unknown)
  // Which peak: the DRAM's for GB/s, the FMA units' (FP32) for GFLOP/s (lesson 13's
  // tensor-core bars stood above a line labelled only "theoretical peak", the FP32 figure).
  std::string peak_name = "theoretical peak";
  sim::Provenance peak_source;  // its data sheet (Spec): never modelled, never measured
  std::string family;       // the selected family (the bars name theirs when they differ)
  Params completed;         // the selected variant's completed parameters
  std::map<std::string, std::string> meta;  // the export metadata (kernels/backends/run_meta.h)
};

struct ChartModel {
  std::deque<HistoryPoint> history;
  int runs_done = 0;
  std::vector<BarPoint> bars;
  std::string bars_family;
  Params bars_at;        // the parameters the bars ran at ("" before the first)
  std::string bars_why;  // why they are not at the timing size asked for ("" when they are)
  bool bars_cancelled = false;
  std::vector<SweepPoint> sweep;
  std::string sweep_x, sweep_series;           // parameter names
  std::string sweep_for;                       // "family/variant" the sweep belongs to
  std::string sweep_metric;                    // "" = throughput, else a Totals::plain() name
  std::vector<PeerResult> peers;
  bool live_charts = true;                     // bars follow every change

  // The memcpy peer's throughput (0: none measured or recorded), and its source.
  double copy_gbps() const;
  sim::Provenance copy_source() const;
  // @post one line series per variant, of the points in the last point's unit, in run
  //       order; the peak and (for GB/s) the copy as references when known.
  viz::ChartSpec history_chart(const ChartContext& ctx) const;
  // @post one bar per BarPoint in order; one that did not run is "(n/a)" with no value;
  //       the peers in the bars' unit are references.
  viz::ChartSpec bars_chart(const ChartContext& ctx) const;
  // @post one line per series value of the points that ran; meta "params" names the
  //       swept values as swept and the other parameters as completed.
  viz::ChartSpec sweep_chart(const ChartContext& ctx) const;
};

}  // namespace ws::gui
