// The chart painter: draws a ChartLayout (viz/chart_layout.h) onto any Canvas.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

#include "viz/chart.h"
#include "viz/chart_paint.h"

namespace ws::viz {

std::string_view to_string(SeriesKind k) {
  switch (k) {
    case SeriesKind::Line: return "line";
    case SeriesKind::Bars: return "bars";
    case SeriesKind::Points: return "points";
  }
  return "unknown";
}

const sim::Provenance& Series::source_at(std::size_t i) const {
  static const sim::Provenance none;
  return i < source.size() ? source[i] : none;
}

sim::Provenance Series::common_source() const {
  const std::size_t n = std::min(x.size(), y.size());
  if (n == 0) return {};
  const sim::Provenance& first = source_at(0);
  for (std::size_t i = 1; i < n; ++i)
    if (!source_at(i).same_source(first)) return {};
  return first;
}

sim::SourceWording chart_sources(const ChartSpec& c) {
  std::vector<sim::Provenance> drawn;
  for (const Series& s : c.series) {
    const std::size_t n = std::min(s.x.size(), s.y.size());
    for (std::size_t i = 0; i < n; ++i)
      if (!s.wrong_at(i) && std::isfinite(s.y[i])) drawn.push_back(s.source_at(i));
  }
  for (const RefLine& r : c.refs) drawn.push_back(r.source);
  return sim::describe_sources(drawn);
}

std::string y_axis_title(const ChartSpec& c) {
  // Only the points name the axis: a reference line names its own source.
  ChartSpec points = c;
  points.refs.clear();
  return sim::axis_title(c.y_label, chart_sources(points));
}

std::string ref_label(const ChartSpec& c, const RefLine& r) {
  std::string s = r.name + " " + short_number(r.y) + (c.y_label.empty() ? "" : " " + c.y_label);
  const std::string src = sim::short_label(r.source);
  return src.empty() ? s : s + " (" + src + ")";
}

std::string_view to_string(Anchor a) {
  switch (a) {
    case Anchor::Left: return "left";
    case Anchor::Center: return "center";
    case Anchor::Right: return "right";
  }
  return "unknown";
}

void paint_marker(Canvas& cv, int shape, double cx, double cy, double r, std::uint32_t fill,
                  std::uint32_t stroke, double width) {
  switch (shape) {
    case 1: {
      const double a = r * 0.9;
      cv.rect(cx - a, cy - a, cx + a, cy + a, fill, stroke, width);
      return;
    }
    case 2:
      cv.polygon({{cx, cy - r * 1.25}, {cx + r * 1.25, cy}, {cx, cy + r * 1.25}, {cx - r * 1.25, cy}},
                 fill, stroke, width);
      return;
    case 3:
      cv.polygon({{cx, cy - r * 1.3}, {cx + r * 1.2, cy + r * 0.9}, {cx - r * 1.2, cy + r * 0.9}},
                 fill, stroke, width);
      return;
    case 4:
      cv.polygon({{cx, cy + r * 1.3}, {cx + r * 1.2, cy - r * 0.9}, {cx - r * 1.2, cy - r * 0.9}},
                 fill, stroke, width);
      return;
    default: cv.circle(cx, cy, r, fill, stroke, width);
  }
}

namespace {

bool finite(double v) { return std::isfinite(v); }

std::string fit(Canvas& cv, const std::string& s, double size, double width) {
  if (cv.text_width(s, size) <= width) return s;
  std::string t = s;
  while (!t.empty() && cv.text_width(t + "..", size) > width) t.pop_back();
  return t.empty() ? std::string() : t + "..";
}

void wrong_cross(Canvas& cv, double cx, double cy, double r) {
  cv.line(cx - r, cy - r, cx + r, cy + r, kWrongRed, 2.5);
  cv.line(cx - r, cy + r, cx + r, cy - r, kWrongRed, 2.5);
}

// Text boxes already placed inside the plot, so a later label never overprints one.
struct Placed {
  std::vector<std::array<double, 4>> boxes;
  bool free(double x0, double y0, double x1, double y1) const {
    for (const auto& b : boxes)
      if (x0 < b[2] && b[0] < x1 && y0 < b[3] && b[1] < y1) return false;
    return true;
  }
  void add(double x0, double y0, double x1, double y1) { boxes.push_back({x0, y0, x1, y1}); }
};

// One painting of a layout: the chart, the layout, the canvas and what is placed so far,
// shared by the steps below, each of which draws one part in the order paint_chart calls it.
struct Painter {
  const ChartSpec& c;
  const ChartLayout& L;
  Canvas& cv;
  const ChartTheme& th;
  ChartGeometry g;
  const double x, y, w, h, f;
  const double pad, lf, mf;  // padding, the legend's font, the footer's font
  double slot = 0;           // a category's width (categorical charts)
  std::string y_title;
  Placed placed;

