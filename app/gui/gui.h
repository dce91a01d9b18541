#pragma once
// Entry to the desktop application. main() calls run(); the GUI never calls exit().
#include <string>

#include "app/model/options.h"
#include "viz/chart.h"

namespace ws::gui {

// True when a window can be opened (DISPLAY or WAYLAND_DISPLAY set and GLFW initialises).
bool display_available();

// Runs the window until closed (or renders the screenshot). Returns the exit code:
// 0 on success, 1 when the window cannot open or the screenshot cannot be written.
int run(const GuiOptions& opt);

// `export --lesson`: opens opt.lesson at opt.step as the window would (the same state and
// panels, drawn without a window or a display), runs it and its variants, and gives the
// chart of its Variants panel as drawn. Returns 0, or 1 with `message` saying why not.
int lesson_chart(const GuiOptions& opt, viz::ChartSpec& chart, std::string& message);

}  // namespace ws::gui
