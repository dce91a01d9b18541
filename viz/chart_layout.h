#pragma once
// Chart layout: where each part of a ChartSpec goes in a box (title, plot, ticks, category
// labels, legend rows, footer), computed from the data and measured text extents alone.
// paint_chart (viz/chart_paint.h) draws a layout; nothing here draws, so a layout can be
// computed and tested with any width measure, without a window or cairo. No ImGui, no CUDA.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "viz/chart.h"
#include "viz/theme.h"

namespace ws::viz {

// How wide a text is at a size, in the units of the box (a Canvas measures with its font).
class TextMeasure {
 public:
  virtual ~TextMeasure() = default;
  virtual double text_width(std::string_view s, double size) = 0;
};

struct PaintOptions {
  double font = 14;        // base text size in canvas units
  bool title = true;
  bool meta_footer = true;  // one small line of ChartSpec::meta under the chart (exports)
  bool source_footer = true;  // the sources drawn, named in full (chart_sources(c).footer)
  bool background = true;
  double min_plot_height = 0;  // 0: five text lines (5 * font)
  ChartTheme theme;
};

// Where things landed, for hover tooltips and for tests that check what was drawn.
struct ChartMark {
  int series = 0, index = 0;     // series in ChartSpec::series, point in that series
  double cx = 0, cy = 0;         // marker centre (bars: top centre)
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // bars: the bar's rectangle; points: the marker box
  double x = 0, y = 0;           // data values
  bool bar = false, wrong = false;
  sim::Source source = sim::Source::None;  // how it was drawn (measured, recorded, modelled)
};

struct ChartGeometry {
  double plot_x0 = 0, plot_y0 = 0, plot_x1 = 0, plot_y1 = 0;  // y grows downwards
  double x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  bool categorical = false, log_y = false;
  bool log2_x = false;  // every x a power of two spanning 4x or more: one step per doubling
  std::vector<std::string> off_scale;  // reference lines above the data, annotated instead
  bool footer = false, legend = false, title = false;  // what fitted in the box
  std::vector<double> x_ticks, y_ticks;
  std::vector<ChartMark> marks;  // filled by painting
  int bars = 0, points = 0, wrong = 0, refs = 0, legend_entries = 0;
  int series_labels = 0;  // lines named beside their last point (when the legend did not fit)
  bool empty = true;  // no series with a drawable value: a "no data" note was painted
  double map_y(double v) const;
  double map_x(double v) const;
};

// How a legend entry shows its series or line.
enum class LegendSwatch : std::uint8_t {
  FilledBox,    // measured bars (and counts)
  HollowBox,    // modelled bars
  RecordedBox,  // recorded bars: translucent fill, solid outline
  DashedLine,   // a reference line
  WrongCross,  // "wrong result (not plotted)"
  LineMarker,  // lines and points: a line through the series' marker
};
std::string_view to_string(LegendSwatch s);

// How category names stand under the plot.
enum class CategoryLabels : std::uint8_t {
  Lines,     // across, wrapped at spaces into up to three lines
  Vertical,  // turned upright, when a word does not fit its slot
  Small,     // one line at 3/4 size (cut with ".." only then), when upright ones do not fit
};
std::string_view to_string(CategoryLabels c);

struct LegendEntry {
  std::string label;
  std::uint32_t colour = 0;
  LegendSwatch swatch = LegendSwatch::LineMarker;
  int shape = 0;  // marker_shape of the series (LineMarker)
  // LineMarker: the marker drawn as a point of this source is (solid, translucent, hollow).
  sim::Source style = sim::Source::Measured;
};

// How a point or bar of this source is drawn: its fill and outline, from the series
// colour and the background. Measured (and counts): solid; recorded: translucent fill with
// a solid outline; modelled: hollow, the outline alone.
struct SourceStyle {
  std::uint32_t fill = 0, stroke = 0;
  double stroke_width = 0;
};
// @post Measured and None: fill == colour, stroke == 0; Recorded: fill is colour at about
//       half its opacity, stroke == colour; Modelled: fill == background, stroke == colour.
SourceStyle source_style(sim::Source s, std::uint32_t colour, std::uint32_t background);
// The box swatch that shows a source: FilledBox, RecordedBox or HollowBox.
LegendSwatch box_swatch(sim::Source s);

// A bar as the layout places it (finite, not wrong): the painter draws this rectangle.
struct BarBox {
  std::size_t series = 0, index = 0;
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// A bar's value, placed by the layout: over its bar, else inside its top, upright when the
// bar is narrow, smaller when neither fits; never across another bar, label or reference.
struct ValueLabel {
  std::size_t series = 0, index = 0;
  std::string text;
  double cx = 0, cy = 0, size = 0;        // its centre and text size
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // its box
  bool inside = false, upright = false;
  bool on_fill = false;  // inside a filled (measured) bar: drawn in the background colour
};

struct ChartLayout {
  double x = 0, y = 0, w = 0, h = 0;  // the box
  double font = 14;
  ChartGeometry geom;                 // plot box, scales, ticks, what fitted; no marks yet
  std::vector<std::size_t> on_scale;  // ChartSpec::refs drawn as lines (the rest: off_scale)
  std::vector<LegendEntry> legend;    // every series, every reference, then "wrong"
  std::vector<std::vector<std::size_t>> legend_rows;  // indices into legend, row by row
  double legend_top = 0;              // the legend's first row starts here (when geom.legend)
  std::vector<std::string> footer;    // ChartSpec::meta wrapped to the width
  std::size_t categories = 0;         // category slots on the x axis (categorical charts)
  int bar_series = 0;                 // bar series side by side in each slot
  CategoryLabels category_labels = CategoryLabels::Lines;
  std::vector<std::vector<std::string>> category_lines;  // Lines: each category's lines
  double category_block = 0;          // the height the x tick or category labels take
  std::vector<std::string> title_lines;  // the title wrapped to the width (one or two lines)
  std::vector<BarBox> bars;           // every drawable bar
  std::vector<ValueLabel> value_labels;  // the bars' values that have room (most: all)
  const BarBox* bar(std::size_t series, std::size_t index) const;
};

// The marker of series i (lines and points): 0 circle, 1 square, 2 diamond, 3 triangle,
// 4 inverted triangle, then again; the legend shows the same shape.
int marker_shape(std::size_t series);
// A series' own colour, else the palette's i-th.
std::uint32_t series_colour(const Series& s, std::size_t i);
// "1.5k", "2.48", "3.35k": short numbers for tick labels.
std::string short_number(double v);

// Lays `c` out in the box (x, y, w, h). Text is placed by measured extents: category
// labels wrap or turn vertical rather than being cut, the footer wraps, and the plot keeps
// at least min_plot_height by dropping footer, legend and title in that order (a sweep of
// two or more series keeps one legend row naming them while the plot has 3.5 lines).
// The legend names each source: a series whose points share one source is drawn in that
// style; when the chart draws two or more sources (chart_sources(c).mixed), one neutral
// entry per source follows the series, with its long label; the footer's first line is
// chart_sources(c).footer (when o.source_footer).
// @post the legend lists every series, then (mixed only) one entry per source drawn, then
//       every reference line, then one "wrong" entry iff a point is wrong; each value label's box lies in the plot's width, over or
//       inside its own bar's column, and crosses no other bar, label or on-scale reference; the plot is at least 10 units wide and tall; footer, legend
//       and title are dropped (in that order) only while the plot is below min_plot_height.
ChartLayout layout_chart(const ChartSpec& c, TextMeasure& tm, double x, double y, double w,
                         double h, const PaintOptions& o = {});

}  // namespace ws::viz