  Painter(const ChartSpec& c_, const ChartLayout& L_, Canvas& cv_, const PaintOptions& o)
      : c(c_), L(L_), cv(cv_), th(o.theme), g(L_.geom), x(L_.x), y(L_.y), w(L_.w), h(L_.h), f(L_.font),
        pad(f * 0.6), lf(f * 0.9), mf(f * 0.8) {}

  void title() {
    const std::vector<std::string> one{c.title};
    const auto& lines = L.title_lines.empty() ? one : L.title_lines;
    for (std::size_t i = 0; i < lines.size(); ++i)
      cv.text(x + w / 2, y + pad + f * 0.65 + double(i) * f * 1.45, fit(cv, lines[i], f * 1.2, w - 2 * pad),
              f * 1.2, th.text, Anchor::Center, true);
  }

  void category_labels(double xt_y) {
    for (std::size_t i = 0; i < L.categories; ++i) {
      const std::string name = i < c.categories.size() ? c.categories[i] : std::to_string(i);
      const double cx = g.map_x(double(i));
      if (L.category_labels == CategoryLabels::Small) {
        const std::string t = fit(cv, name, f * 0.75, slot - 4);
        cv.text(cx, g.plot_y1 + f * 0.75, t, f * 0.75, th.text, Anchor::Center);
      } else if (L.category_labels == CategoryLabels::Vertical) {
        const std::string t = fit(cv, name, f, L.category_block - f);
        const double tw = cv.text_width(t, f);
        cv.text(cx, g.plot_y1 + f * 0.5 + tw / 2, t, f, th.text, Anchor::Center, false, true);
      } else {
        double ly = xt_y;
        for (const std::string& l : L.category_lines[i]) {
          cv.text(cx, ly, l, f, th.text, Anchor::Center);
          ly += f * 1.15;
        }
      }
    }
  }

  void x_tick_labels(double xt_y) {
    double last_right = -std::numeric_limits<double>::max();
    for (double t : g.x_ticks) {
      const double px = g.map_x(t);
      cv.line(px, g.plot_y1, px, g.plot_y1 + f * 0.3, th.axis, 1);
      const std::string label = short_number(t);
      const double tw = cv.text_width(label, f);
      if (px - tw / 2 < last_right + f * 0.5) continue;  // would touch the previous label
      cv.text(px, xt_y, label, f, th.text, Anchor::Center);
      last_right = px + tw / 2;
    }
  }

  // Grid, axes, ticks and the axes' titles.
  void axes() {
    for (double t : g.y_ticks) {
      const double py = g.map_y(t);
      cv.line(g.plot_x0, py, g.plot_x1, py, th.grid, 1);
      cv.text(g.plot_x0 - f * 0.4, py, short_number(t), f, th.text, Anchor::Right);
    }
    cv.line(g.plot_x0, g.plot_y0, g.plot_x0, g.plot_y1, th.axis, 1.2);
    cv.line(g.plot_x0, g.plot_y1, g.plot_x1, g.plot_y1, th.axis, 1.2);
    const double xt_y = g.plot_y1 + f * 1.0;  // below the 0.3 f ticks, clear of them
    slot = g.categorical ? (g.plot_x1 - g.plot_x0) / double(L.categories) : 0;
    if (g.categorical)
      category_labels(xt_y);
    else
      x_tick_labels(xt_y);
    if (!c.x_label.empty())
      cv.text((g.plot_x0 + g.plot_x1) / 2, g.plot_y1 + L.category_block + f * 0.75,
              c.x_label + (g.log2_x ? " (log2 scale)" : ""), f, th.text, Anchor::Center);
    // The unit reads across, above the axis, where it has the whole width (turned upright
    // along a short plot it would be cut).
    y_title = y_axis_title(c);
    if (!y_title.empty())
      cv.text(x + pad, g.plot_y0 - f * 1.1, fit(cv, y_title, f, w - 2 * pad), f, th.text, Anchor::Left);
  }

  // Reference lines, under the data so bars stay readable.
  void reference_lines() {
    for (std::size_t ri : L.on_scale) {
      const RefLine* r = &c.refs[ri];
      if (g.log_y && r->y <= 0) continue;
      const double py = g.map_y(r->y);
      const std::uint32_t col = r->rgba ? r->rgba : th.ref;
      cv.line(g.plot_x0, py, g.plot_x1, py, col, 1.5, true);
      placed.add(g.plot_x0, py - 1.5, g.plot_x1, py + 1.5);  // no value label across it
      ++g.refs;
    }
  }

