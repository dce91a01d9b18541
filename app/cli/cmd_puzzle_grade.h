#pragma once
// `warpscope puzzle --grade PUZZLE DIR --out results.csv`: the grading room of the puzzle
// command (app/puzzle/grade.h does the work). cmd_puzzle.cpp declares these options beside
// its own and hands over when --grade is given.
#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ws::cli {

struct GradeArgs {
  std::vector<std::string> grade;  // PUZZLE DIR
  std::string out;
  bool force = false;
  unsigned jobs = 0;
};

void declare_grade_options(CLI::App& s, GradeArgs& g);
// Refuses --grade with --list or --check, or without --out, by name (exit 2).
int cmd_puzzle_grade(const GradeArgs& g, bool list, const std::string& check, double time_limit,
                     std::ostream& out, std::ostream& err);

}  // namespace ws::cli
