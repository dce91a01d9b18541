// warpscope: the desktop app, or the headless commands (see app/cli/cli.h).
#include "app/cli/cli.h"

#if defined(WS_HAVE_LESSONS)
#include "app/lesson/lesson.h"
#endif
#if defined(WS_HAVE_GUI)
#include "app/gui/gui.h"
#endif

int main(int argc, char** argv) {
  ws::cli::Hooks hooks;
#if defined(WS_HAVE_LESSONS)
  hooks.lesson_validate = &ws::lesson::validate_files;
  hooks.lesson_check = &ws::lesson::check_file;
  hooks.lesson_timed = &ws::lesson::timed_configs;
  hooks.lesson_steps = &ws::lesson::step_count;
#endif
#if defined(WS_HAVE_GUI)
  hooks.gui_display_available = &ws::gui::display_available;
  hooks.gui_run = &ws::gui::run;
  hooks.gui_lesson_chart = &ws::gui::lesson_chart;
#endif
  return ws::cli::main(argc, argv, hooks);
}
