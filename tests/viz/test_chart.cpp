// Chart description and export: no display needed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "viz/chart.h"
#include "viz/chart_paint.h"
#include "tests/viz/count_canvas.h"

namespace fs = std::filesystem;
using namespace ws::viz;
using ws::sim::Provenance;
using ws::test::CountCanvas;

namespace {

void expect_nice(double lo, double hi, int target) {
  SCOPED_TRACE(testing::Message() << "[" << lo << ", " << hi << "] target " << target);
  auto t = nice_ticks(lo, hi, target);
  ASSERT_GE(t.size(), 2u);
  const double step = t[1] - t[0];
  ASSERT_GT(step, 0);
  const double mag = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
  const double m = step / mag;
  EXPECT_TRUE(std::fabs(m - 1) < 1e-6 || std::fabs(m - 2) < 1e-6 || std::fabs(m - 5) < 1e-6)
      << "step " << step;
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_GE(t[i], lo);
    EXPECT_LE(t[i], hi);
    if (i > 0) { EXPECT_NEAR(t[i] - t[i - 1], step, step * 1e-6); }
  }
  // "about target": never wildly off
  EXPECT_LE(t.size(), std::size_t(2 * target + 2));
}

ChartSpec bars_spec() {
  ChartSpec c;
  c.title = "Transpose <n=1024> & friends";
  c.x_label = "variant";
  c.y_label = "GB/s";
  c.categories = {"naive", "tiled", "tiled pad"};
  Series s;
  s.name = "throughput";
  s.kind = SeriesKind::Bars;
  s.x = {0, 1, 2};
  s.y = {472, 99999, 2720};
  s.wrong = {false, true, false};
  s.source = {Provenance::measured("NVIDIA H100"), {}, Provenance::modelled("dram")};
  c.series.push_back(s);
  c.refs.push_back({"memcpy", 2986, 0, Provenance::measured("NVIDIA H100")});
  c.refs.push_back({"peak", 3352, 0, Provenance::spec("NVIDIA H100")});
  c.meta["device"] = "NVIDIA H100";
  c.meta["params"] = "n=1024 tile=32";
  return c;
}

std::string temp_dir() {
  std::string d = (fs::temp_directory_path() / ("ws_chart_" + std::to_string(::getpid()))).string();
  fs::create_directories(d);
  return d;
}

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST(NiceTicks, StepsAreOneTwoFiveAndInside) {
  expect_nice(0, 100, 6);
  expect_nice(0, 3352, 5);
  expect_nice(-7.3, 12.9, 6);
  expect_nice(0.001, 0.0173, 4);
  expect_nice(1e6, 4.2e6, 6);
  expect_nice(13, 17, 6);
}

TEST(NiceTicks, KnownRange) {
  auto t = nice_ticks(0, 100, 5);
  std::vector<double> want = {0, 20, 40, 60, 80, 100};
  ASSERT_EQ(t.size(), want.size());
  for (std::size_t i = 0; i < t.size(); ++i) EXPECT_DOUBLE_EQ(t[i], want[i]);
}

TEST(NiceTicks, DegenerateInput) {
  EXPECT_EQ(nice_ticks(5, 5).size(), 1u);
  EXPECT_TRUE(nice_ticks(NAN, 1).empty());
  auto r = nice_ticks(10, 0, 5);  // reversed: treated as [0, 10]
  ASSERT_GE(r.size(), 2u);
  EXPECT_LT(r.front(), r.back());
}

TEST(Chart, SeriesKindNames) {
  EXPECT_EQ(to_string(SeriesKind::Line), "line");
  EXPECT_EQ(to_string(SeriesKind::Bars), "bars");
  EXPECT_EQ(to_string(SeriesKind::Points), "points");
}

TEST(Chart, AnchorNames) {
  EXPECT_EQ(to_string(Anchor::Left), "left");
  EXPECT_EQ(to_string(Anchor::Center), "center");
  EXPECT_EQ(to_string(Anchor::Right), "right");
}

