// Keyboard shortcuts (ignored while a text field has focus).
#include "app/gui/panels/panel.h"

namespace ws::gui {

namespace {

using platform::Keys;

}  // namespace

void handle_keys(AppState& s) {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  auto pressed = [](int key, bool repeat = true) { return ImGui::IsKeyPressed(key, repeat); };
  const auto& ev = s.results.main.events();
  if (pressed(Keys::Right)) s.results.stepper.apply(viz::StepAction::Forward, ev);
  if (pressed(Keys::Left)) s.results.stepper.apply(viz::StepAction::Back, ev);
  if (pressed(Keys::Home, false)) s.results.stepper.apply(viz::StepAction::First, ev);
  if (pressed(Keys::End, false)) s.results.stepper.apply(viz::StepAction::Last, ev);
  if (pressed(Keys::Space, false))
    s.results.stepper.apply(s.results.stepper.playing ? viz::StepAction::Pause : viz::StepAction::Play, ev);
  // A lesson's steps: PageDown/PageUp wherever its panel is shown; in the presenter's script
  // also n/b (a clicker's keys), which then leave next conflict/barrier to Shift+n/Shift+b.
  const bool lesson_open = s.panels[View::Lesson] && s.lesson && s.lesson->is_open();
  const bool script = classroom(s);
  const bool shift = io.KeyShift;
  // A predict still to answer takes the typed number: its '-' and '.' are not shortcuts.
  const bool typing = lesson_open && s.lesson->takes_typing();
  if (lesson_open && pressed(Keys::PageDown, false)) s.lesson->next_step();
  if (lesson_open && pressed(Keys::PageUp, false)) s.lesson->prev_step();
  if (script && !shift && pressed(Keys::letter('n'), false)) s.lesson->next_step();
  if (script && !shift && pressed(Keys::letter('b'), false)) s.lesson->prev_step();
  if ((!script || shift) && pressed(Keys::letter('n'))) s.results.stepper.apply(viz::StepAction::NextConflict, ev);
  if (pressed(Keys::letter('p'))) s.results.stepper.apply(viz::StepAction::PrevConflict, ev);
  if ((!script || shift) && pressed(Keys::letter('b'))) s.results.stepper.apply(viz::StepAction::NextBarrier, ev);
  if (pressed(Keys::Up) && s.results.main.valid() && s.results.main.kept()) {
    const unsigned warps = s.results.main.kept()->info.warps_per_block();
    if (s.selection().warp + 1u < warps) s.set_warp(std::uint16_t(s.selection().warp + 1));
  }
  if (pressed(Keys::Down) && s.selection().warp > 0) s.set_warp(std::uint16_t(s.selection().warp - 1));
  if (pressed(Keys::letter('c'), false)) s.set_compare(!s.results.compare_mode);
  if (pressed(Keys::letter('v'), false)) {
    std::vector<std::string> names;
    for (const auto& v : catalogue())
      if (v.family == s.selection().family) names.push_back(v.name);
    auto it = std::find(names.begin(), names.end(), s.selection().variant);
    if (!names.empty()) {
      const std::size_t i = it == names.end() ? 0 : std::size_t(it - names.begin() + 1) % names.size();
      s.select(s.selection().family, names[i]);
    }
  }
  float& size = s.presenter_on ? s.presenter_font_size : s.font_size;
  if (pressed(Keys::Equal) || pressed(Keys::KpAdd)) {
    size = std::min(72.0f, size + 2);
    s.font_dirty = true;
  }
  if (!typing && (pressed(Keys::Minus) || pressed(Keys::KpSubtract))) {
    size = std::max(10.0f, size - 2);
    s.font_dirty = true;
  }
  if (pressed(Keys::F5, false)) {
    s.presenter_on = !s.presenter_on;
    s.font_dirty = true;
  }
  if (pressed(Keys::Escape, false) && s.presenter_on) {
    s.presenter_on = false;
    s.font_dirty = true;
  }
  if (pressed(Keys::F11, false)) s.fullscreen_request = true;
  if (pressed(Keys::F12, false)) s.window_png_request = true;
  // What a lecturer flips: , and . pick a parameter, [ and ] step it (the next allowed
  // value; sizes double and halve; others move by one), k folds the keys line away.
  if (s.presenter_on) {
    const auto names = param_names(s);
    if (!names.empty()) {
      if (!typing && pressed(Keys::Period, false)) s.param_cursor = (s.param_cursor + 1) % names.size();
      if (!typing && pressed(Keys::Comma, false)) s.param_cursor = (s.param_cursor + names.size() - 1) % names.size();
      const int dir = pressed(Keys::RightBracket) ? 1 : pressed(Keys::LeftBracket) ? -1 : 0;
      const VariantInfo* v = s.variant_info();
      if (dir != 0 && v) {
        const ParamSpec& ps = v->params[s.param_cursor % v->params.size()];
        const long long cur = s.completed_params().count(ps.name) ? s.completed_params().at(ps.name) : ps.def;
        long long next = cur;
        if (!ps.choices.empty()) {
          auto it = std::find(ps.choices.begin(), ps.choices.end(), cur);
          const long long i = it == ps.choices.end() ? 0 : (it - ps.choices.begin()) + dir;
          next = ps.choices[std::size_t(std::clamp<long long>(i, 0, (long long)ps.choices.size() - 1))];
        } else if (cur >= 16 && (cur & (cur - 1)) == 0) {
          next = dir > 0 ? cur * 2 : cur / 2;
        } else {
          next = cur + dir;
        }
        next = ps.choices.empty() ? std::clamp(next, ps.min, ps.max) : next;
        if (next != cur) s.set_param(ps.name, next);
      }
    }
    if (pressed(Keys::letter('k'), false)) s.keys_hidden = !s.keys_hidden;
  }
}

}  // namespace ws::gui
