#pragma once
// The headless command line: info, list, metrics, bench, trace, export, lesson, gui and
// the no-argument demo. main() stays tiny: it fills Hooks with whatever optional parts
// were linked (lessons, GUI) and calls ws::cli::main.
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/model/options.h"
#include "kernels/backends/backend.h"
#include "kernels/hardware/recording.h"
#include "viz/chart.h"

namespace ws::cli {

// Exit codes of every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // it ran, but a result was wrong or a run failed
inline constexpr int kExitUsage = 2;   // bad input: unknown name, bad value, missing part
inline constexpr int kExitInterrupted = 130;  // Ctrl-C: the run was cancelled (128 + SIGINT)

// The control every run of a command polls (set as the thread's control by run()):
// main() cancels it on SIGINT; a test may cancel it from another thread.
RunControl& cli_control();

// The optional parts. Only main.cpp sees WS_HAVE_LESSONS / WS_HAVE_GUI, so it hands the
// entry points in; an empty function means "not built in" and the command says so.
struct Hooks {
  std::function<int(const std::vector<std::string>& files, std::ostream& out)> lesson_validate;
  std::function<int(const std::string& file, Backend& backend, std::ostream& out)> lesson_check;
  std::function<bool(const std::string& file, std::vector<RecordTarget>& out, std::string& error)>
      lesson_timed;
  std::function<bool()> gui_display_available;
  std::function<int(const gui::GuiOptions&)> gui_run;
  // The number of steps of a lesson file (-1 with the reason when it does not parse).
  std::function<int(const std::string& file, std::string& error)> lesson_steps;
  // `export --lesson`: gui::lesson_chart.
  std::function<int(const gui::GuiOptions&, viz::ChartSpec&, std::string&)> gui_lesson_chart;
};

// Runs one command line (args without the program name) writing to out/err.
// @post returns kExitOk on success, kExitUsage after one line on `err` for bad input,
//       kExitFailed when a run failed or a result was wrong, kExitInterrupted when
//       cli_control() was cancelled; never throws.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        const Hooks& hooks);

// run() on argv with std::cout / std::cerr.
int main(int argc, char** argv, const Hooks& hooks);

}  // namespace ws::cli
