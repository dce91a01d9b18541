#pragma once
// The lesson slot of the window. The layout reserves a panel for lessons and draws
// whatever LessonPanel make_lesson_panel() returns: app/gui/lesson_player.cpp (owned by the
// lessons engineer) when it is built, else lesson_none.cpp, which says "No lesson open".
// The panel talks to the rest of the app only through LessonHost.
#include <cstdint>
#include <memory>
#include <string>

#include "kernels/backend.h"

namespace ws::gui {

// What a lesson may ask of the app. Implemented by the app's state (app_state.cpp).
class LessonHost {
 public:
  virtual ~LessonHost() = default;
  // Shows this kernel with these parameters in every view and runs it on the worker thread
  // (the UI does not wait). Invalid parameters are refused with a message in the window.
  virtual void open_lab(const std::string& family, const std::string& variant,
                        const Params& params) = 0;
  // The latest finished main run (nullptr before the first) and a number that changes with
  // every new one, so a panel can tell when to judge goals again.
  virtual std::shared_ptr<const RunResult> latest_result() const = 0;
  virtual std::uint64_t result_generation() const = 0;
  virtual bool run_pending() const = 0;
  // The device the runs use ("emulator" on the emulator); what facts_from_run needs.
  virtual DeviceInfo device() const = 0;
  virtual bool presenter() const = 0;
  // A one-line message in the window's notice area.
  virtual void notice(const std::string& text) = 0;
};

class LessonPanel {
 public:
  virtual ~LessonPanel() = default;
  // Opens a lesson file; false with `err` set (shown in the window) when it cannot be used.
  virtual bool open(const std::string& path, std::string& err) = 0;
  virtual bool is_open() const = 0;
  virtual std::string title() const = 0;
  // Draws inside the current ImGui window (the layout's lesson slot).
  virtual void draw(LessonHost& host) = 0;
};

std::unique_ptr<LessonPanel> make_lesson_panel();

}  // namespace ws::gui
