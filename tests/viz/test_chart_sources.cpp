// A chart's sources (viz/chart.h: chart_sources, y_axis_title, ref_label) and how the one
// painter and the exports show them: titles derived from the set of sources drawn, each
// source drawn and named apart, a per-row `source` column, and a peak that is the data
// sheet's, never "modelled" or "measured".
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "viz/chart.h"
#include "viz/chart_paint.h"

using namespace ws::viz;
using ws::sim::Provenance;
using ws::sim::Source;

namespace {

const Provenance kMeasured = Provenance::measured("NVIDIA H100 80GB HBM3");
const Provenance kRecorded = Provenance::recorded("NVIDIA H100 80GB HBM3", "2026-11-23");
const Provenance kModelled = Provenance::modelled("dram");
const Provenance kSpec = Provenance::spec("NVIDIA H100 80GB HBM3");

// Keeps every rectangle and text the painter draws.
class KeepCanvas : public Canvas {
 public:
  struct Rect {
    double x0, y0, x1, y1;
    std::uint32_t fill, stroke;
  };
  std::vector<Rect> rects;
  std::vector<std::string> strings;
  void line(double, double, double, double, std::uint32_t, double, bool) override {}
  void polyline(const std::vector<std::pair<double, double>>&, std::uint32_t, double) override {}
  void rect(double x0, double y0, double x1, double y1, std::uint32_t fill, std::uint32_t stroke,
            double) override {
    rects.push_back({x0, y0, x1, y1, fill, stroke});
  }
  void circle(double, double, double, std::uint32_t, std::uint32_t, double) override {}
  void text(double, double, std::string_view s, double, std::uint32_t, Anchor, bool,
            bool) override {
    strings.emplace_back(s);
  }
  double text_width(std::string_view s, double size) override { return 0.6 * size * s.size(); }
  bool has(const std::string& s) const {
    for (const std::string& t : strings)
      if (t == s) return true;
    return false;
  }
};

ChartSpec bars(const std::vector<Provenance>& sources) {
  ChartSpec c;
  c.title = "variants";
  c.y_label = "GB/s";
  Series s;
  s.name = "throughput";
  s.kind = SeriesKind::Bars;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    c.categories.push_back("v" + std::to_string(i));
    s.x.push_back(double(i));
    s.y.push_back(1000.0 + 100.0 * double(i));
  }
  s.source = sources;
  c.series.push_back(s);
  c.refs.push_back({"theoretical peak", 1500, 0, kSpec});
  return c;
}

}  // namespace

// Each set of sources gets its own title: the painter writes what y_axis_title derives.
TEST(ChartSources, AxisTitleAndFooterFollowTheSetDrawn) {
  struct Case {
    std::vector<Provenance> sources;
    std::string axis, footer_has;
  };
  const std::vector<Case> cases = {
      {{Provenance{}, Provenance{}}, "GB/s", "peak: theoretical peak"},
      {{kMeasured, kMeasured}, "GB/s (measured)", "measured on NVIDIA H100 80GB HBM3 (this device, now)"},
      {{kRecorded, kRecorded}, "GB/s (recorded)", "recorded on NVIDIA H100 80GB HBM3, 2026-11-23"},
      {{kModelled, Provenance::modelled("l2")}, "GB/s (modelled)", "modelled by warpscope's model"},
      {{kRecorded, kModelled}, "GB/s (recorded and modelled)",
       "recorded on NVIDIA H100 80GB HBM3, 2026-11-23 · modelled by warpscope's model"},
      {{kModelled, kMeasured, kRecorded}, "GB/s (measured and recorded and modelled)",
       "measured on NVIDIA H100 80GB HBM3 (this device, now) · recorded on"},
  };
  for (const Case& k : cases) {
    const ChartSpec c = bars(k.sources);
    SCOPED_TRACE(k.axis);
    EXPECT_EQ(y_axis_title(c), k.axis);
    KeepCanvas cv;
    paint_chart(c, cv, 0, 0, 1600, 700);
    EXPECT_TRUE(cv.has(k.axis)) << "the painted axis title";
    std::string footer;
    for (const std::string& t : cv.strings) footer += t + " ";
    EXPECT_NE(footer.find(k.footer_has), std::string::npos) << footer;
    // The same words in every export.
    EXPECT_NE(to_svg(c, 1600, 700).find(">" + k.axis + "<"), std::string::npos);
    EXPECT_NE(to_csv(c).find("# " + chart_sources(c).footer + "\n"), std::string::npos);
  }
}

// A wrong point has no value, so its source is not among those drawn.
TEST(ChartSources, WrongPointsAreNotASource) {
  ChartSpec c = bars({kRecorded, kModelled});
  c.series[0].wrong = {false, true};
  EXPECT_EQ(y_axis_title(c), "GB/s (recorded)");
  EXPECT_FALSE(chart_sources(c).mixed);
}

