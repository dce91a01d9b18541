// Chart layout (see viz/chart_layout.h): scales, ticks, legend rows, category labels and
// the boxes they take, from the data and measured text extents. Nothing is drawn here.
//
// Index (search for "[SECTION] <name>"):
//   Names
//   Scales and ticks
//   Sources, colours, legend words
//   Bars and their value labels
//   layout_chart
#include "viz/chart_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace ws::viz {

// [SECTION] Names
std::string_view to_string(LegendSwatch s) {
  switch (s) {
    case LegendSwatch::FilledBox: return "filled box";
    case LegendSwatch::HollowBox: return "hollow box";
    case LegendSwatch::RecordedBox: return "recorded box";
    case LegendSwatch::DashedLine: return "dashed line";
    case LegendSwatch::WrongCross: return "wrong cross";
    case LegendSwatch::LineMarker: return "line and marker";
  }
  return "unknown";
}

std::string_view to_string(CategoryLabels c) {
  switch (c) {
    case CategoryLabels::Lines: return "lines";
    case CategoryLabels::Vertical: return "vertical";
    case CategoryLabels::Small: return "small";
  }
  return "unknown";
}

namespace {

// [SECTION] Scales and ticks
// The 1/2/5 * 10^k step that gives closest to `target` intervals over `span`.
double nice_step(double span, int target) {
  if (target < 1) target = 1;
  const double raw = span / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double best = mag, best_err = std::numeric_limits<double>::max();
  for (double m : {0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0}) {
    const double step = m * mag;
    const double err = std::fabs(span / step - target);
    if (err < best_err) {
      best_err = err;
      best = step;
    }
  }
  return best;
}

bool finite(double v) { return std::isfinite(v); }

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> out;
  if (!finite(lo) || !finite(hi)) return out;
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) return {lo};
  const double step = nice_step(hi - lo, target);
  const double k0 = std::ceil(lo / step - 1e-9), k1 = std::floor(hi / step + 1e-9);
  for (double k = k0; k <= k1; k += 1) {
    double v = k * step;
    if (std::fabs(v) < step * 1e-9) v = 0;  // -0 and 1e-17 print badly
    if (v < lo || v > hi) continue;        // rounding at the ends
    out.push_back(v);
  }
  return out;
}

