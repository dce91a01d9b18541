// GLFW + OpenGL 3 + ImGui backends. The only file that talks to GLFW and GL.
#include "app/gui/platform/glfw_gl3.h"

#include "app/paths.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <GL/gl.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <mutex>

namespace ws::gui::platform {

namespace {

std::string g_glfw_error;
void on_glfw_error(int code, const char* msg) {
  g_glfw_error = "GLFW error " + std::to_string(code) + ": " + (msg ? msg : "");
}

// glfwInit once per process; GLFW cannot be re-initialised cheaply and tests open many
// windows.
bool glfw_ready(std::string& err) {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] {
    glfwSetErrorCallback(on_glfw_error);
    ok = glfwInit() == GLFW_TRUE;
  });
  if (!ok) err = "cannot initialise GLFW" + (g_glfw_error.empty() ? std::string() : " (" + g_glfw_error + ")");
  return ok;
}

bool have_display_env() {
  const char* x = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (x && *x) || (w && *w);
}

}  // namespace

std::uint32_t Pixels::at(int x, int y) const {
  if (x < 0 || y < 0 || x >= width || y >= height) return 0;
  const std::size_t o = (std::size_t(y) * std::size_t(width) + std::size_t(x)) * 4;
  return (std::uint32_t(rgba[o]) << 24) | (std::uint32_t(rgba[o + 1]) << 16) |
         (std::uint32_t(rgba[o + 2]) << 8) | rgba[o + 3];
}

bool display_available() {
  if (!have_display_env()) return false;
  std::string err;
  return glfw_ready(err);
}

struct Window::Impl {
  GLFWwindow* win = nullptr;
  ImGuiContext* ctx = nullptr;
};

std::unique_ptr<Window> Window::open(const WindowOptions& o, std::string& err) {
  if (!have_display_env()) {
    err = "no display: DISPLAY and WAYLAND_DISPLAY are unset (run under xvfb-run for a "
          "virtual one, or use the headless commands)";
    return nullptr;
  }
  if (!glfw_ready(err)) return nullptr;
  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_VISIBLE, o.visible ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_FOCUSED, o.focus ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_FOCUS_ON_SHOW, o.focus ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_FALSE);
  g_glfw_error.clear();
  GLFWwindow* w = glfwCreateWindow(o.width, o.height, o.title.c_str(), nullptr, nullptr);
  if (!w) {
    err = "cannot open a " + std::to_string(o.width) + "x" + std::to_string(o.height) +
          " OpenGL 3.3 window" + (g_glfw_error.empty() ? std::string() : " (" + g_glfw_error + ")");
    return nullptr;
  }
  glfwMakeContextCurrent(w);
  glfwSwapInterval(o.vsync ? 1 : 0);

  std::unique_ptr<Window> win(new Window());
  win->impl_ = std::make_unique<Impl>();
  win->impl_->win = w;
  IMGUI_CHECKVERSION();
  win->impl_->ctx = ImGui::CreateContext();
  ImGui::SetCurrentContext(win->impl_->ctx);
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the layout is computed, not remembered
  // No keyboard navigation: the arrows, space and letters step the kernel instead.
  ImGui::StyleColorsDark();
  // Anti-aliased fills triple the vertices of every rounded shape; the views are mostly
  // axis-aligned cells, and a software rasteriser (Mesa llvmpipe) pays for each vertex.
  ImGui::GetStyle().AntiAliasedFill = false;
  ImGui_ImplGlfw_InitForOpenGL(w, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  win->font_path_ = o.font;
  win->font_size_ = o.font_size;
  win->apply_font();
  if (o.fullscreen) win->set_fullscreen(true);
  return win;
}

Window::~Window() {
  if (!impl_) return;
  ImGui::SetCurrentContext(impl_->ctx);
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext(impl_->ctx);
  glfwDestroyWindow(impl_->win);
}

