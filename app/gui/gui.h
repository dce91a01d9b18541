#pragma once
// Entry to the desktop application. main() calls run(); the GUI never calls exit().
#include <string>

#include "kernels/catalogue.h"
#include "viz/chart.h"

namespace ws::gui {

struct GuiOptions {
  std::string backend = "auto";   // "auto" (CUDA if usable, else emulator), "emu", "cuda"
  std::string family, variant;    // initial kernel; empty = the first in the catalogue
  Params params;                  // --set key=value
  bool presenter = false;         // projector mode: large font, high contrast, full screen
  std::string lesson;             // a lesson file to open in the player
  int step = 0;                   // its step to open, from 1 (its `##` sections); 0: where
                                  // the student left off
  std::string puzzle;             // a puzzle to open in the kernel editor
  std::string edit;               // the student's kernel file ("" = kept per puzzle)
  // Headless screenshot: render a few frames of one view with the launch above, write
  // the PNG, return. Views: bank-map, sector-map, divergence, charts, metrics, stepper,
  // compare, lesson, editor (needs a puzzle), window (the whole window).
  std::string screenshot;
  bool force = false;             // --force: the screenshot may replace an existing file
  std::string view = "window";
  int width = 1600, height = 1000;
  std::string font;               // a TTF path; missing -> notice in the window, ImGui's font
  bool hardware = false;          // read CUPTI's counters with every main run
  std::string hardware_from;      // counters recorded by `metrics --hardware --json` (shown
                                  // for the same launch, labelled recorded)
  bool sass = false;              // the source view starts with every line's SASS unfolded
};

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
