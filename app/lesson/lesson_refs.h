#pragma once
// Recorded figures quoted in a lesson: `{{rec FAMILY/VARIANT PARAMS : QUANTITY}}` in prose
// (and in a block's text) is replaced when the lesson is read by that quantity of the
// recording of the GPU in use, labelled with the GPU ("0.936 (H100)"), so a number the
// lesson states about a measurement cannot drift from the measurement. A predict's
// `expect: recorded` takes its expectation from the same recording.
#include <string>
#include <string_view>
#include <vector>

#include "app/lesson/lesson_model.h"
#include "kernels/hardware/recording.h"

namespace ws::lesson {

struct RecordedRef {
  std::string family, variant;
  Params params;        // completed (defaults filled in)
  Quantity quantity;    // a timed one: time_us, throughput, ratio ...
  bool percent = false; // `: ratio peak %`: shown as a percentage
  std::string unit;     // `: time_us | µs`: written after the number ("x" without a space)
};

// The recording lessons quote: the one set for the GPU in use (set_quoted_recording), else
// default_recording() (the H100's). nullptr when there is none.
const Recording* quoted_recording();
// Called by a command that runs lessons live: the recording of that GPU (by device name),
// or nullptr to go back to the default.
void set_quoted_recording(const Recording* r);

// Completes p for family/variant (validate() with an H100's limits).
// @post "" with out set, else why not (one line).
std::string complete_params(const std::string& family, const std::string& variant,
                            const Params& p, Params& out);

// While set, lessons are read with no recording (figures "(not recorded)", never an
// error): `record` reads them to learn what to record, including figures not yet recorded.
void set_quoting_off(bool off);

// Every `{{rec ...}}` of a lesson's text that parses, in order (for `record`).
std::vector<RecordedRef> recorded_refs_in(const std::string& text);

// "FAMILY/VARIANT k=v ... : QUANTITY [%] [| UNIT]". @post false sets `why` (one line).
bool parse_recorded_ref(std::string_view body, RecordedRef& out, std::string& why);

// The value of ref in rec: the run recorded at ref's parameters, with its peers.
// @post finite iff rec holds the configuration (and what the quantity needs); else NaN
//       and `why` says what is missing.
double recorded_value(const Recording& rec, const RecordedRef& ref, std::string& why);
// @post true iff rec holds some run (at any parameters, stale or not) of family/variant:
//       false for a variant added since the recording was made.
bool recorded_variant(const Recording& rec, const std::string& family, const std::string& variant);
// A knob added since the recording was made: ref sets a parameter of its variant to other
// than its default, and no run of the family in rec has it other than the default.
// @post true iff some parameter k of ref.family/ref.variant has ref.params[k] != default(k)
//       while every run of ref.family in rec has k at its default or lacks k.
bool newer_knob(const Recording& rec, const RecordedRef& ref);
// What is not there yet, not an error: a variant (recorded_variant false) or a knob
// (newer_knob) the next `warpscope record` on the GPU fills in.
bool not_yet_recorded(const Recording& rec, const RecordedRef& ref);

// The range of ref's value that the recorded runs span: the value at the recording's
// fastest and slowest repeat (time_us scales with the time, every other timed quantity
// with its inverse; a ratio's reference is taken at its median).
// @post false with `why` when rec lacks the configuration; else lo <= value <= hi.
bool recorded_band(const Recording& rec, const RecordedRef& ref, double& lo, double& hi,
                   std::string& why);

// A timed goal's target against the band of its reach in rec: a target inside it would
// pass or fail by chance. @post "" when the target is outside the band or rec lacks
// the reach's configuration (nothing to judge); else one sentence naming the band.
std::string goal_spread_problem(const Recording& rec, const Lab& lab, const Goal& g);

// "H100" for "NVIDIA H100 80GB HBM3", "H200" for "NVIDIA H200": the name's model word.
std::string short_gpu_name(const std::string& device_name);

// Replaces every `{{rec ...}}` of text by its figure in rec and the GPU's short name;
// without a recording by "(not recorded)". @post `why` is empty iff every reference
// parsed and, when rec is set, was found in it; else it names the first problem.
std::string expand_recorded_refs(const std::string& text, const Recording* rec, std::string& why);

}  // namespace ws::lesson
