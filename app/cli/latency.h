#pragma once
// `warpscope latency`: drives the GUI's worker (app/model/worker.h) without a window, as a
// student's changes would, and reports how long each stage of the result took to land.
#include <iosfwd>
#include <string>
#include <vector>

#include "app/cli/report.h"

namespace ws::cli {

struct LatencyArgs {
  std::string backend = "auto";
  bool json = false;
  int runs = 5;
};

// One stage's seconds over the runs.
struct StageStats {
  std::vector<double> seconds;
  // @post nearest-rank percentile of `seconds` (q in [0, 1]); 0 when empty.
  double percentile(double q) const;
};

struct LatencyCase {
  std::string kernel, variant;
  Params params;
  // "measured", "block", "counters", "bars", "sweep" (absent: the stage does not apply)
  std::vector<std::pair<std::string, StageStats>> stages;
};

struct LatencyReport {
  std::string backend, device;
  std::vector<LatencyCase> cases;
};

// {"backend","device","cases":[{"kernel","variant","params","stages":{"measured":
// {"p50_s","p95_s","runs"}, ...}}]}
Json latency_json(const LatencyReport& r);

// Runs the cases; `err` gets one progress line per case. Returns the exit status.
int cmd_latency(const LatencyArgs& a, std::ostream& out, std::ostream& err);

}  // namespace ws::cli