TEST(ChartPaint, WrongPointIsAMarkNotABar) {
  CountCanvas cv;
  ChartGeometry g = paint_chart(bars_spec(), cv, 0, 0, 960, 540);
  EXPECT_EQ(g.bars, 2);
  EXPECT_EQ(g.wrong, 1);
  EXPECT_EQ(g.refs, 2);
  for (const ChartMark& m : g.marks) {
    EXPECT_GE(m.cx, g.plot_x0);
    EXPECT_LE(m.cx, g.plot_x1);
    if (m.wrong) { EXPECT_EQ(m.y0, m.y1) << "a wrong point must have no bar height"; }
  }
  // The wrong value (99999) must not stretch the axis: the refs bound it.
  EXPECT_LT(g.y_hi, 10000);
  EXPECT_GE(g.y_hi, 3352);
}

TEST(ChartPaint, LineBreaksAtWrongAndHollowModelled) {
  ChartSpec c;
  Series s;
  s.name = "history";
  s.x = {1, 2, 3, 4};
  s.y = {10, 20, 30, 40};
  s.wrong = {false, false, true, false};
  s.source.assign(4, Provenance::modelled("latency"));
  c.series.push_back(s);
  c.y_label = "GB/s";
  CountCanvas cv;
  ChartGeometry g = paint_chart(c, cv, 0, 0, 600, 300);
  EXPECT_EQ(g.points, 3);
  EXPECT_EQ(g.wrong, 1);
  EXPECT_FALSE(g.categorical);
  for (const ChartMark& m : g.marks)
    if (!m.wrong) EXPECT_EQ(m.source, ws::sim::Source::Modelled);
  bool axis_modelled = false;
  for (auto& t : cv.strings) axis_modelled |= t == "GB/s (modelled)";
  EXPECT_TRUE(axis_modelled) << "the axis names the one source drawn";
  for (double t : g.x_ticks) EXPECT_EQ(t, std::floor(t)) << "run numbers get integer ticks";
}

TEST(ChartSvg, HasAxesTicksUnitsLegendRefsAndMarks) {
  const std::string svg = to_svg(bars_spec(), 960, 540);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("Transpose &lt;n=1024&gt; &amp; friends"), std::string::npos) << "escaped";
  EXPECT_EQ(svg.find("<n=1024>"), std::string::npos);
  EXPECT_NE(svg.find(">GB/s (measured and modelled)<"), std::string::npos)
      << "unit and the sources drawn on the y axis";
  EXPECT_NE(svg.find(">variant<"), std::string::npos);
  EXPECT_NE(svg.find(">naive<"), std::string::npos);
  EXPECT_NE(svg.find(">wrong<"), std::string::npos);
  EXPECT_NE(svg.find("#D01010"), std::string::npos) << "the wrong mark is red";
  EXPECT_NE(svg.find(">modelled<"), std::string::npos);
  EXPECT_NE(svg.find(">memcpy<"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos) << "reference lines are dashed";
  EXPECT_NE(svg.find("device: NVIDIA H100"), std::string::npos) << "meta in the export";
  EXPECT_NE(svg.find("peak 3352 GB/s (spec sheet)"), std::string::npos);
  // The wrong bar's value must appear nowhere: it is not a measurement.
  EXPECT_EQ(svg.find("99999"), std::string::npos);
  EXPECT_EQ(svg.find("100k"), std::string::npos);
  // A tick label for 0 and one for a multiple of 500 or 1000.
  EXPECT_NE(svg.find(">0<"), std::string::npos);
  EXPECT_TRUE(std::regex_search(svg, std::regex(">[123]000<")));
}

TEST(ChartCsv, MetaLinesAndWrongLeftEmpty) {
  const std::string csv = to_csv(bars_spec());
  EXPECT_NE(csv.find("# device: NVIDIA H100\n"), std::string::npos);
  EXPECT_NE(csv.find("# params: n=1024 tile=32\n"), std::string::npos);
  EXPECT_NE(csv.find("# y: GB/s (measured and modelled)\n"), std::string::npos) << "the axis as drawn";
  EXPECT_NE(csv.find("# reference memcpy: 2986 (measured (NVIDIA H100))\n"), std::string::npos);
  EXPECT_NE(csv.find("# reference peak: 3352 (spec sheet (NVIDIA H100))\n"), std::string::npos);
  EXPECT_NE(csv.find("series,kind,x,category,y,wrong,source,source_detail\n"), std::string::npos);
  EXPECT_NE(csv.find("throughput,bars,0,naive,472,0,measured,NVIDIA H100\n"), std::string::npos);
  EXPECT_NE(csv.find("throughput,bars,1,tiled,,1,,\n"), std::string::npos);
  EXPECT_NE(csv.find("throughput,bars,2,tiled pad,2720,0,modelled,dram-bound\n"), std::string::npos);
  EXPECT_EQ(csv.find("99999"), std::string::npos);
}

