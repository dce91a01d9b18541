#pragma once
// What the GUI shows of the hardware's side of a run: the fast build's recorded SASS
// under each source line (with the lines where it is not what the model assumes), the
// per-line hardware counters, the metrics table's model | hardware | difference rows and
// the occupancy figures. Built from a RunResult and assets/sass; nothing here draws.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/backends/backend.h"
#include "viz/metrics_table.h"
#include "viz/source_view.h"

namespace ws::gui {

struct SassForRun {
  bool found = false;          // the launch's function is in the recorded SASS
  std::string note;            // "TransposeTiled<32, 8>: 72 instructions, 26 registers, ..." or why none
  std::map<int, std::vector<viz::SassRow>> rows;  // source line -> its instructions
  std::map<int, std::string> diffs;               // lines whose SASS differs from the model
  std::map<int, std::string> hw_lines;            // line -> per-line hardware counters, in words
  int registers = -1, spill_stores = 0, spill_loads = 0;
};

// The SASS of launch `launch` of a run (kernel_instances names its function), checked
// against the model's accesses in `events`; the recorded listing of each family is read
// once and kept.
// @post found iff the recorded SASS has the launch's function; then rows hold every
//       instruction of the family header's lines, and registers comes from the recording.
std::shared_ptr<const SassForRun> sass_for(const VariantInfo& v, const Params& completed,
                                           std::size_t launch, const std::vector<WarpEvent>& events,
                                           const HardwareCounters* hw,
                                           const std::vector<std::string>& roots);

// The metrics table's hardware rows for a run (surplus: what its compiled loop adds,
// compiled_surplus), and the line that says why there are none.
std::vector<viz::HardwareRow> hardware_rows(const sim::Totals& model, const HardwareCounters& hw,
                                            const CompiledSurplus& surplus = {});
std::string hardware_note(const HardwareCounters& hw, bool asked);

// Counters recorded elsewhere (`warpscope metrics --hardware --json > FILE` on a GPU
// machine) for the same kernel, variant and parameters.
// @post true iff the file's kernel, variant and params equal these and it holds passes;
//       then out.device says it was recorded; else err says why (one line).
bool load_recorded_hardware(const std::string& path, const std::string& family,
                            const std::string& variant, const Params& params,
                            HardwareCounters& out, std::string& err);

// "theoretical occupancy" (from the SASS's registers, the block and its shared memory) and,
// when the hardware counters are there, the achieved one beside it.
std::vector<std::pair<std::string, std::string>> occupancy_rows(const RunResult& r,
                                                                const HardwareCounters& hw,
                                                                const SassForRun* sass,
                                                                std::size_t launch);

}  // namespace ws::gui
