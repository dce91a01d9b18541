// The roofline view: its layout (pure), its painter (any Canvas) and the ImGui widget.
#include "viz/roofline.h"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "viz/chart_widget.h"

namespace ws::viz {

namespace {

double decade_below(double v) { return std::pow(10.0, std::floor(std::log10(v))); }
double decade_above(double v) { return std::pow(10.0, std::ceil(std::log10(v))); }

// The decades from lo to hi, both included.
std::vector<double> decades(double lo, double hi) {
  std::vector<double> t;
  for (int e = int(std::lround(std::log10(lo))); e <= int(std::lround(std::log10(hi))); ++e)
    t.push_back(std::pow(10.0, e));
  return t;
}

using Kind = RooflineCeiling::Kind;

// The largest ceiling of a kind (0 when there is none).
double largest(const RooflineInput& in, Kind k) {
  double m = 0;
  for (const RooflineCeiling& c : in.ceilings)
    if (c.kind == k) m = std::max(m, c.value);
  return m;
}

// The axes' ends: every point and every ridge with room on both sides.
void place_range(const RooflineInput& in, RooflineLayout& L) {
  double x_min = 0, x_max = 0, y_min = 0, y_max = 0;
  auto take_x = [&](double v) {
    x_min = x_min > 0 ? std::min(x_min, v) : v;
    x_max = std::max(x_max, v);
  };
  auto take_y = [&](double v) {
    y_min = y_min > 0 ? std::min(y_min, v) : v;
    y_max = std::max(y_max, v);
  };
  for (const RooflineCeiling& c : in.ceilings) {
    if (c.kind != Kind::Compute || c.value <= 0) continue;
    take_y(c.value);
    for (const RooflineCeiling& b : in.ceilings)
      if (b.kind == Kind::Bandwidth && b.value > 0) take_x(c.value / b.value);
  }
  for (const RooflinePoint& p : in.points)
    if (p.intensity > 0 && p.gflops > 0) {
      take_x(p.intensity);
      take_y(p.gflops);
    }
  if (x_min <= 0) x_min = 1, x_max = 10;
  L.x_lo = decade_below(x_min / 2);
  L.x_hi = std::max(decade_above(x_max * 2), L.x_lo * 10);
  double slowest = 0;  // the lowest bandwidth line's height at x_lo
  for (const RooflineCeiling& b : in.ceilings)
    if (b.kind == Kind::Bandwidth && b.value > 0) slowest = slowest > 0 ? std::min(slowest, b.value) : b.value;
  if (slowest > 0) take_y(slowest * L.x_lo);
  if (y_max <= 0) y_min = 1, y_max = 10;
  L.y_hi = decade_above(y_max * 1.5);
  L.y_lo = std::min(decade_below(y_min / 1.5), L.y_hi / 10);
  L.x_ticks = decades(L.x_lo, L.x_hi);
  L.y_ticks = decades(L.y_lo, L.y_hi);
}

}  // namespace

double RooflineLayout::map_x(double v) const {
  const double t = (std::log10(v) - std::log10(x_lo)) / (std::log10(x_hi) - std::log10(x_lo));
  return plot_x0 + t * (plot_x1 - plot_x0);
}

double RooflineLayout::map_y(double v) const {
  const double t = (std::log10(v) - std::log10(y_lo)) / (std::log10(y_hi) - std::log10(y_lo));
  return plot_y1 - t * (plot_y1 - plot_y0);
}

RooflineLayout layout_roofline(const RooflineInput& in, double x, double y, double w, double h,
                               double font) {
  RooflineLayout L;
  L.font = font;
  place_range(in, L);
  // Caption, the y axis' unit, the plot, its x ticks and label, then one line per ceiling
  // and one for the points' sources. The plot keeps eight lines at least.
  std::size_t named = 0;
  for (const RooflineCeiling& c : in.ceilings) named += c.value > 0;
  const double legend_h = double(named + 1) * font * 0.85 * 1.3 + font * 0.4;
  L.plot_x0 = x + font * 3.2;
  L.plot_x1 = x + w - font * 1.0;
  L.plot_y0 = y + font * 3.0;
  L.plot_y1 = std::max(L.plot_y0 + font * 8, y + h - font * 2.9 - legend_h);
  L.legend_y = L.plot_y1 + font * 2.9;

  const double bw_max = largest(in, Kind::Bandwidth), c_max = largest(in, Kind::Compute);
  for (std::size_t i = 0; i < in.ceilings.size(); ++i) {
    const RooflineCeiling& c = in.ceilings[i];
    if (c.value <= 0) continue;
    RooflineLayout::Segment s;
    s.ceiling = i;
    if (c.kind == Kind::Bandwidth) {
      // From the left edge (or the plot's floor) to the highest compute ceiling (or the top).
      const double xa = std::max(L.x_lo, L.y_lo / c.value);
      const double xb = std::min(L.x_hi, (c_max > 0 ? c_max : L.y_hi) / c.value);
      s.x0 = L.map_x(xa);
      s.y0 = L.map_y(c.value * xa);
      s.x1 = L.map_x(xb);
      s.y1 = L.map_y(c.value * xb);
      // Under the line's start: the line rises away from its name.
      s.label_x = s.x0 + font * 0.4;
      s.label_y = s.y0 + font * 0.6;
    } else {
      // From where the highest bandwidth meets it to the right edge.
      const double xa = std::max(L.x_lo, bw_max > 0 ? c.value / bw_max : L.x_lo);
      s.x0 = L.map_x(xa);
      s.x1 = L.plot_x1;
      s.y0 = s.y1 = L.map_y(c.value);
      s.label_x = s.x1 - font * 0.3;
      s.label_y = s.y0 - font * 0.6;
      s.label_right = true;
    }
    L.ceilings.push_back(s);
  }
  for (std::size_t i = 0; i < in.points.size(); ++i) {
    const RooflinePoint& p = in.points[i];
    if (p.intensity > 0 && p.gflops > 0)
      L.marks.push_back({i, L.map_x(p.intensity), L.map_y(p.gflops)});
    else
      L.off_plot.push_back(i);
  }
  return L;
}

namespace {

// "2,986 GB/s" or "66.9 TFLOP/s": what a ceiling's label says about its value.
std::string rate_text(const RooflineCeiling& c) {
  char b[48];
  if (c.kind == Kind::Bandwidth) {
    const long long v = std::llround(c.value);
    if (v >= 1000) std::snprintf(b, sizeof b, "%lld,%03lld GB/s", v / 1000, v % 1000);
    else std::snprintf(b, sizeof b, "%lld GB/s", v);
  } else if (c.value >= 1000) {
    std::snprintf(b, sizeof b, "%.3g TFLOP/s", c.value / 1000);
  } else {
    std::snprintf(b, sizeof b, "%.3g GFLOP/s", c.value);
  }
  return b;
}

constexpr std::uint32_t kBandwidthColour = rgba(70, 150, 230);
constexpr std::uint32_t kComputeColour = rgba(230, 140, 40);
constexpr std::uint32_t kPointColour = rgba(120, 200, 90);

// Boxes already written inside the plot, so a later label never overprints one.
struct Taken {
  std::vector<std::array<double, 4>> boxes;
  bool free(double x0, double y0, double x1, double y1) const {
    for (const auto& b : boxes)
      if (x0 < b[2] && b[0] < x1 && y0 < b[3] && b[1] < y1) return false;
    return true;
  }
  void add(double x0, double y0, double x1, double y1) { boxes.push_back({x0, y0, x1, y1}); }
};

void paint_axes(const RooflineInput& in, const RooflineLayout& L, Canvas& cv, const ChartTheme& th) {
  const double f = L.font;
  if (!in.caption.empty()) cv.text(L.plot_x0 - f * 2.8, L.plot_y0 - f * 2.2, in.caption, f, th.text, Anchor::Left, true);
  cv.text(L.plot_x0 - f * 2.8, L.plot_y0 - f * 0.9, "GFLOP/s (log scale)", f * 0.9, th.text, Anchor::Left);
  for (double t : L.y_ticks) {
    const double py = L.map_y(t);
    cv.line(L.plot_x0, py, L.plot_x1, py, th.grid, 1);
    cv.text(L.plot_x0 - f * 0.4, py, short_number(t), f * 0.85, th.text, Anchor::Right);
  }
  for (double t : L.x_ticks) {
    const double px = L.map_x(t);
    cv.line(px, L.plot_y0, px, L.plot_y1, th.grid, 1);
    cv.text(px, L.plot_y1 + f * 0.8, short_number(t), f * 0.85, th.text, Anchor::Center);
  }
  cv.line(L.plot_x0, L.plot_y0, L.plot_x0, L.plot_y1, th.axis, 1.2);
  cv.line(L.plot_x0, L.plot_y1, L.plot_x1, L.plot_y1, th.axis, 1.2);
  std::string xl = "FLOP per byte (log scale)";
  if (!in.bytes_note.empty()) xl += ": " + in.bytes_note;
  cv.text((L.plot_x0 + L.plot_x1) / 2, L.plot_y1 + f * 2.0, xl, f * 0.85, th.text, Anchor::Center);
}

// Whether the segment passes through the box (sampled every two units along it).
bool crosses(const RooflineLayout::Segment& s, double x0, double y0, double x1, double y1) {
  const double len = std::hypot(s.x1 - s.x0, s.y1 - s.y0);
  const int n = std::max(1, int(len / 2));
  for (int i = 0; i <= n; ++i) {
    const double t = double(i) / n, px = s.x0 + (s.x1 - s.x0) * t, py = s.y0 + (s.y1 - s.y0) * t;
    if (px > x0 && px < x1 && py > y0 && py < y1) return true;
  }
  return false;
}

void paint_ceilings(const RooflineInput& in, const RooflineLayout& L, Canvas& cv, Taken& taken,
                    RooflineGeometry& g) {
  const double f = L.font, lf = f * 0.85;
  for (const RooflineLayout::Segment& s : L.ceilings) {
    const RooflineCeiling& c = in.ceilings[s.ceiling];
    const std::uint32_t col = c.kind == Kind::Bandwidth ? kBandwidthColour : kComputeColour;
    cv.line(s.x0, s.y0, s.x1, s.y1, col, 2);
  }
  for (const RooflineLayout::Segment& s : L.ceilings) {
    const RooflineCeiling& c = in.ceilings[s.ceiling];
    const std::uint32_t col = c.kind == Kind::Bandwidth ? kBandwidthColour : kComputeColour;
    const std::string label = c.name + " " + rate_text(c);
    const double tw = cv.text_width(label, lf);
    // The layout's place first; a bandwidth's name may move along its line, under it to
    // the right or over it to the left (where its own line never is), until no other line
    // or name crosses it.
    std::vector<std::array<double, 3>> at = {{s.label_x, s.label_y, s.label_right ? 1.0 : 0.0}};
    if (c.kind == Kind::Bandwidth)
      for (double t : {0.0, 0.2, 0.4, 0.6, 0.8}) {
        const double px = s.x0 + (s.x1 - s.x0) * t, py = s.y0 + (s.y1 - s.y0) * t;
        at.push_back({px + f * 0.4, py + f * 0.6, 0.0});
        at.push_back({px - f * 0.4, py - f * 0.6, 1.0});
      }
    for (const auto& [lx, ly, right] : at) {
      const double x0 = right > 0 ? lx - tw : lx, y0 = ly - lf / 2, x1 = x0 + tw, y1 = ly + lf / 2;
      if (x0 < L.plot_x0 || x1 > L.plot_x1 || y0 < L.plot_y0 - f * 0.5 || y1 > L.plot_y1 ||
          !taken.free(x0, y0, x1, y1))
        continue;
      bool crossed = false;
      for (const RooflineLayout::Segment& o : L.ceilings) crossed |= &o != &s && crosses(o, x0, y0, x1, y1);
      if (crossed) continue;
      cv.text(lx, ly, label, lf, col, right > 0 ? Anchor::Right : Anchor::Left);
      taken.add(x0, y0, x1, y1);
      g.ceiling_labels.push_back(label);
      break;
    }
  }
}

void paint_points(const RooflineInput& in, const RooflineLayout& L, Canvas& cv, const ChartTheme& th,
                  Taken& taken, RooflineGeometry& g) {
  const double f = L.font, r = f * 0.35, pf = f * 0.75;
  for (const RooflineLayout::Mark& m : L.marks) {
    const RooflinePoint& p = in.points[m.point];
    const SourceStyle st = source_style(p.source.source, kPointColour, th.background);
    cv.circle(m.cx, m.cy, st.stroke ? r + 0.5 : r, st.fill, st.stroke, st.stroke ? 1.8 : 0);
    if (p.selected) {
      cv.circle(m.cx, m.cy, r * 2.1, 0, th.text, 1.5);
      ++g.selected_marks;
    }
    taken.add(m.cx - r * 2.1, m.cy - r * 2.1, m.cx + r * 2.1, m.cy + r * 2.1);
  }
  // Each point's name and the source of its time, right of it, else left, above or below.
  for (const RooflineLayout::Mark& m : L.marks) {
    const RooflinePoint& p = in.points[m.point];
    const std::string label = p.label + " (" + sim::short_label(p.source) + ")";
    const double tw = cv.text_width(label, pf), gap = r * 2.4;
    const std::array<std::array<double, 2>, 4> at = {{{m.cx + gap, m.cy},
                                                      {m.cx - gap - tw, m.cy},
                                                      {m.cx - tw / 2, m.cy - gap - pf / 2},
                                                      {m.cx - tw / 2, m.cy + gap + pf / 2}}};
    for (const auto& [lx, ly] : at) {
      if (lx < L.plot_x0 || lx + tw > L.plot_x1 || ly - pf / 2 < L.plot_y0 || ly + pf / 2 > L.plot_y1 ||
          !taken.free(lx, ly - pf / 2, lx + tw, ly + pf / 2))
        continue;
      cv.text(lx, ly, label, pf, p.selected ? th.text : th.axis, Anchor::Left, p.selected);
      taken.add(lx, ly - pf / 2, lx + tw, ly + pf / 2);
      g.point_labels.push_back(label);
      break;
    }
  }
}

// Under the plot: each ceiling with its source, then the points' sources.
void paint_sources(const RooflineInput& in, const RooflineLayout& L, Canvas& cv, const ChartTheme& th,
                   RooflineGeometry& g) {
  const double f = L.font, lf = f * 0.85;
  double ly = L.legend_y + lf * 0.65;
  for (const RooflineLayout::Segment& s : L.ceilings) {
    const RooflineCeiling& c = in.ceilings[s.ceiling];
    const std::string line = c.name + " " + rate_text(c) + ": " + c.source;
    cv.text(L.plot_x0 - f * 2.8, ly, line, lf, c.kind == Kind::Bandwidth ? kBandwidthColour : kComputeColour,
            Anchor::Left);
    g.source_lines.push_back(line);
    ly += lf * 1.3;
  }
  std::vector<sim::Provenance> seen;
  for (const RooflineLayout::Mark& m : L.marks) {
    const sim::Provenance& p = in.points[m.point].source;
    if (std::none_of(seen.begin(), seen.end(), [&](const sim::Provenance& q) { return q.same_source(p); }))
      seen.push_back(p);
  }
  std::string pts;
  for (const sim::Provenance& p : seen) pts += (pts.empty() ? "" : " · ") + sim::long_label(p);
  if (!pts.empty() && !in.covered) {
    cv.text(L.plot_x0 - f * 2.8, ly, "points: times " + pts, lf, th.axis, Anchor::Left);
    g.source_lines.push_back("points: times " + pts);
  }
}

}  // namespace

RooflineGeometry paint_roofline(const RooflineInput& in, const RooflineLayout& L, Canvas& cv,
                                const ChartTheme& th) {
  RooflineGeometry g;
  Taken taken;
  paint_axes(in, L, cv, th);
  paint_ceilings(in, L, cv, taken, g);
  const double cx = (L.plot_x0 + L.plot_x1) / 2, cy = (L.plot_y0 + L.plot_y1) / 2;
  if (in.covered)
    cv.text(cx, cy, std::string(kPredictFirst) + ": the points answer the lesson's question", L.font, th.axis,
            Anchor::Center);
  else if (L.marks.empty() && !in.empty_note.empty())
    cv.text(cx, cy, in.empty_note, L.font * 0.9, th.axis, Anchor::Center);
  else
    paint_points(in, L, cv, th, taken, g);
  paint_sources(in, L, cv, th, g);
  return g;
}

RooflineDraw draw_roofline(const RooflineInput& in, const ViewStyle& style) {
  RooflineDraw d;
  const float f = ImGui::GetFontSize();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float w = std::max(avail.x, f * 20);
  RooflineLayout L = layout_roofline(in, p.x, p.y, w, avail.y, f);
  // The plot keeps its eight lines: below that the panel scrolls to the sources.
  const float h = std::max(avail.y, float(L.legend_y - p.y) + float(L.ceilings.size() + 1) * f * 0.85f * 1.3f + f * 0.4f);
  ImDrawCanvas cv(ImGui::GetWindowDrawList());
  d.geom = paint_roofline(in, L, cv, theme(style).chart);
  d.layout = std::move(L);
  d.rect = Rect{p.x, p.y, p.x + w, p.y + h};
  d.drawn = true;
  ImGui::Dummy(ImVec2(w, h));
  return d;
}

}  // namespace ws::viz
