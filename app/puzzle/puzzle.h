#pragma once
// Puzzles: the student writes the kernel. A puzzle is a Markdown file (puzzles/NN-name.md)
// with the task in prose and three fenced blocks:
//
//   ```puzzle    job: FAMILY/VARIANT (the catalogue variant whose arrays, launch shape,
//                inputs and CPU check the kernel must match), params: k=v ..., kernel:
//                the struct's name, fields: its members in order ("in: const float,
//                out: float, n: int"; "in4: const int4 @in" views array `in` as int4)
//   ```starter   the kernel the student starts from (it runs, and misses the targets)
//   ```targets   one per line: QUANTITY OP NUMBER ("bank_conflicts == 0",
//                "ld_sectors_per_request <= 4", "metric NCU_NAME <= N") or
//                "time within P % of FAMILY/VARIANT [k=v ...]"
//   ```hint      optional, up to three: one hint each, prose, shown one at a time in
//                file order (`puzzle --hint FILE`); never the solution
//
// The solution is kept beside it in puzzles/solutions/NN-name.cuh. The format is read
// line by line (no recursion, bounded size); a malformed puzzle gives file:line messages.
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "kernels/backends/backend.h"
#include "kernels/user/user_kernel.h"

namespace ws::puzzle {

enum class Op { Less, LessEq, Eq, GreaterEq, Greater };
std::string_view to_string(Op o);

struct Target {
  int line = 0;          // in the puzzle file
  std::string text;      // as written
  std::string quantity;  // a plain name (quantities()), "metric:NAME", or "time"
  Op op = Op::LessEq;
  double value = 0;
  // time targets: within `value` percent of this catalogue variant
  std::string ref_family, ref_variant;
  Params ref_params;
};

struct Hint {
  int line = 0;      // of its ```hint in the puzzle file
  std::string text;  // the block's lines, Markdown, without the fences
};
constexpr std::size_t kMaxHints = 3;
constexpr std::size_t kMaxHintBytes = 2000;

struct Puzzle {
  std::string file;
  std::string slug;   // "01-strided-copy"
  std::string title;  // the first "# " heading
  std::string task;   // the prose, Markdown, without the fenced blocks
  std::string family, variant;  // the job
  Params params;
  int job_line = 0;
  // `timing: k=v ...`: the sizes at which a GPU measures the time targets (default: the
  // job family's FamilyInfo::timing); the emulator models them at `params`.
  Params timing;
  user::KernelSpec spec;  // struct and members (source_path set when checked)
  std::string starter;
  int starter_line = 0;   // line of the first starter line in the file
  std::vector<Target> targets;
  std::vector<Hint> hints;  // in file order: the order they are revealed
};

struct Error {
  std::string file;
  int line = 0;
  std::string message;
  std::string text() const { return file + ":" + std::to_string(line) + ": " + message; }
};

// A plain quantity a target may name, computed from a run's totals.
struct Quantity {
  std::string name;
  std::string meaning;
};
const std::vector<Quantity>& quantities();

// Parses puzzle text. @post returns true iff errors is empty; every error has a line >= 1.
bool parse_text(const std::string& text, const std::string& file, Puzzle& out,
                std::vector<Error>& errors);
// Reads and parses a file (at most 1 MB). @post as parse_text; an unreadable file is one
// error at line 1.
bool parse_file(const std::string& file, Puzzle& out, std::vector<Error>& errors);

// The value of a plain quantity or "metric:NAME" for a run. false when unknown.
bool quantity_value(const std::string& q, const RunResult& r, double& out);

// The source line that costs a target the most over the whole run, and its figure there.
struct WorstLine {
  int line = 0;       // 0: the quantity is not counted per line (time, metric), or no line has it
  double value = 0;   // the line's own figure, in the target's unit (32 sectors a request)
  std::string text;   // "line 17: 32 sectors a load request"
};
// Every launch's per-line counters (RunResult::launches[].sites; the kept blocks' events
// when no launch has any) for quantity `q` (a plain quantity of quantities()): per request
// the line with the most sectors a request, per count the line with the largest count,
// simd_efficiency the line that idles the most lanes, barriers_per_warp the most barriers.
// @post line == 0 iff q is not counted per line or no line has any of it; otherwise text
//       starts "line LINE: " and value is that line's figure.
WorstLine worst_line(const std::string& q, const RunResult& r);

struct TargetResult {
  Target target;
  bool evaluated = false;
  bool met = false;
  double got = 0;
  std::string note;  // "modelled", the reference's time, why it could not be evaluated
  WorstLine worst;   // set for a missed target counted per line
};

struct CheckResult {
  bool bad_input = false;        // the puzzle or the kernel file was not usable (exit 2)
  std::string failure;           // the kernel did not build or run right (exit 1)
  user::Compiled compiled;
  RunResult run;
  std::vector<TargetResult> targets;
  // Wall seconds of its steps (compile, trace: the emulator's run, run: the GPU runner's),
  // the targets judged (a time target's runs), and the whole check.
  user::StepSeconds steps;
  double targets_s = 0, total_s = 0;
  bool all_met() const;
};

constexpr int kTimeRounds = 3;
constexpr int kTimeRepeats = 20;
// The job's parameters with the sizes a GPU times at (p.timing, else the family's).
// @post every key of p.params is in the result.
Params timing_params(const Puzzle& p);

struct CheckOptions {
  std::string kernel_file;  // "" = the puzzle's starter
  user::Limits limits;
  user::CompileOptions compile;
  bool keep_block0 = true;
};

// Builds and runs the kernel on `backend` (the emulator in a sandboxed child process;
// CUDA through NVRTC when built), checks its output against the job and every target.
// A time target is judged where its claim is measured: on a GPU at timing_params(p) (the
// kernel's fast build and the reference variant, kTimeRounds rounds taken in turn, each
// the median of kTimeRepeats launches; the median of the rounds' ratios); on the emulator
// modelled at the puzzle's own size.
// @post never throws; failure or bad_input is set when the targets were not evaluated.
CheckResult check(const Puzzle& p, Backend& backend, const CheckOptions& opt);

// Whether a check on a CUDA backend can run a student's kernel here (a build with NVRTC,
// a GPU runner that finds a device, asked once per process); `device` gets its name.
// @post false with `why` set when it cannot (the editor then checks on the emulator).
bool gpu_checks(std::string& why, std::string* device = nullptr);

// The editor's check (and `latency --editor`'s): on `window`, the backend the window runs
// on, when it is a GPU that can run student kernels (NVRTC, the GPU runner, the emulator's
// sandboxed trace for the views), else on the emulator. `on` gets the words for which:
// "checked on the GPU, NAME (times measured)" or "checked on the emulator (times modelled)"
// (with why not the GPU, on a GPU window).
// @post never throws; `on` is non-empty.
CheckResult check_in_window(const Puzzle& p, Backend& window, const CheckOptions& opt, std::string& on);

// The puzzle files of a directory, sorted ("NN-name.md"; README.md left out).
std::vector<std::string> list_files(const std::string& dir);
// The puzzles directory: $WARPSCOPE_PUZZLES, ./puzzles, <exe>/../share/warpscope/puzzles,
// or the source tree's. "" when none exists.
std::string default_dir();
// puzzles/solutions/NN-name.cuh beside a puzzle file.
std::string solution_path(const std::string& puzzle_file);

// The CLI: `puzzle --list [DIR]` and `puzzle --check FILE [--kernel K] [--time-limit S]`.
int list_command(const std::string& dir, std::ostream& out, std::ostream& err);
int check_command(const std::string& file, const std::string& kernel, Backend& backend,
                  double time_limit, std::ostream& out, std::ostream& err, bool json = false);

// Hints, one at a time. The hints a student has seen are kept per puzzle (by slug) in
// DIR/hints.json, DIR being student_dir(): $XDG_DATA_HOME/warpscope/puzzles (else
// ~/.local/share/warpscope/puzzles), where the editor keeps the student's kernels.
std::string student_dir();
// How many hints of `slug` were seen (0 when the file is absent, unreadable or malformed).
// @post result >= 0.
int hints_seen(const std::string& dir, const std::string& slug);
// Records that `n` hints of `slug` were seen (the count never goes down), through
// io::write_file (atomic; other puzzles' counts kept). false with `error` when it cannot.
bool record_hints_seen(const std::string& dir, const std::string& slug, int n, std::string& error);
// `puzzle --hint FILE [N]`: hint N (1-based), or with N == 0 the next unseen one (the last
// again once all were seen); records it as seen in `dir` ("" = student_dir()).
// @post 0 when a hint was printed, 2 on bad input (the puzzle, N, a puzzle without hints).
int hint_command(const std::string& file, int number, const std::string& dir, std::ostream& out,
                 std::ostream& err);

// The exit code of a check: 0 every target met, 1 a target missed or the kernel failed,
// 2 bad input (the puzzle, the kernel file, or a machine that cannot run it).
int check_exit_code(const CheckResult& r);

// The check as one JSON object (puzzle_json.cpp): verdict and exit_code, each target's
// name, text, wanted, got, met (and, when missed, worst_line, worst_value and worst: the
// costliest line over the whole run and its figure there), the kernel's totals under Nsight Compute's names, divergent_branches and
// simd_efficiency.
// @post j["exit_code"] == check_exit_code(r); "targets" and "totals" are present iff the
//       kernel ran and verified.
nlohmann::json check_json(const Puzzle& p, const CheckResult& r, const std::string& kernel,
                          const std::string& backend);

}  // namespace ws::puzzle
