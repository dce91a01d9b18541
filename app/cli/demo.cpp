#include "app/cli/demo.h"

#include <sys/stat.h>

#include <cerrno>

#include <cstdio>
#include <filesystem>
#include <ostream>

#include "app/cli/cli.h"
#include "app/cli/report.h"
#include "io/atomic_file.h"

namespace ws::cli {

std::string chart_json(const viz::ChartSpec& c) {
  Json j;
  j["title"] = c.title;
  j["x_label"] = c.x_label;
  j["y_label"] = c.y_label;
  j["log_y"] = c.log_y;
  j["categories"] = c.categories;
  Json series = Json::array();
  for (const viz::Series& s : c.series) {
    Json js;
    js["name"] = s.name;
    js["kind"] = std::string(viz::to_string(s.kind));
    Json pts = Json::array();
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      Json p;
      p["x"] = number(s.x[i]);
      p["y"] = number(s.y[i]);
      if (s.kind == viz::SeriesKind::Bars && s.x[i] >= 0 && std::size_t(s.x[i]) < c.categories.size())
        p["category"] = c.categories[std::size_t(s.x[i])];
      p["wrong"] = s.wrong_at(i);
      p["source"] = sim::short_label(s.source_at(i));
      p["from"] = sim::long_label(s.source_at(i));  // which GPU and when, or which model
      pts.push_back(p);
    }
    js["points"] = pts;
    series.push_back(js);
  }
  j["series"] = series;
  Json refs = Json::array();
  for (const viz::RefLine& r : c.refs)
    refs.push_back(Json{{"name", r.name}, {"y", number(r.y)}, {"source", sim::short_label(r.source)},
                        {"from", sim::long_label(r.source)}});
  j["refs"] = refs;
  Json meta = Json::object();
  for (const auto& [k, v] : c.meta) meta[k] = v;
  j["meta"] = meta;
  return pretty(j, 3);
}

namespace {
// The one writer (io/atomic_file.h), its error as `err`.
[[maybe_unused]] bool write_one(const std::string& path, const std::string& data, bool overwrite, std::string& err) {
  io::WriteOptions o;
  o.overwrite = overwrite;
  const io::WriteResult r = io::write_file(path, data, o);
  if (!r.ok) err = r.error;
  return r.ok;
}
}  // namespace

bool write_chart(const viz::ChartSpec& chart, const std::string& prefix,
                 const std::vector<std::string>& formats, bool overwrite, bool png_optional,
                 std::vector<std::string>& written, std::string& err, std::ostream& notes) {
#if defined(WS_CLI_HAVE_CHART)
  for (const auto& f : formats) {
    const std::string path = prefix + "." + f;
    if (std::string why = io::check_writable(path, overwrite); !why.empty()) {
      err = why + (overwrite || why.find("already exists") == std::string::npos
                       ? ""
                       : "; pass --force to overwrite it");
      return false;
    }
    if (f == "svg" || f == "csv" || f == "json") {
      const std::string data = f == "svg" ? viz::to_svg(chart) : f == "csv" ? viz::to_csv(chart) : chart_json(chart);
      if (!write_one(path, data, overwrite, err)) return false;
    } else if (f == "png") {
      // Encoded in memory, then the one atomic writer: no fixed temporary name.
      std::string png, why;
      if (!viz::to_png(chart, 1280, 720, png, why)) {
        if (png_optional) {
          notes << "PNG skipped: " << why << "\n";
          continue;
        }
        err = "cannot write " + path + ": " + why;
        return false;
      }
      if (!write_one(path, png, overwrite, err)) return false;
    } else {
      err = "unknown chart format '" + f + "' (choose from svg, png, csv, json)";
      return false;
    }
    written.push_back(path);
  }
  return true;
#else
  (void)chart, (void)prefix, (void)formats, (void)overwrite, (void)png_optional, (void)written,
      (void)notes;
  err = "this warpscope was built without chart export (target warpscope_chart)";
  return false;
#endif
}

namespace {

double per(std::uint64_t a, std::uint64_t b) { return b ? double(a) / double(b) : kNaN; }

std::string cell(double v, int digits = 3) { return std::isnan(v) ? "-" : fmt(v, digits); }

}  // namespace

