#pragma once
// The platform layer, in one place: the GLFW window, the OpenGL 3 context, ImGui's GLFW and
// OpenGL3 backends, fonts, the frame, and reading the framebuffer back for screenshots.
// Nothing else in the app includes GLFW or GL.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ws::gui::platform {

struct WindowOptions {
  int width = 1600, height = 1000;
  std::string title = "warpscope";
  bool visible = true;      // false: screenshots and tests (still a real GL context)
  bool fullscreen = false;  // on the primary monitor
  bool vsync = true;
  bool focus = true;        // take the input focus when shown
  std::string font;         // TTF path; "" = ImGui's built-in font
  float font_size = 17;
};

// RGBA pixels, top row first.
struct Pixels {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;
  std::uint32_t at(int x, int y) const;  // 0xRRGGBBAA; 0 outside
};

class Window {
 public:
  // nullptr with `err` set when there is no display or no GL 3 context.
  static std::unique_ptr<Window> open(const WindowOptions& o, std::string& err);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  bool should_close() const;
  void request_close();
  // Wakes a poll_events() waiting for input; safe from any thread.
  static void wake();
  // Polls (or, when `idle`, waits up to `wait_s` for) input.
  void poll_events(bool idle = false, double wait_s = 0.1);
  // Starts an ImGui frame (rebuilding the font atlas first when it changed).
  void new_frame();
  // Renders ImGui's draw data into the back buffer (does not present it).
  void render();
  // Presents the back buffer.
  void present();
  // The back buffer as drawn by render(), before present().
  Pixels read_pixels() const;
  int width() const;   // framebuffer size
  int height() const;
  // Font: rebuilt between frames. `ok` false when the TTF could not be read (ImGui's
  // built-in font is used then, scaled to the size).
  bool set_font(const std::string& path, float size, std::string& err);
  float font_size() const { return font_size_; }
  const std::string& font_error() const { return font_error_; }
  void set_fullscreen(bool on);
  bool fullscreen() const { return fullscreen_; }
  void set_title(const std::string& t);
  // The colour the frame is cleared to (0xRRGGBBAA): the panels' background, which they
  // then need not fill themselves.
  void set_clear_colour(std::uint32_t rgba) { clear_ = rgba; }
  std::string gl_renderer() const;

 private:
  Window() = default;
  bool apply_font();
  struct Impl;
  std::unique_ptr<Impl> impl_;
  float font_size_ = 17;
  std::string font_path_, font_error_;
  bool font_dirty_ = false, fullscreen_ = false, font_uploaded_ = false;
  int windowed_[4] = {0, 0, 0, 0};
  std::uint32_t clear_ = 0x171719FFu;
};

// DISPLAY or WAYLAND_DISPLAY set and glfwInit succeeds.
bool display_available();

// Key codes as the GLFW backend reports them to ImGui (io.KeysDown indices).
struct Keys {
  static constexpr int Space = 32, Right = 262, Left = 263, Down = 264, Up = 265,
                       Home = 268, End = 269, PageUp = 266, PageDown = 267,
                       Escape = 256, Tab = 258, LeftShift = 340, RightShift = 344,
                       F5 = 294, F11 = 300, F12 = 301, Equal = 61, Minus = 45,
                       KpAdd = 334, KpSubtract = 333, Enter = 257, Backspace = 259,
                       Comma = 44, Period = 46, LeftBracket = 91, RightBracket = 93;
  static constexpr int letter(char c) { return c >= 'a' && c <= 'z' ? c - 32 : c; }
};

}  // namespace ws::gui::platform
