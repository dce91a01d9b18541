// Chart layout (viz/chart_layout.h) on its own: no canvas, no window, no cairo; text is
// measured by a fixed-width rule. Checks layout_chart's @post and that the painter draws
// the layout it is given.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "viz/chart_layout.h"
#include "viz/chart_paint.h"
#include "tests/viz/count_canvas.h"

using namespace ws::viz;
using ws::sim::Provenance;
using ws::test::CountCanvas;

namespace {

// 0.6 em per character, times `scale`: the painter's tests use the same rule.
class FixedMeasure : public TextMeasure {
 public:
  explicit FixedMeasure(double scale = 1.0) : scale_(scale) {}
  int calls = 0;
  double text_width(std::string_view s, double size) override {
    ++calls;
    return scale_ * 0.6 * size * double(s.size());
  }

 private:
  double scale_;
};

ChartSpec bars_with_everything() {
  ChartSpec c;
  c.title = "transpose";
  c.x_label = "variant";
  c.y_label = "GB/s";
  c.categories = {"naive", "tiled", "tiled pad"};
  Series measured;
  measured.name = "H100";
  measured.kind = SeriesKind::Bars;
  measured.x = {0, 1, 2};
  measured.y = {472, 1000, 2720};
  measured.wrong = {false, true, false};
  measured.source.assign(3, Provenance::measured("NVIDIA H100"));
  Series model = measured;
  model.name = "emulator";
  model.wrong = {};
  model.source.assign(3, Provenance::modelled("dram"));
  Series line;
  line.name = "trend";
  line.x = {0, 1, 2};
  line.y = {500, 900, 2500};
  c.series = {measured, model, line};
  c.refs = {{"memcpy", 2986, 0, Provenance::measured("NVIDIA H100")},
            {"peak", 3352, 0, Provenance::spec("NVIDIA H100")}};
  c.meta = {{"device", "NVIDIA H100"}, {"params", "n=1024 tile=32"}};
  return c;
}

ChartSpec sweep(int series) {
  ChartSpec c;
  c.title = "tile sweep";
  c.x_label = "tile";
  c.y_label = "GB/s";
  for (int k = 0; k < series; ++k) {
    Series s;
    s.name = "pad=" + std::to_string(k);
    s.x = {8, 16, 32};
    s.y = {1000.0 + 10 * k, 1500.0, 2000.0};
    c.series.push_back(s);
  }
  c.refs = {{"memcpy", 2960, 0}};
  c.meta = {{"device", "NVIDIA H100 80GB HBM3"}, {"params", "n=8192 block_rows=8"}};
  return c;
}

}  // namespace

TEST(ChartLayoutEnums, Names) {
  EXPECT_EQ(to_string(LegendSwatch::FilledBox), "filled box");
  EXPECT_EQ(to_string(LegendSwatch::HollowBox), "hollow box");
  EXPECT_EQ(to_string(LegendSwatch::DashedLine), "dashed line");
  EXPECT_EQ(to_string(LegendSwatch::WrongCross), "wrong cross");
  EXPECT_EQ(to_string(LegendSwatch::LineMarker), "line and marker");
  EXPECT_EQ(to_string(CategoryLabels::Lines), "lines");
  EXPECT_EQ(to_string(CategoryLabels::Vertical), "vertical");
  EXPECT_EQ(to_string(CategoryLabels::Small), "small");
}

// @post: every series, then (mixed only) each source, then every reference line, then one
// "wrong" entry iff a point is wrong.
TEST(ChartLayoutFn, LegendListsSeriesThenReferencesThenWrong) {
  FixedMeasure m;
  const ChartLayout l = layout_chart(bars_with_everything(), m, 0, 0, 960, 540);
  ASSERT_EQ(l.legend.size(), 8u);
  EXPECT_EQ(l.legend[0].label, "H100");
  EXPECT_EQ(l.legend[0].swatch, LegendSwatch::FilledBox);
  EXPECT_EQ(l.legend[0].colour, palette(0));
  EXPECT_EQ(l.legend[1].label, "emulator") << "the source is named once, by its own entry";
  EXPECT_EQ(l.legend[1].swatch, LegendSwatch::HollowBox);
  EXPECT_EQ(l.legend[2].label, "trend");
  EXPECT_EQ(l.legend[2].swatch, LegendSwatch::LineMarker);
  EXPECT_EQ(l.legend[2].shape, marker_shape(2));
  // Measured and modelled bars on one chart: one entry names each source and its style.
  EXPECT_EQ(l.legend[3].label, "measured on NVIDIA H100 (this device, now)");
  EXPECT_EQ(l.legend[3].swatch, LegendSwatch::FilledBox);
  EXPECT_EQ(l.legend[4].label, "modelled by warpscope's model");
  EXPECT_EQ(l.legend[4].swatch, LegendSwatch::HollowBox);
  EXPECT_EQ(l.legend[5].label, "memcpy 2986 GB/s (measured)");
  EXPECT_EQ(l.legend[5].swatch, LegendSwatch::DashedLine);
  EXPECT_EQ(l.legend[6].label, "peak 3352 GB/s (spec sheet)");
  EXPECT_EQ(l.legend[6].swatch, LegendSwatch::DashedLine);
  EXPECT_EQ(l.legend[7].swatch, LegendSwatch::WrongCross);
  EXPECT_EQ(l.legend[7].colour, kWrongRed);
  EXPECT_EQ(l.geom.legend_entries, 8);
  EXPECT_EQ(l.bar_series, 2);
  EXPECT_EQ(l.categories, 3u);
  EXPECT_EQ(l.on_scale, (std::vector<std::size_t>{0, 1}));
  std::size_t in_rows = 0;
  for (const auto& row : l.legend_rows) in_rows += row.size();
  EXPECT_EQ(in_rows, l.legend.size()) << "a roomy box shows every entry";

  ChartSpec right = bars_with_everything();
  right.series[0].wrong.clear();
  const ChartLayout r = layout_chart(right, m, 0, 0, 960, 540);
  ASSERT_EQ(r.legend.size(), 7u);
  EXPECT_NE(r.legend.back().swatch, LegendSwatch::WrongCross) << "nothing wrong, no entry";
}

