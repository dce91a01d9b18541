// `warpscope puzzle --grade`: see cmd_puzzle_grade.h.
#include "app/cli/cmd_puzzle_grade.h"

#include <CLI/CLI.hpp>
#include <ostream>

#include "app/cli/command.h"
#include "app/puzzle/grade.h"

namespace ws::cli {

void declare_grade_options(CLI::App& s, GradeArgs& g) {
  s.add_option("--grade", g.grade, "grade a class: PUZZLE DIR, every *.cuh in DIR in the sandbox")
      ->expected(2);
  s.add_option("--out", g.out, "the CSV --grade writes (one row per student)");
  s.add_flag("--force", g.force, "replace an existing --out file");
  s.add_option("--jobs", g.jobs, "kernels --grade checks at once (default: the cores)");
}

int cmd_puzzle_grade(const GradeArgs& g, bool list, const std::string& check, double time_limit,
                     std::ostream& out, std::ostream& err) {
  if (list || !check.empty()) usage("--grade cannot be combined with --list or --check");
  if (g.out.empty()) usage("--grade needs --out results.csv");
  if (!(time_limit > 0 && time_limit <= 3600))
    usage("--time-limit " + std::to_string(time_limit) + " is outside 0..3600 seconds");
  return puzzle::grade_command(g.grade[0], g.grade[1], g.out, g.force, time_limit, g.jobs, out, err);
}

}  // namespace ws::cli
