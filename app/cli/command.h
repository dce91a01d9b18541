#pragma once
// The command table's row and what the commands share. Each `cmd_<name>.cpp` declares its
// options on its subcommand and hands back the action bound to them; cli.cpp's dispatch
// walks the table (kCommands) and runs the one that parsed. Internal to app/cli.
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/cli.h"
#include "app/cli/report.h"
#include "app/cli/util.h"

namespace CLI {
class App;
}

namespace ws::cli {

// A command once its line parsed: its exit status (bad input throws UsageError).
using Action = std::function<int(std::ostream& out, std::ostream& err, const Hooks& hooks)>;

struct Command {
  const char* name;
  const char* help;  // one line in `warpscope --help`
  // Declares the command's options on `sub`; the action reads what they parsed.
  Action (*declare)(CLI::App& sub);
};

// One per cmd_<name>.cpp.
Action declare_info(CLI::App& sub);
Action declare_list(CLI::App& sub);
Action declare_metrics(CLI::App& sub);
Action declare_sass(CLI::App& sub);
Action declare_latency(CLI::App& sub);
Action declare_bench(CLI::App& sub);
Action declare_export(CLI::App& sub);
Action declare_trace(CLI::App& sub);
Action declare_lesson(CLI::App& sub);
Action declare_puzzle(CLI::App& sub);
Action declare_record(CLI::App& sub);
Action declare_gui(CLI::App& sub);

// ---------------------------------------------------------------- shared by the commands
// (command.cpp). The *_or_usage helpers throw UsageError, printed by run() as one line.

// Bad input: thrown by the commands, printed by run() as one line.
[[noreturn]] void usage(const std::string& msg);
std::unique_ptr<Backend> backend_or_usage(const std::string& name, std::ostream& err);
const VariantInfo& variant_or_usage(const std::string& family, const std::string& variant);
Params sets_or_usage(const std::vector<std::string>& sets);
std::vector<Sweep> sweeps_or_usage(const std::vector<std::string>& items);
// One variant at one parameter set, validated against the backend's device.
Config single_config(const VariantInfo& v, const Params& given, const Backend& b);
std::string dims(const Dim3& d);
std::string hex32(std::uint32_t v);
// A run that did not finish: interrupted (130), refused as bad input (2, one line), or
// failed (1). -1 when it ran.
int run_failed(const VariantInfo& v, const RunResult& r, std::ostream& err);
// A lesson file that exists and is a regular file.
void lesson_file_or_usage(const std::string& f);
// `--lesson ID|FILE`: an existing file as given, else the id as `lesson --list` prints it.
std::string lesson_or_usage(const std::string& arg);
// `--step N` of a lesson: its `##` sections counted from 1. 0 when not given.
int step_or_usage(const std::string& lesson, const std::string& step, const Hooks& h);
// A file the command writes at the end: refused before anything runs when it could not
// be written (missing folder, an existing file without --force, a link, a directory), so
// a long sweep does not end in "cannot write".
void writable_or_usage(const std::string& path, const std::string& option, bool force);
void add_backend(CLI::App* s, std::string& target);

// ---------------------------------------------------------------- bench and export
// (cmd_bench.cpp)

struct BenchArgs {
  std::string kernel, variant, backend = "auto";
  bool all = false, peers = false, force = false;
  std::vector<std::string> sets, sweeps;
  int repeats = 10;
  std::string csv, json;
  std::string out, format;  // export
  std::string lesson, step;  // export --lesson ID --step N
};

// The options bench and export share (--kernel is required by bench only).
void add_bench_options(CLI::App* s, BenchArgs* a, bool kernel_required);
// What bench and export share: the configurations, the runs, the text table on `out`.
BenchReport bench_and_print(const BenchArgs& a, std::ostream& out, std::ostream& err);

}  // namespace ws::cli
