#pragma once
// One description of a chart, drawn live by the ImGui widget (viz/chart_widget.cpp) and
// written to SVG, PNG and CSV for export (viz/chart_export.cpp). No ImGui, no CUDA here.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/provenance.h"

namespace ws::viz {

enum class SeriesKind { Line, Bars, Points };
std::string_view to_string(SeriesKind k);

struct Series {
  std::string name;
  SeriesKind kind = SeriesKind::Line;
  std::vector<double> x, y;          // for Bars, x is the category index
  std::vector<bool> wrong;           // per point: the run's output was wrong -> drawn as
                                     // a red "wrong" marker, never as a value
  // Per point: where the value comes from (measured, recorded, modelled; None for a
  // count). Drawn apart (solid, translucent with an outline, hollow) and named apart.
  std::vector<sim::Provenance> source;
  std::uint32_t rgba = 0;            // 0 = palette colour
  bool wrong_at(std::size_t i) const { return i < wrong.size() && wrong[i]; }
  const sim::Provenance& source_at(std::size_t i) const;
  // Every point of the series has the same source (a series of one colour and one style).
  // @post == source_at(0) when every point's source is same_source with it, else None.
  sim::Provenance common_source() const;
};

// A horizontal reference: the device peak, memcpy bandwidth, cuBLAS, ... with its source:
// the peak is the data sheet's (Spec), a peer is measured or recorded, never modelled.
struct RefLine {
  std::string name;
  double y = 0;
  std::uint32_t rgba = 0;
  sim::Provenance source;
};

struct ChartSpec {
  // y_label is the unit alone ("GB/s"): the axis title adds the sources drawn
  // (y_axis_title), so no caller writes "(modelled)" by hand.
  std::string title, x_label, y_label;
  std::vector<std::string> categories;  // bar labels (x = 0, 1, ...)
  std::vector<Series> series;
  std::vector<RefLine> refs;
  std::map<std::string, std::string> meta;  // device, driver, params, date: into every export
  bool log_y = false;
};

// The sources of what the chart draws: every point with a value (wrong ones have none)
// and every reference line.
// @post == sim::describe_sources of source_at(i) of each point that is not wrong and has
//       a finite y, then of each reference's source.
sim::SourceWording chart_sources(const ChartSpec& c);
// The y axis' title: the unit and the sources of the drawn points ("GB/s (recorded and
// modelled)").
// @post == sim::axis_title(c.y_label, chart_sources(c)).
std::string y_axis_title(const ChartSpec& c);
// A reference line's legend text: name, value, unit and its source ("theoretical peak 3.35k
// GB/s (spec sheet)").
// @post contains short_label(r.source) when the source is not None.
std::string ref_label(const ChartSpec& c, const RefLine& r);

// Axis ticks for [lo, hi]: 1-2-5 steps, about `target` of them.
// @post ticks are increasing, lie within [lo, hi], and differ by one constant 1/2/5*10^k step.
std::vector<double> nice_ticks(double lo, double hi, int target = 6);

std::string to_svg(const ChartSpec& c, int width = 960, int height = 540);
std::string to_csv(const ChartSpec& c);
// PNG through cairo; false with `err` set when cairo is not built in, writing fails, or
// `path` exists (never replaced: io::write_file).
bool write_png(const ChartSpec& c, const std::string& path, int width, int height,
               std::string& err);
// The same PNG as bytes, so a caller can pick the file name and refuse to overwrite
// (the GUI's export buttons).
// @post on true, png starts with the PNG signature; on false, png is empty and err says why.
bool to_png(const ChartSpec& c, int width, int height, std::string& png, std::string& err);

}  // namespace ws::viz
