#pragma once
// The selection and results models: what the student selected, the runs installed and
// what the views derive from them, the stepper's position. No window code: AppState
// (app/gui/app_state.h) joins them to the worker and the window.
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "app/model/sass_view.h"
#include "app/model/worker.h"
#include "kernels/backends/backend.h"
#include "sim/model.h"
#include "viz/source_view.h"
#include "viz/stepper.h"
#include "viz/views.h"

namespace ws::gui {

// Views are declared once, in viz/views.h.
using viz::View;
using viz::view_from_string;
using viz::view_names;
using viz::to_string;

struct Selection {
  std::string family, variant;
  Params params;             // as the student set them (completed by validate)
  std::uint32_t block = 0;   // the block whose events are kept
  std::uint16_t warp = 0;    // the warp the stepper walks
  std::size_t launch = 0;    // which launch of a multi-launch variant
};

// One finished run and what the views derive from it.
struct Loaded {
  std::shared_ptr<const RunResult> run;
  Selection sel;
  std::uint64_t gen = 0;
  double seconds = 0;
  const VariantInfo* info = nullptr;
  viz::SourceFile source;
  int struct_line = 0;               // where the kernel's struct starts in its source
  std::vector<std::size_t> order;    // the warp's events in the kept launch
  sim::MaskHistory mask;
  std::map<int, std::string> notes;  // source line -> what the trace did there
  std::map<int, std::uint32_t> marks;  // source line -> gutter dot: red conflict, orange divergence, green fine
  std::string user_source, user_struct;  // a student's kernel: its file and struct
  std::shared_ptr<const SassForRun> sass;  // the fast build's recorded SASS of the launch shown
  std::shared_ptr<const HardwareCounters> recorded_hw;  // --hardware-from, for this launch
  // The run's own counters, else recorded ones for the same launch.
  const HardwareCounters& hardware() const { return recorded_hw ? *recorded_hw : run->hardware; }
  std::map<int, std::string> counters;  // source line -> the whole grid's counters of its accesses
  // The stages the run holds so far (worker.h) and how long each took after the change.
  std::set<Stage> stages;
  bool final = true;
  StageTimes times;
  bool has(Stage st) const { return stages.count(st) != 0; }
  bool valid() const { return run != nullptr; }
  const KeptLaunch* kept() const;    // the launch shown (nullptr: none kept)
  const std::vector<WarpEvent>& events() const;
  const ArrayDesc* array_of(const WarpEvent& e) const;
};

// What the student selected: the variant and its parameters as set, as completed by
// validate, and why they cannot run ("" when they can).
struct SelectionModel {
  Selection sel;
  Params completed;
  std::string refusal;
  // The sizes the times are taken at (a lesson lab's `timing`, else the family's timing
  // size): applied over `completed` for the bars, the peers and the time rows, so a view
  // answers at the size its question is about. A parameter the student sets is timed as set.
  Params timing;
};

// The installed results and where the views stand in them: the main run, the comparison
// side and what it compares, the stepper (viz::StepperState, its own model), and how long
// the last change took.
struct ResultsModel {
  Loaded main, cmp;
  viz::StepperState stepper;
  bool compare_mode = false;
  std::string compare_variant;
  Params compare_overrides;  // B's parameters that differ from A's
  // How long the last change took to its measured point and to its counters (status bar).
  StageTimes last_latency;
  // The comparison side's position, in step with main.
  // @post < cmp.order.size() when cmp has events, else 0.
  std::size_t compare_pos() const;
  // The first event of the warp that a view is about (a conflict for the maps, a divergent
  // branch for the mask strip), or 0: sim::interesting_pos over main's warp.
  std::size_t interesting_pos(View v) const;
};

}  // namespace ws::gui