// @post: footer, legend and title are dropped in that order, only while the plot is short.
TEST(ChartLayoutFn, ShortBoxesDropFooterThenLegendThenTitle) {
  FixedMeasure m;
  const ChartSpec c = bars_with_everything();
  const ChartLayout roomy = layout_chart(c, m, 0, 0, 960, 540);
  EXPECT_TRUE(roomy.geom.footer && roomy.geom.legend && roomy.geom.title);
  ASSERT_EQ(roomy.footer.size(), 2u) << "the sources drawn, then the meta";
  EXPECT_EQ(roomy.footer[0].rfind("source: measured on NVIDIA H100", 0), 0u) << roomy.footer[0];
  // With one series the legend goes before the title; with more, one row naming the
  // series may stay while the title goes (ShortSweepKeepsOneRowNamingItsSeries).
  ChartSpec one = c;
  one.series.resize(1);
  bool saw_no_footer_with_legend = false, saw_no_legend_with_title = false;
  for (double h = 540; h >= 60; h -= 5) {
    const ChartLayout l = layout_chart(one, m, 0, 0, 960, h);
    SCOPED_TRACE(testing::Message() << "height " << h);
    if (l.geom.legend) {
      EXPECT_TRUE(!l.geom.footer || l.geom.title) << "the footer goes first";
    }
    if (l.geom.title) {
      EXPECT_TRUE(l.geom.legend || !l.geom.footer) << "the legend goes before the title";
    }
    if (!l.geom.footer || !l.geom.legend || !l.geom.title) {
      EXPECT_LT(h, 540.0) << "something was dropped in a box that had room";
    }
    saw_no_footer_with_legend |= !l.geom.footer && l.geom.legend;
    saw_no_legend_with_title |= !l.geom.legend && l.geom.title;
    EXPECT_GE(l.geom.plot_x1 - l.geom.plot_x0, 10);
    EXPECT_GE(l.geom.plot_y1 - l.geom.plot_y0, 10);
  }
  EXPECT_TRUE(saw_no_footer_with_legend);
  EXPECT_TRUE(saw_no_legend_with_title);
  // Even a box too small for anything keeps a plot of 10 units each way.
  const ChartLayout tiny = layout_chart(c, m, 0, 0, 20, 20);
  EXPECT_GE(tiny.geom.plot_x1 - tiny.geom.plot_x0, 10);
  EXPECT_GE(tiny.geom.plot_y1 - tiny.geom.plot_y0, 10);
}

TEST(ChartLayoutFn, ShortSweepKeepsOneRowNamingItsSeries) {
  FixedMeasure m;
  const ChartLayout l = layout_chart(sweep(3), m, 0, 0, 900, 190);
  EXPECT_TRUE(l.geom.legend);
  ASSERT_EQ(l.legend_rows.size(), 1u);
  EXPECT_EQ(l.legend_rows[0], (std::vector<std::size_t>{0, 1, 2})) << "the series, not the refs";
  // One series needs no legend to say which line is which: it gives way.
  EXPECT_FALSE(layout_chart(sweep(1), m, 0, 0, 900, 190).geom.legend);
}