TEST(ChartCsv, QuotesFieldsWithCommas) {
  ChartSpec c;
  Series s;
  s.name = "a,b";
  s.x = {0};
  s.y = {1};
  c.series.push_back(s);
  EXPECT_NE(to_csv(c).find("\"a,b\",line,0,,1,0,,\n"), std::string::npos);
}

// The writer's own tests are tests/io/test_atomic_file.cpp (viz::write_file_atomic, a
// second name for it, is gone).

TEST(ChartPng, EncodesOrExplains) {
  std::string png, err;
  const bool ok = to_png(bars_spec(), 640, 360, png, err);
#if defined(WS_EXPECT_CAIRO)
  ASSERT_TRUE(ok) << err;
#endif
  if (!ok) {
    EXPECT_TRUE(png.empty());
    EXPECT_NE(err.find("cairo"), std::string::npos);
    return;
  }
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  auto be32 = [&](std::size_t o) {
    return (unsigned(std::uint8_t(png[o])) << 24) | (unsigned(std::uint8_t(png[o + 1])) << 16) |
           (unsigned(std::uint8_t(png[o + 2])) << 8) | unsigned(std::uint8_t(png[o + 3]));
  };
  EXPECT_EQ(be32(16), 640u);
  EXPECT_EQ(be32(20), 360u);
  EXPECT_FALSE(to_png(bars_spec(), 4, 4, png, err));
  EXPECT_NE(err.find("16"), std::string::npos);

  const std::string d = temp_dir();
  ASSERT_TRUE(write_png(bars_spec(), d + "/c.png", 320, 200, err)) << err;
  EXPECT_EQ(slurp(d + "/c.png").substr(1, 3), "PNG");
  fs::remove_all(d);
}

// ---- Layout: measured text never overprints, never leaves the box ----