std::string knob_ratios(const BenchReport& r, const std::string& knob) {
  std::string out;
  for (std::size_t i = 0; i + 1 < r.rows.size(); ++i) {
    const BenchRow& a = r.rows[i];
    const BenchRow& b = r.rows[i + 1];
    if (a.cfg.variant != b.cfg.variant || a.status() != "ok" || b.status() != "ok") continue;
    const auto ka = a.cfg.completed.find(knob), kb = b.cfg.completed.find(knob);
    if (ka == a.cfg.completed.end() || kb == b.cfg.completed.end() || ka->second == kb->second)
      continue;
    // A speedup across two sources is marked, never given as if both were alike.
    const sim::SourcedRatio q = sim::ratio(a.result.timing.median_ms, a.result.timing.source,
                                           b.result.timing.median_ms, b.result.timing.source);
    if (q.refused()) continue;
    char v[32];
    std::snprintf(v, sizeof v, "%.2fx", q.value);
    out += a.cfg.variant->name + " " + knob + "=" + std::to_string(kb->second) + " against " + knob +
           "=" + std::to_string(ka->second) + ": " + v + " the speed" +
           (q.mixed ? " " + q.note : std::string()) + "\n";
  }
  return out;
}

namespace {

// The demo's table: counts from the counting runs `r`, times (and their sources) from
// `times`, row for row, each variant's label with the compare knob's value.
void print_demo_table(const BenchReport& r, const BenchReport& rt, const BenchReport& times,
                      const std::string& knob, std::ostream& out) {
  const std::string unit = times.unit();
  // Each time says where it comes from (a configuration in the shipped recording is that
  // measurement, recorded; the others on the emulator are modelled), row by row.
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const BenchRow& row = r.rows[i];
    const BenchRow& trow = i < times.rows.size() ? times.rows[i] : row;
    const auto& t = row.result.totals;
    std::string label = row.cfg.variant->name;
    if (auto it = row.cfg.completed.find(knob); !knob.empty() && it != row.cfg.completed.end())
      label += " " + knob + "=" + std::to_string(it->second);
    if (row.failed() || trow.failed()) {
      rows.push_back({label, "", "", "", "", "", "", "", "FAILED"});
      continue;
    }
    const bool ok = row.status() == "ok" && trow.status() == "ok";
    rows.push_back({label, cell(per(t.global_ld_sectors, t.global_ld_requests)),
                    cell(per(t.global_st_sectors, t.global_st_requests)),
                    cell(per(t.shared_ld_wavefronts, t.shared_ld_requests)),
                    std::to_string(t.shared_ld_conflicts() + t.shared_st_conflicts()),
                    cell(trow.result.timing.median_ms, 4),
                    row.wrong() || trow.wrong() ? "WRONG" : cell(trow.result.timing.throughput, 4),
                    sim::short_label(trow.result.timing.source),
                    ok ? "verified" : row.status() != "ok" ? row.status() : trow.status()});
  }
  const sim::SourceWording w = sim::describe_sources(times.sources());
  out << format_table({"variant", "ld sectors/req", "st sectors/req", "smem wavefronts/ld",
                       "bank conflicts", "time ms", unit, "source", "result"},
                      rows, {false, true, true, true, true, true, true, false, false});
  out << "\n(ideal: 4 sectors per request of 32 floats, 1 wavefront per shared load, 0 "
         "conflicts)\n";
  if (!w.sources.empty()) out << "(times " << w.subtitle << ")\n";
  if (!knob.empty()) out << knob_ratios(times, knob);
  for (const BenchReport* rep : {&r, &rt})
    for (const auto& row : rep->rows)
      if (row.status() != "ok")
        out << row.status() << " " << row.cfg.variant->name << " " << params_text(row.cfg.completed) << ": "
            << row.message() << "\n";

}

// A chart of an earlier demo is never replaced: the first free name, transpose.svg,
// transpose-2.svg, ..., for all three formats alike. "" with `why` when it cannot be made.
std::string free_chart_prefix(const std::string& dir, const std::string& family, std::string& why) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    why = "cannot create " + dir + ": " + ec.message();
    return "";
  }
  std::string prefix = dir + "/" + family;
  for (int n = 2; n < 1000; ++n) {
    bool free = true;
    for (const char* ext : {".svg", ".png", ".csv"}) {
      struct stat st {};
      free = free && ::lstat((prefix + ext).c_str(), &st) != 0 && errno == ENOENT;
    }
    if (free) break;
    prefix = dir + "/" + family + "-" + std::to_string(n);
  }
  return prefix;
}

}  // namespace

