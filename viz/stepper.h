#pragma once
// The stepper: play, pause, step back/forward, scrub, and jump to the next barrier or the
// next conflict over the kept events of one warp of one block. It owns only a position
// over a list of event indices; the views show the event at that position.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/analysis.h"
#include "sim/model.h"
#include "sim/trace.h"
#include "viz/view_common.h"

namespace ws::viz {

// The warp's events and what a conflict is: trace analysis, in sim/analysis.h.
using sim::is_conflict;
using sim::warp_events;

enum class StepAction { None, First, Back, Forward, Last, Play, Pause, Scrub, NextBarrier,
                        NextConflict, PrevConflict };
std::string_view to_string(StepAction a);

struct StepperState {
  std::vector<std::size_t> order;  // indices into the launch's events
  std::size_t pos = 0;             // position in `order`
  bool playing = false;
  float steps_per_second = 4;
  double accum = 0;                // play time not yet turned into steps

  bool empty() const { return order.empty(); }
  std::size_t size() const { return order.size(); }
  // The event index at pos (only when !empty()).
  std::size_t current() const { return order.at(pos); }
  // @post pos < size() (or 0 when empty); returns whether pos changed.
  bool seek(std::size_t p);
  bool forward() { return seek(pos + 1); }
  bool back() { return pos > 0 && seek(pos - 1); }
  // Jumps to the next (or previous) position whose event satisfies the predicate.
  // @post on true, pos moved in that direction to the nearest such event; on false pos is
  //       unchanged.
  bool next_barrier(const std::vector<WarpEvent>& events);
  bool next_conflict(const std::vector<WarpEvent>& events, const sim::DeviceModel& m = {});
  bool prev_conflict(const std::vector<WarpEvent>& events, const sim::DeviceModel& m = {});
  // Play: advances by elapsed time; stops at the end. Returns whether pos changed.
  bool tick(double dt_seconds);
  void apply(StepAction a, const std::vector<WarpEvent>& events, const sim::DeviceModel& m = {});
};

struct StepperDraw {
  StepAction action = StepAction::None;  // what the user asked this frame (already applied)
  std::string label;                     // "event 12 of 40: shared load, line 47"
  bool drawn = false;
};

// Buttons, a scrub slider and the current event's one-line description.
// @post the returned action has been applied to `s`.
// With `covered`, an event whose description would show a covered number says
// kPredictFirst instead (describe_event_covered).
StepperDraw draw_stepper(StepperState& s, const std::vector<WarpEvent>& events,
                         const sim::DeviceModel& m = {}, const ViewStyle& style = {},
                         const Covered& covered = {});

// The height draw_stepper's content needs at this content width: its buttons flow onto
// as many rows as the width needs, then the scrub bar, then the description wrapped (room
// for the longest kind of description, so the height holds while stepping).
// @post grows as width shrinks; at least three rows of buttons, bar and text.
float stepper_content_height(float width);

// One line about an event: its kind, line, active lanes and the model's verdict.
std::string describe_event(const WarpEvent& e, const sim::DeviceModel& m = {});
// Whether describe_event(e) shows a number that `c` covers.
bool covers(const Covered& c, const WarpEvent& e);
// "shared_load, line 47: predict first": the event without its numbers.
std::string describe_event_covered(const WarpEvent& e);

}  // namespace ws::viz
