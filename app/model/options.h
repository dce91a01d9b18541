#pragma once
// What the app opens with: `warpscope gui`'s options, filled by the command line (app/cli)
// and read by the window (app/gui). No window code.
#include <string>

#include "kernels/catalogue/catalogue.h"

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
  // the PNG, return. Views: the view table's names (viz/views.h): bank-map, ..., roofline,
  // compare, lesson, editor (needs a puzzle), start, window (the whole window).
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

}  // namespace ws::gui
