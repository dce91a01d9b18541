// The bench report's outputs: the text table, CSV, JSON, the chart, and the file writer.
//
// Index (search for "[SECTION] <name>"):
//   JSON pieces
//   The text table
//   CSV
//   JSON
//   The chart
//   Pretty JSON and the file writer
#include "app/cli/report.h"

#include "io/atomic_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <unistd.h>

#include "kernels/backends/run_meta.h"

namespace ws::cli {

// ---------------------------------------------------------------- outputs

// [SECTION] JSON pieces
Json number(double v) {
  if (std::isnan(v) || std::isinf(v)) return nullptr;
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) {
    if (v >= 0) return std::uint64_t(v);
    return std::int64_t(v);
  }
  return v;
}

Json params_json(const Params& p) {
  Json j = Json::object();
  for (const auto& [k, v] : p) j[k] = v;
  return j;
}

Json dim_json(const Dim3& d) { return Json::array({d.x, d.y, d.z}); }

Json device_json(const DeviceInfo& d) {
  Json j;
  j["name"] = d.name;
  j["driver"] = d.driver;
  j["runtime"] = d.runtime;
  j["compute_capability"] =
      d.cc_major ? std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor) : "";
  j["sm_count"] = d.sm_count;
  j["l2_bytes"] = d.l2_bytes;
  j["mem_clock_mhz"] = number(d.mem_clock_mhz);
  j["bus_width_bits"] = number(d.bus_width_bits);
  j["peak_gbps"] = number(d.peak_gbps);
  j["peak_gflops"] = number(d.peak_gflops);
  return j;
}

Json source_json(const sim::Provenance& p) {
  if (p.is(sim::Source::None)) return Json(nullptr);
  Json j;
  j["kind"] = std::string(sim::to_string(p.source));
  if (!p.device.empty()) j["device"] = p.device;
  if (!p.date.empty()) j["date"] = p.date;
  if (!p.bound.empty()) j["bound"] = p.bound;
  j["label"] = sim::long_label(p);
  return j;
}

namespace {

// [SECTION] The text table
std::string speedup_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", s);
  return buf;
}

std::string pct(double f) { return std::isnan(f) ? "" : fmt(100.0 * f, 3) + "%"; }

Json timing_json(const Timing& t) {
  Json j;
  j["source"] = source_json(t.source);
  j["median_ms"] = number(t.median_ms);
  j["min_ms"] = number(t.min_ms);
  j["max_ms"] = number(t.max_ms);
  Json s = Json::array();
  for (double v : t.samples_ms) s.push_back(number(v));
  j["samples_ms"] = s;
  return j;
}

// Keys whose values differ between rows of one variant: what tells its bars apart.
std::map<std::string, std::set<std::string>> varying_keys(const BenchReport& r) {
  std::map<std::string, std::map<std::string, std::set<long long>>> vals;
  for (const auto& row : r.rows)
    for (const auto& [k, v] : row.cfg.completed) vals[row.cfg.variant->name][k].insert(v);
  std::map<std::string, std::set<std::string>> out;
  for (const auto& [variant, keys] : vals)
    for (const auto& [k, s] : keys)
      if (s.size() > 1) out[variant].insert(k);
  return out;
}

std::string row_label(const BenchRow& row,
                      const std::map<std::string, std::set<std::string>>& varying) {
  std::string s = row.cfg.variant->name;
  const auto it = varying.find(s);
  for (const auto& [k, v] : row.cfg.completed)
    if (it != varying.end() && it->second.count(k)) s += " " + k + "=" + std::to_string(v);
  return s;
}

std::string backend_words(const BenchReport& r) {
  bool counts = false;  // some counts not counted by this run
  for (const auto& row : r.rows) counts = counts || (!row.failed() && row.result.counts != CountsSource::Run);
  return std::string(to_string(r.kind)) +
         (r.kind != BackendKind::Emu ? " (times measured with CUDA events)"
          : counts ? " (emulated: counts from the emulator or a recording, as marked)"
                   : " (emulated: counts from the emulator)");
}

// A ratio's cell: "0.64x (mixed: modelled / recorded)", or "" when there is none.
std::string ratio_cell(const std::string& text, const std::string& note) {
  if (text.empty()) return "";
  return note.empty() ? text : text + " " + note;
}

}  // namespace