namespace {

// Records every text's box from the same width measure the painter asks for.
class BoxCanvas : public Canvas {
 public:
  struct Box {
    double x0, y0, x1, y1;
    std::string s;
  };
  std::vector<Box> boxes;
  int polygons = 0, circles = 0, rects = 0;
  void line(double, double, double, double, std::uint32_t, double, bool) override {}
  void polyline(const std::vector<std::pair<double, double>>&, std::uint32_t, double) override {}
  void polygon(const std::vector<std::pair<double, double>>&, std::uint32_t, std::uint32_t,
               double) override {
    ++polygons;
  }
  void rect(double, double, double, double, std::uint32_t, std::uint32_t, double) override {
    ++rects;
  }
  void circle(double, double, double, std::uint32_t, std::uint32_t, double) override { ++circles; }
  void text(double x, double y, std::string_view s, double size, std::uint32_t, Anchor a, bool,
            bool vertical) override {
    const double w = text_width(s, size), hh = size / 2;
    if (vertical) {
      boxes.push_back({x - hh, y - w / 2, x + hh, y + w / 2, std::string(s)});
      return;
    }
    const double x0 = a == Anchor::Left ? x : a == Anchor::Center ? x - w / 2 : x - w;
    boxes.push_back({x0, y - hh, x0 + w, y + hh, std::string(s)});
  }
  double text_width(std::string_view s, double size) override { return 0.6 * size * s.size(); }
};

void expect_clean_layout(const ChartSpec& c, double w, double h, const PaintOptions& o = {},
                         bool may_cut = false) {
  SCOPED_TRACE(testing::Message() << c.title << " at " << w << "x" << h);
  BoxCanvas cv;
  const ChartGeometry g = paint_chart(c, cv, 0, 0, w, h, o);
  const double eps = 0.5;
  for (const auto& b : cv.boxes) {
    EXPECT_GE(b.x0, -eps) << b.s;
    EXPECT_LE(b.x1, w + eps) << b.s;
    EXPECT_GE(b.y0, -eps) << b.s;
    EXPECT_LE(b.y1, h + eps) << b.s;
    if (!may_cut) EXPECT_EQ(b.s.find(".."), std::string::npos) << "cut short: " << b.s;
  }
  for (std::size_t i = 0; i < cv.boxes.size(); ++i)
    for (std::size_t j = i + 1; j < cv.boxes.size(); ++j) {
      const auto& a = cv.boxes[i];
      const auto& b = cv.boxes[j];
      const bool overlap = a.x0 < b.x1 - eps && b.x0 < a.x1 - eps && a.y0 < b.y1 - eps &&
                           b.y0 < a.y1 - eps;
      EXPECT_FALSE(overlap) << "'" << a.s << "' overlaps '" << b.s << "'";
    }
  const double min_plot = o.min_plot_height > 0 ? o.min_plot_height : 5 * o.font;
  EXPECT_GE(g.plot_y1 - g.plot_y0, min_plot - 0.5 * o.font);
}

ChartSpec two_param_bars() {
  ChartSpec c;
  c.title = "access/stride";
  c.x_label = "stride, block";
  c.y_label = "GB/s";
  Series s;
  s.name = "stride";
  s.kind = SeriesKind::Bars;
  for (int stride : {1, 2, 4, 8, 16, 32})
    for (int block : {128, 256, 512}) {
      c.categories.push_back("stride=" + std::to_string(stride) + " block=" + std::to_string(block));
      s.x.push_back(double(s.x.size()));
      s.y.push_back(2400.0 / stride + block);
      s.source.push_back(Provenance::modelled("dram"));
    }
  c.series.push_back(s);
  c.refs.push_back({"peak", 3352, 0, Provenance::spec("NVIDIA H100 80GB HBM3")});
  c.meta = {{"ran on", "emulator (no GPU)"}, {"kernel", "access/stride"},
            {"params", "n=1048576 block=128,256,512 stride=1,2,4,8,16,32"},
            {"date", "2026-11-23T01:00:00Z"}};
  return c;
}

ChartSpec pow2_sweep() {
  ChartSpec c;
  c.title = "transpose: tile sweep";
  c.x_label = "tile";
  c.y_label = "GB/s";
  for (int k = 0; k < 3; ++k) {
    Series s;
    s.name = "pad=" + std::to_string(k);
    s.x = {8, 16, 32};
    s.y = {1000.0 + k, 1500.0 + k, 2000.0 + k};  // nearly on top of each other
    c.series.push_back(s);
  }
  c.refs.push_back({"memcpy", 2960, 0});
  c.meta = {{"device", "NVIDIA H100 80GB HBM3"}, {"params", "n=8192 block_rows=8"}};
  return c;
}

}  // namespace

TEST(ChartLayout, NoTextOverlapsOrLeavesTheBox) {
  for (auto [w, h] : {std::pair{960.0, 540.0}, {640.0, 360.0}, {480.0, 300.0}}) {
    expect_clean_layout(bars_spec(), w, h);
    expect_clean_layout(two_param_bars(), w, h, {}, w < 600);  // 18 long labels upright
    expect_clean_layout(pow2_sweep(), w, h);
  }
}

TEST(ChartLayout, ShortBoxKeepsTheMinimumPlotHeight) {
  // A strip of a panel: the footer, the legend and then the title give way to the plot.
  BoxCanvas cv;
  const ChartGeometry g = paint_chart(two_param_bars(), cv, 0, 0, 700, 170);
  EXPECT_GE(g.plot_y1 - g.plot_y0, 5 * 14 - 7);
  EXPECT_FALSE(g.footer);
  expect_clean_layout(two_param_bars(), 700, 170, {}, true);  // 18 labels upright: cut
  const ChartGeometry roomy = paint_chart(two_param_bars(), cv, 0, 0, 960, 540);
  EXPECT_TRUE(roomy.footer && roomy.legend && roomy.title);
}