// Recorded, modelled and measured bars on one chart are drawn apart (solid; translucent
// with an outline; hollow) and the legend names each source.
TEST(ChartSources, MixedBarsAreDrawnApartAndNamedInTheLegend) {
  const ChartSpec c = bars({kMeasured, kRecorded, kModelled});
  KeepCanvas cv;
  PaintOptions o;
  const ChartGeometry g = paint_chart(c, cv, 0, 0, 1600, 700, o);
  ASSERT_EQ(g.bars, 3);
  const std::uint32_t col = series_colour(c.series[0], 0);
  std::vector<KeepCanvas::Rect> bar_rects;
  for (const ChartMark& m : g.marks) {
    ASSERT_TRUE(m.bar);
    for (const auto& r : cv.rects)
      if (r.x0 == m.x0 && r.y0 == m.y0 && r.x1 == m.x1 && r.y1 == m.y1) bar_rects.push_back(r);
  }
  ASSERT_EQ(bar_rects.size(), 3u);
  EXPECT_EQ(g.marks[0].source, Source::Measured);
  EXPECT_EQ(bar_rects[0].fill, col);
  EXPECT_EQ(bar_rects[0].stroke, 0u);
  EXPECT_EQ(g.marks[1].source, Source::Recorded);
  EXPECT_EQ(bar_rects[1].stroke, col);
  EXPECT_EQ(bar_rects[1].fill & 0xFFFFFF00u, col & 0xFFFFFF00u);
  EXPECT_LT(bar_rects[1].fill & 0xFFu, col & 0xFFu) << "recorded: a translucent fill";
  EXPECT_EQ(g.marks[2].source, Source::Modelled);
  EXPECT_EQ(bar_rects[2].fill, o.theme.background) << "modelled: hollow";
  EXPECT_EQ(bar_rects[2].stroke, col);
  // Three distinct styles.
  EXPECT_NE(bar_rects[0].fill, bar_rects[1].fill);
  EXPECT_NE(bar_rects[1].fill, bar_rects[2].fill);
  // The legend names each source in full.
  EXPECT_TRUE(cv.has("measured on NVIDIA H100 80GB HBM3 (this device, now)"));
  EXPECT_TRUE(cv.has("recorded on NVIDIA H100 80GB HBM3, 2026-11-23"));
  EXPECT_TRUE(cv.has("modelled by warpscope's model"));
}

// @post of layout_chart: on a chart of one source, no source entries (the axis says it).
TEST(ChartSources, OneSourceNeedsNoSourceEntries) {
  const ChartSpec c = bars({kRecorded, kRecorded});
  KeepCanvas cv;
  const ChartLayout l = layout_chart(c, cv, 0, 0, 1600, 700);
  ASSERT_EQ(l.legend.size(), 2u) << "the series and the peak";
  EXPECT_EQ(l.legend[0].swatch, LegendSwatch::RecordedBox);
  EXPECT_EQ(l.legend[0].label, "throughput");
}

TEST(ChartSources, CsvHasASourcePerRow) {
  ChartSpec c = bars({kRecorded, kModelled, kMeasured, Provenance{}});
  const std::string csv = to_csv(c);
  EXPECT_NE(csv.find("series,kind,x,category,y,wrong,source,source_detail\n"), std::string::npos);
  EXPECT_NE(csv.find("throughput,bars,0,v0,1000,0,recorded,\"NVIDIA H100 80GB HBM3, 2026-11-23\"\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("throughput,bars,1,v1,1100,0,modelled,dram-bound\n"), std::string::npos);
  EXPECT_NE(csv.find("throughput,bars,2,v2,1200,0,measured,NVIDIA H100 80GB HBM3\n"), std::string::npos);
  EXPECT_NE(csv.find("throughput,bars,3,v3,1300,0,,\n"), std::string::npos) << "a count: no source";
  EXPECT_EQ(csv.find(",modelled\n"), std::string::npos) << "no 0/1 modelled column any more";
}

// The theoretical peak is the data sheet's: never "modelled", never "measured", in the
// legend, the SVG or the CSV.
TEST(ChartSources, PeakIsNeverModelledOrMeasured) {
  ChartSpec c = bars({kModelled, kModelled});
  const std::string label = ref_label(c, c.refs[0]);
  EXPECT_EQ(label, "theoretical peak 1500 GB/s (spec sheet)");
  KeepCanvas cv;
  paint_chart(c, cv, 0, 0, 1600, 700);
  int named = 0;
  for (const std::string& t : cv.strings) {
    // What is said of the peak: from the word on (the footer names the bars' source first).
    const auto at = t.find("peak");
    if (at == std::string::npos) continue;
    ++named;
    EXPECT_EQ(t.find("modelled", at), std::string::npos) << t;
    EXPECT_EQ(t.find("measured", at), std::string::npos) << t;
  }
  EXPECT_GE(named, 2) << "the legend and the footer name the peak";
  const std::string csv = to_csv(c);
  const auto at = csv.find("# reference theoretical peak: 1500 (spec sheet (NVIDIA H100 80GB HBM3))");
  EXPECT_NE(at, std::string::npos) << csv;
}
