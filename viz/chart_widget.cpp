// The live chart widget.
#include "viz/chart_widget.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "viz/imgui_util.h"

namespace ws::viz {

void ImDrawCanvas::line(double x0, double y0, double x1, double y1, std::uint32_t col,
                        double width, bool dashed) {
  if (!col) return;
  if (!dashed) {
    dl_->AddLine(v2(float(x0), float(y0)), v2(float(x1), float(y1)), to_imgui(col), float(width));
    return;
  }
  const double len = std::hypot(x1 - x0, y1 - y0);
  if (len <= 0) return;
  const double dx = (x1 - x0) / len, dy = (y1 - y0) / len;
  for (double t = 0; t < len; t += 11) {
    const double e = std::min(len, t + 7);
    dl_->AddLine(v2(float(x0 + dx * t), float(y0 + dy * t)), v2(float(x0 + dx * e), float(y0 + dy * e)),
                 to_imgui(col), float(width));
  }
}

void ImDrawCanvas::polyline(const std::vector<std::pair<double, double>>& pts, std::uint32_t col,
                            double width) {
  if (pts.size() < 2 || !col) return;
  std::vector<ImVec2> p;
  p.reserve(pts.size());
  for (auto& [x, y] : pts) p.push_back(v2(float(x), float(y)));
  dl_->AddPolyline(p.data(), int(p.size()), to_imgui(col), 0, float(width));
}

void ImDrawCanvas::rect(double x0, double y0, double x1, double y1, std::uint32_t f,
                        std::uint32_t stroke, double width) {
  if (f) dl_->AddRectFilled(v2(float(x0), float(y0)), v2(float(x1), float(y1)), to_imgui(f));
  if (stroke)
    dl_->AddRect(v2(float(x0), float(y0)), v2(float(x1), float(y1)), to_imgui(stroke), 0, 0,
                 float(width));
}

void ImDrawCanvas::circle(double cx, double cy, double r, std::uint32_t f, std::uint32_t stroke,
                          double width) {
  if (f) dl_->AddCircleFilled(v2(float(cx), float(cy)), float(r), to_imgui(f), 16);
  if (stroke) dl_->AddCircle(v2(float(cx), float(cy)), float(r), to_imgui(stroke), 16, float(width));
}

void ImDrawCanvas::polygon(const std::vector<std::pair<double, double>>& pts, std::uint32_t f,
                           std::uint32_t stroke, double width) {
  if (pts.size() < 3) return;
  std::vector<ImVec2> p;
  p.reserve(pts.size());
  for (auto& [x, y] : pts) p.push_back(v2(float(x), float(y)));
  if (f) dl_->AddConvexPolyFilled(p.data(), int(p.size()), to_imgui(f));
  if (stroke) dl_->AddPolyline(p.data(), int(p.size()), to_imgui(stroke), ImDrawFlags_Closed, float(width));
}

void ImDrawCanvas::text(double x, double y, std::string_view s, double size, std::uint32_t col,
                        Anchor a, bool bold, bool vertical) {
  ImFont* font = ImGui::GetFont();
  const float fs = float(size);
  const ImVec2 sz = font->CalcTextSizeA(fs, FLT_MAX, 0, s.data(), s.data() + s.size());
  float px = float(x), py = float(y) - sz.y / 2;
  if (vertical) a = Anchor::Center;
  if (a == Anchor::Center) px -= sz.x / 2;
  if (a == Anchor::Right) px -= sz.x;
  const int first = dl_->VtxBuffer.Size;
  dl_->AddText(font, fs, v2(px, py), to_imgui(col), s.data(), s.data() + s.size());
  // ImGui has no bold face loaded: overdraw one pixel to the right.
  if (bold) dl_->AddText(font, fs, v2(px + 1, py), to_imgui(col), s.data(), s.data() + s.size());
  if (vertical) {
    // Turn the glyph quads just added by -90 degrees around the text's centre.
    const float cx = float(x), cy = float(y);
    for (int i = first; i < dl_->VtxBuffer.Size; ++i) {
      ImVec2& p = dl_->VtxBuffer[i].pos;
      const float dx = p.x - cx, dy = p.y - cy;
      p = v2(cx + dy, cy - dx);
    }
  }
}

double ImDrawCanvas::text_width(std::string_view s, double size) {
  return ImGui::GetFont()->CalcTextSizeA(float(size), FLT_MAX, 0, s.data(), s.data() + s.size()).x;
}

namespace {

struct ChartContext {
  bool open = false;
  std::string id;
  ImVec2 size;
  ViewStyle style;
  ChartSpec spec;
};
ChartContext g_chart;

void add_series(SeriesKind kind, const char* name, const double* xs, const double* ys, int n,
                const std::vector<bool>* wrong, const std::vector<sim::Provenance>* source, std::uint32_t col) {
  IM_ASSERT(g_chart.open && "Plot* outside BeginChart/EndChart");
  if (!g_chart.open) return;
  Series s;
  s.name = name ? name : "";
  s.kind = kind;
  if (n > 0 && xs && ys) {
    s.x.assign(xs, xs + n);
    s.y.assign(ys, ys + n);
  }
  if (wrong) s.wrong = *wrong;
  if (source) s.source = *source;
  s.rgba = col;
  g_chart.spec.series.push_back(std::move(s));
}

ChartDraw paint(const char* id, const ChartSpec& spec, ImVec2 size, const ViewStyle& style) {
  ChartDraw d;
  d.spec = spec;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (size.x <= 0) size.x = avail.x;
  if (size.y <= 0) size.y = std::max(avail.y, 140.0f);
  size.x = std::max(size.x, 160.0f);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::PushID(id);
  ImGui::InvisibleButton("##chart", size);
  const bool hovered = ImGui::IsItemHovered();
  ImGui::PopID();
  d.rect = Rect{p.x, p.y, p.x + size.x, p.y + size.y};
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(v2(d.rect.x0, d.rect.y0), v2(d.rect.x1, d.rect.y1), true);
  ImDrawCanvas cv(dl);
  PaintOptions o;
  o.font = ImGui::GetFontSize();
  o.meta_footer = false;
  o.theme = theme(style).chart;
  d.geom = paint_chart(spec, cv, p.x, p.y, size.x, size.y, o);
  dl->PopClipRect();
  d.drawn = true;

  if (hovered) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    double best = 14 * 14;
    for (const ChartMark& mk : d.geom.marks) {
      double dist;
      if (mk.bar && !mk.wrong) {
        const bool in = m.x >= mk.x0 && m.x <= mk.x1 && m.y >= mk.y0 - 6 && m.y <= mk.y1;
        dist = in ? 0 : 1e9;
      } else {
        dist = (m.x - mk.cx) * (m.x - mk.cx) + (m.y - mk.cy) * (m.y - mk.cy);
      }
      if (dist < best) {
        best = dist;
        d.hover_series = mk.series;
        d.hover_index = mk.index;
      }
    }
    if (d.hover_series >= 0) {
      const Series& s = spec.series[std::size_t(d.hover_series)];
      const std::size_t i = std::size_t(d.hover_index);
      ImGui::BeginTooltip();
      std::string where;
      if (s.x[i] >= 0 && std::size_t(s.x[i]) < spec.categories.size() && s.x[i] == std::floor(s.x[i]))
        where = spec.categories[std::size_t(s.x[i])];
      else
        where = (spec.x_label.empty() ? std::string("x") : spec.x_label) + " " + short_number(s.x[i]);
      ImGui::Text("%s - %s", s.name.c_str(), where.c_str());
      if (s.wrong_at(i)) {
        ImGui::TextColored(to_imvec4(theme(style).run_error),
                           "wrong result: the output did not match the reference");
      } else {
        const std::string src = sim::long_label(s.source_at(i));
        ImGui::Text("%.4g %s%s%s", s.y[i], spec.y_label.c_str(), src.empty() ? "" : ", ",
                    src.c_str());
      }
      ImGui::EndTooltip();
    }
  }
  return d;
}

}  // namespace

