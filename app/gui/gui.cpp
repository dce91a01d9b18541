// Entry to the desktop application (app/gui/gui.h).
#include "app/gui/gui.h"

#include <iostream>

#include "app/gui/platform/glfw_gl3.h"
#include "app/gui/session.h"

namespace ws::gui {

bool display_available() { return platform::display_available(); }

int run(const GuiOptions& opt) {
  if (!opt.screenshot.empty()) {
    std::string message;
    const int rc = render_screenshot(opt, message);
    (rc ? std::cerr : std::cout) << (rc ? "warpscope gui: " : "") << message << "\n";
    return rc;
  }
  std::string err;
  auto s = Session::open(opt, SessionOptions{}, err);
  if (!s) {
    std::cerr << "warpscope gui: " << err << "\n";
    return 1;
  }
  while (!s->window().should_close()) s->frame();
  return 0;
}

}  // namespace ws::gui