std::string bench_text(const BenchReport& r) {
  std::ostringstream o;
  const std::string unit = r.unit();
  o << r.family << " on " << r.device.name << ", backend " << backend_words(r) << "\n";
  // Where the times come from, said once from the rows' own sources.
  const sim::SourceWording w = sim::describe_sources(r.sources());
  bool measured = false;
  for (const auto& p : w.sources) measured = measured || p.is(sim::Source::Measured);
  o << "date " << r.date << ", times "
    << (w.sources.empty() ? std::string("none") : w.mixed ? w.subtitle + " (marked per row)" : w.subtitle)
    << (measured ? ", median of " + std::to_string(r.repeats) + " runs" : "");
  const sim::Provenance peak = peak_source(r.device, r.kind);
  if (r.device.peak_gbps > 0)
    o << ", theoretical peak " << fmt(r.device.peak_gbps) << " GB/s (" << peak.device << " data sheet)";
  if (r.device.peak_gflops > 0)
    o << ", FP32 peak " << fmt(r.device.peak_gflops) << " GFLOP/s";
  o << "\n";
  if (!r.sizes.empty()) o << r.sizes << "\n";
  o << "\n";
  const std::string tcol = sim::axis_title(measured || w.mixed ? "median ms" : "time ms", w);
  std::vector<std::string> header = {"variant", "params", tcol, "min..max ms", unit,
                                     unit == "GFLOP/s" ? "of cuBLAS" : "of memcpy",
                                     "of peak", "speedup", "result"};
  // Where each time comes from, and on the emulator the model's counts beside it; where
  // some counts were not counted by this run, where each row's come from.
  const bool emu = r.kind == BackendKind::Emu;
  header.push_back("source");
  if (emu) header.insert(header.end(), {"sectors/req", "bank conflicts"});
  std::string counts_label;  // the recording's words for its counts
  for (const auto& row : r.rows)
    if (!row.failed() && row.result.counts != CountsSource::Run) counts_label = row.result.counts_label;
  const bool counts_col = emu && !counts_label.empty();
  if (counts_col) header.push_back("counts");
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : r.rows) {
    const auto& t = row.result.timing;
    std::vector<std::string> cells = {row.cfg.variant->name, params_text(row.cfg.completed)};
    if (row.failed()) {
      cells.insert(cells.end(), {"", "", "", "", "", "", "FAILED"});
    } else {
      cells.push_back(fmt(t.median_ms));
      cells.push_back(fmt(t.min_ms) + ".." + fmt(t.max_ms));
      // A wrong result never shows a throughput.
      cells.push_back(row.wrong() ? "WRONG" : fmt(t.throughput));
      cells.push_back(ratio_cell(pct(row.frac_copy), row.frac_copy_note));
      cells.push_back(pct(row.frac_peak));
      cells.push_back(ratio_cell(std::isnan(row.speedup) ? "" : speedup_text(row.speedup),
                                 row.speedup_note));
      cells.push_back(row.status());
    }
    cells.push_back(row.failed() ? "" : sim::short_label(t.source));
    if (emu) {
      const sim::Totals& tt = row.result.totals;
      const double req = double(tt.global_ld_requests + tt.global_st_requests);
      cells.push_back(req > 0 ? fmt(double(tt.global_ld_sectors + tt.global_st_sectors) / req) : "");
      cells.push_back(row.failed() || tt.events == 0
                          ? ""
                          : std::to_string(tt.shared_ld_conflicts() + tt.shared_st_conflicts()));
    }
    if (counts_col)
      cells.push_back(row.failed() ? ""
                      : row.result.counts == CountsSource::Recorded    ? "recorded"
                      : row.result.counts == CountsSource::NotRecorded ? "not recorded"
                                                                       : "emulated");
    rows.push_back(std::move(cells));
  }
  if (r.show_peers) {
    for (const auto& p : r.peers) {
      std::vector<std::string> cells = {"peer: " + std::string(to_string(p.peer)),
                                        params_text(p.params)};
      if (!p.result.error.empty()) {
        cells.insert(cells.end(), {"", "", "", "", "", "", "n/a", ""});
        if (counts_col) cells.push_back("");
      } else {
        const auto& t = p.result.timing;
        cells.push_back(fmt(t.median_ms));
        cells.push_back(fmt(t.min_ms) + ".." + fmt(t.max_ms));
        cells.push_back(fmt(t.throughput) + (t.unit != unit && !t.unit.empty() ? " " + t.unit : ""));
        cells.insert(cells.end(), {"", "", "", "peer", sim::short_label(t.source)});
        if (counts_col) cells.push_back("");
      }
      if (emu) cells.insert(cells.end(), {"", ""});
      rows.push_back(std::move(cells));
    }
  }
  std::vector<bool> right = {false, false, true, true, true, true, true, true, false, false};
  if (emu) right.insert(right.end(), {true, true});
  if (counts_col) right.push_back(false);
  o << format_table(header, rows, right);
  // The counts' sources in words: recorded ones are the model's counters of the GPU's
  // traced build, counted when the time was recorded, not on this machine.
  bool recorded_counts = false, unrecorded = false;
  for (const auto& row : r.rows) {
    if (row.failed()) continue;
    recorded_counts = recorded_counts || row.result.counts == CountsSource::Recorded;
    if (row.result.counts == CountsSource::NotRecorded && !unrecorded) {
      unrecorded = true;
      o << row.result.counts_label << "\n";
    }
  }
  if (recorded_counts)
    for (const auto& row : r.rows)
      if (row.result.counts == CountsSource::Recorded) {
        o << "counts marked recorded: " << row.result.counts_label << "\n";
        break;
      }
  for (const auto& row : r.rows)
    if (row.status() != "ok")
      o << row.status() << " " << row.cfg.variant->name << " " << params_text(row.cfg.completed)
        << ": " << row.message() << "\n";
  if (r.show_peers)
    for (const auto& p : r.peers)
      if (!p.result.error.empty())
        o << "peer " << to_string(p.peer) << " unavailable: " << p.result.error << "\n";
  return o.str();
}

