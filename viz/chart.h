#pragma once
// One description of a chart, drawn live by the ImGui widget (viz/chart_widget.cpp) and
// written to SVG, PNG and CSV for export (viz/chart_export.cpp). No ImGui, no CUDA here.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ws::viz {

enum class SeriesKind { Line, Bars, Points };
std::string_view to_string(SeriesKind k);

struct Series {
  std::string name;
  SeriesKind kind = SeriesKind::Line;
  std::vector<double> x, y;          // for Bars, x is the category index
  std::vector<bool> wrong;           // per point: the run's output was wrong -> drawn as
                                     // a red "wrong" marker, never as a value
  std::vector<bool> modelled;        // per point: emulated (modelled time), drawn hollow
  std::uint32_t rgba = 0;            // 0 = palette colour
  bool wrong_at(std::size_t i) const { return i < wrong.size() && wrong[i]; }
  bool modelled_at(std::size_t i) const { return i < modelled.size() && modelled[i]; }
};

// A horizontal reference: the device peak, memcpy bandwidth, cuBLAS, ...
struct RefLine {
  std::string name;
  double y = 0;
  std::uint32_t rgba = 0;
};

struct ChartSpec {
  std::string title, x_label, y_label;  // y_label carries the unit: "GB/s"
  std::vector<std::string> categories;  // bar labels (x = 0, 1, ...)
  std::vector<Series> series;
  std::vector<RefLine> refs;
  std::map<std::string, std::string> meta;  // device, driver, params, date: into every export
  bool log_y = false;
};

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

// io::write_file (the one writer of user-visible files): a unique temporary, fsync and a
// rename that never replaces unless `overwrite`; links and non-regular files left alone.
// @post on true, path holds exactly data; on false, path is unchanged and err says why.
bool write_file_atomic(const std::string& path, const std::string& data, bool overwrite,
                       std::string& err);

}  // namespace ws::viz
