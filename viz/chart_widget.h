#pragma once
// The live chart widget, in ImPlot's style:
//
//   if (viz::BeginChart("hist", "Throughput per run", "run", "GB/s")) {
//     viz::PlotLine("tiled", xs.data(), ys.data(), n, &wrong, &sources);
//     viz::PlotRefLine("memcpy", 2986);
//     viz::ChartDraw d = viz::EndChart();
//   }
//
// Begin/Plot/End build a ChartSpec; EndChart paints it with the same painter as the SVG
// and PNG export (viz/chart_paint.h), so what is on screen is what gets exported.
#include <imgui.h>

#include <string>
#include <vector>

#include "viz/chart.h"
#include "viz/chart_paint.h"
#include "viz/view_common.h"

namespace ws::viz {

struct ChartDraw {
  bool drawn = false;
  Rect rect;             // the widget's box on screen
  ChartGeometry geom;    // where every mark landed (screen coordinates)
  int hover_series = -1, hover_index = -1;  // the mark under the mouse, if any
  ChartSpec spec;        // what was drawn: hand it to to_svg/write_png to export it
};

// size: x <= 0 takes the available width, y <= 0 the available height (at least 140 px).
bool BeginChart(const char* id, const char* title, const char* x_label, const char* y_label,
                ImVec2 size = ImVec2(0, 0), const ViewStyle& style = {});
void ChartCategories(const std::vector<std::string>& names);
void ChartLogY(bool on);
void ChartMeta(const std::string& key, const std::string& value);
void PlotLine(const char* name, const double* xs, const double* ys, int n,
              const std::vector<bool>* wrong = nullptr, const std::vector<sim::Provenance>* source = nullptr,
              std::uint32_t rgba = 0);
void PlotBars(const char* name, const double* xs, const double* ys, int n,
              const std::vector<bool>* wrong = nullptr, const std::vector<sim::Provenance>* source = nullptr,
              std::uint32_t rgba = 0);
void PlotPoints(const char* name, const double* xs, const double* ys, int n,
                const std::vector<bool>* wrong = nullptr,
                const std::vector<sim::Provenance>* source = nullptr, std::uint32_t rgba = 0);
// A reference line with its source: the peak's data sheet (Spec), a measured or recorded peer.
void PlotRefLine(const char* name, double y, std::uint32_t rgba = 0,
                 const sim::Provenance& source = {});
// @post the returned spec holds every series and reference given since BeginChart, and
//       geom is the painter's layout of it in the widget's box.
ChartDraw EndChart();

// A whole ChartSpec in one call.
ChartDraw DrawChart(const char* id, const ChartSpec& spec, ImVec2 size = ImVec2(0, 0),
                    const ViewStyle& style = {});

// The painter's target on an ImGui draw list (exposed for tests).
class ImDrawCanvas : public Canvas {
 public:
  explicit ImDrawCanvas(ImDrawList* dl) : dl_(dl) {}
  void line(double x0, double y0, double x1, double y1, std::uint32_t col, double width,
            bool dashed) override;
  void polyline(const std::vector<std::pair<double, double>>& pts, std::uint32_t col,
                double width) override;
  void rect(double x0, double y0, double x1, double y1, std::uint32_t fill, std::uint32_t stroke,
            double width) override;
  void circle(double cx, double cy, double r, std::uint32_t fill, std::uint32_t stroke,
              double width) override;
  void polygon(const std::vector<std::pair<double, double>>& pts, std::uint32_t fill,
               std::uint32_t stroke, double width) override;
  void text(double x, double y, std::string_view s, double size, std::uint32_t col, Anchor a,
            bool bold, bool vertical) override;
  double text_width(std::string_view s, double size) override;

 private:
  ImDrawList* dl_;
};

}  // namespace ws::viz
