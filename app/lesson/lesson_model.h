#pragma once
// The parsed lesson and everything the player needs that is not drawing: the render tree
// of each step's text, its `lab`, `predict` and `goal` blocks, the numbers a run gives
// them (Facts), answer checking, and the student's saved progress.
// No GUI and no CUDA here: the CLI (validate/check), the tests and the GUI player use it.
// The format is specified in lessons/README.md.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/backends/backend.h"
#include "sim/provenance.h"

namespace ws::lesson {

// ---------------------------------------------------------------- render tree

// A run of inline text with its style. Paragraph text is a flat list of runs so a
// renderer can draw it word by word with one font change per run.
struct Span {
  std::string text;
  bool emphasis = false;  // *text*
  bool strong = false;    // **text**
  bool code = false;      // `text`
  std::string link;       // target of [text](link); "" when not a link
  bool line_break = false;  // a hard break (two spaces or backslash at end of line)
};

enum class BlockKind {
  Heading,    // level 1..6 (level-2 headings start steps and are not in a step's body)
  Paragraph,
  Code,       // fenced or indented code: `text` holds the code, `info` the language
  List,       // children are ListItem blocks
  ListItem,   // children are the item's blocks
  Quote,      // children are the quoted blocks
  Rule,       // a thematic break
  Lab,        // where a ```lab block stood: `index` into Step::lab (always 0)
  Predict,    // where a ```predict block stood: `index` into Step::predicts
  Goal,       // where a ```goal block stood: `index` into Step::goals
};
std::string_view to_string(BlockKind k);

struct Block {
  BlockKind kind = BlockKind::Paragraph;
  int line = 0;             // 1-based source line where the block starts (0 when unknown)
  int level = 0;            // Heading: 1..6
  std::vector<Span> spans;  // Heading, Paragraph
  std::string text;         // Code: the code, lines joined with '\n'
  std::string info;         // Code: the fence's info string ("cpp")
  bool ordered = false;     // List
  int start = 1;            // List, ordered: first number
  std::size_t index = 0;    // Lab/Predict/Goal: position in the step's vector
  std::vector<Block> children;  // List, ListItem, Quote
};

// ---------------------------------------------------------------- quantities

// A number a predict or goal refers to. Written `metric NAME`, `NAME` or `ratio NAME`.
enum class QuantityKind {
  Metric,  // a key of sim::Totals::ncu() (Nsight Compute name), modelled from the trace
  Plain,   // one of plain_quantities(): sectors_per_request, warps_per_block, ...
  Ratio,   // a throughput ratio: copy_bandwidth, peak, over:VARIANT
};
std::string_view to_string(QuantityKind k);

struct Quantity {
  QuantityKind kind = QuantityKind::Plain;
  std::string name;  // "l1tex__...sum", "sectors_per_request", "copy_bandwidth", "over:naive"
  // The key under which Facts stores it: the metric or plain name, or "ratio:" + name.
  std::string key() const;
  // True when the value is a time-based number: measured on a GPU, modelled on the emulator.
  bool timed() const;
};

// A plain quantity the model can compute from a run, with its meaning for the docs and
// for the player's tooltips.
struct PlainQuantity {
  std::string name;  // "sectors_per_request"
  std::string help;  // "global sectors per request (loads and stores)"
  bool timed = false;
};
const std::vector<PlainQuantity>& plain_quantities();

// Comparison of a goal.
enum class Op { Eq, Ne, Lt, Le, Gt, Ge };
std::string_view to_string(Op op);  // "==", "!=", "<", "<=", ">", ">="

// ---------------------------------------------------------------- blocks

// ```lab: the kernel a step sets up.
struct Lab {
  int line = 0;             // line of the opening fence
  std::string family, variant;
  Params params;            // as written (defaults are filled in when it runs)
  // `timing:` the parameters that timed quantities (throughput, time_us, ratios) are
  // measured at, over `params`: the emulator counts at a small size, the GPU (or its
  // recording) times at one where the lesson's claim is what the clock sees. Empty: the
  // counting run is also the timed one.
  Params timing;
  std::string view;         // bank-map, sector-map, divergence, charts, metrics, stepper; "" none
  std::vector<std::uint32_t> keep_blocks = {0};  // blocks whose events the views show
  // The event the step is about, where the stepper opens (sim/event_at.h): "first-conflict",
  // "line N", "load", "store", "shared-load", "shared-store", "shared-atomic",
  // "global-load", "global-store", "global-atomic", "branch", "divergent-branch",
  // "barrier", "mma", "bulk-store"; "" the first event.
  std::string at;
  std::map<std::string, int> key_lines;
};

// ```predict: a question whose answer the run gives.
struct Predict {
  int line = 0;
  std::string question;
  Quantity answer;
  double tolerance = 0;        // absolute, or relative when `relative`
  bool relative = false;       // `tolerance: 5%`
  std::string unit;            // shown beside the input box; "" none
  double expect = 0;            // the author's answer: --check confirms the model gives it
  // `expect: recorded`: the expectation is the recording's figure for the lab's timed
  // configuration, of the GPU the lesson runs on (the H100's without a GPU).
  bool expect_recorded = false;
  std::string explain;         // template: {answer}, {guess}, {NAME} for any fact
  // Source lines of each key (for validation messages): "answer" -> 12.
  std::map<std::string, int> key_lines;
};

// A further condition of a goal, `target: A and B`: the goal is reached when all hold.
struct Condition {
  Quantity quantity;
  Op op = Op::Eq;
  double value = 0;
};

// ```goal: a target the student reaches by changing parameters.
struct Goal {
  int line = 0;
  std::string text;            // what to do, shown to the student
  Quantity quantity;
  Op op = Op::Eq;
  double value = 0;
  Params reach;                // a parameter change that reaches it (what --check runs)
  bool gpu_only = false;       // `needs: gpu`: on the emulator it is checked against
                               // modelled values, and labelled so
  std::string needs;           // why a GPU is needed, as written
  std::string reach_variant;   // `reach: variant=tiled ...`: the variant to switch to
  // `target: A and B ...`: the conditions after the first (a constraint that makes the
  // target a trade-off, e.g. no bank conflicts with at most so much shared memory).
  std::vector<Condition> also;
  std::map<std::string, int> key_lines;
};

// The goal's whole target as written: "bank_conflicts == 0 and shared_bytes <= 2048".
std::string goal_target_text(const Goal& g);
// Every quantity a goal is judged on: its target's, then those of `also`.
std::vector<Quantity> goal_quantities(const Goal& g);

struct Step {
  int line = 0;                // line of the `## ` heading
  std::string title;
  std::vector<Block> body;     // the step's text, with Lab/Predict/Goal markers in place
  std::optional<Lab> lab;      // at most one per step; a step without one keeps the last
  std::vector<Predict> predicts;
  std::vector<Goal> goals;
};

struct Lesson {
  std::string path;            // as given to the parser (for messages)
  std::string id;              // file stem: "03-shared-banks"; the progress key
  std::string title;
  std::string level;           // "beginner", "intermediate", "advanced"
  int minutes = 0;
  std::vector<std::string> prerequisites;  // ids of other lessons
  std::map<std::string, int> key_lines;    // front matter key -> line
  std::vector<Block> intro;    // text before the first step
  std::vector<Step> steps;
  // The lab in force at step i: its own, or the last one before it (nullptr: none yet).
  const Lab* lab_at(std::size_t step) const;
};

// ---------------------------------------------------------------- parsing

struct Diagnostic {
  std::string file;
  int line = 0;
  std::string message;
  std::string str() const;  // "file:line: message"
};

struct ParseResult {
  std::optional<Lesson> lesson;          // set when there were no errors
  std::vector<Diagnostic> errors;
  bool ok() const { return lesson.has_value() && errors.empty(); }
  std::string message() const;           // the errors, one per line
};

// Syntax only: front matter, steps, blocks, keys, numbers, quantity names, view names.
// @post ok() iff errors is empty; every error names `name` and a line >= 1.
ParseResult parse_lesson_text(const std::string& text, const std::string& name);
// @post as parse_lesson_text; a file that cannot be read gives one error at line 1.
ParseResult parse_lesson(const std::string& path);

// Semantics: each lab's kernel, variant and parameters against the catalogue
// (ws::find_variant, ws::validate with the emulator's limits), each goal's `reach`
// applied to its lab, metric names against sim::Totals::ncu(), ratio variants.
// @post one Diagnostic per problem, each at the line of the offending key.
std::vector<Diagnostic> validate_lesson(const Lesson& l);

// ---------------------------------------------------------------- facts and answers

// Every number of one lab run a predict, goal or explanation can name.
struct Facts {
  std::map<std::string, double> values;  // Quantity::key() -> value
  bool measured = false;                 // timed values came from a GPU (timed.on_gpu())
  sim::Provenance timed;                 // the timed values' source (Timing::source)
  // Where the timed values come from, as shown to the student: long_label(timed),
  // "recorded on NVIDIA H100 80GB HBM3, 2026-11-23", or "modelled ..." with its size.
  std::string timed_source = "modelled";
  Params timed_params;                   // the parameters the timed values belong to
  std::string backend;                   // "emu" or "cuda"
  std::string error;                     // the run failed: why
  bool has(const std::string& key) const { return values.count(key) != 0; }
  double get(const std::string& key) const;  // NaN when absent
};

// Metrics and plain quantities of one run (no ratios: they need reference runs).
// @post for every key k of r.totals.ncu(), values[k] == r.totals.ncu()[k]; every plain
//       quantity that is defined for the run is present.
Facts facts_from_run(const RunResult& r, const DeviceInfo& dev);

// Runs `lab` with `overrides` applied on `backend`, plus the reference runs that the
// ratios in `ratios` need (copy bandwidth, another variant). Times the runs when any
// ratio or timed plain quantity is asked for: at the lab's `timing` size when it names
// one (live on a GPU; on the emulator from the recording, else modelled at the counting
// size and labelled so), else at the counting size.
// @post error set iff the lab's own run failed (or, on a GPU, its timed run); ratio keys
//       present for each ratio asked whose reference ran; timed_params names the
//       parameters the timed values belong to.
Facts run_lab(const Lab& lab, const Params& overrides, Backend& backend,
              const std::vector<Quantity>& wanted);

// Adds the ratios among `wanted` to f for the run r of lab: `peak` from dev (or the
// model), `copy_bandwidth` from a copy timed on `backend` (on the emulator, or with no
// backend for an emulated run, the model's time for the same bytes), `over:VARIANT` by
// running that variant on `backend` (skipped without one).
// @post no key other than ratio keys of `wanted` is added or changed.
void add_ratio_facts(Facts& f, const Lab& lab, const RunResult& r, const DeviceInfo& dev,
                     const std::vector<Quantity>& wanted, Backend* backend, RunOptions opt = {});

// The parameters a lab is timed at: params, then its `timing`, then `overrides`, trimmed
// to the variant's parameters.
// @post every key of overrides that the variant declares has its value from overrides.
Params timing_params(const Lab& lab, const Params& overrides);

// How a fact's timed values were obtained, for the student (sim::long_label of their
// source): "measured on NVIDIA H100 80GB HBM3 (this device, now), at n=8192 ...",
// "recorded on NVIDIA H100 80GB HBM3, 2026-11-23, at n=8192 ...", or "modelled: the
// emulator does not time".
std::string timed_label(const Facts& f);

// The parameters of `p` that family/variant declares (all of them when it is unknown):
// what a run keeps when the student or a goal's reach switches variants.
// @post every key of the result is a key of p and a parameter of the variant.
Params params_for(const std::string& family, const std::string& variant, const Params& p);

// The quantities a step's predicts and goals name (what run_lab needs to be asked for).
std::vector<Quantity> wanted_quantities(const Step& s);

// A predict's value as the player says it: "32 wavefronts", "1 wavefront", "0.33".
// @post starts with format_number(v); ends with p.unit (singular for 1) when it has one.
std::string answer_text(const Predict& p, double v);

struct PredictResult {
  bool correct = false;
  double answer = 0;           // the model's (or the GPU's) value
  std::string explanation;     // the template filled in from the facts
};
// @post correct iff |guess - answer| <= tolerance (relative tolerance: of |answer|).
PredictResult check_predict(const Predict& p, double guess, const Facts& f);

struct GoalStatus {
  bool known = false;          // the quantity was in the facts
  bool reached = false;
  double value = 0;
  bool modelled = false;       // a GPU-only goal judged on the emulator's model
  std::string label;           // "reached", "not yet: 31 (needs == 0)", "... (modelled)"
};
// @post reached iff known and `value op goal.value` holds.
GoalStatus goal_reached(const Goal& g, const Facts& f);

// Fills {NAME} placeholders from facts ({answer} and {guess} are in extra).
std::string fill_template(const std::string& tmpl, const Facts& f,
                          const std::map<std::string, double>& extra = {});

std::string format_number(double v);  // integers without decimals, else 3 significant digits

// ---------------------------------------------------------------- progress

struct StepProgress {
  bool done = false;
  std::map<std::size_t, double> answers;   // predict index -> the student's guess
  std::map<std::size_t, bool> correct;     // predict index -> was it right
  std::map<std::size_t, bool> goals;       // goal index -> reached
  bool operator==(const StepProgress&) const = default;
};

struct LessonProgress {
  std::size_t current_step = 0;
  std::map<std::size_t, StepProgress> steps;
  bool completed = false;
  std::size_t steps_done() const;
  bool operator==(const LessonProgress&) const = default;
};

struct Progress {
  std::map<std::string, LessonProgress> lessons;  // by Lesson::id
  // Set by load_progress when the file was unreadable or corrupt: what happened and
  // where the bad file was kept (progress.json.bak.N). Shown to the student.
  std::string notice;
  // The file could not be read, or is not a regular file: save_progress leaves it alone.
  bool read_only = false;
  // The lessons as last read from or written to the file: what save_progress compares
  // against to tell this window's changes from another window's (a three-way merge).
  std::map<std::string, LessonProgress> on_disk;
};

// $XDG_DATA_HOME/warpscope, else $HOME/.local/share/warpscope ("" when neither is set).
std::string default_data_dir();

// Reads dir/progress.json. A missing file is an empty Progress without notice. A corrupt
// one (bad JSON, too large, too deep) is moved to the first free progress.json.bak.N when
// `rescue` (never replacing an earlier backup) and reported in `notice`. An unreadable
// file, a link or a non-regular file is left alone, reported, and marked read_only.
// A file whose lessons' entries are damaged in part keeps the others: the damaged ones are
// left out and named in `notice`, and the file is kept as a backup (read_only without it).
// @post notice is empty iff the file was absent or parsed whole.
Progress load_progress(const std::string& dir, bool rescue = true);
// The parser alone (fuzzed): throws with a reason on anything but a valid progress file.
Progress parse_progress(const std::string& text);
// The same, but a damaged lesson entry is left out and its reason appended to `damaged`
// (null: it throws); a file damaged above the lessons still throws.
Progress parse_progress(const std::string& text, std::vector<std::string>* damaged);

// Writes dir/progress.json through io::write_file; creates dir. Refuses a read_only `p`.
// Two windows share the file: under an exclusive lock (flock on the directory) the file is
// read again and merged with `p` (merge_progress), so what another window saved since
// `p` was loaded is kept. `merged`, when given, receives what was written.
// @post returns true iff the file now holds merge_progress(p, the file as it was); on
//       false, `error` says why and any previous file is untouched.
bool save_progress(const Progress& p, const std::string& dir, std::string& error,
                   Progress* merged = nullptr);

// A three-way merge of one window's progress `mine` (with mine.on_disk, what it last read)
// into `theirs` (the file now). A lesson this window did not change since it read it is
// theirs; one only this window changed (or dropped) is mine; one both changed is mine,
// with every step this window did not change taken from theirs and `completed` if either
// says so.
// @post every lesson of theirs or mine is in the result; on_disk == lessons.
Progress merge_progress(const Progress& mine, const Progress& theirs);

}  // namespace ws::lesson