namespace {

// [SECTION] CSV
// Which of a row's ratios divide two sources: "frac_copy (mixed: modelled / recorded);
// speedup (mixed: ...)", "" when none does.
std::string mixed_notes(const BenchRow& row) {
  std::string s;
  if (!row.frac_copy_note.empty()) s = "frac_copy " + row.frac_copy_note;
  if (!row.speedup_note.empty()) s += (s.empty() ? "" : "; ") + ("speedup " + row.speedup_note);
  return s;
}
}  // namespace

std::string bench_csv(const BenchReport& r) {
  std::set<std::string> keys;
  for (const auto& row : r.rows)
    for (const auto& [k, v] : row.cfg.completed) keys.insert(k);
  std::vector<std::string> head = {"date", "device", "driver", "runtime", "mem_clock_mhz",
                                   "bus_width_bits", "peak_gbps", "backend", "source",
                                   "source_detail", "kernel", "variant"};
  for (const auto& k : keys) head.push_back(k);
  for (const char* h : {"params", "repeats", "median_ms", "min_ms", "max_ms", "throughput",
                        "unit", "frac_copy", "frac_peak", "speedup", "mixed", "status", "message"})
    head.push_back(h);
  std::string out;
  for (std::size_t i = 0; i < head.size(); ++i) out += (i ? "," : "") + head[i];
  out += "\n";
  auto num = [](double v) { return std::isnan(v) ? std::string() : fmt(v, 6); };
  auto line = [&](const std::string& variant, const Params& params, const Timing& t,
                  bool failed, const std::string& throughput, double fc, double fp, double sp,
                  const std::string& notes, const std::string& status, const std::string& msg) {
    std::vector<std::string> c = {r.date, r.device.name, r.device.driver, r.device.runtime,
                                  num(r.device.mem_clock_mhz), num(r.device.bus_width_bits),
                                  num(r.device.peak_gbps), std::string(to_string(r.kind)),
                                  failed ? "" : sim::short_label(t.source),
                                  failed ? "" : sim::detail(t.source), r.family, variant};
    for (const auto& k : keys) {
      auto it = params.find(k);
      c.push_back(it == params.end() ? "" : std::to_string(it->second));
    }
    c.push_back(params_text(params));
    c.push_back(std::to_string(r.repeats));
    c.push_back(failed ? "" : num(t.median_ms));
    c.push_back(failed ? "" : num(t.min_ms));
    c.push_back(failed ? "" : num(t.max_ms));
    c.push_back(throughput);
    c.push_back(t.unit);
    c.push_back(num(fc));
    c.push_back(num(fp));
    c.push_back(num(sp));
    c.push_back(notes);
    c.push_back(status);
    c.push_back(msg);
    for (std::size_t i = 0; i < c.size(); ++i) out += (i ? "," : "") + csv_field(c[i]);
    out += "\n";
  };
  for (const auto& row : r.rows) {
    const bool bad = row.failed() || row.wrong();
    line(row.cfg.variant->name, row.cfg.completed, row.result.timing, row.failed(),
         bad ? "" : num(row.result.timing.throughput), row.frac_copy, row.frac_peak,
         row.speedup, mixed_notes(row), row.status(), row.message());
  }
  for (const auto& p : r.peers) {
    const bool failed = !p.result.error.empty();
    line("peer:" + std::string(to_string(p.peer)), p.params, p.result.timing, failed,
         failed ? "" : num(p.result.timing.throughput), kNaN, kNaN, kNaN, "",
         failed ? "n/a" : "peer", p.result.error);
  }
  return out;
}