bool BeginChart(const char* id, const char* title, const char* x_label, const char* y_label,
                ImVec2 size, const ViewStyle& style) {
  IM_ASSERT(!g_chart.open && "BeginChart without EndChart");
  g_chart = ChartContext{};
  g_chart.open = true;
  g_chart.id = id ? id : "chart";
  g_chart.size = size;
  g_chart.style = style;
  g_chart.spec.title = title ? title : "";
  g_chart.spec.x_label = x_label ? x_label : "";
  g_chart.spec.y_label = y_label ? y_label : "";
  return true;
}

void ChartCategories(const std::vector<std::string>& names) { g_chart.spec.categories = names; }
void ChartLogY(bool on) { g_chart.spec.log_y = on; }
void ChartMeta(const std::string& k, const std::string& v) { g_chart.spec.meta[k] = v; }

void PlotLine(const char* name, const double* xs, const double* ys, int n,
              const std::vector<bool>* wrong, const std::vector<sim::Provenance>* source, std::uint32_t c) {
  add_series(SeriesKind::Line, name, xs, ys, n, wrong, source, c);
}
void PlotBars(const char* name, const double* xs, const double* ys, int n,
              const std::vector<bool>* wrong, const std::vector<sim::Provenance>* source, std::uint32_t c) {
  add_series(SeriesKind::Bars, name, xs, ys, n, wrong, source, c);
}
void PlotPoints(const char* name, const double* xs, const double* ys, int n,
                const std::vector<bool>* wrong, const std::vector<sim::Provenance>* source, std::uint32_t c) {
  add_series(SeriesKind::Points, name, xs, ys, n, wrong, source, c);
}
void PlotRefLine(const char* name, double y, std::uint32_t c, const sim::Provenance& source) {
  if (!g_chart.open) return;
  g_chart.spec.refs.push_back({name ? name : "", y, c, source});
}

ChartDraw EndChart() {
  IM_ASSERT(g_chart.open && "EndChart without BeginChart");
  ChartContext c = std::move(g_chart);
  g_chart = ChartContext{};
  return paint(c.id.c_str(), c.spec, c.size, c.style);
}

ChartDraw DrawChart(const char* id, const ChartSpec& spec, ImVec2 size, const ViewStyle& style) {
  return paint(id, spec, size, style);
}

}  // namespace ws::viz