  // One line says what lies above the plot: on the row of the axis label when it fits
  // beside it (nothing is drawn there), else along the top of the plot, where a reference
  // line near the top must not cross it.
  void off_scale_note() {
    if (g.off_scale.empty()) return;
    std::string all;
    for (const std::string& n : g.off_scale) all += (all.empty() ? "" : ", ") + n;
    all = "above the plot: " + all;
    const double ylab_right = y_title.empty() ? x + pad : x + pad + cv.text_width(y_title, f) + f;
    const double row_y = g.plot_y0 - f * 1.1;
    const double x1 = g.plot_x1 - f * 0.3;
    if (!y_title.empty() && cv.text_width(all, f * 0.85) <= x1 - ylab_right) {
      cv.text(x1, row_y, all, f * 0.85, th.ref, Anchor::Right);
    } else {
      const std::string s = fit(cv, all, f * 0.85, g.plot_x1 - g.plot_x0 - f);
      const double tw = cv.text_width(s, f * 0.85);
      double ty = g.plot_y0 + f * 0.5;
      for (int tries = 0; tries < 3 && !placed.free(x1 - tw, ty - f * 0.45, x1, ty + f * 0.45); ++tries)
        ty += f * 0.9;
      cv.text(x1, ty, s, f * 0.85, th.ref, Anchor::Right);
      placed.add(x1 - tw, ty - f * 0.45, x1, ty + f * 0.45);
    }
  }

  // One bar series, the bar_index-th of the chart's bar series.
  void bars(std::size_t si, int bar_index, bool mixed) {
    const Series& s = c.series[si];
    const std::uint32_t col = series_colour(s, si);
    const std::size_t n = std::min(s.x.size(), s.y.size());
    const double group = slot * 0.8;
    const double bw = group / std::max(1, L.bar_series);
    for (std::size_t i = 0; i < n; ++i) {
      if (!finite(s.x[i])) continue;
      const double x0 = g.map_x(s.x[i]) - group / 2 + bw * bar_index + bw * 0.06;
      const double x1 = x0 + bw * 0.88;
      ChartMark m{int(si), int(i), (x0 + x1) / 2, 0, x0, 0, x1, 0, s.x[i], s.y[i], true,
                  s.wrong_at(i), s.source_at(i).source};
      const SourceStyle st = source_style(m.source, col, th.background);
      const bool solid = st.stroke == 0;  // a value label inside reads on the fill
      if (m.wrong) {
        const double cy = g.plot_y1 - f * 0.9;
        const double r = std::min(bw * 0.25, f * 0.55);
        wrong_cross(cv, m.cx, cy, r);
        const double tw = cv.text_width("wrong", f * 0.85);
        if (tw <= bw + slot * 0.1) {
          cv.text(m.cx, cy - r - f * 0.6, "wrong", f * 0.85, kWrongRed, Anchor::Center, true);
          placed.add(m.cx - tw / 2, cy - r - f * 1.05, m.cx + tw / 2, cy - r - f * 0.15);
        }
        m.cy = m.y0 = m.y1 = cy;
        ++g.wrong;
      } else if (const BarBox* bb = L.bar(si, i)) {
        // Where the layout put it (chart_layout.cpp place_bars); its value label too.
        m.x0 = bb->x0;
        m.x1 = bb->x1;
        m.cx = (bb->x0 + bb->x1) / 2;
        m.cy = g.map_y(s.y[i]);
        m.y0 = bb->y0;
        m.y1 = bb->y1;
        cv.rect(m.x0, m.y0, m.x1, m.y1, st.fill, st.stroke, st.stroke_width);
        // Where sources mix, a bar that is not measured says its source inside, where
        // it fits (the legend names each style too).
        const std::string word = sim::short_label(s.source_at(i));
        const double mw = cv.text_width(word, f * 0.75);
        if (mixed && !solid && !word.empty() && m.y1 - m.y0 > f * 1.4 && mw <= bw - 2 &&
            placed.free(m.cx - mw / 2, m.y0 + f * 0.4, m.cx + mw / 2, m.y0 + f * 1.2)) {
          cv.text(m.cx, m.y0 + f * 0.8, word, f * 0.75, th.text, Anchor::Center);
          placed.add(m.cx - mw / 2, m.y0 + f * 0.4, m.cx + mw / 2, m.y0 + f * 1.2);
        }
        ++g.bars;
      } else {
        continue;
      }
      g.marks.push_back(m);
    }
  }

