// The lesson slot when this build has no lesson player (app/gui/lesson_player.cpp absent
// or md4c missing): it says so instead of pretending to open lessons.
#include <imgui.h>

#include <limits>

#include "app/gui/lesson_panel.h"

namespace ws::gui {

namespace {

class NoLessonPanel : public LessonPanel {
 public:
  bool open(const std::string& path, std::string& err) override {
    err = "cannot open " + path + ": this build has no lesson player";
    return false;
  }
  bool is_open() const override { return false; }
  std::string title() const override { return "Lesson"; }
  LessonDraw draw(LessonHost&) override {
    ImGui::TextDisabled("No lesson open.");
    ImGui::TextWrapped("Lessons open with `warpscope gui --lesson FILE` once the lesson player "
                       "is part of the build.");
    LessonDraw d;
    d.drawn = true;
    return d;
  }
  bool next_step() override { return false; }
  bool prev_step() override { return false; }
  bool answer(std::size_t, double) override { return false; }
  std::string lab_view() const override { return ""; }
  double answer_value(std::size_t) const override { return std::numeric_limits<double>::quiet_NaN(); }
};

}  // namespace

std::unique_ptr<LessonPanel> make_lesson_panel() { return std::make_unique<NoLessonPanel>(); }

}  // namespace ws::gui
