// Chart layout shared by every renderer: ticks, ranges, and paint_chart.
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

std::string_view to_string(Anchor a) {
  switch (a) {
    case Anchor::Left: return "left";
    case Anchor::Center: return "center";
    case Anchor::Right: return "right";
  }
  return "unknown";
}

std::uint32_t palette(std::size_t i) {
  static constexpr std::uint32_t p[] = {
      rgba(0x00, 0x72, 0xB2), rgba(0xE6, 0x9F, 0x00), rgba(0x00, 0x9E, 0x73),
      rgba(0xCC, 0x79, 0xA7), rgba(0x56, 0xB4, 0xE9), rgba(0xD5, 0x5E, 0x00),
      rgba(0x7F, 0x7F, 0x7F), rgba(0xBC, 0xBD, 0x22)};
  return p[i % (sizeof p / sizeof p[0])];
}

ChartTheme ChartTheme::dark() {
  ChartTheme t;
  t.background = rgba(30, 32, 36);
  t.text = rgba(225, 225, 225);
  t.axis = rgba(170, 170, 170);
  t.grid = rgba(62, 64, 70);
  t.ref = rgba(200, 200, 200);
  return t;
}

ChartTheme ChartTheme::high_contrast() {
  ChartTheme t;
  t.background = rgba(0, 0, 0);
  t.text = rgba(255, 255, 255);
  t.axis = rgba(255, 255, 255);
  t.grid = rgba(70, 70, 70);
  t.ref = rgba(255, 255, 255);
  return t;
}