  // A line or point series. A wrong point breaks the line: no value may be drawn for it.
  void line_or_points(std::size_t si) {
    const Series& s = c.series[si];
    const std::uint32_t col = series_colour(s, si);
    const std::size_t n = std::min(s.x.size(), s.y.size());
    std::vector<std::pair<double, double>> run;
    auto flush = [&] {
      if (s.kind == SeriesKind::Line && run.size() > 1) cv.polyline(run, col, 2);
      run.clear();
    };
    const double r = f * 0.32;
    for (std::size_t i = 0; i < n; ++i) {
      if (!finite(s.x[i])) continue;
      const double px = g.map_x(s.x[i]);
      ChartMark m{int(si), int(i), px, 0, px - r, 0, px + r, 0, s.x[i], s.y[i], false,
                  s.wrong_at(i), s.source_at(i).source};
      if (m.wrong) {
        flush();
        const double cy = g.plot_y1 - f * 0.9;
        wrong_cross(cv, px, cy, f * 0.4);
        const double tw = cv.text_width("wrong", f * 0.8);
        if (placed.free(px - tw / 2, cy - f * 1.4, px + tw / 2, cy - f * 0.6)) {
          cv.text(px, cy - f * 1.0, "wrong", f * 0.8, kWrongRed, Anchor::Center, true);
          placed.add(px - tw / 2, cy - f * 1.4, px + tw / 2, cy - f * 0.6);
        }
        m.cy = cy;
        m.y0 = cy - r;
        m.y1 = cy + r;
        ++g.wrong;
        g.marks.push_back(m);
        continue;
      }
      if (!finite(s.y[i]) || (g.log_y && s.y[i] <= 0)) {
        flush();
        continue;
      }
      m.cy = g.map_y(s.y[i]);
      m.y0 = m.cy - r;
      m.y1 = m.cy + r;
      run.emplace_back(px, m.cy);
      g.marks.push_back(m);
      ++g.points;
    }
    flush();
    const int shape = marker_shape(si);
    for (const ChartMark& m : g.marks) {
      if (m.series != int(si) || m.wrong) continue;
      const SourceStyle st = source_style(m.source, col, th.background);
      if (st.stroke)
        paint_marker(cv, shape, m.cx, m.cy, r + 0.5, st.fill, st.stroke, 1.8);
      else
        paint_marker(cv, shape, m.cx, m.cy, r, st.fill, 0, 0);
    }
  }

  void series() {
    // The bars' values as the layout placed them: reserved now, drawn over the bars below.
    for (const ValueLabel& v : L.value_labels) placed.add(v.x0, v.y0, v.x1, v.y1);
    const bool mixed = chart_sources(c).mixed;
    int bar_index = 0;
    for (std::size_t si = 0; si < c.series.size(); ++si) {
      if (c.series[si].kind == SeriesKind::Bars)
        bars(si, bar_index++, mixed);
      else
        line_or_points(si);
    }
    // The bars' values over the bars; later names (lines, references) go around the bars.
    for (const ValueLabel& v : L.value_labels)
      cv.text(v.cx, v.cy, v.text, v.size, v.on_fill ? th.background : th.text, Anchor::Center, false, v.upright);
    for (const BarBox& b : L.bars) placed.add(b.x0, b.y0, b.x1, b.y1);
  }

  // Without a legend, two or more lines are named beside their last point, where free.
  void line_names() {
    if (g.legend || c.series.size() < 2) return;
    const double nf = f * 0.85;
    for (std::size_t si = 0; si < c.series.size(); ++si) {
      if (c.series[si].kind == SeriesKind::Bars) continue;
      const ChartMark* last = nullptr;
      for (const ChartMark& m : g.marks)
        if (m.series == int(si) && !m.wrong) last = &m;
      if (!last) continue;
      const std::string& name = c.series[si].name;
      const double tw = cv.text_width(name, nf);
      const double x1 = last->cx - f * 0.5, x0 = x1 - tw;
      for (double dy : {-f * 0.75, f * 0.75}) {
        const double cy = last->cy + dy;
        if (x0 < g.plot_x0 || cy - nf / 2 < g.plot_y0 || cy + nf / 2 > g.plot_y1 ||
            !placed.free(x0, cy - nf / 2, x1, cy + nf / 2))
          continue;
        cv.text(x1, cy, name, nf, series_colour(c.series[si], si), Anchor::Right);
        placed.add(x0, cy - nf / 2, x1, cy + nf / 2);
        ++g.series_labels;
        break;
      }
    }
  }

