#pragma once
// The run engine behind `bench`, `export` and the demo: configurations (variant x sweep
// point) validated up front, run on one backend with the peers measured in the same run,
// and the report as a text table, CSV, JSON and a chart description.
#include <cmath>
#include <iosfwd>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/cli/util.h"
#include "kernels/backends/backend.h"
#include "viz/chart.h"

namespace ws::cli {

using Json = nlohmann::ordered_json;

// Bad input found inside a command; run() prints it as one line and exits kExitUsage.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "auto" (CUDA when it works, else the emulator), "emu" or "cuda".
// @post a backend, or nullptr with `err` one sentence (unknown name, or why CUDA cannot
//       run); after "auto" fell back to the emulator, `notice` says why.
std::unique_ptr<Backend> open_backend(const std::string& name, std::string& notice,
                                      std::string& err);

// Families in catalogue order, and the variants of one family.
std::vector<std::string> family_names();
std::vector<const VariantInfo*> family_variants(const std::string& family);

// @post the variant, or nullptr with `err` naming the unknown kernel or variant and listing
//       the ones that exist.
const VariantInfo* lookup(const std::string& family, const std::string& variant,
                          std::string& err);

// --set key=value, repeated. @post true iff every item parses; later items win.
bool parse_sets(const std::vector<std::string>& sets, Params& out, std::string& err);

// "n=1024 tile=32"
std::string params_text(const Params& p);

struct Config {
  const VariantInfo* variant = nullptr;
  Params given;      // what the user set or swept (keys the variant declares)
  Params completed;  // defaults filled in, validated
  Plan plan;
};

// Every variant at every sweep point. With several variants, a key that a variant does
// not declare is left out for that variant (naive has no pad); with one variant, or a
// key no variant declares, that is an error.
// @post on true, `out` holds one valid Config per (variant, distinct completed params), in
//       variant then sweep order; on false, `err` names the first invalid configuration.
bool make_configs(const std::vector<const VariantInfo*>& variants, const Params& sets,
                  const std::vector<Sweep>& sweeps, const DeviceLimits& limits,
                  std::vector<Config>& out, std::string& err);

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct BenchRow {
  Config cfg;
  RunResult result;
  double copy_gbps = kNaN;  // memcpy D2D at this size (measured in the same run, or recorded)
  sim::Provenance copy_source;  // the copy's source
  double frac_copy = kNaN;  // throughput / copy_gbps (or / cuBLAS for GFLOP/s)
  double frac_peak = kNaN;  // throughput / theoretical peak (the data sheet's)
  double speedup = kNaN;    // previous row's median time / this row's
  // "(mixed: recorded / modelled)" when frac_copy or speedup divides figures of two sources
  // (sim::ratio); "" when both come from one.
  std::string frac_copy_note, speedup_note;
  bool wrong() const { return result.error.empty() && !result.verified; }
  bool failed() const { return !result.error.empty(); }
  // "ok", "WRONG", "FAILED" or "PROBLEM" (ran and verified, but the emulator reported one).
  std::string status() const;
  std::string message() const;  // why, when status is not "ok"
};

struct PeerRow {
  Peer peer = Peer::MemcpyD2D;
  Params params;
  double size = 0;  // logical bytes (memcpy, CUB) or FLOPs (SGEMM)
  PeerResult result;
};

struct BenchReport {
  std::string family, date;
  BackendKind kind = BackendKind::Emu;
  DeviceInfo device;
  int repeats = 10;
  Params sets;
  std::vector<Sweep> sweeps;
  // Which size the times are at when the command line left the family's timing size open
  // ("times at the family's timing size n=4096 ..."); "" when the command line named it.
  std::string sizes;
  std::vector<BenchRow> rows;
  std::vector<PeerRow> peers;  // every peer timed (memcpy always for GB/s families)
  bool show_peers = false;     // --peers: list them in the outputs
  bool cancelled = false;      // stopped by the thread's RunControl (Ctrl-C): rows incomplete
  bool any_bad() const;        // some row failed or was wrong
  bool modelled() const;       // some time is modelled, not measured
  // The sources of the rows' times (not of failed rows), in row order.
  std::vector<sim::Provenance> sources() const;
  std::string unit() const;    // "GB/s" or "GFLOP/s"
};

struct BenchOptions {
  int repeats = 10;
  bool totals = false;  // model totals over the grid (the emulator always has them)
  bool peers = false;
  std::ostream* progress = nullptr;  // one line per run
};

// The peers that fit a family: memcpy for bandwidth kernels, CUB for reductions, cuBLAS
// for matrix products.
std::vector<Peer> peers_for(const std::string& family, bool gflops);

// What run_bench asks of the backend for every configuration (time; on the emulator the
// counts too), so a command can ask Backend::refusal about the same runs first.
RunOptions bench_run_options(const Backend& backend, const BenchOptions& opt);

// Runs every configuration, then the derived columns. With a control on this thread
// (thread_control()), its progress is one bar over the runs and the peers, each weighted
// by Backend::expected_work.
// @post rows.size() == configs.size(), in order; a row's speedup is set iff it and the
//       row before it both verified and have a positive median time.
BenchReport run_bench(Backend& backend, const std::string& family, std::vector<Config> configs,
                      const BenchOptions& opt);

// Derived columns (fractions, speedups) from the rows' results and the peers.
// @post a row's speedup_note (frac_copy_note) is "" iff its speedup (frac_copy) divides
//       figures of one source, else sim::ratio's "(mixed: ...)" note; the value is kept.
void derive(BenchReport& r);

std::string bench_text(const BenchReport& r);
std::string bench_csv(const BenchReport& r);
Json bench_json(const BenchReport& r);
// Throughput by variant (bars), or against the one swept key (lines, one per variant);
// wrong runs are flagged, never drawn as values.
viz::ChartSpec bench_chart(const BenchReport& r);

// Integral values as JSON integers (so counts print as 32768, not 32768.0); NaN as null.
Json number(double v);
Json params_json(const Params& p);
Json device_json(const DeviceInfo& d);
// A figure's source: {"kind": "recorded", "device": ..., "date": ..., "label": long label};
// null for None.
Json source_json(const sim::Provenance& p);
Json dim_json(const Dim3& d);

// JSON indented down to `depth`, compact below it and for arrays of scalars.
std::string pretty(const Json& j, int depth = 3);

// Writes through io::write_file (never replaces an existing file unless `overwrite`);
// "-" writes to `stdout_stream`.
// @post on true the file holds exactly data; on false err says why and path is unchanged.
bool write_text(const std::string& path, const std::string& data, std::ostream& stdout_stream,
                std::string& err, bool overwrite = false);

}  // namespace ws::cli
