// Chart export: SVG text, PNG through cairo, CSV, and the atomic file write they share.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "viz/chart.h"

#include "io/atomic_file.h"
#include "viz/chart_paint.h"

#if defined(WS_HAVE_CAIRO)
#include <cairo.h>
#endif

namespace ws::viz {

namespace {

std::string xml_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += ch;
    }
  }
  return o;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

std::string colour_attr(const char* what, std::uint32_t c) {
  if (c == 0) return std::string(" ") + what + "=\"none\"";
  char b[64];
  std::snprintf(b, sizeof b, " %s=\"#%06X\"", what, unsigned(c >> 8));
  std::string s = b;
  if ((c & 0xFF) != 0xFF) s += std::string(" ") + what + "-opacity=\"" + num((c & 0xFF) / 255.0) + "\"";
  return s;
}

// DejaVu Sans averages a little over half an em per character; exact widths matter only
// for clipping, and SVG viewers measure for themselves.
double estimate_width(std::string_view s, double size) { return 0.6 * size * double(s.size()); }

class SvgCanvas : public Canvas {
 public:
  std::string body;
  void line(double x0, double y0, double x1, double y1, std::uint32_t col, double width,
            bool dashed) override {
    body += "<line x1=\"" + num(x0) + "\" y1=\"" + num(y0) + "\" x2=\"" + num(x1) + "\" y2=\"" +
            num(y1) + "\"" + colour_attr("stroke", col) + " stroke-width=\"" + num(width) + "\"" +
            (dashed ? " stroke-dasharray=\"7 4\"" : "") + "/>\n";
  }
  void polyline(const std::vector<std::pair<double, double>>& pts, std::uint32_t col,
                double width) override {
    body += "<polyline fill=\"none\"" + colour_attr("stroke", col) + " stroke-width=\"" +
            num(width) + "\" points=\"";
    for (auto& [x, y] : pts) body += num(x) + "," + num(y) + " ";
    body += "\"/>\n";
  }
  void rect(double x0, double y0, double x1, double y1, std::uint32_t fill, std::uint32_t stroke,
            double width) override {
    body += "<rect x=\"" + num(x0) + "\" y=\"" + num(y0) + "\" width=\"" + num(x1 - x0) +
            "\" height=\"" + num(y1 - y0) + "\"" + colour_attr("fill", fill) +
            colour_attr("stroke", stroke) +
            (stroke ? " stroke-width=\"" + num(width) + "\"" : std::string()) + "/>\n";
  }
  void circle(double cx, double cy, double r, std::uint32_t fill, std::uint32_t stroke,
              double width) override {
    body += "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"" + num(r) + "\"" +
            colour_attr("fill", fill) + colour_attr("stroke", stroke) +
            (stroke ? " stroke-width=\"" + num(width) + "\"" : std::string()) + "/>\n";
  }
  void polygon(const std::vector<std::pair<double, double>>& pts, std::uint32_t fill,
               std::uint32_t stroke, double width) override {
    body += "<polygon" + colour_attr("fill", fill) + colour_attr("stroke", stroke) +
            (stroke ? " stroke-width=\"" + num(width) + "\"" : std::string()) + " points=\"";
    for (auto& [x, y] : pts) body += num(x) + "," + num(y) + " ";
    body += "\"/>\n";
  }
  void text(double x, double y, std::string_view s, double size, std::uint32_t col, Anchor a,
            bool bold, bool vertical) override {
    const char* anchor = a == Anchor::Left ? "start" : a == Anchor::Center ? "middle" : "end";
    body += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + num(size) +
            "\" text-anchor=\"" + anchor + "\" dominant-baseline=\"central\"" +
            colour_attr("fill", col) + (bold ? " font-weight=\"bold\"" : "") +
            (vertical ? " transform=\"rotate(-90 " + num(x) + " " + num(y) + ")\"" : "") + ">" +
            xml_escape(s) + "</text>\n";
  }
  double text_width(std::string_view s, double size) override { return estimate_width(s, size); }
};

