// The charts' model (app/model/chart_model.h) without a window or a worker: the ChartSpecs
// it builds from history, bars, sweeps and peers, against each function's @post.
#include <gtest/gtest.h>

#include <cmath>

#include "app/model/chart_model.h"

using namespace ws;
using namespace ws::gui;

namespace {

const sim::Provenance kRecorded = sim::Provenance::recorded("NVIDIA H100 80GB HBM3", "2026-11-25");
const sim::Provenance kMeasured = sim::Provenance::measured("NVIDIA H100 80GB HBM3");
const sim::Provenance kModelled = sim::Provenance::modelled("dram");

ChartContext context() {
  ChartContext c;
  c.peak = 3352;
  c.peak_source = sim::Provenance::spec("NVIDIA H100 80GB HBM3");
  c.family = "transpose";
  c.completed = {{"n", 1024}, {"pad", 1}};
  c.meta = {{"kernel", "transpose/tiled"}, {"params", "n=1024 pad=1"}};
  return c;
}

BarPoint bar(const std::string& variant, double gbps, bool ok, const sim::Provenance& src) {
  BarPoint b;
  b.variant = variant;
  b.result.verified = ok;
  b.result.timing.throughput = gbps;
  b.result.timing.unit = "GB/s";
  b.result.timing.source = src;
  return b;
}

PeerResult peer(Peer p, double tp, const std::string& unit, const sim::Provenance& src) {
  PeerResult r;
  r.peer = p;
  r.timing.throughput = tp;
  r.timing.unit = unit;
  r.timing.source = src;
  return r;
}

}  // namespace

TEST(ChartModel, HistoryIsOneLinePerVariantInTheLastUnit) {
  ChartModel m;
  m.history = {{1, "naive", "naive", 400, "GB/s", false, kModelled},
               {2, "tiled", "tiled", 900, "GB/s", false, kRecorded},
               {3, "sgemm", "sgemm", 40000, "GFLOP/s", false, kModelled},
               {4, "naive", "naive", 410, "GB/s", true, kModelled}};
  m.peers = {peer(Peer::MemcpyD2D, 2900, "GB/s", kRecorded)};
  const viz::ChartSpec c = m.history_chart(context());
  ASSERT_EQ(c.series.size(), 2u);
  EXPECT_EQ(c.series[0].name, "naive");
  EXPECT_EQ(c.series[0].x, (std::vector<double>{1, 4}));
  EXPECT_EQ(c.series[0].wrong, (std::vector<bool>{false, true}));
  EXPECT_EQ(c.series[1].name, "tiled");
  // Each point keeps its run's source; the axis says the set drawn (the wrong point has
  // no value, so it is not a source).
  EXPECT_EQ(c.series[0].source, (std::vector<sim::Provenance>{kModelled, kModelled}));
  EXPECT_EQ(c.series[1].source, (std::vector<sim::Provenance>{kRecorded}));
  EXPECT_EQ(c.y_label, "GB/s");
  EXPECT_EQ(viz::y_axis_title(c), "GB/s (recorded and modelled)");
  ASSERT_EQ(c.refs.size(), 2u);
  EXPECT_EQ(c.refs[0].name, "theoretical peak");
  EXPECT_EQ(c.refs[0].source.source, sim::Source::Spec) << "the peak is the data sheet's";
  EXPECT_EQ(c.refs[0].y, 3352);
  EXPECT_EQ(c.refs[1].name, "cudaMemcpy D2D");
  EXPECT_EQ(c.refs[1].source, kRecorded) << "a recorded copy is never called modelled";
  EXPECT_EQ(m.copy_gbps(), 2900);
  EXPECT_EQ(c.meta.at("kernel"), "transpose/tiled");
  // Measured on a GPU: no "(modelled)" anywhere; the GFLOP/s point alone is its own chart.
  m.history.push_back({5, "sgemm", "sgemm", 41000, "GFLOP/s", false, kModelled});
  const viz::ChartSpec g = m.history_chart(context());
  ASSERT_EQ(g.series.size(), 1u);
  EXPECT_EQ(g.series[0].x, (std::vector<double>{3, 5}));
  EXPECT_EQ(g.y_label, "GFLOP/s");
  ASSERT_EQ(g.refs.size(), 1u) << "the copy is a GB/s reference only";
  EXPECT_EQ(g.refs[0].name, "theoretical peak");
}

