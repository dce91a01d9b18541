#pragma once
// Exports from the window: charts as PNG/SVG/CSV and the whole window as PNG. Every file is
// written atomically (io::write_file) and never over an existing one: a numeric
// suffix picks a free name.
#include <string>

#include "app/gui/platform/glfw_gl3.h"
#include "viz/chart.h"

namespace ws::gui {

// `name` with anything but letters, digits, '-', '_' and '.' turned into '-'.
std::string file_safe(const std::string& name);

// Writes `data` to dir/base.ext, or dir/base-1.ext, dir/base-2.ext, ... whichever is free
// first. @post on success returns the path written, which did not exist before; on failure
// returns "" with `err` saying why (no existing file is touched).
std::string write_new_file(const std::string& dir, const std::string& base, const std::string& ext,
                           const std::string& data, std::string& err);

// PNG bytes of a framebuffer read-back.
bool encode_png(const platform::Pixels& px, std::string& png, std::string& err);

// One chart in one format ("png", "svg" or "csv"); returns the path written or "" with err.
std::string export_chart(const viz::ChartSpec& c, const std::string& format, const std::string& dir,
                         const std::string& base, std::string& err);

}  // namespace ws::gui
