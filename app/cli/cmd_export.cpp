// `warpscope export`: run like bench (or a lesson step) and write the chart: SVG, PNG, CSV, JSON.
#include "app/cli/command.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <ostream>

#include "app/cli/demo.h"

namespace ws::cli {

namespace {

// `export --lesson ID --step N`: the chart of that step as the window shows it (the GUI's
// own state and panels, run without a display).
int export_lesson(const BenchArgs& a, const std::vector<std::string>& formats, bool explicit_format,
                  std::ostream& out, std::ostream& err, const Hooks& h) {
  for (const char* o : {"--variant", "--set", "--sweep", "--peers"})
    if ((std::string(o) == "--variant" && !a.variant.empty()) || (std::string(o) == "--set" && !a.sets.empty()) ||
        (std::string(o) == "--sweep" && !a.sweeps.empty()) || (std::string(o) == "--peers" && a.peers))
      usage(std::string(o) + " does not go with --lesson: the step's lab says what runs");
  if (!h.gui_lesson_chart)
    usage("this warpscope was built without the GUI, which draws a lesson's chart (it needs libimgui-dev "
          "and libmd4c-dev: run scripts/setup and rebuild)");
  gui::GuiOptions o;
  if (a.backend != "auto" && a.backend != "emu" && a.backend != "cuda")
    usage("unknown backend '" + a.backend + "' (choose auto, emu or cuda)");
  o.backend = a.backend;
  o.lesson = lesson_or_usage(a.lesson);
  o.step = step_or_usage(o.lesson, a.step, h);
  o.width = 1280;
  o.height = 720;
  viz::ChartSpec chart;
  std::string message;
  if (int rc = h.gui_lesson_chart(o, chart, message); rc != 0) {
    err << "warpscope: " << message << "\n";
    return kExitFailed;
  }
  if (!message.empty()) err << "warpscope: " << message << "\n";
  std::string why;
  std::vector<std::string> written;
  if (!write_chart(chart, a.out, formats, a.force, !explicit_format, written, why, err)) usage(why);
  for (const auto& p : written) out << "wrote " << p << "\n";
  return kExitOk;
}

int cmd_export(const BenchArgs& a, std::ostream& out, std::ostream& err, const Hooks& h) {
  const bool explicit_format = !a.format.empty();
  const auto formats = split(explicit_format ? a.format : "svg,png,csv", ',');
  for (const auto& f : formats)
    if (f != "svg" && f != "png" && f != "csv" && f != "json")
      usage("unknown --format '" + f + "' (choose from svg, png, csv, json)");
  if (formats.empty()) usage("--format is empty (choose from svg, png, csv, json)");
  if (a.lesson.empty() == a.kernel.empty()) usage("export needs --kernel or --lesson (one of them)");
  if (!a.step.empty() && a.lesson.empty()) usage("--step needs --lesson");
  const std::string name = std::filesystem::path(a.out).filename().string();
  if (name.empty() || name == "." || name == "..")
    usage("--out '" + a.out + "' has no file name (example: --out charts/transpose)");
  // Refuse before running anything: a long sweep should not end in "file exists".
  for (const auto& f : formats) writable_or_usage(a.out + "." + f, "--out", a.force);
  if (!a.lesson.empty()) return export_lesson(a, formats, explicit_format, out, err, h);

  const BenchReport r = bench_and_print(a, out, err);
  if (r.cancelled) return kExitInterrupted;
  const viz::ChartSpec chart = bench_chart(r);
  std::string why;
  std::vector<std::string> written;
  // A path that became unwritable during the run is bad input, as it is before it.
  if (!write_chart(chart, a.out, formats, a.force, !explicit_format, written, why, err))
    usage(why);
  for (const auto& p : written) out << "wrote " << p << "\n";
  return r.any_bad() ? kExitFailed : kExitOk;
}

}  // namespace

Action declare_export(CLI::App& sub) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* s = &sub;
  add_bench_options(s, a.get(), false);
  s->add_option("--out", a->out, "output prefix: PREFIX.svg, PREFIX.png, PREFIX.csv")
      ->required();
  s->add_option("--format", a->format, "comma-separated: svg,png,csv,json (default: svg,png,csv)");
  s->add_option("--lesson", a->lesson, "instead of --kernel: a lesson (its id or file) whose step's chart to write");
  s->add_option("--step", a->step, "with --lesson: the step, from 1 (its ## sections)");
  s->add_flag("--force", a->force, "overwrite existing files");
  return [a](std::ostream& out, std::ostream& err, const Hooks& hooks) { return cmd_export(*a, out, err, hooks); };
}

}  // namespace ws::cli
