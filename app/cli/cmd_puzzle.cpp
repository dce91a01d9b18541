// `warpscope puzzle`: list the puzzles, check a kernel against one (grading a class:
// cmd_puzzle_grade.cpp).
#include "app/cli/command.h"
#include "app/cli/cmd_puzzle_grade.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>
#include <ostream>

#include "app/puzzle/puzzle.h"

namespace ws::cli {

namespace {

struct PuzzleArgs {
  bool list = false;
  std::string dir, check, kernel, backend = "emu";
  double time_limit = 10;
  bool json = false;
  std::vector<std::string> hint;  // --hint FILE [N]
  GradeArgs grade;  // --grade (cmd_puzzle_grade.cpp)
};

int cmd_puzzle(const PuzzleArgs& a, std::ostream& out, std::ostream& err) {
  if (!a.grade.grade.empty()) return cmd_puzzle_grade(a.grade, a.list, a.check, a.time_limit, out, err);
  if (!a.grade.out.empty()) usage("--out is for --grade");
  if (!a.hint.empty()) {
    if (a.list || !a.check.empty()) usage("--hint FILE [N] goes alone (not with --list or --check)");
    readable_or_usage(a.hint[0], "puzzle file");
    int n = 0;
    if (a.hint.size() == 2) {
      const std::string& s = a.hint[1];
      const bool digits = !s.empty() && s.size() < 4 && s.find_first_not_of("0123456789") == std::string::npos;
      if (!digits || std::stoi(s) < 1) usage("--hint FILE N: N is a hint's number from 1, got '" + s + "'");
      n = std::stoi(s);
    }
    return puzzle::hint_command(a.hint[0], n, "", out, err);
  }
  if (a.list == !a.check.empty()) usage("puzzle needs either --list [--dir DIR], --check FILE or --hint FILE [N]");
  if (a.list) return puzzle::list_command(a.dir, out, err);
  if (!(a.time_limit > 0 && a.time_limit <= 3600))
    usage("--time-limit " + std::to_string(a.time_limit) + " is outside 0..3600 seconds");
  readable_or_usage(a.check, "puzzle file");
  if (!a.kernel.empty()) readable_or_usage(a.kernel, "kernel file");
  auto b = backend_or_usage(a.backend, err);
  return puzzle::check_command(a.check, a.kernel, *b, a.time_limit, out, err, a.json);
}

}  // namespace

Action declare_puzzle(CLI::App& sub) {
  auto a = std::make_shared<PuzzleArgs>();
  CLI::App* s = &sub;
  s->add_flag("--list", a->list, "list the puzzles (of --dir, default ./puzzles or the installed ones)");
  s->add_option("--dir", a->dir, "puzzles directory for --list");
  s->add_option("--check", a->check, "check a puzzle: the starter, or --kernel FILE");
  s->add_option("--kernel", a->kernel, "your kernel (.cu, plain CUDA; or .cuh, the dialect) for --check");
  s->add_flag("--json", a->json, "--check: the verdict, targets, totals and worst lines as JSON");
  s->add_option("--backend", a->backend, "emu (default), cuda or auto")->capture_default_str();
  s->add_option("--time-limit", a->time_limit, "seconds the kernel may run (emulator)")
      ->capture_default_str();
  s->add_option("--hint", a->hint, "FILE [N]: the puzzle's next hint (remembered), or hint N")
      ->expected(1, 2);
  declare_grade_options(*s, a->grade);
  return [a](std::ostream& out, std::ostream& err, const Hooks&) { return cmd_puzzle(*a, out, err); };
}

}  // namespace ws::cli