TEST(ChartModel, BarsKeepEveryVariantAndMarkWhatDidNotRun) {
  ChartModel m;
  m.bars = {bar("naive", 400, true, kMeasured), bar("tiled", 900, false, kMeasured),
            bar("tiled", 0, true, kMeasured)};
  m.bars[2].variant = "diagonal";
  m.bars[2].skipped = "tile must divide n";
  m.peers = {peer(Peer::MemcpyD2D, 2900, "GB/s", kMeasured), peer(Peer::CublasSgemm, 40000, "GFLOP/s", kMeasured),
             peer(Peer::CubReduceSum, 2800, "GB/s", kRecorded)};
  const viz::ChartSpec c = m.bars_chart(context());
  EXPECT_EQ(c.title, "Variants of transpose at n=1024 pad=1");
  EXPECT_EQ(c.categories, (std::vector<std::string>{"naive", "tiled", "diagonal (n/a)"}));
  ASSERT_EQ(c.series.size(), 1u);
  const viz::Series& s = c.series[0];
  EXPECT_EQ(s.y[0], 400);
  EXPECT_TRUE(std::isnan(s.y[2]));
  EXPECT_EQ(s.wrong, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(s.source, (std::vector<sim::Provenance>{kMeasured, kMeasured, {}}))
      << "what did not run has no source";
  EXPECT_EQ(c.y_label, "GB/s");
  EXPECT_EQ(viz::y_axis_title(c), "GB/s (measured)");
  ASSERT_EQ(c.refs.size(), 3u) << "peak, then the peers in GB/s";
  EXPECT_EQ(c.refs[1].name, std::string(to_string(Peer::MemcpyD2D)));
  EXPECT_EQ(c.refs[2].name, std::string(to_string(Peer::CubReduceSum)));
  EXPECT_EQ(c.refs[2].source, kRecorded);
  EXPECT_EQ(viz::ref_label(c, c.refs[2]), std::string(to_string(Peer::CubReduceSum)) + " 2800 GB/s (recorded)");
  // Bars of another family say theirs; recorded bars on the emulator say recorded, not
  // modelled (the default window's transpose bars).
  m.bars_family = "reduce";
  for (auto& b : m.bars) b.result.timing.source = kRecorded;
  EXPECT_EQ(m.bars_chart(context()).title, "Variants of reduce at n=1024 pad=1");
  EXPECT_EQ(viz::y_axis_title(m.bars_chart(context())), "GB/s (recorded)");
}

TEST(ChartModel, SweepNamesItsSeriesAndTheValuesAsSwept) {
  ChartModel m;
  m.sweep_x = "tile";
  m.sweep_series = "pad";
  m.sweep_for = "transpose/tiled";
  for (long long pad : {0, 1})
    for (long long tile : {8, 16, 32}) {
      SweepPoint p;
      p.x = tile;
      p.s = pad;
      p.verified = true;
      p.throughput = double(tile * 10 + pad);
      p.unit = "GB/s";
      p.plain = {{"bank conflicts", double(pad ? 0 : tile)}};
      m.sweep.push_back(p);
    }
  m.sweep.back().skipped = "too large";
  m.sweep[0].source = kRecorded;
  for (std::size_t i = 1; i < m.sweep.size(); ++i) m.sweep[i].source = kModelled;
  const viz::ChartSpec c = m.sweep_chart(context());
  ASSERT_EQ(c.series.size(), 2u);
  EXPECT_EQ(c.series[0].name, "pad=0");
  EXPECT_EQ(c.series[1].x, (std::vector<double>{8, 16})) << "the skipped point is left out";
  EXPECT_EQ(c.meta.at("params"), "n=1024 tile=8,16,32 pad=0,1");
  EXPECT_EQ(c.meta.at("kernel"), "transpose/tiled");
  EXPECT_EQ(viz::y_axis_title(c), "GB/s (recorded and modelled)");
  EXPECT_TRUE(viz::chart_sources(c).mixed);
  // A count instead of the time: no source at all, no peak.
  m.sweep_metric = "bank conflicts";
  const viz::ChartSpec k = m.sweep_chart(context());
  EXPECT_EQ(viz::y_axis_title(k), "bank conflicts");
  EXPECT_EQ(k.series[0].y, (std::vector<double>{8, 16, 32}));
  EXPECT_EQ(k.series[0].source, (std::vector<sim::Provenance>(3)));
  EXPECT_TRUE(k.refs.empty());
}
