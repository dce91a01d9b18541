#pragma once
// `warpscope record`: the catalogue's timed configurations measured on a GPU and written as
// a recording (kernels/hardware/recording.h) that machines without a GPU show as measured.
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "kernels/hardware/recording.h"

namespace ws::cli {

// The variant bars and standard sweeps every recording holds: each variant at its
// defaults and at a size where its family's claim is what the clock sees (transposes
// n=8192, reductions 2^26 ints, matrix products n=4096, ...), and the sweeps the lessons
// and the charts draw (stride, offset, block_rows, pad, tile, block size, ...).
// @post every target validates against the emulator's (H100) limits.
std::vector<RecordTarget> standard_targets();

struct RecordOptions {
  std::string out;            // "" : assets/recordings/<gpu>.json
  std::vector<std::string> lessons;  // lesson files whose timed configurations to add
  int repeats = 20;
  bool standard = true;       // add standard_targets() (tests leave them out)
  bool force = false;         // replace an existing file at `out`
  std::vector<std::string> families;  // only these families' targets (empty: all)
  std::string tool;           // free text stored in the recording (version)
  // The lessons' timed configurations (the lesson library's timed_configs), when built in.
  std::function<bool(const std::string&, std::vector<RecordTarget>&, std::string&)> lesson_timed;
};

// Microsecond runs are noisy (launch jitter, clocks still ramping): a configuration whose
// median is under kSteadyMs and whose spread ((max - min) / median) is over kSteadySpread
// is timed again with twice the repeats, at most kSteadyRounds times, keeping the steadiest.
inline constexpr double kSteadyMs = 0.2;
inline constexpr double kSteadySpread = 0.10;
inline constexpr int kSteadyRounds = 4;
// Before the first configuration the GPU copies kWarmBytes kWarmRepeats times (about half
// a second on an H100), so the clocks are up when the first one is timed.
inline constexpr long long kWarmBytes = 1ll << 28;
inline constexpr int kWarmRepeats = 1000;

// @post (max - min) / median of t; 0 when it has no median.
double timing_spread(const Timing& t);
// @post true iff t.median_ms < kSteadyMs and timing_spread(t) > kSteadySpread.
bool needs_steadier(const Timing& t);

// "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"
std::string recording_slug(const std::string& device_name);

// Runs every target (lessons first, then the standard set; duplicates once) on `backend`,
// timing the fast build (median of `repeats` with min and max), the copy and library
// peers at the same size, the registers per thread and, where tracing the whole grid is
// cheap, the model's totals; writes the recording atomically.
// @post returns 0 when every target ran and verified and the file was written, 1 when
//       some target failed (the others are still written), 2 on bad input.
int record(Backend& backend, const RecordOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace ws::cli
