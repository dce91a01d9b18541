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

// The variants of a bench/export command line.
std::vector<const VariantInfo*> bench_variants(const BenchArgs& a) {
  if (!a.variant.empty()) return {&variant_or_usage(a.kernel, a.variant)};
  std::vector<const VariantInfo*> vs = family_variants(a.kernel);
  if (vs.empty()) {
    std::string why;
    lookup(a.kernel, "", why);
    usage(why);
  }
  return vs;
}

// The family's timing sizes that the command line leaves open (neither --set nor --sweep).
Params timing_fill(const std::string& family, const Params& sets, const std::vector<Sweep>& sweeps) {
  Params fill;
  if (const FamilyInfo* f = find_family(family))
    for (const auto& [k, v] : f->timing) {
      bool swept = false;
      for (const Sweep& sw : sweeps) swept = swept || sw.key == k;
      if (!sets.count(k) && !swept) fill[k] = v;
    }
  return fill;
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
  const std::vector<const VariantInfo*> vs = bench_variants(a);
  const Params sets = sets_or_usage(a.sets);
  const std::vector<Sweep> sweeps = sweeps_or_usage(a.sweeps);
  // One parameter swept and set: the --set would be dropped without a word.
  for (std::size_t i = 0; i < sweeps.size(); ++i) {
    if (sets.count(sweeps[i].key))
      usage("--sweep " + sweeps[i].key + "=... and --set " + sweeps[i].key + "=" +
            std::to_string(sets.at(sweeps[i].key)) + " both give " + sweeps[i].key + ": keep one");
    for (std::size_t j = 0; j < i; ++j)
      if (sweeps[j].key == sweeps[i].key) usage("--sweep " + sweeps[i].key + " is given twice: keep one");
  }
  BenchOptions bo;
  bo.repeats = a.repeats;
  bo.peers = a.peers;
  const RunOptions ro = bench_run_options(*b, bo);
  auto refusal = [&](const std::vector<Config>& cs) {
    for (const Config& c : cs)
      if (std::string why = b->refusal(c.variant->family, c.variant->name, c.completed, ro); !why.empty())
        return why;
    return std::string();
  };
  std::vector<Config> cs;
  std::string why;
  if (!make_configs(vs, sets, sweeps, b->device().limits, cs, why)) usage(why);
  // Times at the family's timing size where the command line leaves it open, as the window
  // and the lessons do: a small launch measures the launch and the cache, not the kernel
  // (matmul at n=128 ranks naive first). Where that size can be neither run nor answered
  // from the recording, the defaults, said so.
  std::string sizes;
  if (const Params fill = timing_fill(a.kernel, sets, sweeps); !fill.empty()) {
    Params at = sets;
    for (const auto& [k, v] : fill) at[k] = v;
    std::vector<Config> timed;
    std::string no;
    if (make_configs(vs, at, sweeps, b->device().limits, timed, no) && (no = refusal(timed)).empty()) {
      cs = std::move(timed);
      sizes = "times at the family's timing size " + ws::to_string(fill) + " (--set to choose another)";
    } else {
      sizes = "times at the defaults, not at the family's timing size " + ws::to_string(fill) + ": " + no;
    }
  }
  // Refused before the first run: what the emulator cannot run and no recording answers.
  if (std::string no = refusal(cs); !no.empty()) usage(no);
  bo.progress = &err;
  BenchReport r = run_bench(*b, a.kernel, std::move(cs), bo);
  r.sets = sets;
  r.sweeps = sweeps;
  r.sizes = sizes;
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
