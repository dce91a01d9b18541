#pragma once
// The metrics table: a run's totals under Nsight Compute's metric names and in plain
// words, with its time (measured on the GPU or modelled on the emulator, and labelled so),
// throughput, and the fraction of the device's copy bandwidth and peak.
#include <string>
#include <utility>
#include <vector>

#include "sim/model.h"
#include "viz/view_common.h"

namespace ws::viz {

struct MetricsInput {
  const sim::Totals* totals = nullptr;
  bool ran = false;            // false: no result yet
  std::string error;           // the run failed: shown instead of numbers
  bool verified = false;
  std::string verify_message;  // what was wrong
  bool measured = false;       // CUDA events; false: modelled by sim/
  std::string recorded;        // the recording's label when the time comes from one
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int samples = 0;
  double throughput = 0;
  std::string unit;            // "GB/s" or "GFLOP/s"
  double copy_gbps = 0;        // device-to-device copy measured in the same session (0: none)
  double peak = 0;             // theoretical peak in `unit` (0: unknown)
  std::vector<std::string> problems;  // emulator reports
};

struct MetricsDraw {
  bool drawn = false;
  std::string note;
  std::string time_label;      // "measured", "modelled" or the recording's label
  int ncu_rows = 0, plain_rows = 0;
  std::vector<std::pair<std::string, std::string>> cells;  // every name -> value drawn
  bool wrong_shown = false;    // the "wrong result" banner was drawn
};

// @post when totals is set: ncu_rows == totals->ncu().size(), plain_rows ==
//       totals->plain().size(), and time_label says "modelled" unless measured.
MetricsDraw draw_metrics_table(const MetricsInput& in, const ViewStyle& style = {});

// "1.25 ms", "830 us", "2.1 s"
std::string format_ms(double ms);
// "1,048,576" for counts, 3 significant digits for fractions
std::string format_value(double v);

}  // namespace ws::viz