TEST(ChartLayoutFn, CategoryLabelsWrapTurnOrShrinkByMeasuredWidth) {
  FixedMeasure m;
  ChartSpec c;
  Series s;
  s.kind = SeriesKind::Bars;
  s.name = "v";
  for (int i = 0; i < 4; ++i) {
    c.categories.push_back("tiled pad " + std::to_string(i));
    s.x.push_back(i);
    s.y.push_back(i + 1);
  }
  c.series.push_back(s);
  const ChartLayout wide = layout_chart(c, m, 0, 0, 960, 540);
  EXPECT_EQ(wide.category_labels, CategoryLabels::Lines);
  ASSERT_EQ(wide.category_lines.size(), 4u);
  EXPECT_EQ(wide.category_lines[0], (std::vector<std::string>{"tiled pad 0"}));
  // Narrower slots: the names wrap at their spaces, nothing is cut.
  const ChartLayout narrow = layout_chart(c, m, 0, 0, 420, 540);
  EXPECT_EQ(narrow.category_labels, CategoryLabels::Lines);
  EXPECT_GT(narrow.category_lines[0].size(), 1u);
  EXPECT_GT(narrow.category_block, wide.category_block);
  // A word wider than its slot: upright.
  c.categories[0] = "a_very_long_single_word_name";
  const ChartLayout upright = layout_chart(c, m, 0, 0, 420, 540);
  EXPECT_EQ(upright.category_labels, CategoryLabels::Vertical);
  // Upright and a short box: one small line each.
  const ChartLayout strip = layout_chart(c, m, 0, 0, 420, 150);
  EXPECT_EQ(strip.category_labels, CategoryLabels::Small);
}

TEST(ChartLayoutFn, PlacesByMeasuredExtents) {
  FixedMeasure narrow(1.0), wide(2.0);
  const ChartSpec c = sweep(2);
  const ChartLayout a = layout_chart(c, narrow, 0, 0, 960, 540);
  const ChartLayout b = layout_chart(c, wide, 0, 0, 960, 540);
  EXPECT_GT(narrow.calls, 0);
  EXPECT_GT(b.geom.plot_x0, a.geom.plot_x0) << "wider tick labels push the plot right";
  EXPECT_EQ(a.geom.y_ticks, b.geom.y_ticks) << "the scale is the data's, not the font's";
  // The box's origin moves everything with it.
  const ChartLayout moved = layout_chart(c, narrow, 100, 50, 960, 540);
  EXPECT_DOUBLE_EQ(moved.geom.plot_x0, a.geom.plot_x0 + 100);
  EXPECT_DOUBLE_EQ(moved.geom.plot_y1, a.geom.plot_y1 + 50);
}

TEST(ChartLayoutFn, ThePainterDrawsTheLayoutItIsGiven) {
  FixedMeasure m;
  const ChartSpec c = bars_with_everything();
  const ChartLayout l = layout_chart(c, m, 0, 0, 960, 540);
  CountCanvas cv;
  const ChartGeometry g = paint_chart(c, l, cv);
  EXPECT_GT(cv.drawn(), 0);
  EXPECT_EQ(g.plot_x0, l.geom.plot_x0);
  EXPECT_EQ(g.plot_y1, l.geom.plot_y1);
  EXPECT_EQ(g.y_ticks, l.geom.y_ticks);
  EXPECT_EQ(g.bars, 5) << "3 emulator bars and 2 measured ones (one is wrong)";
  EXPECT_EQ(g.wrong, 1);
  // The one-call form is layout then paint.
  CountCanvas cv2;
  const ChartGeometry g2 = paint_chart(c, cv2, 0, 0, 960, 540);
  EXPECT_EQ(g2.plot_x0, g.plot_x0);
  EXPECT_EQ(g2.marks.size(), g.marks.size());
  EXPECT_EQ(cv2.drawn(), cv.drawn());
}