std::string short_number(double v) {
  char buf[32];
  const double a = std::fabs(v);
  if (v == 0) return "0";
  if (a >= 1e9) std::snprintf(buf, sizeof buf, "%.3gG", v / 1e9);
  else if (a >= 1e6) std::snprintf(buf, sizeof buf, "%.3gM", v / 1e6);
  else if (a >= 1e4) std::snprintf(buf, sizeof buf, "%.3gk", v / 1e3);
  else if (a >= 100) std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (a >= 0.01) std::snprintf(buf, sizeof buf, "%.3g", v);
  else std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

double ChartGeometry::map_y(double v) const {
  double t;
  if (log_y) {
    if (v <= 0) return plot_y1;
    t = (std::log10(v) - std::log10(y_lo)) / (std::log10(y_hi) - std::log10(y_lo));
  } else {
    t = (v - y_lo) / (y_hi - y_lo);
  }
  return plot_y1 - t * (plot_y1 - plot_y0);
}

double ChartGeometry::map_x(double v) const {
  double t;
  if (log2_x) {
    if (v <= 0) return plot_x0;
    t = (std::log2(v) - std::log2(x_lo)) / (std::log2(x_hi) - std::log2(x_lo));
  } else {
    t = (v - x_lo) / (x_hi - x_lo);
  }
  return plot_x0 + t * (plot_x1 - plot_x0);
}

int marker_shape(std::size_t series) { return int(series % 5); }

// [SECTION] Sources, colours, legend words
SourceStyle source_style(sim::Source s, std::uint32_t colour, std::uint32_t background) {
  switch (s) {
    case sim::Source::Recorded: {
      const std::uint32_t alpha = (colour & 0xFFu) * 45 / 100;
      return {(colour & 0xFFFFFF00u) | alpha, colour, 2};
    }
    case sim::Source::Modelled: return {background, colour, 2};
    default: return {colour, 0, 0};
  }
}

LegendSwatch box_swatch(sim::Source s) {
  return s == sim::Source::Recorded   ? LegendSwatch::RecordedBox
         : s == sim::Source::Modelled ? LegendSwatch::HollowBox
                                      : LegendSwatch::FilledBox;
}

std::uint32_t series_colour(const Series& s, std::size_t i) {
  return s.rgba ? s.rgba : palette(i);
}

namespace {

bool any_of(const std::vector<bool>& v) { return std::find(v.begin(), v.end(), true) != v.end(); }

// Sources drawn: Measured, Recorded and Modelled kinds in that order, once each.
std::vector<sim::Source> kinds_drawn(const sim::SourceWording& w) {
  std::vector<sim::Source> out;
  for (const sim::Provenance& p : w.sources)
    if (std::find(out.begin(), out.end(), p.source) == out.end()) out.push_back(p.source);
  return out;
}

// Greedy word wrap at spaces into lines no wider than `width` (a word wider than the
// line is a line of its own). `sep` joins items: "   " for the footer's key: value pairs.
std::vector<std::string> wrap(TextMeasure& tm, const std::vector<std::string>& items,
                              const std::string& sep, double size, double width) {
  std::vector<std::string> lines;
  std::string cur;
  for (const std::string& it : items) {
    const std::string cand = cur.empty() ? it : cur + sep + it;
    if (cur.empty() || tm.text_width(cand, size) <= width) {
      cur = cand;
    } else {
      lines.push_back(cur);
      cur = it;
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

bool power_of_two(double v) {
  if (!(v >= 1) || v != std::floor(v) || v > 9.0e15) return false;
  const auto u = static_cast<unsigned long long>(v);
  return (u & (u - 1)) == 0;
}

// [SECTION] Bars and their value labels
// The bars and their value labels (ChartLayout::bars, value_labels), once the plot box and
// the scales are known. The painter draws them as placed, so the window, the SVG and the
// PNG agree, and the rule (no label across another bar) is tested without a canvas.
void place_bars(const ChartSpec& c, TextMeasure& tm, ChartLayout& L) {
  const ChartGeometry& g = L.geom;
  const double f = L.font;
  const double slot = g.categorical && L.categories ? (g.plot_x1 - g.plot_x0) / double(L.categories) : 0;
  const double group = slot * 0.8;
  std::vector<std::size_t> solid_bar;  // measured or counts: a label inside reads on the fill
  int bar_index = 0;
  for (std::size_t si = 0; si < c.series.size(); ++si) {
    const Series& s = c.series[si];
    if (s.kind != SeriesKind::Bars) continue;
    const double bw = group / std::max(1, L.bar_series);
    const std::size_t n = std::min(s.x.size(), s.y.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) || s.wrong_at(i) || (g.log_y && s.y[i] <= 0)) continue;
      BarBox b;
      b.series = si;
      b.index = i;
      b.x0 = g.map_x(s.x[i]) - group / 2 + bw * bar_index + bw * 0.06;
      b.x1 = b.x0 + bw * 0.88;
      const double top = g.map_y(s.y[i]), base = g.map_y(g.log_y ? g.y_lo : 0.0);
      b.y0 = std::min(top, base);
      b.y1 = std::max(top, base);
      L.bars.push_back(b);
      {
        const sim::Source src = s.source_at(i).source;
        solid_bar.push_back(src == sim::Source::Measured || src == sim::Source::None ? 1 : 0);
      }
    }
    ++bar_index;
  }
  struct Box {
    double x0, y0, x1, y1;
  };
  auto cross = [](const Box& a, double x0, double y0, double x1, double y1) {
    return a.x0 < x1 && x0 < a.x1 && a.y0 < y1 && y0 < a.y1;
  };
  std::vector<Box> refs;
  for (std::size_t ri : L.on_scale) {
    if (ri >= c.refs.size() || (g.log_y && c.refs[ri].y <= 0)) continue;
    const double py = g.map_y(c.refs[ri].y);
    refs.push_back({g.plot_x0, py - 1.5, g.plot_x1, py + 1.5});
  }
  std::vector<Box> labels;
  for (std::size_t k = 0; k < L.bars.size(); ++k) {
    const BarBox& b = L.bars[k];
    const double cx = (b.x0 + b.x1) / 2, bw = b.x1 - b.x0;
    const std::string text = short_number(c.series[b.series].y[b.index]);
    auto free = [&](const Box& x) {
      if (x.x0 < g.plot_x0 || x.x1 > g.plot_x1 || x.y0 < g.plot_y0 - f * 0.3 || x.y1 > g.plot_y1) return false;
      for (const Box& r : refs)
        if (cross(r, x.x0, x.y0, x.x1, x.y1)) return false;
      for (const Box& l : labels)
        if (cross(l, x.x0, x.y0, x.x1, x.y1)) return false;
      for (std::size_t o = 0; o < L.bars.size(); ++o)
        if (o != k && cross({L.bars[o].x0, L.bars[o].y0, L.bars[o].x1, L.bars[o].y1}, x.x0, x.y0, x.x1, x.y1))
          return false;
      return true;
    };
    bool done = false;
    for (double vf : {f * 0.85, f * 0.7}) {
      const double tw = tm.text_width(text, vf);
      for (bool upright : {false, true}) {
        const double bxw = upright ? vf : tw, bxh = upright ? tw : vf;
        if (upright && tw <= bw) continue;  // across fits its bar: upright adds nothing
        // Over the bar, nearest first, then up past a reference line in the way; then
        // inside its top when it fits the bar, down past one.
        for (int inside = 0; inside < 2 && !done; ++inside) {
          if (inside && (bxw > bw - 2 || b.y1 - b.y0 < bxh + f * 0.3)) continue;
          for (int step = 0; step < 4 && !done; ++step) {
            const double off = f * 0.15 + bxh / 2 + double(step) * vf * 0.6;
            const double cy = inside ? b.y0 + off : b.y0 - off;
            const Box x{cx - bxw / 2, cy - bxh / 2, cx + bxw / 2, cy + bxh / 2};
            if (inside && x.y1 > b.y1 - 1) break;
            if (!free(x)) continue;
            ValueLabel v;
            v.series = b.series;
            v.index = b.index;
            v.text = text;
            v.cx = cx;
            v.cy = cy;
            v.size = vf;
            v.x0 = x.x0;
            v.y0 = x.y0;
            v.x1 = x.x1;
            v.y1 = x.y1;
            v.inside = inside != 0;
            v.upright = upright;
            v.on_fill = v.inside && solid_bar[k];
            L.value_labels.push_back(v);
            labels.push_back(x);
            done = true;
          }
        }
        if (done) break;
      }
      if (done) break;
    }
  }
}

}  // namespace

const BarBox* ChartLayout::bar(std::size_t series, std::size_t index) const {
  for (const BarBox& b : bars)
    if (b.series == series && b.index == index) return &b;
  return nullptr;
}

// [SECTION] layout_chart
namespace {

// One layout in the making: the chart, the measure, what is known so far. Each step below
// fills one part, in the order layout_chart calls them.
struct Layouter {
  const ChartSpec& c;
  TextMeasure& tm;
  const PaintOptions& o;
  ChartLayout L;
  ChartGeometry& g;
  const double f, pad, lf, mf;  // the font, padding, the legend's and the footer's fonts
  // the data
  double vmin = std::numeric_limits<double>::max(), vmax = -vmin, vminpos = vmin;
  double xmin = std::numeric_limits<double>::max(), xmax = -xmin;
  bool categorical, all_int_x = true, all_pow2_x = true, have_values = false;
  std::size_t ncat;
  int nbar_series = 0;
  sim::SourceWording sources;
  // the categories' labels
  bool vertical_cats = false;
  bool small_cats = false;     // one line each in smaller type, when vertical ones do not fit
  double cat_block;            // height the x tick labels take
  // the boxes
  std::string y_title;
  double title_h = 0, top = 0, bottom = 0;

  Layouter(const ChartSpec& c_, TextMeasure& tm_, double x, double y, double w, double h, const PaintOptions& o_)
      : c(c_), tm(tm_), o(o_), g(L.geom), f(o_.font), pad(f * 0.6), lf(f * 0.9), mf(f * 0.8),
        categorical(!c_.categories.empty()), ncat(c_.categories.size()), cat_block(f * 1.6) {
    L.x = x;
    L.y = y;
    L.w = w;
    L.h = h;
    L.font = o.font;
  }

  // --- data ranges ---
  void data_ranges() {
    for (const Series& s : c.series) {
      if (s.kind == SeriesKind::Bars) {
        categorical = true;
        ++nbar_series;
      }
      const std::size_t n = std::min(s.x.size(), s.y.size());
      for (std::size_t i = 0; i < n; ++i) {
        if (!finite(s.x[i])) continue;
        xmin = std::min(xmin, s.x[i]);
        xmax = std::max(xmax, s.x[i]);
        if (s.x[i] != std::floor(s.x[i])) all_int_x = false;
        if (!power_of_two(s.x[i])) all_pow2_x = false;
        if (s.x[i] >= 0) ncat = std::max(ncat, std::size_t(s.x[i]) + 1);
        if (s.wrong_at(i) || !finite(s.y[i])) continue;
        g.empty = false;
        vmin = std::min(vmin, s.y[i]);
        vmax = std::max(vmax, s.y[i]);
        if (s.y[i] > 0) vminpos = std::min(vminpos, s.y[i]);
      }
    }
    // The y scale fits the data. A data sheet's figure far above it (the device peak over
    // lesson-size bars) would flatten every bar to the axis: it is annotated at the top
    // instead. A measured, recorded or modelled line (a library's time) is the comparison
    // the chart is for, and is always drawn (lesson 13 said cuBLAS is "a line over the
    // bars", and it sat above the plot at twice the best bar).
    const double data_max = vmax;
    for (std::size_t ri = 0; ri < c.refs.size(); ++ri) {
      const RefLine& r = c.refs[ri];
      if (!finite(r.y)) continue;
      if (!g.empty && !c.log_y && r.source.source == sim::Source::Spec && r.y > 1.6 * std::max(data_max, 0.0)) {
        g.off_scale.push_back(r.name);
        continue;
      }
      L.on_scale.push_back(ri);
      vmin = std::min(vmin, r.y);
      vmax = std::max(vmax, r.y);
      if (r.y > 0) vminpos = std::min(vminpos, r.y);
    }
    have_values = vmax >= vmin;
    g.log_y = c.log_y && have_values && vminpos < std::numeric_limits<double>::max();
  }

  void x_scale() {
    g.categorical = categorical;
    g.log2_x = !categorical && all_pow2_x && xmax >= xmin && xmax >= 4 * xmin;
    if (categorical) {
      if (ncat == 0) ncat = 1;
      g.x_lo = -0.5;
      g.x_hi = double(ncat) - 0.5;
    } else if (g.log2_x) {
      g.x_lo = xmin / std::pow(2.0, 0.25);
      g.x_hi = xmax * std::pow(2.0, 0.25);
      for (double t = xmin; t <= xmax; t *= 2) g.x_ticks.push_back(t);
    } else if (xmax >= xmin) {
      double span = xmax - xmin;
      if (span == 0) span = 2;
      g.x_lo = xmin - span * 0.04 - (xmax == xmin ? 1 : 0);
      g.x_hi = xmax + span * 0.04 + (xmax == xmin ? 1 : 0);
      for (double t : nice_ticks(g.x_lo, g.x_hi, 6))
        if (!all_int_x || t == std::floor(t)) g.x_ticks.push_back(t);
    } else {
      g.x_lo = 0;
      g.x_hi = 1;
    }
  }

  // --- legend entries (to know how much room they need) ---
  void legend_entries() {
    std::vector<LegendEntry>& legend = L.legend;
    bool any_wrong = false;
    sources = chart_sources(c);
    for (std::size_t si = 0; si < c.series.size(); ++si) {
      const Series& s = c.series[si];
      // A series of one source shows it in its swatch; one that mixes shows its colour,
      // and the source entries below say which style is which.
      const sim::Source style = s.common_source().source;
      const LegendSwatch swatch = s.kind != SeriesKind::Bars ? LegendSwatch::LineMarker : box_swatch(style);
      legend.push_back({s.name, series_colour(s, si), swatch, marker_shape(si),
                        style == sim::Source::None ? sim::Source::Measured : style});
      any_wrong = any_wrong || any_of(s.wrong);
    }
    if (sources.mixed) {
      bool bars = false;
      for (const Series& s : c.series) bars = bars || s.kind == SeriesKind::Bars;
      for (sim::Source k : kinds_drawn(sources)) {
        // The long label of the one source of this kind, else the kind alone (two recordings).
        std::string label;
        int of_kind = 0;
        for (const sim::Provenance& p : sources.sources)
          if (p.source == k) {
            label = sim::long_label(p);
            ++of_kind;
          }
        if (of_kind > 1) label = sim::short_label(sim::Provenance{k, {}, {}, {}});
        legend.push_back({label, o.theme.axis, bars ? box_swatch(k) : LegendSwatch::LineMarker, 0, k});
      }
    }
    for (const RefLine& r : c.refs) {
      const bool off = std::find(g.off_scale.begin(), g.off_scale.end(), r.name) != g.off_scale.end();
      legend.push_back({ref_label(c, r) + (off ? " (above the plot)" : ""), r.rgba ? r.rgba : o.theme.ref,
                        LegendSwatch::DashedLine});
    }
    if (any_wrong) legend.push_back({"wrong result (not plotted)", kWrongRed, LegendSwatch::WrongCross});
    g.legend_entries = int(legend.size());
  }

  // The legend's rows as wide as the box allows, and the footer's lines.
  void legend_rows_and_footer() {
    const double w = L.w;
    auto& legend_rows = L.legend_rows;
    legend_rows.resize(1);
    double used = 0;
    const double avail = w - 2 * pad;
    for (std::size_t i = 0; i < L.legend.size(); ++i) {
      const double ew = lf * 2.2 + tm.text_width(L.legend[i].label, lf) + lf * 1.2;
      if (used > 0 && used + ew > avail) {
        legend_rows.emplace_back();
        used = 0;
      }
      legend_rows.back().push_back(i);
      used += ew;
    }
    if (L.legend.empty()) legend_rows.clear();
    if (o.source_footer && !sources.footer.empty()) L.footer = wrap(tm, words(sources.footer), " ", mf, w - 2 * pad);
    if (o.meta_footer) {
      std::vector<std::string> items;
      for (const auto& [k, v] : c.meta) items.push_back(k + ": " + v);
      for (std::string& l : wrap(tm, items, "   ", mf, w - 2 * pad)) L.footer.push_back(std::move(l));
    }
  }

  // --- category labels: one line, wrapped at spaces, or vertical; never cut short ---
  void category_labels() {
    if (!categorical) return;
    const double slot_w = (L.w - 2 * pad - f * 7) / double(std::max<std::size_t>(ncat, 1));
    std::size_t most = 1;
    for (std::size_t i = 0; i < ncat; ++i) {
      const std::string name = i < c.categories.size() ? c.categories[i] : std::to_string(i);
      auto lines = wrap(tm, words(name), " ", f, slot_w - 4);
      for (const auto& l : lines)
        if (tm.text_width(l, f) > slot_w - 4) vertical_cats = true;
      if (lines.size() > 3) vertical_cats = true;
      most = std::max(most, lines.size());
      L.category_lines.push_back(std::move(lines));
    }
    if (vertical_cats) {
      double longest = 0;
      for (std::size_t i = 0; i < ncat; ++i)
        longest = std::max(longest, tm.text_width(i < c.categories.size() ? c.categories[i] : std::to_string(i), f));
      cat_block = longest + f;
    } else {
      cat_block = double(most) * f * 1.15 + f * 0.5;
    }
  }

  // The title wraps onto a second line rather than being cut ("Variants of transpose at
  // block_rows=.." at 1280x720); a third would be cut short by the painter.
  void title_lines() {
    y_title = sim::axis_title(c.y_label, sources);
    g.title = o.title && !c.title.empty();
    if (g.title) {
      L.title_lines = wrap(tm, words(c.title), " ", f * 1.2, L.w - 2 * pad);
      if (L.title_lines.size() > 2) {
        std::string rest = L.title_lines[1];
        for (std::size_t i = 2; i < L.title_lines.size(); ++i) rest += " " + L.title_lines[i];
        L.title_lines.resize(2);
        L.title_lines[1] = rest;
      }
    }
    title_h = L.title_lines.empty() ? f * 1.9 : f * 1.9 + double(L.title_lines.size() - 1) * f * 1.45;
  }

  // The plot's top and bottom with what is shown now.
  void place_boxes() {
    top = L.y + pad + (g.title ? title_h : 0) + (y_title.empty() ? 0 : f * 1.5);
    bottom = L.y + L.h - pad;
    if (g.footer) bottom -= double(L.footer.size()) * mf * 1.3;
    L.legend_top = bottom - (g.legend ? double(L.legend_rows.size()) * lf * 1.6 : 0);
    bottom = L.legend_top - (g.legend ? f * 0.3 : 0);
    if (!c.x_label.empty()) bottom -= f * 1.5;
    bottom -= cat_block;
  }

  // Which line is which matters more than the reference values (named at their lines
  // anyway): with two or more series, keep one row naming the series alone, before the
  // title, when the plot keeps at least 3.5 lines of height with it.
  void legend_gives_way(double min_plot) {
    std::vector<std::size_t> series_row;
    double used = 0;
    // The series and, on a chart that mixes sources, the entries naming each source.
    const std::size_t named = c.series.size() + (sources.mixed ? kinds_drawn(sources).size() : 0);
    for (std::size_t i = 0; i < named && i < L.legend.size(); ++i) {
      used += lf * 2.2 + tm.text_width(L.legend[i].label, lf) + lf * 1.2;
      series_row.push_back(i);
    }
    const auto rows = L.legend_rows;
    const bool had_title = g.title;
    L.legend_rows = {series_row};
    place_boxes();
    if (bottom - top < min_plot && g.title) {
      g.title = false;
      place_boxes();
    }
    if ((c.series.size() < 2 && !sources.mixed) || used > L.w - 2 * pad || bottom - top < 3.5 * f) {
      L.legend_rows = rows;
      g.legend = false;
      g.title = had_title;
      place_boxes();
    }
  }

  // --- boxes: the plot keeps its minimum height; footer, legend, title give way ---
  void boxes() {
    const double min_plot = o.min_plot_height > 0 ? o.min_plot_height : 5 * f;
    g.footer = !L.footer.empty();
    g.legend = !L.legend_rows.empty();
    place_boxes();
    if (bottom - top < min_plot && g.footer) {
      g.footer = false;
      place_boxes();
    }
    if (bottom - top < min_plot && g.legend) legend_gives_way(min_plot);
    if (bottom - top < min_plot && g.title) {
      g.title = false;
      place_boxes();
    }
    if (bottom - top < min_plot && vertical_cats) {
      // Vertical labels would be cut to a letter: one line each at 3/4 size instead, cut
      // short with "..." only when a name is wider than its slot even then.
      vertical_cats = false;
      small_cats = true;
      cat_block = f * 1.3;
      place_boxes();
    }
    g.plot_y0 = top + f * 0.3;
    g.plot_y1 = std::max(bottom, g.plot_y0 + 10);
  }

  void y_scale() {
    // As many y ticks as fit at two text lines apart: labels never overprint.
    const int ytarget = std::clamp(int((g.plot_y1 - g.plot_y0) / (f * 2.2)), 1, 5);
    if (!have_values) {
      g.y_lo = 0;
      g.y_hi = 1;
      g.y_ticks = nice_ticks(0, 1, ytarget);
    } else if (g.log_y) {
      g.y_lo = std::pow(10.0, std::floor(std::log10(vminpos)));
      g.y_hi = std::pow(10.0, std::ceil(std::log10(vmax * 1.15)));
      if (g.y_hi <= g.y_lo) g.y_hi = g.y_lo * 10;
      const int decades = int(std::lround(std::log10(g.y_hi / g.y_lo)));
      const int every = std::max(1, (decades + ytarget - 1) / std::max(1, ytarget));
      int k = 0;
      for (double t = g.y_lo; t <= g.y_hi * 1.0001; t *= 10, ++k)
        if (k % every == 0) g.y_ticks.push_back(t);
    } else {
      double lo = std::min(0.0, vmin), hi = std::max(vmax, 0.0);
      if (hi == lo) hi = lo + 1;
      hi += (hi - lo) * 0.12;  // room for value labels over the tallest bar
      const double step = nice_step(hi - lo, ytarget);
      g.y_lo = std::floor(lo / step) * step;
      g.y_hi = std::ceil(hi / step) * step;
      g.y_ticks = nice_ticks(g.y_lo, g.y_hi, ytarget);
    }
  }

  // The plot's left edge clears the widest y tick label.
  void x_box() {
    double ylab_w = 0;
    for (double t : g.y_ticks) ylab_w = std::max(ylab_w, tm.text_width(short_number(t), f));
    g.plot_x0 = L.x + pad + ylab_w + f * 0.5;
    g.plot_x1 = L.x + L.w - pad - f * 0.5;
    if (g.plot_x1 < g.plot_x0 + 10) g.plot_x1 = g.plot_x0 + 10;
  }
};

}  // namespace

ChartLayout layout_chart(const ChartSpec& c, TextMeasure& tm, double x, double y, double w,
                         double h, const PaintOptions& o) {
  Layouter l(c, tm, x, y, w, h, o);
  l.data_ranges();
  l.x_scale();
  l.legend_entries();
  l.legend_rows_and_footer();
  l.category_labels();
  l.title_lines();
  l.boxes();
  l.y_scale();
  l.x_box();
  ChartLayout& L = l.L;
  L.categories = l.ncat;
  L.bar_series = l.nbar_series;
  L.category_labels = l.small_cats      ? CategoryLabels::Small
                      : l.vertical_cats ? CategoryLabels::Vertical
                                        : CategoryLabels::Lines;
  L.category_block = l.cat_block;
  place_bars(c, tm, L);
  return std::move(l.L);
}

}  // namespace ws::viz