bool Window::apply_font() {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  font_error_.clear();
  ImFont* f = nullptr;
  if (!font_path_.empty()) {
    // stb_truetype trusts its input (a text file aborts on an assertion, a truncated
    // font reads past its buffer): only a font whose offsets all check out reaches it.
    if (std::string why = paths::font_problem(font_path_); !why.empty()) {
      font_error_ = why + ": using ImGui's built-in font";
    } else {
      ImFontConfig cfg;
      cfg.OversampleH = 2;
      // Latin-1 and the ellipsis: with a glyph for U+2026 ImGui marks the text it shortens
      // (a tab label, a column) with it, which the frame's text check reads as cut.
      static const ImWchar ranges[] = {0x0020, 0x00FF, 0x2026, 0x2026, 0};
      cfg.GlyphRanges = ranges;
      f = io.Fonts->AddFontFromFileTTF(font_path_.c_str(), font_size_, &cfg);
      if (!f) font_error_ = "font " + font_path_ + " could not be read: using ImGui's built-in font";
    }
  }
  io.FontGlobalScale = 1.0f;
  if (!f) {
    ImFontConfig cfg;
    cfg.SizePixels = 13.0f;
    io.Fonts->AddFontDefault(&cfg);
    // The built-in bitmap font has one size: scale it to roughly the size asked for.
    io.FontGlobalScale = std::max(1.0f, font_size_ / 13.0f);
  }
  io.Fonts->Build();
  // The first atlas is uploaded lazily by the backend's first NewFrame; later ones by hand.
  if (font_uploaded_) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  font_dirty_ = false;
  return f != nullptr;
}

bool Window::set_font(const std::string& path, float size, std::string& err) {
  font_path_ = path;
  font_size_ = std::clamp(size, 8.0f, 96.0f);
  font_dirty_ = true;
  // Probe now so the caller can show the problem; the atlas itself is rebuilt between frames.
  if (!path.empty())
    if (std::string why = paths::font_problem(path); !why.empty()) {
      err = why + ": using ImGui's built-in font";
      return false;
    }
  return true;
}

bool Window::should_close() const { return glfwWindowShouldClose(impl_->win); }
void Window::wake() { glfwPostEmptyEvent(); }

void Window::request_close() { glfwSetWindowShouldClose(impl_->win, GLFW_TRUE); }

void Window::poll_events(bool idle, double wait_s) {
  ImGui::SetCurrentContext(impl_->ctx);
  if (idle)
    glfwWaitEventsTimeout(wait_s);
  else
    glfwPollEvents();
}

void Window::new_frame() {
  ImGui::SetCurrentContext(impl_->ctx);
  if (font_dirty_) apply_font();
  ImGui_ImplOpenGL3_NewFrame();
  font_uploaded_ = true;
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

void Window::render() {
  ImGui::Render();
  int w, h;
  glfwGetFramebufferSize(impl_->win, &w, &h);
  glViewport(0, 0, w, h);
  glClearColor(float(clear_ >> 24) / 255.0f, float((clear_ >> 16) & 0xFF) / 255.0f,
               float((clear_ >> 8) & 0xFF) / 255.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Window::present() { glfwSwapBuffers(impl_->win); }

Pixels Window::read_pixels() const {
  Pixels p;
  glfwGetFramebufferSize(impl_->win, &p.width, &p.height);
  p.rgba.resize(std::size_t(p.width) * std::size_t(p.height) * 4);
  glFinish();
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  std::vector<std::uint8_t> flipped(p.rgba.size());
  glReadPixels(0, 0, p.width, p.height, GL_RGBA, GL_UNSIGNED_BYTE, flipped.data());
  // GL's rows run bottom-up.
  const std::size_t row = std::size_t(p.width) * 4;
  for (int y = 0; y < p.height; ++y)
    std::copy_n(flipped.data() + std::size_t(p.height - 1 - y) * row, row, p.rgba.data() + std::size_t(y) * row);
  return p;
}

int Window::width() const {
  int w, h;
  glfwGetFramebufferSize(impl_->win, &w, &h);
  return w;
}
int Window::height() const {
  int w, h;
  glfwGetFramebufferSize(impl_->win, &w, &h);
  return h;
}

void Window::set_fullscreen(bool on) {
  if (on == fullscreen_) return;
  GLFWmonitor* mon = glfwGetPrimaryMonitor();
  if (on) {
    if (!mon) return;
    glfwGetWindowPos(impl_->win, &windowed_[0], &windowed_[1]);
    glfwGetWindowSize(impl_->win, &windowed_[2], &windowed_[3]);
    const GLFWvidmode* mode = glfwGetVideoMode(mon);
    glfwSetWindowMonitor(impl_->win, mon, 0, 0, mode->width, mode->height, mode->refreshRate);
  } else {
    glfwSetWindowMonitor(impl_->win, nullptr, windowed_[0], windowed_[1],
                         std::max(windowed_[2], 640), std::max(windowed_[3], 480), 0);
  }
  fullscreen_ = on;
}

void Window::set_title(const std::string& t) { glfwSetWindowTitle(impl_->win, t.c_str()); }

std::string Window::gl_renderer() const {
  const auto* r = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const auto* v = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  return std::string(r ? r : "?") + " / OpenGL " + (v ? v : "?");
}

}  // namespace ws::gui::platform