#if defined(WS_HAVE_CAIRO)
class CairoCanvas : public Canvas {
 public:
  explicit CairoCanvas(cairo_t* cr) : cr_(cr) {
    cairo_select_font_face(cr_, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  }
  void line(double x0, double y0, double x1, double y1, std::uint32_t col, double width,
            bool dashed) override {
    if (!col) return;
    set(col);
    cairo_set_line_width(cr_, width);
    const double dash[] = {7, 4};
    cairo_set_dash(cr_, dash, dashed ? 2 : 0, 0);
    cairo_move_to(cr_, x0, y0);
    cairo_line_to(cr_, x1, y1);
    cairo_stroke(cr_);
    cairo_set_dash(cr_, nullptr, 0, 0);
  }
  void polyline(const std::vector<std::pair<double, double>>& pts, std::uint32_t col,
                double width) override {
    if (pts.empty() || !col) return;
    set(col);
    cairo_set_line_width(cr_, width);
    cairo_set_line_join(cr_, CAIRO_LINE_JOIN_ROUND);
    cairo_move_to(cr_, pts[0].first, pts[0].second);
    for (std::size_t i = 1; i < pts.size(); ++i) cairo_line_to(cr_, pts[i].first, pts[i].second);
    cairo_stroke(cr_);
  }
  void rect(double x0, double y0, double x1, double y1, std::uint32_t fill, std::uint32_t stroke,
            double width) override {
    cairo_rectangle(cr_, x0, y0, x1 - x0, y1 - y0);
    fill_and_stroke(fill, stroke, width);
  }
  void circle(double cx, double cy, double r, std::uint32_t fill, std::uint32_t stroke,
              double width) override {
    cairo_new_sub_path(cr_);
    cairo_arc(cr_, cx, cy, r, 0, 2 * M_PI);
    fill_and_stroke(fill, stroke, width);
  }
  void polygon(const std::vector<std::pair<double, double>>& pts, std::uint32_t fill,
               std::uint32_t stroke, double width) override {
    if (pts.empty()) return;
    cairo_move_to(cr_, pts[0].first, pts[0].second);
    for (std::size_t i = 1; i < pts.size(); ++i) cairo_line_to(cr_, pts[i].first, pts[i].second);
    cairo_close_path(cr_);
    fill_and_stroke(fill, stroke, width);
  }
  void text(double x, double y, std::string_view s, double size, std::uint32_t col, Anchor a,
            bool bold, bool vertical) override {
    const std::string str(s);
    cairo_select_font_face(cr_, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr_, size);
    cairo_text_extents_t te;
    cairo_text_extents(cr_, str.c_str(), &te);
    cairo_font_extents_t fe;
    cairo_font_extents(cr_, &fe);
    set(col);
    cairo_save(cr_);
    cairo_translate(cr_, x, y);
    if (vertical) {
      cairo_rotate(cr_, -M_PI / 2);
      a = Anchor::Center;
    }
    double dx = a == Anchor::Left ? 0 : a == Anchor::Center ? -te.x_advance / 2 : -te.x_advance;
    cairo_move_to(cr_, dx, (fe.ascent - fe.descent) / 2);
    cairo_show_text(cr_, str.c_str());
    cairo_restore(cr_);
  }
  // Measured in the regular face, whatever text() drew last: the layout measures before
  // anything is drawn, the painter after bold text, and both must agree.
  double text_width(std::string_view s, double size) override {
    const std::string str(s);
    cairo_select_font_face(cr_, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr_, size);
    cairo_text_extents_t te;
    cairo_text_extents(cr_, str.c_str(), &te);
    return te.x_advance;
  }

 private:
  // Fills and/or strokes the current path, then clears it.
  void fill_and_stroke(std::uint32_t fill, std::uint32_t stroke, double width) {
    if (fill) {
      set(fill);
      stroke ? cairo_fill_preserve(cr_) : cairo_fill(cr_);
    }
    if (stroke) {
      set(stroke);
      cairo_set_line_width(cr_, width);
      cairo_stroke(cr_);
    }
    cairo_new_path(cr_);
  }
  void set(std::uint32_t c) {
    cairo_set_source_rgba(cr_, (c >> 24) / 255.0, ((c >> 16) & 0xFF) / 255.0,
                          ((c >> 8) & 0xFF) / 255.0, (c & 0xFF) / 255.0);
  }
  cairo_t* cr_;
};

cairo_status_t append_png(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}
#endif

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char ch : s) {
    if (ch == '"') o += '"';
    o += ch;
  }
  return o + "\"";
}

std::string csv_num(double v) {
  if (!std::isfinite(v)) return "";
  char b[40];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

// One line of meta text must stay one line in a CSV comment.
std::string one_line(std::string s) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return s;
}