// Issue 21 item 5: a bar's value sits over or inside its own bar and never across another
// bar, another value or a reference line; with room for its text it always has one (the
// window's transpose bars at 1280x720 lost tiled_copy's and diagonal's to a copy line).
TEST(ChartLayoutValues, EveryBarHasItsValueAndNoneCrossesAnother) {
  FixedMeasure tm;
  int charts = 0, labels = 0;
  for (double width : {360.0, 520.0, 760.0, 1200.0})
    for (int shape = 0; shape < 4; ++shape) {
      ChartSpec c;
      c.title = "Variants of transpose at n=8192";
      c.y_label = "GB/s";
      c.categories = {"naive", "tiled", "tiled_copy", "diagonal", "copy"};
      Series s;
      s.name = "throughput";
      s.kind = SeriesKind::Bars;
      // Tall beside short, equal heights, and tops just over or under a reference line.
      const std::vector<std::vector<double>> ys = {{704, 2430, 2951, 2520, 2511},
                                                   {3000, 3000, 3000, 3000, 3000},
                                                   {150, 3100, 120, 3050, 90},
                                                   {2500, 2520, 2540, 2490, 2511}};
      for (std::size_t i = 0; i < 5; ++i) {
        s.x.push_back(double(i));
        s.y.push_back(ys[std::size_t(shape)][i]);
        s.source.push_back(i % 2 == 1 ? ws::sim::Provenance::modelled("dram") : ws::sim::Provenance::measured("H100"));
        s.wrong.push_back(false);
      }
      c.series.push_back(s);
      c.refs.push_back({"cudaMemcpy D2D", 2511, 0});
      c.refs.push_back({"theoretical peak", 3352, 0});
      const ChartLayout L = layout_chart(c, tm, 0, 0, width, width * 0.6);
      SCOPED_TRACE("width " + std::to_string(width) + " shape " + std::to_string(shape));
      ASSERT_EQ(L.bars.size(), 5u);
      const auto cross = [](double a0, double b0, double a1, double b1, double c0, double d0, double c1, double d1) {
        return a0 < c1 && c0 < a1 && b0 < d1 && d0 < b1;
      };
      for (const ValueLabel& v : L.value_labels) {
        const BarBox* own = L.bar(v.series, v.index);
        ASSERT_TRUE(own);
        EXPECT_GE(v.x0, L.geom.plot_x0);
        EXPECT_LE(v.x1, L.geom.plot_x1);
        // Its own column: it overlaps the bar's x range, over it or inside its top.
        EXPECT_TRUE(v.x0 < own->x1 && own->x0 < v.x1) << v.text;
        if (v.inside) EXPECT_TRUE(v.y0 >= own->y0 && v.y1 <= own->y1 && v.x0 >= own->x0 && v.x1 <= own->x1) << v.text;
        else EXPECT_LE(v.y1, own->y0) << v.text;
        for (const BarBox& b : L.bars)
          if (&b != own) EXPECT_FALSE(cross(v.x0, v.y0, v.x1, v.y1, b.x0, b.y0, b.x1, b.y1)) << v.text << " across a bar";
        for (const ValueLabel& o : L.value_labels)
          if (&o != &v) EXPECT_FALSE(cross(v.x0, v.y0, v.x1, v.y1, o.x0, o.y0, o.x1, o.y1)) << v.text << " / " << o.text;
        for (std::size_t ri : L.on_scale) {
          const double py = L.geom.map_y(c.refs[ri].y);
          EXPECT_FALSE(v.y0 < py + 1.5 && py - 1.5 < v.y1) << v.text << " across " << c.refs[ri].name;
        }
      }
      // Where a value fits its slot at the smaller size, every bar has one.
      const double slot = (L.geom.plot_x1 - L.geom.plot_x0) / 5;
      if (tm.text_width("3.05k", L.font * 0.7) <= slot * 0.8) {
        EXPECT_EQ(L.value_labels.size(), 5u);
      }
      labels += int(L.value_labels.size());
      ++charts;
    }
  EXPECT_EQ(charts, 16);
  EXPECT_GE(labels, 60);
}

// The painter draws the layout's bars and values where the layout put them.
TEST(ChartLayoutValues, ThePainterDrawsTheLayoutsBars) {
  FixedMeasure tm;
  ChartSpec c = bars_with_everything();
  const ChartLayout L = layout_chart(c, tm, 0, 0, 800, 500);
  CountCanvas cv;
  const ChartGeometry g = paint_chart(c, L, cv, {});
  int bars = 0;
  for (const ChartMark& m : g.marks) {
    if (!m.bar || m.wrong) continue;
    const BarBox* b = L.bar(std::size_t(m.series), std::size_t(m.index));
    ASSERT_TRUE(b);
    EXPECT_DOUBLE_EQ(m.x0, b->x0);
    EXPECT_DOUBLE_EQ(m.y0, b->y0);
    ++bars;
  }
  EXPECT_EQ(bars, int(L.bars.size()));
  for (const ValueLabel& v : L.value_labels)
    EXPECT_NE(std::find(cv.strings.begin(), cv.strings.end(), v.text), cv.strings.end()) << v.text;
}

// A title wider than the box wraps onto a second line instead of being cut.
TEST(ChartLayoutValues, ALongTitleWraps) {
  FixedMeasure tm;
  ChartSpec c = bars_with_everything();
  c.title = "Variants of transpose at block_rows=8 n=8192 tile=32";
  const ChartLayout wide = layout_chart(c, tm, 0, 0, 1400, 600);
  EXPECT_EQ(wide.title_lines.size(), 1u);
  const ChartLayout narrow = layout_chart(c, tm, 0, 0, 380, 600);
  ASSERT_TRUE(narrow.geom.title);
  ASSERT_EQ(narrow.title_lines.size(), 2u);
  for (const std::string& l : narrow.title_lines) EXPECT_LE(tm.text_width(l, narrow.font * 1.2), 380 - narrow.font * 1.2);
  EXPECT_GT(narrow.geom.plot_y0, wide.geom.plot_y0) << "the second line takes its own height";
}