// [SECTION] JSON
Json bench_json(const BenchReport& r) {
  Json j;
  j["date"] = r.date;
  j["kernel"] = r.family;
  j["backend"] = std::string(to_string(r.kind));
  j["device"] = device_json(r.device);
  j["peak_source"] = source_json(peak_source(r.device, r.kind));
  j["repeats"] = r.repeats;
  j["set"] = params_json(r.sets);
  if (!r.sizes.empty()) j["sizes"] = r.sizes;
  Json sw = Json::object();
  for (const auto& s : r.sweeps) sw[s.key] = s.values;
  j["sweep"] = sw;
  j["unit"] = r.unit();
  Json rows = Json::array();
  for (const auto& row : r.rows) {
    Json o;
    o["variant"] = row.cfg.variant->name;
    o["params"] = params_json(row.cfg.completed);
    o["status"] = row.status();
    o["verified"] = row.result.verified;
    if (!row.message().empty()) o["message"] = row.message();
    if (!row.failed()) {
      o["timing"] = timing_json(row.result.timing);
      o["throughput"] = row.wrong() ? Json(nullptr) : number(row.result.timing.throughput);
      // Who counted the row's counts: this run, or the recording (model counts recorded
      // on a GPU), or no one (an older recording).
      o["counts"] = std::string(to_string(row.result.counts));
      if (!row.result.counts_label.empty()) o["counts_source"] = row.result.counts_label;
    }
    o["unit"] = row.result.timing.unit;
    o["frac_copy"] = number(row.frac_copy);
    o["frac_peak"] = number(row.frac_peak);
    o["speedup"] = number(row.speedup);
    if (!row.frac_copy_note.empty()) o["frac_copy_mixed"] = row.frac_copy_note;
    if (!row.speedup_note.empty()) o["speedup_mixed"] = row.speedup_note;
    rows.push_back(o);
  }
  j["rows"] = rows;
  Json peers = Json::array();
  for (const auto& p : r.peers) {
    Json o;
    o["peer"] = std::string(to_string(p.peer));
    o["params"] = params_json(p.params);
    if (!p.result.error.empty()) {
      o["error"] = p.result.error;
    } else {
      o["timing"] = timing_json(p.result.timing);
      o["throughput"] = number(p.result.timing.throughput);
      o["unit"] = p.result.timing.unit;
    }
    peers.push_back(o);
  }
  j["peers"] = peers;
  return j;
}

