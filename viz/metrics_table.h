#pragma once
// The metrics table: a run's totals under Nsight Compute's metric names and in plain
// words, with its time (measured on the GPU or modelled on the emulator, and labelled so),
// throughput, and the fraction of the device's copy bandwidth and peak.
#include <string>
#include <utility>
#include <vector>

#include "sim/model.h"
#include "sim/provenance.h"
#include "viz/view_common.h"

namespace ws::viz {

// One counter of the hardware beside the model (filled by the app from CUPTI's passes).
enum class DiffColour { Equal, Noise, Differs, HardwareOnly };
struct HardwareRow {
  std::string metric;
  bool modelled = false;            // false: the model has no figure (DRAM bytes, occupancy)
  double model = 0, hardware = 0;   // hardware: the median over the runs
  double hw_min = 0, hw_max = 0;
  double diff = 0;                  // hardware - model
  DiffColour colour = DiffColour::Equal;
  std::string summary;              // "arbitration with other warps; varies run to run; 3 runs: a..b"
  std::string explain;              // one sentence, shown when the row is expanded
};

struct MetricsInput {
  const sim::Totals* totals = nullptr;
  bool ran = false;            // false: no result yet
  std::string error;           // the run failed: shown instead of numbers
  bool verified = false;
  std::string verify_message;  // what was wrong
  sim::Provenance source;      // the time's: measured, recorded or modelled (Timing::source)
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int samples = 0;
  double throughput = 0;
  std::string unit;            // "GB/s", "GFLOP/s" or "Gop/s" (the family's, kernels/catalogue/catalogue.h Plan::unit)
  std::string timed_at;        // "counts at n=1024 · times at n=8192, ..." when the time is another run's
  double copy_gbps = 0;        // device-to-device copy at the same size (0: none)
  sim::Provenance copy_source; // the copy's: measured or recorded, never modelled
  double peak = 0;             // theoretical peak in `unit` (0: unknown), from the data sheet
  std::vector<std::string> problems;  // emulator reports
  // Hardware counters: the toggle that asks for them (nullptr: no toggle drawn), the rows
  // when present, else one line saying why not (shown when the toggle is on).
  bool* collect_hardware = nullptr;
  std::vector<HardwareRow> hardware;
  std::string hardware_note;        // why there are no counters, or a remark on them
  std::string hardware_source;      // "CUPTI, 3 runs on NVIDIA H100 80GB HBM3"
  std::vector<std::pair<std::string, std::string>> occupancy;  // extra rows: name, value
  // A lesson's unanswered prediction: the time rows (covered.time), the occupancy rows
  // (covered.launch), and every row whose name contains one of `covered_words` show
  // kPredictFirst as their value.
  Covered covered;
  std::vector<std::string> covered_words;
  // Who counted, when not this run: "model counts recorded on NVIDIA H100 80GB HBM3,
  // 2026-11-25" (the GPU's traced build, when the time was recorded), or why there are
  // no counts ("counts not recorded: ..."; counts_missing, the count tables left out).
  std::string counts_source;
  bool counts_missing = false;
};

struct MetricsDraw {
  bool drawn = false;
  std::string note;
  std::string time_label;      // long_label of the time's source
  int ncu_rows = 0, plain_rows = 0;
  std::vector<std::pair<std::string, std::string>> cells;  // every name -> value drawn
  bool wrong_shown = false;    // the "wrong result" banner was drawn
  int hardware_rows = 0;       // rows with a hardware column
  int differing_rows = 0;      // of them, rows whose difference is not 0
  bool hardware_note_shown = false;
  bool toggled = false;        // the hardware toggle changed this frame
  std::string counts_line;     // the line that says who counted ("" when this run did)
};

// @post when totals is set: time_label == sim::long_label(in.source); counts_line is ""
//       iff counts_source is; with counts_missing, no count row is drawn (ncu_rows ==
//       plain_rows == 0), else ncu_rows == totals->ncu().size(), plain_rows ==
//       totals->plain().size(); the copy's
//       share is marked "(mixed: ...)" when copy_source is not the time's source; with
//       hardware rows, hardware_rows == hardware.size() and every modelled metric of the
//       table shows model | hardware | difference; without them and with the toggle on,
//       hardware_note_shown.
MetricsDraw draw_metrics_table(const MetricsInput& in, const ViewStyle& style = {});

// Compare's baseline: one metric of side A (the baseline) beside side B, as a profiler's
// baseline shows it.
struct BaselineRow {
  std::string metric;
  double a = 0, b = 0;
  double diff = 0;   // b - a
  double ratio = 0;  // b / a (NaN when a == 0)
};
// @post one row per metric in a.ncu() (the same keys as b.ncu()), in their order, with
//       diff == b - a and ratio == b / a (NaN when a == 0).
std::vector<BaselineRow> baseline_rows(const sim::Totals& a, const sim::Totals& b);
// Draws the rows as a table (metric | A | B | B - A | B / A; without B - A where the width
// is short), `height` tall and scrolling; equal rows dimmed. @post returns the rows drawn.
int draw_baseline_table(const std::vector<BaselineRow>& rows, float height, const ViewStyle& style = {});

// "1.25 ms", "830 us", "2.1 s"
std::string format_ms(double ms);
// "1,048,576" for counts, 3 significant digits for fractions
std::string format_value(double v);

}  // namespace ws::viz
