#pragma once
// One open window with its state and worker: what run() drives frame by frame, and what the
// GUI tests drive to render views through the real GL window and check what was drawn.
#include <memory>
#include <string>
#include <vector>

#include "app/gui/app_state.h"
#include "app/gui/gui.h"
#include "app/gui/panels.h"
#include "app/gui/platform/glfw_gl3.h"
#include "app/model/worker.h"

namespace ws::gui {

struct SessionOptions {
  bool visible = true;
  bool vsync = true;
  bool idle_wait = true;      // wait for input between frames when nothing moves
  // Take the input focus when the window opens. Tests turn it off: on a display shared by
  // tests running side by side, a new window's focus makes ImGui clear the keys that
  // another test has just pressed.
  bool focus = true;
  BackendFactory backend;     // empty: from GuiOptions::backend
};

// The font used when none is given: app/paths.h default_font() (fontconfig, then DejaVu).

class Session {
 public:
  // nullptr with `err` set when the window cannot open.
  static std::unique_ptr<Session> open(const GuiOptions& opt, const SessionOptions& so, std::string& err);
  ~Session();

  // One frame: input, results from the worker, keys, the UI, render, present. With
  // `capture`, the rendered frame is read back (pixels()) before it is presented.
  FrameDraw frame(bool capture = false);
  const platform::Pixels& pixels() const { return pixels_; }
  // Renders frames until every requested run has come back and been installed (then two
  // more, so scroll positions settle). @post true iff nothing is pending; else err names
  // what did not finish within `timeout_s`.
  bool settle(double timeout_s, std::string& err);

  AppState& state() { return *state_; }
  platform::Window& window() { return *window_; }
  Worker& worker() { return *worker_; }
  // CPU time of each frame so far (input handling to present), in ms.
  const std::vector<double>& frame_ms() const { return frame_ms_; }

 private:
  Session() = default;
  void apply_font();

  GuiOptions opt_;
  SessionOptions so_;
  std::unique_ptr<platform::Window> window_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<AppState> state_;
  platform::Pixels pixels_;
  std::vector<double> frame_ms_;
  std::string font_path_;
  bool presenter_applied_ = false;
  bool tab_down_ = false;  // Tab was down last frame (a press is handed on once)
};

struct FrameStats {
  int frames = 0;
  double median_ms = 0, p99_ms = 0, max_ms = 0;
};
// @post median_ms <= p99_ms <= max_ms; frames == ms.size().
FrameStats frame_stats(std::vector<double> ms);

// The screenshot mode of run(): renders opt.view for opt's launch and writes opt.screenshot.
// Returns 0, or 1 with a message on `err_out`.
// Beside the PNG it writes FILE.txt (screenshot_text_path): frame_text() of the frame.
int render_screenshot(const GuiOptions& opt, std::string& message);
// "shot.png" -> "shot.txt"
std::string screenshot_text_path(const std::string& png);

}  // namespace ws::gui
