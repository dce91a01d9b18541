// One open window with its state and worker.
#include "app/gui/session.h"

#include "io/atomic_file.h"

#include <chrono>
#include <thread>

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "app/gui/export.h"
#include "app/paths.h"
#include "viz/chart.h"

namespace ws::gui {

std::unique_ptr<Session> Session::open(const GuiOptions& opt, const SessionOptions& so, std::string& err) {
  if (opt.width < 320 || opt.height < 240 || opt.width > 16384 || opt.height > 16384) {
    err = "window size " + std::to_string(opt.width) + "x" + std::to_string(opt.height) +
          " is outside 320x240 .. 16384x16384";
    return nullptr;
  }
  std::unique_ptr<Session> s(new Session());
  s->opt_ = opt;
  s->so_ = so;
  s->font_path_ = opt.font.empty() ? paths::default_font() : opt.font;
  platform::WindowOptions wo;
  wo.width = opt.width;
  wo.height = opt.height;
  wo.visible = so.visible;
  wo.vsync = so.vsync;
  wo.focus = so.focus;
  wo.fullscreen = opt.presenter && so.visible && opt.screenshot.empty();
  wo.font = s->font_path_;
  wo.font_size = opt.presenter ? 26 : 17;
  wo.title = "warpscope";
  s->window_ = platform::Window::open(wo, err);
  if (!s->window_) return nullptr;
  s->worker_ = std::make_unique<Worker>(so.backend ? so.backend : backend_factory(opt.backend));
  s->worker_->set_wake([] { platform::Window::wake(); });
  s->state_ = std::make_unique<AppState>(opt, *s->worker_);
  s->state_->font_dirty = true;
  return s;
}

Session::~Session() {
  // The state refers to the worker, the worker outlives no one: tear down in that order.
  state_.reset();
  worker_.reset();
  window_.reset();
}

void Session::apply_font() {
  AppState& st = *state_;
  window_->set_clear_colour(apply_style(st.presenter_on));
  std::string err;
  const float size = st.presenter_on ? st.presenter_font_size : st.font_size;
  if (!window_->set_font(font_path_, size, err)) st.add_notice(err, true);
  st.font_dirty = false;
}

FrameDraw Session::frame(bool capture) {
  AppState& st = *state_;
  // Sleep until input or a result arrives when nothing moves; while a run is under way,
  // wake ten times a second to show its elapsed time. The worker wakes the loop when it
  // finishes, so no frame is spent spinning beside a kernel on a small machine.
  const bool still = !st.results.stepper.playing && !st.font_dirty && !st.window_png_request;
  window_->poll_events(so_.idle_wait && still, st.any_pending() ? 0.1 : 2.0);
  const double t0 = now_seconds();
  if (st.font_dirty) apply_font();
  if (st.fullscreen_request) {
    window_->set_fullscreen(!window_->fullscreen());
    st.fullscreen_request = false;
  }
  // Tab moves between a lesson's open predicts: taken from ImGui before its frame sees it.
  {
    ImGuiIO& io = ImGui::GetIO();
    const bool tab = io.KeysDown[platform::Keys::Tab];
    if (tab && st.panels[View::Lesson] && st.lesson && st.lesson->takes_typing() && !io.WantTextInput) {
      if (!tab_down_) st.lesson->typed_tab();
      io.KeysDown[platform::Keys::Tab] = false;
    }
    tab_down_ = tab;
  }
  window_->new_frame();
  st.poll();
  handle_keys(st);
  st.results.stepper.tick(ImGui::GetIO().DeltaTime);
  FrameDraw fd = draw_ui(st);
  window_->render();
  if (capture) check_text(fd);
  if (capture || st.window_png_request) pixels_ = window_->read_pixels();
  if (st.window_png_request) {
    st.window_png_request = false;
    std::string png, err, path;
    if (encode_png(pixels_, png, err))
      path = write_new_file(st.export_dir, "window-" + st.selection().family + "-" + st.selection().variant, "png",
                            png, err);
    st.last_export = path.empty() ? err : "saved to " + path;
    st.last_export_failed = path.empty();
    st.last_export_at = ImGui::GetTime();
  }
  window_->present();
  if (st.quit_request) window_->request_close();
  frame_ms_.push_back((now_seconds() - t0) * 1000.0);
  if (frame_ms_.size() >= 30 && frame_ms_.size() % 10 == 0) {
    std::vector<double> last(frame_ms_.end() - long(std::min<std::size_t>(frame_ms_.size(), 120)), frame_ms_.end());
    st.frame_ms_median = frame_stats(std::move(last)).median_ms;
  }
  return fd;
}

bool Session::settle(double timeout_s, std::string& err) {
  const double end = now_seconds() + timeout_s;
  while (now_seconds() < end) {
    frame();
    if (!state_->any_pending() && worker_->idle()) {
      frame();
      frame();
      return true;
    }
    worker_->wait_result(0.05);
  }
  auto k = worker_->running();
  err = "timed out after " + std::to_string(int(timeout_s)) + " s waiting for the " +
        (k ? std::string(to_string(*k)) : std::string("backend")) + " of " + state_->selection().family + "/" +
        state_->selection().variant + " (try a smaller size, e.g. --set n=256)";
  return false;
}

FrameStats frame_stats(std::vector<double> ms) {
  FrameStats f;
  f.frames = int(ms.size());
  if (ms.empty()) return f;
  std::sort(ms.begin(), ms.end());
  auto q = [&](double p) {
    const std::size_t i = std::min(ms.size() - 1, std::size_t(std::ceil(p * double(ms.size()))) - (p > 0 ? 1 : 0));
    return ms[i];
  };
  f.median_ms = q(0.5);
  f.p99_ms = q(0.99);
  f.max_ms = ms.back();
  return f;
}

int render_screenshot(const GuiOptions& opt, std::string& message) {
  View view;
  if (!view_from_string(opt.view, view)) {
    message = "unknown view '" + opt.view + "' (views: " + view_names() + ")";
    return 2;  // bad input, like every other command's
  }
  const viz::ViewInfo& vi = viz::view_info(view);
  if (vi.has(viz::kNeedsLesson) && opt.lesson.empty()) {
    message = "the " + std::string(vi.name) + " view needs a lesson: add --lesson FILE";
    return 2;
  }
  if (vi.has(viz::kNeedsPuzzle) && opt.puzzle.empty()) {
    message = "the " + std::string(vi.name) + " view needs a puzzle: add --puzzle FILE";
    return 2;  // bad input, as --view lesson without --lesson
  }
  SessionOptions so;
  so.visible = false;
  so.vsync = false;
  so.idle_wait = false;
  std::string err;
  auto s = Session::open(opt, so, err);
  if (!s) {
    message = "cannot render the screenshot: " + err;
    return 1;
  }
  AppState& st = s->state();
  st.single_view = view;
  st.charts.live_charts = vi.has(viz::kNeedsCharts);
  if (vi.has(viz::kNeedsCompare)) st.set_compare(true);
  if (!st.refusal().empty()) {
    message = "cannot run " + st.selection().family + "/" + st.selection().variant + ": " + st.refusal();
    return 1;
  }
  constexpr double kTimeout = 300;
  if (!s->settle(kTimeout, err)) {
    message = err;
    return 1;
  }
  if (vi.has(viz::kNeedsCharts)) {
    // The charts need more than one run: a sweep, and a second point in the history.
    st.request_sweep();
    st.request_run();
    if (!s->settle(kTimeout, err)) {
      message = err;
      return 1;
    }
  }
  if (st.editor && st.editor->puzzle_errors().empty()) {
    // The student's kernel, checked: its marks and the views of its run.
    st.editor->check(st);
    const auto t0 = std::chrono::steady_clock::now();
    while (st.editor->checking() || !st.editor->has_result()) {
      s->frame();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(int(kTimeout))) {
        message = "the kernel check did not finish in 300 s";
        return 1;
      }
    }
    s->frame();
  }
  if (st.results.main.valid() && !st.results.main.run->error.empty()) {
    message = "cannot run " + st.selection().family + "/" + st.selection().variant + ": " + st.results.main.run->error;
    return 1;
  }
  // A lesson's step has already opened the stepper where the window opens it (its lab's
  // `at:` event, else the first): the screenshot shows what the student sees. Without a
  // lesson, the event the view is about.
  if (opt.lesson.empty()) st.results.stepper.seek(st.results.interesting_pos(view));
  for (int i = 0; i < 3; ++i) s->frame();
  const FrameDraw fd = s->frame(true);
  std::string png;
  if (!encode_png(s->pixels(), png, err)) {
    message = err;
    return 1;
  }
  // The one writer; an existing file only with --force (checked before rendering too).
  io::WriteOptions wo;
  wo.overwrite = opt.force;
  if (const io::WriteResult w = io::write_file(opt.screenshot, png, wo); !w.ok) {
    message = "cannot write the screenshot: " + w.error;
    return 1;
  }
  // Beside it, the text the frame drew: what a test or a script reads instead of pixels.
  const std::string txt = screenshot_text_path(opt.screenshot);
  if (const io::WriteResult w = io::write_file(txt, frame_text(fd), wo); !w.ok) {
    message = "cannot write " + txt + ": " + w.error;
    return 1;
  }
  message = "wrote " + opt.screenshot + " and " + txt + " (" + std::string(to_string(view)) + ", " +
            std::to_string(s->pixels().width) + "x" + std::to_string(s->pixels().height) + ")";
  return 0;
}

