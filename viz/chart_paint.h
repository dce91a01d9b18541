#pragma once
// One layout of a ChartSpec (viz/chart_layout.h), painted onto any Canvas: SVG text, a
// cairo surface (PNG) or an ImGui draw list (the live widget). Keeping a single painter is
// what makes an export look like the chart on screen. No ImGui, no CUDA here.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "viz/chart.h"
#include "viz/chart_layout.h"
#include "viz/theme.h"

namespace ws::viz {

enum class Anchor { Left, Center, Right };
std::string_view to_string(Anchor a);

// A surface to paint on; it measures text with its own font (TextMeasure).
class Canvas : public TextMeasure {
 public:
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
};

// The marker of a series (marker_shape) centred at (cx, cy), of radius about r.
void paint_marker(Canvas& cv, int shape, double cx, double cy, double r, std::uint32_t fill,
                  std::uint32_t stroke, double width);

// Paints the layout `l` of `c` (layout_chart with the same options and a measure that
// agrees with cv's). The labels inside the plot (values over bars, "wrong", names of lines
// and references) are placed as they are drawn: a label that would overlap one drawn
// before is moved or left out (its value is in the legend, the tooltip or the CSV).
// @post every non-wrong finite value of every series is a mark with wrong == false inside
//       the plot box; every wrong point is a mark with wrong == true and no bar height.
ChartGeometry paint_chart(const ChartSpec& c, const ChartLayout& l, Canvas& cv,
                          const PaintOptions& o = {});
// Lays out (measuring with cv) and paints `c` into the box (x, y, w, h) of `cv`.
ChartGeometry paint_chart(const ChartSpec& c, Canvas& cv, double x, double y, double w, double h,
                          const PaintOptions& o = {});

}  // namespace ws::viz