  // Reference names at the right end of their lines, where nothing else is written (the
  // legend names every reference with its value anyway).
  void reference_names() {
    for (std::size_t ri : L.on_scale) {
      const RefLine* r = &c.refs[ri];
      if (g.log_y && r->y <= 0) continue;
      // Over the line, or under it when the top of the plot or a label is in the way.
      const double rf = f * 0.85, tw = cv.text_width(r->name, rf);
      const double x1 = g.plot_x1 - f * 0.3, x0 = x1 - tw;
      for (double dy : {-f * 0.65, f * 0.65}) {
        const double py = g.map_y(r->y) + dy;
        if (py - rf / 2 < g.plot_y0 - f * 0.3 || py + rf / 2 > g.plot_y1 ||
            !placed.free(x0, py - rf / 2, x1, py + rf / 2))
          continue;
        cv.text(x1, py, r->name, rf, r->rgba ? r->rgba : th.ref, Anchor::Right);
        placed.add(x0, py - rf / 2, x1, py + rf / 2);
        break;
      }
    }
  }

  void legend_swatch(const LegendEntry& e, double sx0, double sx1, double ly) {
    switch (e.swatch) {
      case LegendSwatch::FilledBox: cv.rect(sx0, ly - lf * 0.4, sx1, ly + lf * 0.4, e.colour, 0, 0); break;
      case LegendSwatch::HollowBox:
      case LegendSwatch::RecordedBox: {
        const SourceStyle st = source_style(
            e.swatch == LegendSwatch::HollowBox ? sim::Source::Modelled : sim::Source::Recorded, e.colour,
            th.background);
        cv.rect(sx0, ly - lf * 0.4, sx1, ly + lf * 0.4, st.fill, st.stroke, st.stroke_width);
        break;
      }
      case LegendSwatch::DashedLine: cv.line(sx0, ly, sx1, ly, e.colour, 1.5, true); break;
      case LegendSwatch::WrongCross: wrong_cross(cv, (sx0 + sx1) / 2, ly, lf * 0.35); break;
      case LegendSwatch::LineMarker: {
        cv.line(sx0, ly, sx1, ly, e.colour, 2);
        const SourceStyle st = source_style(e.style, e.colour, th.background);
        paint_marker(cv, e.shape, (sx0 + sx1) / 2, ly, lf * (st.stroke ? 0.36 : 0.3), st.fill, st.stroke,
                     st.stroke ? 1.8 : 0);
        break;
      }
    }
  }

  void legend() {
    if (!g.legend) return;
    double ly = L.legend_top + lf * 0.8;
    for (const auto& row : L.legend_rows) {
      double lx = x + pad;
      for (std::size_t i : row) {
        const LegendEntry& e = L.legend[i];
        const double sx0 = lx, sx1 = lx + lf * 1.6;
        legend_swatch(e, sx0, sx1, ly);
        cv.text(sx1 + lf * 0.5, ly, fit(cv, e.label, lf, w - 2 * pad - lf * 2.1), lf,
                e.swatch == LegendSwatch::WrongCross ? kWrongRed : th.text, Anchor::Left);
        lx = sx1 + lf * 0.5 + cv.text_width(e.label, lf) + lf * 1.2;
      }
      ly += lf * 1.6;
    }
  }

  void footer() {
    if (!g.footer) return;
    double fy = y + h - pad - double(L.footer.size()) * mf * 1.3 + mf * 0.65;
    for (const std::string& line : L.footer) {
      cv.text(x + pad, fy, fit(cv, line, mf, w - 2 * pad), mf, th.axis, Anchor::Left);
      fy += mf * 1.3;
    }
  }
};

}  // namespace

ChartGeometry paint_chart(const ChartSpec& c, const ChartLayout& L, Canvas& cv,
                          const PaintOptions& o) {
  Painter p(c, L, cv, o);
  if (o.background) cv.rect(p.x, p.y, p.x + p.w, p.y + p.h, p.th.background, 0, 0);
  if (p.g.title) p.title();
  p.axes();
  p.reference_lines();
  p.off_scale_note();
  p.series();
  p.line_names();
  p.reference_names();
  if (p.g.empty && c.refs.empty())
    cv.text((p.g.plot_x0 + p.g.plot_x1) / 2, (p.g.plot_y0 + p.g.plot_y1) / 2, "no data yet", p.f, p.th.axis,
            Anchor::Center);
  p.legend();
  p.footer();
  return p.g;
}

ChartGeometry paint_chart(const ChartSpec& c, Canvas& cv, double x, double y, double w,
                          double h, const PaintOptions& o) {
  return paint_chart(c, layout_chart(c, cv, x, y, w, h, o), cv, o);
}

}  // namespace ws::viz
