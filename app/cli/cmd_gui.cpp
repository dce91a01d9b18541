// `warpscope gui`: the desktop app, or a screenshot of one view.
#include "app/cli/command.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>

#include "app/paths.h"
#include "io/atomic_file.h"

namespace ws::cli {

namespace {

struct GuiArgs {
  std::string screenshot, view = "window", kernel, variant, backend = "auto", lesson, font,
                                  size, puzzle, edit, step;
  std::vector<std::string> sets;
  bool presenter = false, hardware = false, sass = false;
  std::string hardware_from;
};

int cmd_gui(const GuiArgs& a, const Hooks& h) {
  if (!h.gui_run)
    usage("this warpscope was built without the GUI (it needs libimgui-dev, libglfw3-dev, "
          "libgl-dev and libmd4c-dev: run scripts/setup and rebuild)");
  gui::GuiOptions o;
  if (a.backend != "auto" && a.backend != "emu" && a.backend != "cuda")
    usage("unknown backend '" + a.backend + "' (choose auto, emu or cuda)");
  o.backend = a.backend;
  if (!a.variant.empty() && a.kernel.empty()) usage("--variant needs --kernel");
  if (!a.kernel.empty()) {
    if (a.variant.empty()) {
      if (family_variants(a.kernel).empty()) {
        std::string why;
        lookup(a.kernel, "", why);
        usage(why);
      }
    } else {
      const VariantInfo& v = variant_or_usage(a.kernel, a.variant);
      Params done;
      const std::string why = validate(v, sets_or_usage(a.sets), DeviceLimits{}, done);
      if (!why.empty()) usage(v.family + "/" + v.name + ": " + why);
    }
  }
  o.family = a.kernel;
  o.variant = a.variant;
  o.params = sets_or_usage(a.sets);
  o.presenter = a.presenter;
  o.hardware = a.hardware;
  o.hardware_from = a.hardware_from;
  o.sass = a.sass;
  if (!a.hardware_from.empty() && !std::filesystem::exists(a.hardware_from))
    usage("--hardware-from: " + a.hardware_from + " does not exist");
  o.lesson = a.lesson.empty() ? "" : lesson_or_usage(a.lesson);
  o.step = step_or_usage(o.lesson, a.step, h);
  if (!a.puzzle.empty() && !std::filesystem::is_regular_file(a.puzzle))
    usage("puzzle file " + a.puzzle + " does not exist");
  if (!a.edit.empty() && a.puzzle.empty()) usage("--edit needs --puzzle");
  o.puzzle = a.puzzle;
  o.edit = a.edit;
  if (!a.screenshot.empty()) {
    const auto parent = std::filesystem::path(a.screenshot).parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
      usage("directory " + parent.string() + " does not exist");
    if (std::string why = io::check_writable(a.screenshot, true); !why.empty())
      usage("--screenshot " + a.screenshot + ": " + why);
  }
  o.screenshot = a.screenshot;
  o.view = a.view;
  if (!a.font.empty())
    if (std::string why = paths::font_problem(a.font); !why.empty()) usage("--font: " + why);
  o.font = a.font;
  if (!a.size.empty()) {
    std::string why;
    if (!parse_size(a.size, o.width, o.height, why)) usage(why);
  }
  return h.gui_run(o);
}

}  // namespace

Action declare_gui(CLI::App& sub) {
  auto a = std::make_shared<GuiArgs>();
  CLI::App* s = &sub;
  s->add_option("--screenshot", a->screenshot, "render one view to FILE.png and quit");
  s->add_option("--view", a->view, "view for --screenshot")->capture_default_str();
  s->add_option("--kernel", a->kernel, "initial kernel family");
  s->add_option("--variant", a->variant, "initial variant");
  s->add_option("--set", a->sets, "parameter key=value (repeatable)");
  add_backend(s, a->backend);
  s->add_flag("--presenter", a->presenter, "projector mode: large fonts, high contrast");
  s->add_option("--lesson", a->lesson, "open a lesson (its id, as `lesson --list` prints it, or its file)");
  s->add_option("--step", a->step, "with --lesson: open this step, from 1 (its ## sections)");
  s->add_option("--puzzle", a->puzzle, "open a puzzle in the kernel editor");
  s->add_option("--edit", a->edit, "your kernel file for --puzzle (default: one kept per puzzle)");
  s->add_option("--font", a->font, "TTF font file");
  s->add_option("--size", a->size, "window size WxH (default 1600x1000)");
  s->add_flag("--hardware", a->hardware, "read the GPU's counters (CUPTI) with every run");
  s->add_option("--hardware-from", a->hardware_from,
                   "show counters recorded by `metrics --hardware --json` for the same launch");
  s->add_flag("--sass", a->sass, "start with the SASS unfolded under every source line");
  return [a](std::ostream&, std::ostream&, const Hooks& hooks) { return cmd_gui(*a, hooks); };
}

}  // namespace ws::cli
