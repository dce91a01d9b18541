#pragma once
// One layout of a ChartSpec, painted onto any Canvas: SVG text, a cairo surface (PNG) or
// an ImGui draw list (the live widget). Keeping a single painter is what makes an export
// look like the chart on screen. No ImGui, no CUDA here.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "viz/chart.h"

namespace ws::viz {

// Colours are 0xRRGGBBAA throughout viz/ (ChartSpec's rgba fields too). 0 means "none"
// for fills and strokes.
constexpr std::uint32_t rgba(unsigned r, unsigned g, unsigned b, unsigned a = 255) {
  return (std::uint32_t(r) << 24) | (std::uint32_t(g) << 16) | (std::uint32_t(b) << 8) | a;
}
// The series palette (Okabe-Ito: tells apart for colour-blind students and on projectors).
std::uint32_t palette(std::size_t i);
constexpr std::uint32_t kWrongRed = rgba(0xD0, 0x10, 0x10);

enum class Anchor { Left, Center, Right };
std::string_view to_string(Anchor a);

class Canvas {
 public:
  virtual ~Canvas() = default;
  virtual void line(double x0, double y0, double x1, double y1, std::uint32_t col, double width,
                    bool dashed = false) = 0;
  virtual void polyline(const std::vector<std::pair<double, double>>& pts, std::uint32_t col,
                        double width) = 0;
  virtual void rect(double x0, double y0, double x1, double y1, std::uint32_t fill,
                    std::uint32_t stroke, double width) = 0;
  virtual void circle(double cx, double cy, double r, std::uint32_t fill, std::uint32_t stroke,
                      double width) = 0;
  // A closed polygon (series markers: diamonds, triangles). The default draws its outline.
  virtual void polygon(const std::vector<std::pair<double, double>>& pts, std::uint32_t fill,
                       std::uint32_t stroke, double width) {
    if (pts.empty()) return;
    auto closed = pts;
    closed.push_back(pts.front());
    polyline(closed, stroke ? stroke : fill, stroke ? width : 1.0);
  }
  // `y` is the vertical centre of the text; `vertical` turns it 90 degrees anticlockwise
  // (the y-axis label), then `x`/`y` is its centre.
  virtual void text(double x, double y, std::string_view s, double size, std::uint32_t col,
                    Anchor a, bool bold = false, bool vertical = false) = 0;
  virtual double text_width(std::string_view s, double size) = 0;
};

struct ChartTheme {
  std::uint32_t background = rgba(255, 255, 255);
  std::uint32_t text = rgba(20, 20, 20);
  std::uint32_t axis = rgba(60, 60, 60);
  std::uint32_t grid = rgba(225, 225, 225);
  std::uint32_t ref = rgba(90, 90, 90);
  static ChartTheme light() { return {}; }
  static ChartTheme dark();
  static ChartTheme high_contrast();
};

struct PaintOptions {
  double font = 14;        // base text size in canvas units
  bool title = true;
  bool meta_footer = true;  // one small line of ChartSpec::meta under the chart (exports)
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
  bool bar = false, wrong = false, modelled = false;
};

struct ChartGeometry {
  double plot_x0 = 0, plot_y0 = 0, plot_x1 = 0, plot_y1 = 0;  // y grows downwards
  double x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  bool categorical = false, log_y = false;
  bool log2_x = false;  // every x a power of two spanning 4x or more: one step per doubling
  std::vector<std::string> off_scale;  // reference lines above the data, annotated instead
  bool footer = false, legend = false, title = false;  // what fitted in the box
  std::vector<double> x_ticks, y_ticks;
  std::vector<ChartMark> marks;
  int bars = 0, points = 0, wrong = 0, refs = 0, legend_entries = 0;
  int series_labels = 0;  // lines named beside their last point (when the legend did not fit)
  bool empty = true;  // no series with a drawable value: a "no data" note was painted
  double map_y(double v) const;
  double map_x(double v) const;
};

// The marker of series i (lines and points): 0 circle, 1 square, 2 diamond, 3 triangle,
// 4 inverted triangle, then again; the legend shows the same shape.
int marker_shape(std::size_t series);
void paint_marker(Canvas& cv, int shape, double cx, double cy, double r, std::uint32_t fill,
                  std::uint32_t stroke, double width);

// Lays out and paints `c` into the box (x, y, w, h) of `cv`. Text is placed by measured
// extents (cv.text_width): category labels wrap or turn vertical rather than being cut,
// the footer wraps, a label that would overlap another is left out (its value is in the
// legend or the CSV), and the plot keeps at least min_plot_height by dropping footer,
// legend and title in that order.
// @post every non-wrong finite value of every series is a mark with wrong == false inside
//       the plot box; every wrong point is a mark with wrong == true and no bar height.
ChartGeometry paint_chart(const ChartSpec& c, Canvas& cv, double x, double y, double w, double h,
                          const PaintOptions& o = {});

// "1.5k", "2.48", "3.35k": short numbers for tick labels.
std::string short_number(double v);

}  // namespace ws::viz