namespace {

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

std::uint32_t series_colour(const Series& s, std::size_t i) {
  return s.rgba ? s.rgba : palette(i);
}
bool is_wrong(const Series& s, std::size_t i) { return i < s.wrong.size() && s.wrong[i]; }
bool is_modelled(const Series& s, std::size_t i) {
  return i < s.modelled.size() && s.modelled[i];
}
bool any_of(const std::vector<bool>& v) { return std::find(v.begin(), v.end(), true) != v.end(); }

std::string fit(Canvas& cv, const std::string& s, double size, double width) {
  if (cv.text_width(s, size) <= width) return s;
  std::string t = s;
  while (!t.empty() && cv.text_width(t + "..", size) > width) t.pop_back();
  return t.empty() ? std::string() : t + "..";
}

// Greedy word wrap at spaces into lines no wider than `width` (a word wider than the
// line is a line of its own). `sep` joins items: "   " for the footer's key: value pairs.
std::vector<std::string> wrap(Canvas& cv, const std::vector<std::string>& items,
                              const std::string& sep, double size, double width) {
  std::vector<std::string> lines;
  std::string cur;
  for (const std::string& it : items) {
    const std::string cand = cur.empty() ? it : cur + sep + it;
    if (cur.empty() || cv.text_width(cand, size) <= width) {
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

void wrong_cross(Canvas& cv, double cx, double cy, double r) {
  cv.line(cx - r, cy - r, cx + r, cy + r, kWrongRed, 2.5);
  cv.line(cx - r, cy + r, cx + r, cy - r, kWrongRed, 2.5);
}

struct LegendEntry {
  std::string label;
  std::uint32_t colour;
  int style;  // 0 filled box, 1 hollow box, 2 dashed line, 3 red cross, 4 line + marker
  int shape = 0;
};

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

bool power_of_two(double v) {
  if (!(v >= 1) || v != std::floor(v) || v > 9.0e15) return false;
  const auto u = static_cast<unsigned long long>(v);
  return (u & (u - 1)) == 0;
}

}  // namespace

ChartGeometry paint_chart(const ChartSpec& c, Canvas& cv, double x, double y, double w,
                          double h, const PaintOptions& o) {
  ChartGeometry g;
  const double f = o.font;
  const ChartTheme& th = o.theme;
  if (o.background) cv.rect(x, y, x + w, y + h, th.background, 0, 0);

  // --- data ranges ---
  double vmin = std::numeric_limits<double>::max(), vmax = -vmin, vminpos = vmin;
  double xmin = std::numeric_limits<double>::max(), xmax = -xmin;
  bool categorical = !c.categories.empty();
  bool all_int_x = true, all_pow2_x = true;
  std::size_t ncat = c.categories.size();
  int nbar_series = 0;
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
      if (is_wrong(s, i) || !finite(s.y[i])) continue;
      g.empty = false;
      vmin = std::min(vmin, s.y[i]);
      vmax = std::max(vmax, s.y[i]);
      if (s.y[i] > 0) vminpos = std::min(vminpos, s.y[i]);
    }
  }
  // The y scale fits the data. A reference far above it (the device peak over lesson-size
  // bars) would flatten every bar to the axis: it is annotated at the top instead.
  const double data_max = vmax;
  std::vector<const RefLine*> on_scale;
  for (const RefLine& r : c.refs) {
    if (!finite(r.y)) continue;
    if (!g.empty && !c.log_y && r.y > 1.6 * std::max(data_max, 0.0)) {
      g.off_scale.push_back(r.name);
      continue;
    }
    on_scale.push_back(&r);
    vmin = std::min(vmin, r.y);
    vmax = std::max(vmax, r.y);
    if (r.y > 0) vminpos = std::min(vminpos, r.y);
  }
  const bool have_values = vmax >= vmin;
  g.log_y = c.log_y && have_values && vminpos < std::numeric_limits<double>::max();

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

  // --- legend entries (to know how much room they need) ---
  std::vector<LegendEntry> legend;
  bool any_wrong = false;
  for (std::size_t si = 0; si < c.series.size(); ++si) {
    const Series& s = c.series[si];
    std::string label = s.name;
    if (any_of(s.modelled)) label += " (modelled)";
    int style = s.kind == SeriesKind::Bars ? (any_of(s.modelled) ? 1 : 0) : 4;
    legend.push_back({label, series_colour(s, si), style, marker_shape(si)});
    any_wrong = any_wrong || any_of(s.wrong);
  }
  for (const RefLine& r : c.refs) {
    const bool off = std::find(g.off_scale.begin(), g.off_scale.end(), r.name) != g.off_scale.end();
    legend.push_back({r.name + " " + short_number(r.y) + (c.y_label.empty() ? "" : " ") +
                          c.y_label + (off ? " (above the plot)" : ""),
                      r.rgba ? r.rgba : th.ref, 2});
  }
  if (any_wrong) legend.push_back({"wrong result (not plotted)", kWrongRed, 3});
  g.legend_entries = int(legend.size());

  const double pad = f * 0.6;
  const double lf = f * 0.9;  // legend font
  const double mf = f * 0.8;  // footer font
  std::vector<std::vector<std::size_t>> legend_rows(1);
  {
    double used = 0;
    const double avail = w - 2 * pad;
    for (std::size_t i = 0; i < legend.size(); ++i) {
      const double ew = lf * 2.2 + cv.text_width(legend[i].label, lf) + lf * 1.2;
      if (used > 0 && used + ew > avail) {
        legend_rows.emplace_back();
        used = 0;
      }
      legend_rows.back().push_back(i);
      used += ew;
    }
    if (legend.empty()) legend_rows.clear();
  }
  std::vector<std::string> footer;
  if (o.meta_footer) {
    std::vector<std::string> items;
    for (const auto& [k, v] : c.meta) items.push_back(k + ": " + v);
    footer = wrap(cv, items, "   ", mf, w - 2 * pad);
  }

  // --- category labels: one line, wrapped at spaces, or vertical; never cut short ---
  const double slot_w = categorical ? (w - 2 * pad - f * 7) / double(std::max<std::size_t>(ncat, 1)) : 0;
  std::vector<std::vector<std::string>> cat_lines;
  bool vertical_cats = false;
  bool small_cats = false;  // one line each in smaller type, when vertical ones do not fit
  double cat_block = f * 1.6;  // height the x tick labels take
  if (categorical) {
    std::size_t most = 1;
    for (std::size_t i = 0; i < ncat; ++i) {
      const std::string name = i < c.categories.size() ? c.categories[i] : std::to_string(i);
      auto lines = wrap(cv, words(name), " ", f, slot_w - 4);
      for (const auto& l : lines)
        if (cv.text_width(l, f) > slot_w - 4) vertical_cats = true;
      if (lines.size() > 3) vertical_cats = true;
      most = std::max(most, lines.size());
      cat_lines.push_back(std::move(lines));
    }
    if (vertical_cats) {
      double longest = 0;
      for (std::size_t i = 0; i < ncat; ++i)
        longest = std::max(longest, cv.text_width(i < c.categories.size() ? c.categories[i]
                                                                          : std::to_string(i),
                                                  f));
      cat_block = longest + f;
    } else {
      cat_block = double(most) * f * 1.15 + f * 0.5;
    }
  }

  // --- boxes: the plot keeps its minimum height; footer, legend, title give way ---
  const double min_plot = o.min_plot_height > 0 ? o.min_plot_height : 5 * f;
  g.title = o.title && !c.title.empty();
  g.footer = !footer.empty();
  g.legend = !legend_rows.empty();
  double top = 0, bottom = 0, legend_top = 0;
  auto layout = [&] {
    top = y + pad + (g.title ? f * 1.9 : 0) + (c.y_label.empty() ? 0 : f * 1.5);
    bottom = y + h - pad;
    if (g.footer) bottom -= double(footer.size()) * mf * 1.3;
    legend_top = bottom - (g.legend ? double(legend_rows.size()) * lf * 1.6 : 0);
    bottom = legend_top - (g.legend ? f * 0.3 : 0);
    if (!c.x_label.empty()) bottom -= f * 1.5;
    bottom -= cat_block;
  };
  layout();
  if (bottom - top < min_plot && g.footer) { g.footer = false; layout(); }
  if (bottom - top < min_plot && g.legend) {
    // Which line is which matters more than the reference values (named at their lines
    // anyway): with two or more series, keep one row naming the series alone, before the
    // title, when the plot keeps at least 3.5 lines of height with it.
    std::vector<std::size_t> series_row;
    double used = 0;
    for (std::size_t i = 0; i < c.series.size() && i < legend.size(); ++i) {
      used += lf * 2.2 + cv.text_width(legend[i].label, lf) + lf * 1.2;
      series_row.push_back(i);
    }
    const auto rows = legend_rows;
    const bool had_title = g.title;
    legend_rows = {series_row};
    layout();
    if (bottom - top < min_plot && g.title) { g.title = false; layout(); }
    if (c.series.size() < 2 || used > w - 2 * pad || bottom - top < 3.5 * f) {
      legend_rows = rows;
      g.legend = false;
      g.title = had_title;
      layout();
    }
  }
  if (bottom - top < min_plot && g.title) { g.title = false; layout(); }
  if (bottom - top < min_plot && vertical_cats) {
    // Vertical labels would be cut to a letter: one line each at 3/4 size instead, cut
    // short with "..." only when a name is wider than its slot even then.
    vertical_cats = false;
    small_cats = true;
    cat_block = f * 1.3;
    layout();
  }
  if (g.title)
    cv.text(x + w / 2, y + pad + f * 0.65, fit(cv, c.title, f * 1.2, w - 2 * pad), f * 1.2,
            th.text, Anchor::Center, true);

  g.plot_y0 = top + f * 0.3;
  g.plot_y1 = std::max(bottom, g.plot_y0 + 10);
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

  double ylab_w = 0;
  for (double t : g.y_ticks) ylab_w = std::max(ylab_w, cv.text_width(short_number(t), f));
  const double left = x + pad + ylab_w + f * 0.5;
  g.plot_x0 = left;
  g.plot_x1 = x + w - pad - f * 0.5;
  if (g.plot_x1 < g.plot_x0 + 10) g.plot_x1 = g.plot_x0 + 10;

  // --- grid, axes, ticks ---
  for (double t : g.y_ticks) {
    const double py = g.map_y(t);
    cv.line(g.plot_x0, py, g.plot_x1, py, th.grid, 1);
    cv.text(g.plot_x0 - f * 0.4, py, short_number(t), f, th.text, Anchor::Right);
  }
  cv.line(g.plot_x0, g.plot_y0, g.plot_x0, g.plot_y1, th.axis, 1.2);
  cv.line(g.plot_x0, g.plot_y1, g.plot_x1, g.plot_y1, th.axis, 1.2);
  const double xt_y = g.plot_y1 + f * 1.0;  // below the 0.3 f ticks, clear of them
  const double slot = categorical ? (g.plot_x1 - g.plot_x0) / double(ncat) : 0;
  if (categorical) {
    for (std::size_t i = 0; i < ncat; ++i) {
      const std::string name = i < c.categories.size() ? c.categories[i] : std::to_string(i);
      const double cx = g.map_x(double(i));
      if (small_cats) {
        const std::string t = fit(cv, name, f * 0.75, slot - 4);
        cv.text(cx, g.plot_y1 + f * 0.75, t, f * 0.75, th.text, Anchor::Center);
      } else if (vertical_cats) {
        const std::string t = fit(cv, name, f, cat_block - f);
        const double tw = cv.text_width(t, f);
        cv.text(cx, g.plot_y1 + f * 0.5 + tw / 2, t, f, th.text, Anchor::Center, false, true);
      } else {
        double ly = xt_y;
        for (const std::string& l : cat_lines[i]) {
          cv.text(cx, ly, l, f, th.text, Anchor::Center);
          ly += f * 1.15;
        }
      }
    }
  } else {
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
  if (!c.x_label.empty())
    cv.text((g.plot_x0 + g.plot_x1) / 2, g.plot_y1 + cat_block + f * 0.75,
            c.x_label + (g.log2_x ? " (log2 scale)" : ""), f, th.text, Anchor::Center);
  // The unit reads across, above the axis, where it has the whole width (turned upright
  // along a short plot it would be cut).
  if (!c.y_label.empty())
    cv.text(x + pad, g.plot_y0 - f * 1.1, fit(cv, c.y_label, f, w - 2 * pad), f, th.text,
            Anchor::Left);

  Placed placed;
  // --- reference lines (under the data so bars stay readable) ---
  for (const RefLine* r : on_scale) {
    if (g.log_y && r->y <= 0) continue;
    const double py = g.map_y(r->y);
    const std::uint32_t col = r->rgba ? r->rgba : th.ref;
    cv.line(g.plot_x0, py, g.plot_x1, py, col, 1.5, true);
    placed.add(g.plot_x0, py - 1.5, g.plot_x1, py + 1.5);  // no value label across it
    ++g.refs;
  }
  if (!g.off_scale.empty()) {
    // One line says what lies above the plot: on the row of the axis label when it fits
    // beside it (nothing is drawn there), else along the top of the plot, where a
    // reference line near the top must not cross it.
    std::string all;
    for (const std::string& n : g.off_scale) all += (all.empty() ? "" : ", ") + n;
    all = "above the plot: " + all;
    const double ylab_right = c.y_label.empty() ? x + pad : x + pad + cv.text_width(c.y_label, f) + f;
    const double row_y = g.plot_y0 - f * 1.1;
    const double x1 = g.plot_x1 - f * 0.3;
    if (!c.y_label.empty() && cv.text_width(all, f * 0.85) <= x1 - ylab_right) {
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

  // --- series ---
  const double group = slot * 0.8;
  int bar_index = 0;
  for (std::size_t si = 0; si < c.series.size(); ++si) {
    const Series& s = c.series[si];
    const std::uint32_t col = series_colour(s, si);
    const std::size_t n = std::min(s.x.size(), s.y.size());
    if (s.kind == SeriesKind::Bars) {
      const double bw = group / std::max(1, nbar_series);
      for (std::size_t i = 0; i < n; ++i) {
        if (!finite(s.x[i])) continue;
        const double x0 = g.map_x(s.x[i]) - group / 2 + bw * bar_index + bw * 0.06;
        const double x1 = x0 + bw * 0.88;
        ChartMark m{int(si), int(i), (x0 + x1) / 2, 0, x0, 0, x1, 0, s.x[i], s.y[i], true,
                    is_wrong(s, i), is_modelled(s, i)};
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
        } else if (finite(s.y[i])) {
          const double top_y = g.map_y(s.y[i]);
          const double base = g.map_y(g.log_y ? g.y_lo : 0.0);
          m.cy = top_y;
          m.y0 = std::min(top_y, base);
          m.y1 = std::max(top_y, base);
          if (m.modelled) {
            cv.rect(x0, m.y0, x1, m.y1, th.background, col, 2);
          } else {
            cv.rect(x0, m.y0, x1, m.y1, col, 0, 0);
          }
          // The value over the bar; turned upright when the bar is too narrow for it, and
          // left out (it is in the CSV and the tooltip) when there is no room either way.
          const std::string label = short_number(s.y[i]);
          const double vf = f * 0.85;
          const double tw = cv.text_width(label, vf);
          if (tw <= bw + slot * 0.1) {
            // Over the bar, or just inside its top when a reference line or another label
            // is in the way there.
            double cy = m.y0 - f * 0.6;
            bool ok = placed.free(m.cx - tw / 2, cy - vf / 2, m.cx + tw / 2, cy + vf / 2) &&
                      cy - vf / 2 >= g.plot_y0 - f * 0.3;
            bool inside = false;
            if (!ok && tw <= bw - 2 && m.y1 - m.y0 >= vf * 1.6) {
              cy = m.y0 + f * 0.6;
              inside = ok = placed.free(m.cx - tw / 2, cy - vf / 2, m.cx + tw / 2, cy + vf / 2);
            }
            if (ok) {
              cv.text(m.cx, cy, label, vf, inside && !m.modelled ? th.background : th.text,
                      Anchor::Center);
              placed.add(m.cx - tw / 2, cy - vf / 2, m.cx + tw / 2, cy + vf / 2);
            }
          } else if (vf <= bw + slot * 0.1) {
            double cy = m.y0 - f * 0.3 - tw / 2;
            if (cy - tw / 2 < g.plot_y0) cy = m.y0 + f * 0.3 + tw / 2;  // inside the bar
            const bool inside = cy > m.y0;
            if ((!inside || m.y1 - m.y0 >= tw + f * 0.6) &&
                placed.free(m.cx - vf / 2, cy - tw / 2, m.cx + vf / 2, cy + tw / 2)) {
              cv.text(m.cx, cy, label, vf, inside && !m.modelled ? th.background : th.text,
                      Anchor::Center, false, true);
              placed.add(m.cx - vf / 2, cy - tw / 2, m.cx + vf / 2, cy + tw / 2);
            }
          }
          const double mw = cv.text_width("modelled", f * 0.75);
          if (m.modelled && m.y1 - m.y0 > f * 1.4 && mw <= bw - 2 &&
              placed.free(m.cx - mw / 2, m.y0 + f * 0.4, m.cx + mw / 2, m.y0 + f * 1.2)) {
            cv.text(m.cx, m.y0 + f * 0.8, "modelled", f * 0.75, col, Anchor::Center);
            placed.add(m.cx - mw / 2, m.y0 + f * 0.4, m.cx + mw / 2, m.y0 + f * 1.2);
          }
          ++g.bars;
        } else {
          continue;
        }
        g.marks.push_back(m);
      }
      ++bar_index;
      continue;
    }
    // Lines and points. A wrong point breaks the line: no value may be drawn for it.
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
                  is_wrong(s, i), is_modelled(s, i)};
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
      if (m.modelled)
        paint_marker(cv, shape, m.cx, m.cy, r + 0.5, th.background, col, 1.8);
      else
        paint_marker(cv, shape, m.cx, m.cy, r, col, 0, 0);
    }
  }

  // Without a legend, two or more lines are named beside their last point, where free.
  if (!g.legend && c.series.size() >= 2) {
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
  for (const RefLine* r : on_scale) {
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

  if (g.empty && c.refs.empty())
    cv.text((g.plot_x0 + g.plot_x1) / 2, (g.plot_y0 + g.plot_y1) / 2, "no data yet", f,
            th.axis, Anchor::Center);

  // --- legend ---
  if (g.legend) {
    double ly = legend_top + lf * 0.8;
    for (const auto& row : legend_rows) {
      double lx = x + pad;
      for (std::size_t i : row) {
        const LegendEntry& e = legend[i];
        const double sx0 = lx, sx1 = lx + lf * 1.6;
        switch (e.style) {
          case 0: cv.rect(sx0, ly - lf * 0.4, sx1, ly + lf * 0.4, e.colour, 0, 0); break;
          case 1: cv.rect(sx0, ly - lf * 0.4, sx1, ly + lf * 0.4, th.background, e.colour, 2); break;
          case 2: cv.line(sx0, ly, sx1, ly, e.colour, 1.5, true); break;
          case 3: wrong_cross(cv, (sx0 + sx1) / 2, ly, lf * 0.35); break;
          default:
            cv.line(sx0, ly, sx1, ly, e.colour, 2);
            paint_marker(cv, e.shape, (sx0 + sx1) / 2, ly, lf * 0.3, e.colour, 0, 0);
        }
        cv.text(sx1 + lf * 0.5, ly, fit(cv, e.label, lf, w - 2 * pad - lf * 2.1), lf,
                e.style == 3 ? kWrongRed : th.text, Anchor::Left);
        lx = sx1 + lf * 0.5 + cv.text_width(e.label, lf) + lf * 1.2;
      }
      ly += lf * 1.6;
    }
  }
  if (g.footer) {
    double fy = y + h - pad - double(footer.size()) * mf * 1.3 + mf * 0.65;
    for (const std::string& line : footer) {
      cv.text(x + pad, fy, fit(cv, line, mf, w - 2 * pad), mf, th.axis, Anchor::Left);
      fy += mf * 1.3;
    }
  }
  return g;
}

}  // namespace ws::viz