std::string screenshot_text_path(const std::string& png) {
  return std::filesystem::path(png).replace_extension(".txt").string();
}

int lesson_chart(const GuiOptions& opt, viz::ChartSpec& chart, std::string& message) {
  // ImGui without a renderer: the frames are laid out and drawn into lists that nobody
  // renders, so the state and the panels are those of the window, with no display needed.
  ImGuiContext* ctx = ImGui::CreateContext();
  struct Guard {
    ImGuiContext* c;
    ~Guard() { ImGui::DestroyContext(c); }
  } guard{ctx};
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(float(opt.width), float(opt.height));
  unsigned char* px = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
  Worker worker(backend_factory(opt.backend));
  AppState st(opt, worker);
  st.charts.live_charts = true;  // the window's default: the variants follow the step's lab
  auto frame = [&] {
    io.DeltaTime = 1.0f / 60;
    ImGui::NewFrame();
    st.poll();
    FrameDraw fd = draw_ui(st);
    ImGui::Render();
    return fd;
  };
  for (const Notice& n : st.notices)
    if (n.error) {
      message = n.text;
      return 1;
    }
  constexpr double kTimeout = 300;
  const double end = now_seconds() + kTimeout;
  // Until every run the step asked for (its lab, the variants, the lesson's reference
  // runs) is in and installed, and a few frames more for what they start.
  int quiet = 0;
  while (quiet < 3) {
    if (now_seconds() > end) {
      message = "the lesson's runs did not finish in 300 s";
      return 1;
    }
    frame();
    if (!st.any_pending() && worker.idle()) ++quiet;
    else {
      quiet = 0;
      worker.wait_result(0.05);
    }
  }
  if (st.results.main.valid() && !st.results.main.run->error.empty()) {
    message = "cannot run " + st.selection().family + "/" + st.selection().variant + ": " + st.results.main.run->error;
    return 1;
  }
  const FrameDraw fd = frame();
  chart = fd.bars_spec_set ? fd.bars_spec : st.bars_chart();
  message = fd.bars_spec_set ? "" : "this step's view shows no chart; its Variants chart as the Numbers panel draws it";
  return 0;
}

}  // namespace ws::gui