int run_demo(const DemoOptions& opt, std::ostream& out, std::ostream& err) {
  const FamilyInfo* fam = nullptr;
  for (const FamilyInfo& f : families())
    if (f.demo && !fam) fam = &f;
  if (!fam) {
    err << "warpscope: the catalogue marks no family for the demo\n";
    return kExitFailed;
  }
  const std::string family = fam->name;
  std::string notice, why;
  auto b = open_backend(opt.backend, notice, why);
  if (!b) {
    err << "warpscope: " << why << "\n";
    return kExitUsage;
  }
  const auto variants = family_variants(family);
  if (variants.empty()) {
    err << "warpscope: the catalogue has no " << family << " family to demonstrate\n";
    return kExitFailed;
  }
  const bool emu = b->kind() == BackendKind::Emu;
  out << "warpscope demo: no display, so here is what the app would show.\n";
  if (emu) {
    out << "Backend: the SIMT emulator. Counts come from the emulated trace; times are "
           "MODELLED from them, not measured (except those marked recorded).\n";
    if (!notice.empty()) out << "(" << notice << ")\n";
  } else {
    out << "Backend: cuda on " << b->device().name << ": times are measured.\n";
  }

  // Every variant at its defaults, and each variant with the family's compare knob off by
  // default also with it on (the transpose's padding): the bank conflict and its cure side
  // by side.
  Params sets;
  if (emu) sets = opt.emu_sets;
  const std::string& knob = fam->compare_flip;
  auto configs = [&](const Params& at, std::vector<Config>& cs) {
    for (const auto* v : variants) {
      const ParamSpec* flip = knob.empty() ? nullptr : find_param(*v, knob);
      std::vector<Sweep> sw;
      if (flip && flip->def == 0) sw.push_back({knob, {0, 1}});
      std::vector<Config> mine;
      if (!make_configs({v}, at, sw, b->device().limits, mine, why)) return false;
      for (auto& c : mine) cs.push_back(std::move(c));
    }
    return true;
  };
  std::vector<Config> cs;
  if (!configs(sets, cs)) {
    err << "warpscope: " << why << "\n";
    return kExitFailed;
  }
  // Counted at the demo's size (the H100 reference counters' size), timed where the family
  // times (the GPU's or the recording's size): a launch of a few microseconds measures the
  // launch and the cache, and at n=1024 tiled_copy can come out below copy.
  BenchOptions bt;
  bt.repeats = 10;
  bt.progress = &err;
  std::vector<Config> timed;
  if (!fam->timing.empty()) {
    Params at = sets;
    for (const auto& [k, v] : fam->timing) at[k] = v;
    const RunOptions ro = bench_run_options(*b, bt);
    bool ok = configs(at, timed);
    for (const Config& c : timed)
      ok = ok && b->refusal(c.variant->family, c.variant->name, c.completed, ro).empty();
    if (!ok) timed.clear();
  }
  std::string sizes;
  for (const std::string& k : fam->size_params)
    if (auto it = cs.front().completed.find(k); it != cs.front().completed.end()) {
      sizes += ", " + std::string(timed.empty() ? "" : "counts at ") + k + "=" + std::to_string(it->second);
      if (!timed.empty()) sizes += " \xc2\xb7 times at " + k + "=" + std::to_string(timed.front().completed.at(k));
    }
  out << "Kernel: " << family << sizes << " (other parameters at each variant's defaults)\n\n";

  BenchOptions bo;
  bo.totals = true;
  bo.repeats = 10;
  bo.progress = &err;
  BenchReport r = run_bench(*b, family, std::move(cs), bo);
  r.sets = sets;
  // The times (and the chart) from the timed runs when there are any, row for row.
  BenchReport rt;
  const bool have_timed = !timed.empty();
  if (have_timed) rt = run_bench(*b, family, std::move(timed), bt);
  const BenchReport& times = have_timed ? rt : r;

  print_demo_table(r, rt, times, knob, out);

  const std::string prefix = free_chart_prefix(opt.dir, family, why);
  if (prefix.empty()) {
    err << "warpscope: " << why << "\n";
    return kExitFailed;
  }
  std::vector<std::string> written;
  if (!write_chart(bench_chart(times), prefix, {"svg", "png", "csv"}, false, true, written, why, out)) {
    err << "warpscope: " << why << "\n";
    return kExitFailed;
  }
  out << "\nCharts written to " << std::filesystem::absolute(opt.dir).string() << "/:";
  for (const auto& w : written) out << " " << std::filesystem::path(w).filename().string();
  out << "\nNext: warpscope list, warpscope metrics --kernel transpose --variant tiled --set "
         "pad=1, warpscope bench --kernel transpose --all\n";
  return r.any_bad() || rt.any_bad() ? kExitFailed : kExitOk;
}

}  // namespace ws::cli
