// `warpscope bench`, and what `export` shares with it: the configurations, the runs, the
// table.
#include "app/cli/command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <ostream>

#include "io/atomic_file.h"

namespace ws::cli {

namespace {

// The configurations of a bench/export command line.
std::vector<Config> bench_configs(const BenchArgs& a, const Backend& b, Params& sets,
                                  std::vector<Sweep>& sweeps) {
  std::vector<const VariantInfo*> vs;
  if (!a.variant.empty()) {
    vs = {&variant_or_usage(a.kernel, a.variant)};
  } else {
    vs = family_variants(a.kernel);
    if (vs.empty()) {
      std::string why;
      lookup(a.kernel, "", why);
      usage(why);
    }
  }
  sets = sets_or_usage(a.sets);
  sweeps = sweeps_or_usage(a.sweeps);
  std::vector<Config> cs;
  std::string why;
  if (!make_configs(vs, sets, sweeps, b.device().limits, cs, why)) usage(why);
  return cs;
}

int cmd_bench(const BenchArgs& a, std::ostream& out, std::ostream& err) {
  writable_or_usage(a.csv, "--csv", a.force);
  writable_or_usage(a.json, "--json", a.force);
  if (!a.csv.empty() && a.csv != "-" && a.csv == a.json)
    usage("--csv and --json name the same file " + a.csv);
  const BenchReport r = bench_and_print(a, out, err);
  if (r.cancelled) return kExitInterrupted;
  std::string why;
  if (!a.csv.empty() && !write_text(a.csv, bench_csv(r), out, why, a.force)) usage(why);
  if (!a.json.empty() && !write_text(a.json, pretty(bench_json(r), 4), out, why, a.force))
    usage(why);
  if (!a.csv.empty() && a.csv != "-") err << "wrote " << a.csv << "\n";
  if (!a.json.empty() && a.json != "-") err << "wrote " << a.json << "\n";
  return r.any_bad() ? kExitFailed : kExitOk;
}

}  // namespace


// What bench and export share: the configurations, the runs, the text table on `out`.
BenchReport bench_and_print(const BenchArgs& a, std::ostream& out, std::ostream& err) {
  auto b = backend_or_usage(a.backend, err);
  Params sets;
  std::vector<Sweep> sweeps;
  auto cs = bench_configs(a, *b, sets, sweeps);
  BenchOptions bo;
  bo.repeats = a.repeats;
  bo.peers = a.peers;
  // Refused before the first run: what the emulator cannot run and no recording answers.
  const RunOptions ro = bench_run_options(*b, bo);
  for (const Config& c : cs)
    if (std::string why = b->refusal(c.variant->family, c.variant->name, c.completed, ro);
        !why.empty())
      usage(why);
  bo.progress = &err;
  BenchReport r = run_bench(*b, a.kernel, std::move(cs), bo);
  r.sets = sets;
  r.sweeps = sweeps;
  out << bench_text(r);
  return r;
}

// The options bench and export share.
void add_bench_options(CLI::App* s, BenchArgs* a, bool kernel_required) {
  auto* k = s->add_option("--kernel", a->kernel, "kernel family (see list)");
  if (kernel_required) k->required();
  auto* v = s->add_option("--variant", a->variant, "one variant (default: all)");
  auto* all = s->add_flag("--all", a->all, "every variant of the family (the default)");
  v->excludes(all);
  s->add_option("--set", a->sets, "parameter key=value (repeatable)");
  s->add_option("--sweep", a->sweeps,
                "key=v1,v2,... (repeatable: the cartesian product is run)");
  add_backend(s, a->backend);
  // A number first (so "abc" is "not a number"), then its range.
  s->add_option("--repeats", a->repeats, "timed runs per point (median, min, max)")
      ->check(CLI::Validator(
          [](std::string& v) {
            const bool digits = !v.empty() && v.size() < 10 &&
                                std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
            return digits ? std::string() : "'" + v + "' is not a whole number";
          },
          "N", "N"))
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  s->add_flag("--peers", a->peers,
              "also time the library peers that fit (cuBLAS SGEMM, CUB reduce)");
}

Action declare_bench(CLI::App& sub) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* s = &sub;
  add_bench_options(s, a.get(), true);
  s->add_option("--csv", a->csv, "write the rows as CSV to FILE ('-': stdout)");
  s->add_option("--json", a->json, "write the rows as JSON to FILE ('-': stdout)");
  s->add_flag("--force", a->force, "overwrite existing --csv/--json files");
  return [a](std::ostream& out, std::ostream& err, const Hooks&) { return cmd_bench(*a, out, err); };
}

}  // namespace ws::cli
