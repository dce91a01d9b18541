// The CLI's pure helpers and report derivations, each against its @post contract.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <cmath>
#include <regex>
#include <set>
#include <sstream>

#include "app/cli/demo.h"
#include "app/cli/report.h"
#include "app/cli/util.h"

namespace ws::cli {
namespace {

TEST(CliUtil, ParseSweepAcceptsKeyAndIntegerList) {
  Sweep s;
  std::string err;
  ASSERT_TRUE(parse_sweep("tile=8,16,32", s, err)) << err;
  EXPECT_EQ(s.key, "tile");
  EXPECT_EQ(s.values, (std::vector<long long>{8, 16, 32}));
  ASSERT_TRUE(parse_sweep("pad=1", s, err));
  EXPECT_EQ(s.values, (std::vector<long long>{1}));
}

TEST(CliUtil, ParseSweepRejectsMalformedInputWithAReason) {
  Sweep s;
  s.key = "untouched";
  for (const char* bad : {"tile", "=1,2", "tile=", "tile=8,x", "tile=1.5", "tile=8;16"}) {
    std::string err;
    EXPECT_FALSE(parse_sweep(bad, s, err)) << bad;
    EXPECT_FALSE(err.empty()) << bad;
    EXPECT_EQ(s.key, "untouched") << bad;
  }
}

TEST(CliUtil, ExpandSweepsIsTheCartesianProductOverTheBase) {
  const Params base = {{"n", 1024}, {"tile", 32}};
  const std::vector<Sweep> sw = {{"tile", {8, 16}}, {"pad", {0, 1, 2}}};
  const auto out = expand_sweeps(base, sw);
  ASSERT_EQ(out.size(), 6u);
  std::set<std::pair<long long, long long>> seen;
  for (const auto& p : out) {
    EXPECT_EQ(p.at("n"), 1024);
    EXPECT_EQ(p.size(), 3u);
    seen.insert({p.at("tile"), p.at("pad")});
  }
  EXPECT_EQ(seen.size(), 6u);
  // The last sweep varies fastest.
  EXPECT_EQ(out[0].at("pad"), 0);
  EXPECT_EQ(out[1].at("pad"), 1);
  EXPECT_EQ(out[0].at("tile"), out[1].at("tile"));
  EXPECT_EQ(expand_sweeps(base, {}), std::vector<Params>{base});
}

TEST(CliUtil, ParseSize) {
  int w = 0, h = 0;
  std::string err;
  ASSERT_TRUE(parse_size("1600x1000", w, h, err));
  EXPECT_EQ(w, 1600);
  EXPECT_EQ(h, 1000);
  for (const char* bad : {"1600", "x10", "0x10", "10x-1", "axb", "99999x10"}) {
    EXPECT_FALSE(parse_size(bad, w, h, err)) << bad;
    EXPECT_FALSE(err.empty());
  }
}

TEST(CliUtil, Iso8601IsUtc) {
  EXPECT_EQ(iso8601_utc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(iso8601_utc(1700000000), "2023-11-14T22:13:20Z");
}

TEST(CliUtil, SplitDropsEmptyPieces) {
  EXPECT_EQ(split("svg,,png,", ','), (std::vector<std::string>{"svg", "png"}));
  EXPECT_TRUE(split("", ',').empty());
}

TEST(CliUtil, FmtPrintsIntegersWithoutPointAndNoExponentInRange) {
  EXPECT_EQ(fmt(32768), "32768");
  EXPECT_EQ(fmt(1048576.0), "1048576");
  EXPECT_EQ(fmt(2.5), "2.500");
  EXPECT_EQ(fmt(0.000123456, 3), "0.000123");
  EXPECT_EQ(fmt(std::nan("")), "nan");
  for (double v : {1e-4, 0.5, 3.14159, 12345.678, 9.99e14})
    EXPECT_EQ(fmt(v).find('e'), std::string::npos) << v;
}

TEST(CliUtil, FormatTableHasHeaderRuleAndOneLinePerRow) {
  const std::string t = format_table({"a", "value"}, {{"x", "1"}, {"longer", "12345"}},
                                     {false, true});
  std::istringstream in(t);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(t.back(), '\n');
  EXPECT_EQ(lines[1].find_first_not_of('-'), std::string::npos);
  // Right-aligned numbers end in the same column.
  EXPECT_EQ(lines[2].size(), lines[3].size());
}

TEST(CliUtil, CsvFieldQuotesOnlyWhenNeeded) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(CliReport, NumberKeepsIntegersIntegralAndNanNull) {
  EXPECT_TRUE(number(32768.0).is_number_integer());
  EXPECT_EQ(number(32768.0).dump(), "32768");
  EXPECT_TRUE(number(0.5).is_number_float());
  EXPECT_TRUE(number(kNaN).is_null());
  EXPECT_EQ(number(-3.0).get<long long>(), -3);
}

TEST(CliReport, PrettyJsonParsesBackToTheSameValue) {
  Json j;
  j["a"] = 1;
  j["list"] = Json::array({1, 2, 3});
  j["nested"]["deep"]["deeper"] = Json::array({Json::object({{"x", "0xffffffff"}})});
  j["empty"] = Json::object();
  const std::string s = pretty(j, 2);
  EXPECT_EQ(Json::parse(s), j);
  EXPECT_NE(s.find("[1,2,3]"), std::string::npos);  // arrays of scalars stay on one line
}

TEST(CliReport, WriteTextIsAllOrNothing) {
  const auto dir = std::filesystem::temp_directory_path() / "ws_cli_write_text";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ostringstream so;
  std::string err;
  const std::string path = (dir / "x.csv").string();
  ASSERT_TRUE(write_text(path, "a,b\n1,2\n", so, err)) << err;
  std::ifstream f(path);
  std::stringstream got;
  got << f.rdbuf();
  EXPECT_EQ(got.str(), "a,b\n1,2\n");
  EXPECT_FALSE(write_text((dir / "missing" / "y.csv").string(), "z", so, err));
  EXPECT_FALSE(err.empty());
  EXPECT_FALSE(std::filesystem::exists(dir / "missing"));
  ASSERT_TRUE(write_text("-", "to stdout", so, err));
  EXPECT_EQ(so.str(), "to stdout");
  std::filesystem::remove_all(dir);
}

// A report built by hand, to check the derived columns without any backend.
BenchRow row_of(const VariantInfo& v, double median_ms, double gbps, bool verified,
                std::string error = "") {
  BenchRow r;
  r.cfg.variant = &v;
  r.cfg.plan.logical_bytes = 8e6;
  r.result.verified = verified;
  r.result.error = std::move(error);
  r.result.timing.source = sim::Provenance::measured("Test GPU");
  r.result.timing.median_ms = median_ms;
  r.result.timing.throughput = gbps;
  r.result.timing.unit = "GB/s";
  return r;
}

TEST(CliReport, DeriveSetsSpeedupOnlyBetweenTwoVerifiedRows) {
  VariantInfo v;
  v.family = "f";
  v.name = "v";
  BenchReport rep;
  rep.device.peak_gbps = 1000;
  rep.rows = {row_of(v, 2.0, 100, true), row_of(v, 1.0, 200, true), row_of(v, 0.5, 400, false),
              row_of(v, 0.5, 400, true), row_of(v, 0, 0, false, "boom"), row_of(v, 1, 1, true)};
  PeerRow copy;
  copy.peer = Peer::MemcpyD2D;
  copy.size = 8e6;
  copy.result.timing.throughput = 800;
  copy.result.timing.source = sim::Provenance::measured("Test GPU");
  rep.peers = {copy};
  derive(rep);
  EXPECT_TRUE(std::isnan(rep.rows[0].speedup));
  EXPECT_DOUBLE_EQ(rep.rows[1].speedup, 2.0);
  EXPECT_TRUE(std::isnan(rep.rows[2].speedup));  // wrong
  EXPECT_TRUE(std::isnan(rep.rows[3].speedup));  // previous was wrong
  EXPECT_TRUE(std::isnan(rep.rows[4].speedup));  // failed
  EXPECT_TRUE(std::isnan(rep.rows[5].speedup));  // previous failed
  EXPECT_DOUBLE_EQ(rep.rows[1].frac_copy, 0.25);
  EXPECT_EQ(rep.rows[1].speedup_note, "") << "one source: a plain ratio";
  EXPECT_EQ(rep.rows[1].frac_copy_note, "");
  EXPECT_DOUBLE_EQ(rep.rows[1].frac_peak, 0.2);
  EXPECT_TRUE(std::isnan(rep.rows[2].frac_copy));  // a wrong row gets no fractions
  EXPECT_EQ(rep.rows[2].status(), "WRONG");
  EXPECT_EQ(rep.rows[4].status(), "FAILED");
  EXPECT_TRUE(rep.any_bad());
}

TEST(CliReport, WrongRowsNeverShowAThroughput) {
  VariantInfo v;
  v.family = "f";
  v.name = "buggy";
  BenchReport rep;
  rep.family = "f";
  rep.rows = {row_of(v, 1.0, 123456.0, false)};
  derive(rep);
  const std::string text = bench_text(rep);
  EXPECT_NE(text.find("WRONG"), std::string::npos);
  EXPECT_EQ(text.find("123456"), std::string::npos);
  EXPECT_EQ(bench_csv(rep).find("123456"), std::string::npos);
  EXPECT_TRUE(bench_json(rep)["rows"][0]["throughput"].is_null());
  const auto chart = bench_chart(rep);
  ASSERT_EQ(chart.series.size(), 1u);
  ASSERT_EQ(chart.series[0].wrong.size(), 1u);
  EXPECT_TRUE(chart.series[0].wrong[0]);
  EXPECT_EQ(chart.series[0].y[0], 0.0);
}

TEST(CliReport, CsvCarriesDeviceDateAndParameters) {
  VariantInfo v;
  v.family = "f";
  v.name = "v";
  BenchReport rep;
  rep.family = "f";
  rep.date = "2026-01-02T03:04:05Z";
  rep.device.name = "Test GPU";
  rep.device.driver = "580.1";
  rep.device.mem_clock_mhz = 2619;
  auto r = row_of(v, 1.0, 100, true);
  r.cfg.completed = {{"n", 1024}, {"tile", 32}};
  rep.rows = {r};
  derive(rep);
  const std::string csv = bench_csv(rep);
  std::istringstream in(csv);
  std::string head, line;
  std::getline(in, head);
  std::getline(in, line);
  for (const char* col : {"date", "device", "driver", "mem_clock_mhz", "n", "tile", "params"})
    EXPECT_NE(("," + head + ",").find(std::string(",") + col + ","), std::string::npos) << col;
  EXPECT_NE(line.find("2026-01-02T03:04:05Z"), std::string::npos);
  EXPECT_NE(line.find("Test GPU"), std::string::npos);
  EXPECT_NE(line.find("2619"), std::string::npos);
  EXPECT_NE(line.find("n=1024 tile=32"), std::string::npos);
  const auto chart = bench_chart(rep);
  EXPECT_EQ(chart.meta.at("date"), "2026-01-02T03:04:05Z");
  EXPECT_EQ(chart.meta.at("ran on"), "emulator (no GPU)") << "the report's kind is Emu by default";
  EXPECT_EQ(chart.meta.at("params"), "n=1024 tile=32");
}

// The stride sweep of the issue: stride 1 modelled beside stride 2 recorded. Their
// speedup is computed, and every output marks it mixed; each row says its source.
BenchReport mixed_report(const VariantInfo& v) {
  BenchReport rep;
  rep.family = "access";
  rep.date = "2026-11-26T00:00:00Z";
  rep.device.name = "emulator";
  rep.kind = BackendKind::Emu;
  rep.device.peak_gbps = 3352;
  auto a = row_of(v, 1.0, 1000, true);
  a.cfg.completed = {{"stride", 1}};
  a.result.timing.source = sim::Provenance::modelled("dram");
  auto b = row_of(v, 1.5625, 640, true);
  b.cfg.completed = {{"stride", 2}};
  b.result.timing.source = sim::Provenance::recorded("NVIDIA H100 80GB HBM3", "2026-11-25");
  rep.rows = {a, b};
  rep.sweeps = {{"stride", {1, 2}}};
  PeerRow copy;
  copy.peer = Peer::MemcpyD2D;
  copy.size = 8e6;
  copy.result.timing.throughput = 2500;
  copy.result.timing.unit = "GB/s";
  copy.result.timing.source = sim::Provenance::recorded("NVIDIA H100 80GB HBM3", "2026-11-25");
  rep.peers = {copy};
  derive(rep);
  return rep;
}

TEST(CliReport, RatiosAcrossSourcesAreMarkedEverywhere) {
  VariantInfo v;
  v.family = "access";
  v.name = "stride";
  const BenchReport rep = mixed_report(v);
  ASSERT_DOUBLE_EQ(rep.rows[1].speedup, 0.64);
  EXPECT_EQ(rep.rows[1].speedup_note, "(mixed: modelled / recorded)");
  EXPECT_EQ(rep.rows[0].frac_copy_note, "(mixed: modelled / recorded)") << "a modelled row over a recorded copy";
  EXPECT_EQ(rep.rows[1].frac_copy_note, "") << "a recorded row over the recorded copy";
  const std::string text = bench_text(rep);
  EXPECT_NE(text.find("0.64x (mixed: modelled / recorded)"), std::string::npos) << text;
  EXPECT_EQ(text.find("0.64x  "), std::string::npos) << "never a bare 0.64x";
  // Each row names its source; the header names each source in full and the peak's sheet.
  EXPECT_NE(text.find("recorded on NVIDIA H100 80GB HBM3, 2026-11-25"), std::string::npos) << text;
  EXPECT_NE(text.find("theoretical peak 3352 GB/s (NVIDIA H100 80GB HBM3 data sheet)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("(modelled)"), std::string::npos) << "no label invented for the peak";
  const std::string csv = bench_csv(rep);
  std::istringstream in(csv);
  std::string head, r0, r1;
  std::getline(in, head);
  std::getline(in, r0);
  std::getline(in, r1);
  EXPECT_NE(("," + head + ",").find(",source,source_detail,"), std::string::npos) << head;
  EXPECT_NE(r0.find(",modelled,dram-bound,"), std::string::npos) << r0;
  EXPECT_NE(r1.find(",recorded,\"NVIDIA H100 80GB HBM3, 2026-11-25\","), std::string::npos) << r1;
  EXPECT_NE(r1.find("speedup (mixed: modelled / recorded)"), std::string::npos) << r1;
  const Json j = bench_json(rep);
  EXPECT_EQ(j["rows"][1]["speedup_mixed"], "(mixed: modelled / recorded)");
  EXPECT_FALSE(j["rows"][0].contains("speedup_mixed"));
  EXPECT_EQ(j["rows"][1]["timing"]["source"]["kind"], "recorded");
  EXPECT_EQ(j["rows"][1]["timing"]["source"]["date"], "2026-11-25");
  EXPECT_EQ(j["rows"][0]["timing"]["source"]["bound"], "dram");
  EXPECT_EQ(j["peak_source"]["kind"], "spec");
  // The chart: each point's source, the copy recorded (never modelled), the peak the
  // data sheet's, and the titles derived from the two sources drawn.
  const viz::ChartSpec c = bench_chart(rep);
  ASSERT_EQ(c.series.size(), 1u);
  EXPECT_EQ(c.series[0].source[0].source, sim::Source::Modelled);
  EXPECT_EQ(c.series[0].source[1].source, sim::Source::Recorded);
  EXPECT_EQ(viz::y_axis_title(c), "GB/s (recorded and modelled)");
  for (const viz::RefLine& r : c.refs) {
    if (r.name == "theoretical peak") EXPECT_EQ(r.source.source, sim::Source::Spec);
    if (r.name == "cudaMemcpy D2D") EXPECT_EQ(r.source.source, sim::Source::Recorded);
    EXPECT_NE(r.source.source, sim::Source::Modelled) << r.name;
  }
  const std::string ccsv = viz::to_csv(c);
  EXPECT_NE(ccsv.find("stride,line,1,,1000,0,modelled,dram-bound\n"), std::string::npos) << ccsv;
  EXPECT_NE(ccsv.find("stride,line,2,,640,0,recorded,\"NVIDIA H100 80GB HBM3, 2026-11-25\"\n"),
            std::string::npos)
      << ccsv;
  EXPECT_EQ(c.meta.count("timing"), 1u);
  EXPECT_EQ(c.meta.at("timing"), "recorded: the recording's median");
}

TEST(CliDemo, KnobRatiosAcrossSourcesAreMarked) {
  VariantInfo v;
  v.family = "transpose";
  v.name = "tiled";
  BenchReport rep;
  auto a = row_of(v, 2.0, 500, true);
  a.cfg.completed = {{"pad", 0}};
  a.result.timing.source = sim::Provenance::recorded("NVIDIA H100 80GB HBM3", "2026-11-25");
  auto b = row_of(v, 1.0, 1000, true);
  b.cfg.completed = {{"pad", 1}};
  b.result.timing.source = sim::Provenance::modelled("l2");
  rep.rows = {a, b};
  EXPECT_EQ(knob_ratios(rep, "pad"), "tiled pad=1 against pad=0: 2.00x the speed (mixed: recorded / modelled)\n");
  rep.rows[1].result.timing.source = rep.rows[0].result.timing.source;
  EXPECT_EQ(knob_ratios(rep, "pad"), "tiled pad=1 against pad=0: 2.00x the speed\n");
  rep.rows[1].result.verified = false;
  EXPECT_EQ(knob_ratios(rep, "pad"), "") << "no ratio with a wrong result";
}

}  // namespace
}  // namespace ws::cli