TEST(ChartLayout, PeakFarAboveTheDataIsAnnotatedNotScaled) {
  ChartSpec c;
  c.title = "lesson-size bars";
  c.y_label = "GB/s";
  c.categories = {"a", "b"};
  Series s;
  s.kind = SeriesKind::Bars;
  s.name = "throughput";
  s.x = {0, 1};
  s.y = {21.7, 15.0};
  c.series.push_back(s);
  c.refs.push_back({"peak", 3352, 0, ws::sim::Provenance::spec("a GPU")});
  BoxCanvas cv;
  const ChartGeometry g = paint_chart(c, cv, 0, 0, 960, 540);
  ASSERT_EQ(g.off_scale.size(), 1u);
  EXPECT_EQ(g.off_scale[0], "peak");
  EXPECT_LT(g.y_hi, 40.0);
  ASSERT_GE(g.marks.size(), 1u);
  EXPECT_GT(g.marks[0].y1 - g.marks[0].y0, 0.6 * (g.plot_y1 - g.plot_y0));
  bool annotated = false;
  for (const auto& b : cv.boxes) annotated = annotated || b.s.find("above the plot") != std::string::npos;
  EXPECT_TRUE(annotated);
  // A reference near the data stays on the scale.
  c.series[0].y = {2900, 2800};
  EXPECT_TRUE(paint_chart(c, cv, 0, 0, 960, 540).off_scale.empty());
  // A recorded line (a library's time) is what the bars are held against: drawn however
  // far above them (lesson 13: cuBLAS at twice the best bar was only "above the plot").
  c.series[0].y = {21.7, 15.0};
  c.refs[0].source = ws::sim::Provenance::recorded("a GPU", "2026-11-27");
  const ChartGeometry r = paint_chart(c, cv, 0, 0, 960, 540);
  EXPECT_TRUE(r.off_scale.empty());
  EXPECT_GE(r.y_hi, 3352.0);
}

TEST(ChartLayout, PowerOfTwoParametersGetALog2AxisAndSeriesDistinctMarkers) {
  BoxCanvas cv;
  const ChartGeometry g = paint_chart(pow2_sweep(), cv, 0, 0, 960, 540);
  EXPECT_TRUE(g.log2_x);
  EXPECT_EQ(g.x_ticks, (std::vector<double>{8, 16, 32}));
  // Equal steps per doubling.
  EXPECT_NEAR(g.map_x(16) - g.map_x(8), g.map_x(32) - g.map_x(16), 1e-9);
  // Three series: circles, squares, diamonds (3 points each, plus one legend marker each).
  EXPECT_EQ(cv.circles, 3 + 1);
  EXPECT_EQ(cv.polygons, 3 + 1);
  EXPECT_NE(marker_shape(0), marker_shape(1));
  EXPECT_NE(marker_shape(1), marker_shape(2));
  ChartSpec lin = pow2_sweep();
  for (auto& s : lin.series) s.x = {1, 2, 3};
  EXPECT_FALSE(paint_chart(lin, cv, 0, 0, 960, 540).log2_x);
}

namespace {
bool has_text(const BoxCanvas& cv, const std::string& s) {
  for (const auto& b : cv.boxes)
    if (b.s.find(s) != std::string::npos) return true;
  return false;
}
}  // namespace

// A short sweep keeps naming its series (the reference lines are named at their lines).
TEST(ChartLayout, ShortSweepStillNamesItsSeries) {
  BoxCanvas cv;
  const ChartGeometry g = paint_chart(pow2_sweep(), cv, 0, 0, 900, 190);
  EXPECT_TRUE(g.legend);
  for (const char* s : {"pad=0", "pad=1", "pad=2"}) EXPECT_TRUE(has_text(cv, s)) << s;
  EXPECT_GE(g.plot_y1 - g.plot_y0, 3.5 * 14 - 0.5);
  expect_clean_layout(pow2_sweep(), 900, 190);
}

// A value over a bar never crosses a reference line: it moves inside the bar's top.
TEST(ChartLayout, BarValueAvoidsAReferenceLine) {
  ChartSpec c;
  c.y_label = "GB/s";
  c.categories = {"a", "b"};
  Series s;
  s.kind = SeriesKind::Bars;
  s.name = "throughput";
  s.x = {0, 1};
  s.y = {2353, 1000};
  c.series.push_back(s);
  c.refs.push_back({"peak", 2500, 0});  // just above the first bar, where its value goes
  BoxCanvas cv;
  const ChartGeometry g = paint_chart(c, cv, 0, 0, 640, 300);
  const double ref_y = g.map_y(2500);
  bool found = false;
  for (const auto& b : cv.boxes) {
    if (b.s != "2353") continue;
    found = true;
    EXPECT_TRUE(b.y1 <= ref_y - 1.5 || b.y0 >= ref_y + 1.5) << b.y0 << ".." << b.y1 << " vs " << ref_y;
  }
  EXPECT_TRUE(found);
}
