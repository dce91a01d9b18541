// The roofline: its layout exactly (decades, segments, marks), what the painter writes
// (every ceiling's source, every point's source, the selection), on a counting canvas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/viz/count_canvas.h"
#include "viz/roofline.h"

using namespace ws;
using namespace ws::viz;

namespace {

using K = RooflineCeiling::Kind;

RooflineInput two_ceilings() {
  RooflineInput in;
  in.ceilings = {{K::Bandwidth, "DRAM", 3000, "recorded on a test GPU"},
                 {K::Compute, "FP32", 60000, "a data sheet"}};
  RooflinePoint a{"a", 2, 5000, sim::Provenance::modelled("dram"), false};
  RooflinePoint b{"b", 50, 40000, sim::Provenance::recorded("GPU X", "2026-11-27"), true};
  RooflinePoint none{"no_flops", 0, 0, sim::Provenance::modelled(), false};
  in.points = {a, b, none};
  in.caption = "family at n=1";
  return in;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST(RooflineLayout, DecadesHoldEveryPointAndRidgeAndTheSegmentsMeetAtTheRidge) {
  const RooflineLayout L = layout_roofline(two_ceilings(), 0, 0, 500, 400, 10);
  // x: points 2 and 50, ridge 60000 / 3000 = 20 -> [1, 100]; y: 3000 (DRAM at x = 1) to
  // 60000 x 1.5 -> [1000, 1e5].
  EXPECT_EQ(L.x_lo, 1);
  EXPECT_EQ(L.x_hi, 100);
  EXPECT_EQ(L.y_lo, 1000);
  EXPECT_EQ(L.y_hi, 1e5);
  EXPECT_EQ(L.x_ticks, (std::vector<double>{1, 10, 100}));
  EXPECT_EQ(L.y_ticks, (std::vector<double>{1000, 1e4, 1e5}));
  // Caption and unit above (3 lines), ticks and x label below (2.9), two ceilings and the
  // points' line of 0.85 x 1.3 each plus 0.4 under it.
  EXPECT_DOUBLE_EQ(L.plot_x0, 32);
  EXPECT_DOUBLE_EQ(L.plot_x1, 490);
  EXPECT_DOUBLE_EQ(L.plot_y0, 30);
  EXPECT_DOUBLE_EQ(L.plot_y1, 400 - 29 - (3 * 10 * 0.85 * 1.3 + 4));
  EXPECT_DOUBLE_EQ(L.legend_y, L.plot_y1 + 29);
  const double ph = L.plot_y1 - L.plot_y0;
  ASSERT_EQ(L.ceilings.size(), 2u);
  const auto& dram = L.ceilings[0];
  EXPECT_DOUBLE_EQ(dram.x0, 32);
  EXPECT_NEAR(dram.y0, L.plot_y1 - std::log10(3.0) / 2 * ph, 1e-9);
  EXPECT_NEAR(dram.x1, 32 + std::log10(20.0) / 2 * 458, 1e-9);
  EXPECT_NEAR(dram.y1, L.plot_y1 - std::log10(60.0) / 2 * ph, 1e-9);
  EXPECT_FALSE(dram.label_right);
  const auto& fp32 = L.ceilings[1];
  EXPECT_DOUBLE_EQ(fp32.x0, dram.x1) << "the compute roof starts at the ridge";
  EXPECT_DOUBLE_EQ(fp32.x1, 490);
  EXPECT_DOUBLE_EQ(fp32.y0, dram.y1);
  EXPECT_DOUBLE_EQ(fp32.y1, fp32.y0);
  EXPECT_TRUE(fp32.label_right);
  ASSERT_EQ(L.marks.size(), 2u);
  EXPECT_EQ(L.marks[0].point, 0u);
  EXPECT_NEAR(L.marks[0].cx, 32 + std::log10(2.0) / 2 * 458, 1e-9);
  EXPECT_NEAR(L.marks[0].cy, L.plot_y1 - std::log10(5.0) / 2 * ph, 1e-9);
  EXPECT_NEAR(L.marks[1].cx, 32 + std::log10(50.0) / 2 * 458, 1e-9);
  EXPECT_NEAR(L.marks[1].cy, L.plot_y1 - std::log10(40.0) / 2 * ph, 1e-9);
  EXPECT_EQ(L.off_plot, (std::vector<std::size_t>{2}));
}

TEST(RooflineLayout, PlotKeepsEightLinesInASmallBox) {
  const RooflineLayout L = layout_roofline(two_ceilings(), 10, 20, 300, 60, 10);
  EXPECT_DOUBLE_EQ(L.plot_y1 - L.plot_y0, 80);
  EXPECT_DOUBLE_EQ(L.plot_x0, 42);
}

TEST(RooflineLayout, NoPointsStillSpansEveryRidge) {
  RooflineInput in = two_ceilings();
  in.points.clear();
  in.ceilings.push_back({K::Bandwidth, "L2", 15000, "a probe"});
  const RooflineLayout L = layout_roofline(in, 0, 0, 500, 400, 10);
  // Ridges 20 (DRAM) and 4 (L2): [1, 100].
  EXPECT_EQ(L.x_lo, 1);
  EXPECT_EQ(L.x_hi, 100);
  // The L2 line ends at the FP32 roof's height, at x = 4; the FP32 roof starts there too.
  EXPECT_NEAR(L.ceilings[2].x1, L.map_x(4), 1e-9);
  EXPECT_NEAR(L.ceilings[1].x0, L.map_x(4), 1e-9);
  EXPECT_TRUE(L.marks.empty());
}

TEST(RooflinePaint, EveryCeilingNamesItsSourceAndEveryPointItsTime) {
  const RooflineInput in = two_ceilings();
  const RooflineLayout L = layout_roofline(in, 0, 0, 700, 500, 12);
  test::CountCanvas cv;
  const RooflineGeometry g = paint_roofline(in, L, cv, ChartTheme::light());
  EXPECT_EQ(g.ceiling_labels, (std::vector<std::string>{"DRAM 3,000 GB/s", "FP32 60 TFLOP/s"}));
  ASSERT_EQ(g.source_lines.size(), 3u);
  EXPECT_EQ(g.source_lines[0], "DRAM 3,000 GB/s: recorded on a test GPU");
  EXPECT_EQ(g.source_lines[1], "FP32 60 TFLOP/s: a data sheet");
  EXPECT_NE(g.source_lines[2].find("modelled"), std::string::npos) << g.source_lines[2];
  EXPECT_NE(g.source_lines[2].find("GPU X"), std::string::npos) << g.source_lines[2];
  EXPECT_TRUE(has(g.point_labels, "a (modelled)"));
  EXPECT_TRUE(has(g.point_labels, "b (recorded)"));
  EXPECT_EQ(g.selected_marks, 1);
  EXPECT_TRUE(has(cv.strings, "family at n=1"));
}

TEST(RooflinePaint, CoveredKeepsThePointsBack) {
  RooflineInput in = two_ceilings();
  in.covered = true;
  const RooflineLayout L = layout_roofline(in, 0, 0, 700, 500, 12);
  test::CountCanvas cv;
  const RooflineGeometry g = paint_roofline(in, L, cv, ChartTheme::light());
  EXPECT_TRUE(g.point_labels.empty());
  EXPECT_EQ(g.selected_marks, 0);
  EXPECT_EQ(g.source_lines.size(), 2u) << "the ceilings' sources stay";
  EXPECT_TRUE(std::any_of(cv.strings.begin(), cv.strings.end(),
                          [](const std::string& s) { return s.find(kPredictFirst) == 0; }));
}

TEST(RooflinePaint, NoFlopsSaysWhyInsteadOfPoints) {
  RooflineInput in = two_ceilings();
  in.points = {{"copy", 0, 0, sim::Provenance::modelled(), true}};
  in.empty_note = "transpose counts no floating-point work";
  const RooflineLayout L = layout_roofline(in, 0, 0, 700, 500, 12);
  test::CountCanvas cv;
  const RooflineGeometry g = paint_roofline(in, L, cv, ChartTheme::light());
  EXPECT_TRUE(g.point_labels.empty());
  EXPECT_TRUE(has(cv.strings, "transpose counts no floating-point work"));
}