// An export's painting: the whole image, light theme, type scaled to its height.
void paint_export(const ChartSpec& c, Canvas& cv, int width, int height) {
  PaintOptions o;
  o.font = std::max(10.0, height / 38.0);
  paint_chart(c, cv, 0, 0, width, height, o);
}

}  // namespace

std::string to_svg(const ChartSpec& c, int width, int height) {
  SvgCanvas cv;
  paint_export(c, cv, width, height);
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
       "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) +
       " " + std::to_string(height) +
       "\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n";
  s += "<title>" + xml_escape(c.title) + "</title>\n";
  const sim::SourceWording w = chart_sources(c);
  if (!c.meta.empty() || !w.footer.empty()) {
    s += "<desc>";
    if (!w.footer.empty()) s += xml_escape(w.footer) + "\n";
    for (const auto& [k, v] : c.meta) s += xml_escape(k) + ": " + xml_escape(v) + "\n";
    s += "</desc>\n";
  }
  s += cv.body;
  s += "</svg>\n";
  return s;
}

std::string to_csv(const ChartSpec& c) {
  std::string s;
  s += "# title: " + one_line(c.title) + "\n";
  s += "# x: " + one_line(c.x_label) + "\n";
  s += "# y: " + one_line(y_axis_title(c)) + "\n";
  for (const auto& [k, v] : c.meta) s += "# " + one_line(k) + ": " + one_line(v) + "\n";
  const sim::SourceWording w = chart_sources(c);
  if (!w.footer.empty()) s += "# " + one_line(w.footer) + "\n";
  for (const RefLine& r : c.refs) {
    const std::string src = sim::to_string(r.source);
    s += "# reference " + one_line(r.name) + ": " + csv_num(r.y) +
         (src.empty() ? "" : " (" + one_line(src) + ")") + "\n";
  }
  s += "# wrong = 1: the run's output was wrong; its value is left empty on purpose\n";
  s += "# columns source and source_detail: where each value comes from (measured, recorded, "
       "modelled; empty for a count), and its device and date or the model's bound part\n";
  s += "series,kind,x,category,y,wrong,source,source_detail\n";
  for (const Series& se : c.series) {
    const std::size_t n = std::min(se.x.size(), se.y.size());
    for (std::size_t i = 0; i < n; ++i) {
      const bool wrong = se.wrong_at(i);
      const sim::Provenance& src = se.source_at(i);
      std::string cat;
      if (se.x[i] >= 0 && se.x[i] == std::floor(se.x[i]) && std::size_t(se.x[i]) < c.categories.size())
        cat = c.categories[std::size_t(se.x[i])];
      s += csv_field(se.name) + "," + std::string(to_string(se.kind)) + "," + csv_num(se.x[i]) +
           "," + csv_field(cat) + "," + (wrong ? std::string() : csv_num(se.y[i])) + "," +
           (wrong ? "1" : "0") + "," + std::string(src.source == sim::Source::None ? "" : sim::short_label(src)) +
           "," + csv_field(sim::detail(src)) + "\n";
    }
  }
  return s;
}

bool to_png(const ChartSpec& c, int width, int height, std::string& png, std::string& err) {
  png.clear();
  if (width < 16 || height < 16 || width > 16384 || height > 16384) {
    err = "chart size " + std::to_string(width) + "x" + std::to_string(height) +
          " is outside 16..16384 pixels";
    return false;
  }
#if defined(WS_HAVE_CAIRO)
  cairo_surface_t* surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  cairo_t* cr = cairo_create(surf);
  CairoCanvas cv(cr);
  paint_export(c, cv, width, height);
  cairo_surface_flush(surf);
  const cairo_status_t st = cairo_surface_write_to_png_stream(surf, append_png, &png);
  cairo_destroy(cr);
  cairo_surface_destroy(surf);
  if (st != CAIRO_STATUS_SUCCESS) {
    err = std::string("cairo could not encode the PNG: ") + cairo_status_to_string(st);
    return false;
  }
  return true;
#else
  err = "this build has no cairo: export the chart as SVG or CSV instead";
  return false;
#endif
}

bool write_png(const ChartSpec& c, const std::string& path, int width, int height,
               std::string& err) {
  std::string png;
  if (!to_png(c, width, height, png, err)) return false;
  const io::WriteResult r = io::write_file(path, png);
  if (!r.ok) err = r.error;
  return r.ok;
}

}  // namespace ws::viz