// [SECTION] The chart
viz::ChartSpec bench_chart(const BenchReport& r) {
  viz::ChartSpec c;
  const std::string unit = r.unit();
  // The unit alone: the axis, the legend and the footer say where the values come from,
  // derived from each point's source (viz::chart_sources).
  c.y_label = unit;
  const bool lines = r.sweeps.size() == 1 && r.sweeps[0].values.size() >= 2;

  std::map<double, std::pair<double, sim::Provenance>> copy_at;  // x -> the copy (lines)
  std::vector<std::pair<double, sim::Provenance>> copies;
  for (const auto& row : r.rows) {
    if (!(row.copy_gbps > 0)) continue;
    bool have = false;
    for (const auto& [v, src] : copies) have = have || (v == row.copy_gbps && src == row.copy_source);
    if (!have) copies.emplace_back(row.copy_gbps, row.copy_source);
  }

  if (lines) {
    const std::string key = r.sweeps[0].key;
    c.title = r.family + ": throughput against " + key;
    c.x_label = key;
    std::vector<std::string> order;
    std::map<std::string, viz::Series> by_variant;
    for (const auto& row : r.rows) {
      auto it = row.cfg.completed.find(key);
      if (it == row.cfg.completed.end()) continue;
      const std::string& name = row.cfg.variant->name;
      if (!by_variant.count(name)) {
        order.push_back(name);
        by_variant[name].name = name;
        by_variant[name].kind = viz::SeriesKind::Line;
      }
      auto& s = by_variant[name];
      const bool bad = row.failed() || row.wrong();
      s.x.push_back(double(it->second));
      s.y.push_back(bad ? 0.0 : row.result.timing.throughput);
      s.wrong.push_back(bad);
      s.source.push_back(row.failed() ? sim::Provenance{} : row.result.timing.source);
      if (row.copy_gbps > 0) copy_at[double(it->second)] = {row.copy_gbps, row.copy_source};
    }
    for (const auto& n : order) c.series.push_back(by_variant[n]);
    if (copies.size() > 1 && !copy_at.empty()) {
      viz::Series s;
      s.name = "cudaMemcpy D2D";
      s.kind = viz::SeriesKind::Line;
      for (const auto& [x, y] : copy_at) {
        s.x.push_back(x);
        s.y.push_back(y.first);
        s.wrong.push_back(false);
        s.source.push_back(y.second);  // measured beside the kernels, or recorded: never modelled
      }
      c.series.push_back(s);
    }
  } else {
    c.title = r.family + ": throughput by variant";
    c.x_label = "variant";
    const auto keys = varying_keys(r);
    viz::Series s;
    s.name = "throughput";
    s.kind = viz::SeriesKind::Bars;
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
      const auto& row = r.rows[i];
      const bool bad = row.failed() || row.wrong();
      c.categories.push_back(row_label(row, keys));
      s.x.push_back(double(i));
      s.y.push_back(bad ? 0.0 : row.result.timing.throughput);
      s.wrong.push_back(bad);
      s.source.push_back(row.failed() ? sim::Provenance{} : row.result.timing.source);
    }
    c.series.push_back(s);
  }
  const sim::Provenance peak = peak_source(r.device, r.kind);
  if (unit == "GB/s" && r.device.peak_gbps > 0)
    c.refs.push_back({"theoretical peak", r.device.peak_gbps, 0, peak});
  if (unit == "GFLOP/s" && r.device.peak_gflops > 0)
    c.refs.push_back({"FP32 peak", r.device.peak_gflops, 0, peak});
  if (copies.size() == 1)
    c.refs.push_back({"cudaMemcpy D2D", copies[0].first, 0, copies[0].second});
  for (const auto& p : r.peers)
    if (peer_gflops(p.peer) && p.result.error.empty() && p.result.timing.throughput > 0)
      c.refs.push_back({p.peer == Peer::CublasSgemm ? "cuBLAS SGEMM" : "cuBLAS GemmEx FP16",
                        p.result.timing.throughput, 0, p.result.timing.source});

  std::string params = params_text(r.sets);
  for (const auto& sw : r.sweeps) {
    std::string vals;
    for (long long v : sw.values) vals += (vals.empty() ? "" : ",") + std::to_string(v);
    params += (params.empty() ? "" : " ") + sw.key + "=" + vals;
  }
  if (r.rows.size() == 1) params = params_text(r.rows[0].cfg.completed);
  c.meta = export_meta(r.device, r.kind, r.sources(), r.repeats, r.family, params, r.date);
  return c;
}

namespace {

// [SECTION] Pretty JSON and the file writer
void pretty_into(const Json& j, int depth, int max_depth, std::string& out) {
  const bool compound = j.is_object() || j.is_array();
  bool scalars_only = j.is_array();
  if (j.is_array())
    for (const auto& e : j)
      if (e.is_object() || e.is_array()) scalars_only = false;
  if (!compound || j.empty() || depth >= max_depth || scalars_only) {
    out += j.dump();
    return;
  }
  const std::string ind(2 * (depth + 1), ' ');
  out += j.is_object() ? "{\n" : "[\n";
  bool first = true;
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out += ",\n";
      first = false;
      out += ind + Json(it.key()).dump() + ": ";
      pretty_into(it.value(), depth + 1, max_depth, out);
    }
  } else {
    for (const auto& e : j) {
      if (!first) out += ",\n";
      first = false;
      out += ind;
      pretty_into(e, depth + 1, max_depth, out);
    }
  }
  out += "\n" + std::string(2 * depth, ' ') + (j.is_object() ? "}" : "]");
}

}  // namespace

std::string pretty(const Json& j, int depth) {
  std::string out;
  pretty_into(j, 0, depth, out);
  return out + "\n";
}

bool write_text(const std::string& path, const std::string& data, std::ostream& stdout_stream,
                std::string& err, bool overwrite) {
  if (path == "-") {
    stdout_stream << data;
    return true;
  }
  io::WriteOptions o;
  o.overwrite = overwrite;
  const io::WriteResult r = io::write_file(path, data, o);
  if (!r.ok) err = r.error + (r.error.find("already exists") != std::string::npos
                                  ? "; pass --force to overwrite it"
                                  : "");
  return r.ok;
}

}  // namespace ws::cli
