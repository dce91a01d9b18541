// Exports from the window.
#include "app/gui/export.h"

#include "io/atomic_file.h"

#include <stb_image_write.h>
#include <sys/stat.h>

#include <cerrno>

namespace ws::gui {

std::string file_safe(const std::string& name) {
  std::string s;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    s += ok ? c : '-';
  }
  return s.empty() ? std::string("export") : s;
}

std::string write_new_file(const std::string& dir, const std::string& base, const std::string& ext,
                           const std::string& data, std::string& err) {
  const std::string d = dir.empty() ? "." : dir;
  struct stat st {};
  if (::stat(d.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    err = "export folder " + d + " does not exist";
    return "";
  }
  const std::string stem = d + "/" + file_safe(base);
  for (int i = 0; i < 1000; ++i) {
    const std::string p = stem + (i ? "-" + std::to_string(i) : std::string()) + "." + ext;
    if (::stat(p.c_str(), &st) == 0) continue;
    const io::WriteResult w = io::write_file(p, data);
    if (w.ok) return p;
    const std::string& e = w.error;
    // Lost a race for this name: try the next one; any other failure is final.
    if (e.find("already exists") == std::string::npos) {
      err = e;
      return "";
    }
  }
  err = "no free file name for " + stem + "." + ext + " (1000 taken)";
  return "";
}

namespace {
void append(void* ctx, void* data, int size) {
  static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), std::size_t(size));
}
}  // namespace

bool encode_png(const platform::Pixels& px, std::string& png, std::string& err) {
  png.clear();
  if (px.width <= 0 || px.height <= 0 || px.rgba.size() < std::size_t(px.width) * px.height * 4) {
    err = "nothing to save: the window has no pixels";
    return false;
  }
  if (!stbi_write_png_to_func(append, &png, px.width, px.height, 4, px.rgba.data(), px.width * 4)) {
    err = "could not encode the window as PNG";
    return false;
  }
  return true;
}

std::string export_chart(const viz::ChartSpec& c, const std::string& format, const std::string& dir,
                         const std::string& base, std::string& err) {
  std::string data;
  if (format == "svg") {
    data = viz::to_svg(c);
  } else if (format == "csv") {
    data = viz::to_csv(c);
  } else if (format == "png") {
    if (!viz::to_png(c, 1280, 720, data, err)) return "";
  } else {
    err = "unknown export format '" + format + "' (png, svg or csv)";
    return "";
  }
  return write_new_file(dir, base, format, data, err);
}

}  // namespace ws::gui
