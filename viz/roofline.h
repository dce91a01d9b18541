#pragma once
// The roofline view: FLOP per byte (x, log) against GFLOP/s (y, log). Ceilings are the
// memories' bandwidths (a line of slope one: GFLOP/s = GB/s x FLOP/byte) and the compute
// peaks (flat), each named with its value and where the figure comes from; every run of
// the family is a point, styled by the source of its time, the selected one ringed.
//
// layout_roofline is pure arithmetic (tested exactly); paint_roofline draws a layout on any
// Canvas (viz/chart_paint.h); draw_roofline is the ImGui widget. No CUDA here.
#include <cstddef>
#include <string>
#include <vector>

#include "sim/provenance.h"
#include "viz/chart_paint.h"
#include "viz/view_common.h"

namespace ws::viz {

struct RooflineCeiling {
  enum class Kind { Bandwidth, Compute };
  Kind kind = Kind::Bandwidth;
  std::string name;    // "DRAM", "L2", "shared", "FP32", "tensor FP16"
  double value = 0;    // GB/s (Bandwidth) or GFLOP/s (Compute)
  std::string source;  // where the figure comes from, in words: never empty when drawn
};

struct RooflinePoint {
  std::string label;        // the variant ("warptiled")
  double intensity = 0;     // FLOP per byte
  double gflops = 0;        // GFLOP/s
  sim::Provenance source;   // the time's source: measured, recorded or modelled
  bool selected = false;    // the run the controls show
};

struct RooflineInput {
  std::vector<RooflineCeiling> ceilings;
  std::vector<RooflinePoint> points;
  std::string caption;     // what the points are ("matmul at n=4096: every variant")
  std::string bytes_note;  // what the bytes of FLOP per byte count
  std::string empty_note;  // why there are no points (shown in the plot when none)
  bool covered = false;    // a lesson keeps the times back: the points are not drawn
};

// Where everything goes in the box (x, y, w, h), in the box's units. The plot's decades
// hold every point and every ridge (where a bandwidth meets a compute ceiling) with room
// on both sides; one tick per decade.
struct RooflineLayout {
  double plot_x0 = 0, plot_y0 = 0, plot_x1 = 0, plot_y1 = 0;
  double x_lo = 1, x_hi = 10, y_lo = 1, y_hi = 10;  // axis ends (powers of ten)
  std::vector<double> x_ticks, y_ticks;             // the decades, in data units
  double font = 14;
  struct Segment {
    std::size_t ceiling = 0;          // index into the input's ceilings
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // screen ends
    double label_x = 0, label_y = 0;  // the name's anchor (left end for bandwidths, right for compute)
    bool label_right = false;         // anchored at its right end
  };
  std::vector<Segment> ceilings;      // those with a value > 0, in input order
  struct Mark {
    std::size_t point = 0;            // index into the input's points
    double cx = 0, cy = 0;
  };
  std::vector<Mark> marks;            // the points with intensity and GFLOP/s > 0
  std::vector<std::size_t> off_plot;  // points that cannot be placed (no FLOPs or no time)
  double legend_y = 0;                // top of the lines naming each ceiling's source
  double map_x(double v) const;
  double map_y(double v) const;
};

// @post plot box inside (x, y, w, h); x_lo <= every mark's intensity and ridge / 2 and
//       x_hi >= twice them; y_hi >= 1.5 x the largest compute ceiling; every mark lies in
//       the plot box; a bandwidth ceiling's segment runs from x_lo to where it meets the
//       highest compute ceiling, a compute ceiling's from where the highest bandwidth
//       meets it to x_hi; map_x(x_lo) == plot_x0, map_y(y_lo) == plot_y1.
RooflineLayout layout_roofline(const RooflineInput& in, double x, double y, double w, double h,
                               double font);

// What the painter drew, for tests and the panel.
struct RooflineGeometry {
  std::vector<std::string> ceiling_labels;  // "DRAM 2,986 GB/s" as drawn on the plot
  std::vector<std::string> source_lines;    // "DRAM: cudaMemcpy, recorded on ..." under it
  std::vector<std::string> point_labels;    // "warptiled (recorded)"
  int selected_marks = 0;                   // points drawn with the selection ring
};

// @post one ceiling label and one source line per layout segment; one point label per
//       mark unless in.covered (then none, and kPredictFirst is drawn).
RooflineGeometry paint_roofline(const RooflineInput& in, const RooflineLayout& l, Canvas& cv,
                                const ChartTheme& th);

struct RooflineDraw {
  bool drawn = false;
  Rect rect;
  RooflineLayout layout;
  RooflineGeometry geom;
};

// The widget: takes the available region (at least a plot of eight lines).
RooflineDraw draw_roofline(const RooflineInput& in, const ViewStyle& style);

}  // namespace ws::viz
