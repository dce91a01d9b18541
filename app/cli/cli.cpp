#include "app/cli/cli.h"

#include <CLI/CLI.hpp>
#include <csignal>
#include <iostream>

#include "app/cli/command.h"
#include "app/cli/demo.h"

namespace ws::cli {

namespace {

// ---------------------------------------------------------------- the command table

// In the order `warpscope --help` lists them.
const Command kCommands[] = {
    {"info", "Backend, device and why CUDA is unavailable if it is", declare_info},
    {"list", "Kernel families, variants and their parameters", declare_list},
    {"metrics", "Run one launch and print the model's totals (ncu names)", declare_metrics},
    {"sass", "The fast build's recorded SASS of one launch, grouped by source line", declare_sass},
    {"latency", "How long each stage of a result takes after a change (the GUI's worker, no window)",
     declare_latency},
    {"bench", "Time variants and sweeps, with peers and speedups", declare_bench},
    {"export", "Run like bench and write the chart (SVG, PNG, CSV)", declare_export},
    {"trace", "The recorded warp events of one block, as JSON", declare_trace},
    {"lesson", "List lessons, validate lesson files or check their labs", declare_lesson},
    {"puzzle", "Write the kernel: list the puzzles, check a kernel against one", declare_puzzle},
    {"record",
     "Measure the lessons' timed configurations, the variant bars and the standard "
     "sweeps on the GPU and write a recording for machines without one",
     declare_record},
    {"gui", "The desktop app (or a screenshot of one view)", declare_gui},
};

// ---------------------------------------------------------------- dispatch

int dispatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
             const Hooks& hooks) {
  CLI::App app{"warpscope: GPU performance, warp by warp. Without arguments: the desktop app "
               "when a display is available, else a headless demo.",
               "warpscope"};
  app.set_version_flag("--version", "warpscope 0.1");
  app.footer("Exit status: 0 success, 1 a run failed or a result was WRONG, 2 bad input.");
  app.require_subcommand(0, 1);

  std::vector<std::pair<CLI::App*, Action>> actions;
  for (const Command& c : kCommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    actions.emplace_back(sub, c.declare(*sub));
  }

  try {
    std::vector<std::string> rev(args.rbegin(), args.rend());
    app.parse(rev);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      app.exit(e, out, err);
      return kExitOk;
    }
    std::string where = "warpscope";
    for (const auto* s : app.get_subcommands()) where += " " + s->get_name();
    err << where << ": " << e.what() << " (see " << where << " --help)\n";
    return kExitUsage;
  }

  for (const auto& [sub, action] : actions)
    if (sub->parsed()) return action(out, err, hooks);

  if (hooks.gui_run && hooks.gui_display_available && hooks.gui_display_available())
    return hooks.gui_run(gui::GuiOptions{});
  return run_demo(DemoOptions{}, out, err);
}

}  // namespace

RunControl& cli_control() {
  static RunControl c;
  return c;
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        const Hooks& hooks) {
  // Every backend run below polls this control (Ctrl-C) and reports progress to it; a
  // run longer than a few seconds says how far it is and how long it has left.
  RunControl& ctl = cli_control();
  ctl.reset();
  ctl.min_interval_s = 3;
  // One bar for the command (a bench plans its runs and peers as phases of it): the
  // percentage never goes down, and the time left comes from the work done so far.
  ctl.on_progress = [&err, last = std::string()](const RunProgress& p) mutable {
    if (p.elapsed_s < 2) return;
    std::string line = "warpscope: " + std::to_string(int(100 * p.fraction())) + "%";
    if (!p.phase.empty()) line += ", " + p.phase;
    if (!p.stage.empty()) line += (p.phase.empty() ? ", " : ": ") + p.stage;
    if (line == last) return;  // a run's end reported twice says nothing new
    last = line;
    if (p.eta_s > 0) line += ", about " + std::to_string(int(p.eta_s + 0.5)) + " s left";
    err << line << " (Ctrl-C stops it)\n" << std::flush;
  };
  ThreadControlScope scope(&ctl);
  try {
    return dispatch(args, out, err, hooks);
  } catch (const UsageError& e) {
    err << "warpscope: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    err << "warpscope: internal error: " << e.what() << "\n";
    return kExitFailed;
  }
}

namespace {
extern "C" void on_sigint(int) {
  cli_control().cancel();       // the run stops within 100 ms and the command exits 130
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}
}  // namespace

int main(int argc, char** argv, const Hooks& hooks) {
  // The GUI handles its own window closing; the commands stop their runs on Ctrl-C.
  std::signal(SIGINT, on_sigint);
  std::vector<std::string> args(argv + 1, argv + argc);
  return run(args, std::cout, std::cerr, hooks);
}

}  // namespace ws::cli
