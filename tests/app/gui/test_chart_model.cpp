// The charts' model (app/gui/chart_model.h) without a window or a worker: the ChartSpecs
// it builds from history, bars, sweeps and peers, against each function's @post.
#include <gtest/gtest.h>

#include <cmath>

#include "app/gui/chart_model.h"

using namespace ws;
using namespace ws::gui;

namespace {

ChartContext context(bool emulated) {
  ChartContext c;
  c.emulated = emulated;
  c.peak = 3352;
  c.family = "transpose";
  c.completed = {{"n", 1024}, {"pad", 1}};
  c.meta = {{"kernel", "transpose/tiled"}, {"params", "n=1024 pad=1"}};
  return c;
}

BarPoint bar(const std::string& variant, double gbps, bool ok, bool measured) {
  BarPoint b;
  b.variant = variant;
  b.result.verified = ok;
  b.result.timing.throughput = gbps;
  b.result.timing.unit = "GB/s";
  b.result.timing.measured = measured;
  return b;
}

PeerResult peer(Peer p, double tp, const std::string& unit, bool measured) {
  PeerResult r;
  r.peer = p;
  r.timing.throughput = tp;
  r.timing.unit = unit;
  r.timing.measured = measured;
  return r;
}

}  // namespace

TEST(ChartModel, HistoryIsOneLinePerVariantInTheLastUnit) {
  ChartModel m;
  m.history = {{1, "naive", "naive", 400, "GB/s", false, true},
               {2, "tiled", "tiled", 900, "GB/s", false, true},
               {3, "sgemm", "sgemm", 40000, "GFLOP/s", false, true},
               {4, "naive", "naive", 410, "GB/s", true, true}};
  m.peers = {peer(Peer::MemcpyD2D, 2900, "GB/s", false)};
  const viz::ChartSpec c = m.history_chart(context(true));
  ASSERT_EQ(c.series.size(), 2u);
  EXPECT_EQ(c.series[0].name, "naive");
  EXPECT_EQ(c.series[0].x, (std::vector<double>{1, 4}));
  EXPECT_EQ(c.series[0].wrong, (std::vector<bool>{false, true}));
  EXPECT_EQ(c.series[1].name, "tiled");
  EXPECT_EQ(c.y_label, "GB/s (modelled)");
  ASSERT_EQ(c.refs.size(), 2u);
  EXPECT_EQ(c.refs[0].name, "peak (modelled device)");
  EXPECT_EQ(c.refs[0].y, 3352);
  EXPECT_EQ(c.refs[1].name, "copy (modelled)");
  EXPECT_EQ(m.copy_gbps(), 2900);
  EXPECT_EQ(c.meta.at("kernel"), "transpose/tiled");
  // Measured on a GPU: no "(modelled)" anywhere; the GFLOP/s point alone is its own chart.
  m.history.push_back({5, "sgemm", "sgemm", 41000, "GFLOP/s", false, false});
  const viz::ChartSpec g = m.history_chart(context(false));
  ASSERT_EQ(g.series.size(), 1u);
  EXPECT_EQ(g.series[0].x, (std::vector<double>{3, 5}));
  EXPECT_EQ(g.y_label, "GFLOP/s");
  ASSERT_EQ(g.refs.size(), 1u) << "the copy is a GB/s reference only";
  EXPECT_EQ(g.refs[0].name, "theoretical peak");
}

TEST(ChartModel, BarsKeepEveryVariantAndMarkWhatDidNotRun) {
  ChartModel m;
  m.bars = {bar("naive", 400, true, true), bar("tiled", 900, false, true), bar("tiled", 0, true, true)};
  m.bars[2].variant = "diagonal";
  m.bars[2].skipped = "tile must divide n";
  m.peers = {peer(Peer::MemcpyD2D, 2900, "GB/s", true), peer(Peer::CublasSgemm, 40000, "GFLOP/s", true),
             peer(Peer::CubReduceSum, 2800, "GB/s", false)};
  const viz::ChartSpec c = m.bars_chart(context(false));
  EXPECT_EQ(c.title, "Variants of transpose at n=1024 pad=1");
  EXPECT_EQ(c.categories, (std::vector<std::string>{"naive", "tiled", "diagonal (n/a)"}));
  ASSERT_EQ(c.series.size(), 1u);
  const viz::Series& s = c.series[0];
  EXPECT_EQ(s.y[0], 400);
  EXPECT_TRUE(std::isnan(s.y[2]));
  EXPECT_EQ(s.wrong, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(s.modelled, (std::vector<bool>{false, false, false}));
  EXPECT_EQ(c.y_label, "GB/s");
  ASSERT_EQ(c.refs.size(), 3u) << "peak, then the peers in GB/s";
  EXPECT_EQ(c.refs[1].name, std::string(to_string(Peer::MemcpyD2D)));
  EXPECT_EQ(c.refs[2].name, std::string(to_string(Peer::CubReduceSum)) + " (modelled)");
  // Bars of another family say theirs.
  m.bars_family = "reduce";
  EXPECT_EQ(m.bars_chart(context(true)).title, "Variants of reduce at n=1024 pad=1");
  EXPECT_EQ(m.bars_chart(context(true)).y_label, "GB/s (modelled)");
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
  const viz::ChartSpec c = m.sweep_chart(context(true));
  ASSERT_EQ(c.series.size(), 2u);
  EXPECT_EQ(c.series[0].name, "pad=0");
  EXPECT_EQ(c.series[1].x, (std::vector<double>{8, 16})) << "the skipped point is left out";
  EXPECT_EQ(c.meta.at("params"), "n=1024 tile=8,16,32 pad=0,1");
  EXPECT_EQ(c.meta.at("kernel"), "transpose/tiled");
  EXPECT_EQ(c.y_label, "GB/s (modelled)");
  // A count instead of the time: never modelled, no peak.
  m.sweep_metric = "bank conflicts";
  const viz::ChartSpec k = m.sweep_chart(context(true));
  EXPECT_EQ(k.y_label, "bank conflicts");
  EXPECT_EQ(k.series[0].y, (std::vector<double>{8, 16, 32}));
  EXPECT_EQ(k.series[0].modelled, (std::vector<bool>{false, false, false}));
  EXPECT_TRUE(k.refs.empty());
}
