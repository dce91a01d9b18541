#pragma once
// Grading a class (issue 27): `warpscope puzzle --grade PUZZLE DIR --out results.csv`
// checks every student's kernel in DIR against a puzzle on the emulator, each in the
// sandbox (kernels/user/sandbox.h) and in a grading process of its own, several at once
// (bounded by the cores), and writes one CSV row per student. A kernel that attacks the
// grader fails its own row; the others are graded.
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "app/puzzle/puzzle.h"

namespace ws::puzzle {

enum class Verdict { Pass, Missed, Wrong, CompileError, RunError, BadInput };
std::string_view to_string(Verdict v);

struct GradeRow {
  std::string file;                  // as found in DIR (its name)
  Verdict verdict = Verdict::RunError;
  std::vector<std::string> figures;  // one per target of the puzzle: the figure, "" if none
  std::string failure;               // one line ("" when it ran and verified)
  double seconds = 0;                // compile and run, wall clock
};

struct GradeOptions {
  user::Limits limits;              // each kernel's run
  user::CompileOptions compile;     // each kernel's compile
  unsigned jobs = 0;                // kernels checked at once (0 = the cores)
  double margin_s = 60;             // a grading process's deadline past compile + run
};

// The kernel files of `dir`: regular files named *.cuh or *.cu, sorted by name. `why` set
// (and nothing returned) when dir is no readable directory.
std::vector<std::string> student_files(const std::string& dir, std::string& why);

// Grades each file (one row each, in the order given). Each is checked in a process forked
// from this one: call it before this process starts threads.
// @post result.size() == files.size(); result[i].file names files[i]; never throws.
std::vector<GradeRow> grade(const Puzzle& p, const std::vector<std::string>& files, const GradeOptions& opt);

// The CSV: file, verdict, one column per target (its text as the header), failure, seconds.
std::string grade_csv(const Puzzle& p, const std::vector<GradeRow>& rows);

// The command. 0 when every row was written (whatever the verdicts), 2 on bad input (the
// puzzle, the directory, the output file: one line).
int grade_command(const std::string& puzzle_file, const std::string& dir, const std::string& csv,
                  bool force, double time_limit, unsigned jobs, std::ostream& out, std::ostream& err);

}  // namespace ws::puzzle
