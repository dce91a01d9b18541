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
  std::string kernel;              // only this family's case ("" = every family's)
  std::vector<std::string> sets;   // with these parameters (key=value) over its own
  std::string editor;              // a puzzle file: time the editor's check instead
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

// `latency --editor PUZZLE`: what the editor's Check does after an edit, `a.runs` times on
// the worker's thread with its backend (puzzle::check_in_window): the puzzle's solution
// (else its starter) with its last line's number changed (one character), saved through
// the editor's writer, checked, the verdict back. One warm-up check first (its stage
// "first": the first check in a window, which may build the precompiled prelude). Stages:
// "save", "compile", "trace" (the emulator's run), "run" (the GPU runner; absent on the
// emulator), "targets", "verdict" (save to verdict, the queue included).
// @post kExitFailed when a check's verdict is not "all met" for the solution (a starter
//       may miss targets; it must build and run); kExitUsage for a puzzle that does not parse.
int editor_latency(const LatencyArgs& a, std::ostream& out, std::ostream& err);

}  // namespace ws::cli
