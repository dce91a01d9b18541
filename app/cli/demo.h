#pragma once
// The headless demo (warpscope with no arguments and no display), and chart files.
#include <iosfwd>
#include <string>
#include <vector>

#include "app/cli/report.h"
#include "kernels/catalogue/catalogue.h"
#include "viz/chart.h"

namespace ws::cli {

// The chart as JSON: titles, categories, every series' points (with their category, wrong
// flag and source), the reference lines and the export metadata.
std::string chart_json(const viz::ChartSpec& c);

// Writes PREFIX.<format> for each of svg, png, csv, json. Refuses to replace a file unless
// `overwrite`. A PNG that cannot be drawn (no cairo) is skipped with a note on `notes`
// when `png_optional`, else it is an error.
// @post on true, `written` lists every file written; on false, `err` says why.
bool write_chart(const viz::ChartSpec& chart, const std::string& prefix,
                 const std::vector<std::string>& formats, bool overwrite, bool png_optional,
                 std::vector<std::string>& written, std::string& err, std::ostream& notes);

struct DemoOptions {
  std::string dir = "warpscope-demo";  // charts go here (created if missing)
  std::string backend = "auto";
  // Parameters set on the emulator only (tests make it smaller); empty: the family's
  // defaults, which for the transpose are the size of the H100 reference counters, so the
  // demo's counts can be held against them. The GPU uses the defaults.
  Params emu_sets;
};

// The knob's effect where a variant ran both ways, one line per pair: "tiled pad=1 against
// pad=0: 1.48x the speed (mixed: recorded / modelled)".
// @post one line per two consecutive rows of one variant, both ok, whose `knob` differs;
//       its ratio is the first's median time over the second's, and it ends with
//       sim::ratio's "(mixed: A / B)" note iff their sources differ.
std::string knob_ratios(const BenchReport& r, const std::string& knob);

// Runs the family marked `demo` in the catalogue (the transpose) on the best backend, prints per variant the metrics that
// matter (sectors per request, bank conflicts, time, throughput, verification) and writes
// the charts into `dir`.
// @post returns 0 when every variant ran and verified and the charts were written.
int run_demo(const DemoOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace ws::cli
