#pragma once
// The lesson slot of the window. The layout reserves a panel for lessons and draws
// whatever LessonPanel make_lesson_panel() returns: app/gui/lesson_player.cpp (owned by the
// lessons engineer) when it is built, else lesson_none.cpp, which says "No lesson open".
// The panel talks to the rest of the app only through LessonHost.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/backends/backend.h"
#include "viz/view_common.h"

namespace ws::gui {

// What a lesson may ask of the app. Implemented by the app's state (app_state.cpp).
class LessonHost {
 public:
  virtual ~LessonHost() = default;
  // Shows this kernel with these parameters in every view and runs it on the worker thread
  // (the UI does not wait). Invalid parameters are refused with a message in the window.
  // Which size the views count at and which they time at, with the time's source
  // ("counts at n=1024 · times at n=8192, recorded on ..."); "" when one run is both.
  virtual std::string sizes_line() const { return ""; }
  // `timing`: the lab's timing sizes, over `params` for the times the views show.
  virtual void open_lab(const std::string& family, const std::string& variant,
                        const Params& params, const Params& timing) = 0;
  // The latest finished main run (nullptr before the first) and a number that changes with
  // every new one, so a panel can tell when to judge goals again.
  virtual std::shared_ptr<const RunResult> latest_result() const = 0;
  virtual std::uint64_t result_generation() const = 0;
  virtual bool run_pending() const = 0;
  // The device the runs use ("emulator" on the emulator); what facts_from_run needs.
  virtual DeviceInfo device() const = 0;
  virtual bool presenter() const = 0;
  // A one-line message in the window's notice area.
  virtual void notice(const std::string& text) = 0;
  // Queues `task` on the worker thread, with the backend, after the main run (the UI does
  // not wait; a task still waiting is replaced by a newer one). It writes its results into
  // what it captured. Returns an id that task_finished() reports once the task has run (or
  // was replaced by a newer one that has).
  virtual std::uint64_t run_on_worker(std::function<void(Backend&)> task) = 0;
  virtual bool task_finished(std::uint64_t id) const = 0;
  // Moves the stepper (and with it the source line and the maps) to the first event of
  // the shown warp that `at` names (sim::find_at); false when none has it.
  virtual bool seek_to(const std::string& at) = 0;
  // The stepper is on the shown warp's first event (where a new run that is not the
  // same block and warp as the last puts it).
  virtual bool stepper_at_start() const { return false; }
};

// What the panel drew in one frame, for tests (the GUI tests check the frame by it).
struct LessonDraw {
  bool drawn = false;
  bool classroom = false;           // the presenter's one-step-per-screen script
  std::string error;                // "This lesson cannot be opened" text shown ("" none)
  std::string lesson_title, step_title;
  std::size_t step = 0, steps = 0;  // step index shown, of steps
  std::vector<std::string> verdicts;  // per predict: the explanation shown ("" unanswered)
  std::vector<std::string> answers;   // per predict: its value as the verdict says it
                                      // ("32 wavefronts"; "" unanswered)
  std::vector<std::string> goals;     // per goal: the status line shown ("[x] reached")
  std::string nav_hint;             // the line beside Back/Next
  std::string lab_view;             // the view the step's lab names ("" none)
  std::vector<std::string> typed;   // per predict: the text in its input
  std::size_t typing_to = SIZE_MAX;  // the predict typed keys go to (SIZE_MAX none)
  float scroll_y = -1;              // the step's scroll position as drawn (0: its top)
  bool list_shown = false;          // the list of lessons is in view
  std::string pinned_question;      // presenter: the open question pinned above Back/Next
  bool pinned_whole = true;         // the pinned question and its answer line fit unscrolled
};

// What the open step's unanswered predicts keep off the other panels until they are
// answered: each panel that would show the predicted quantity says viz::kPredictFirst in
// its place (lessons/README.md, "predict").
struct LessonCover {
  viz::Covered views;                     // maps, stepper, strips, charts, time rows
  std::vector<std::string> metric_words;  // a metrics row whose name holds one is covered
  bool description = false;               // the variant's description (it names results)
  // Whose question keeps the times back (views.time): "" this step's, else the later or
  // skipped steps' (1-based), whose answers the charts of every variant would show.
  std::vector<std::size_t> time_by_steps;
  // Other steps (1-based) whose untimed questions ask about this step's very run: what
  // they ask is covered here too.
  std::vector<std::size_t> count_by_steps;
  bool any() const { return views.any() || !metric_words.empty() || description; }
};

// One lesson of the list the player finds (the start page and the lesson panel show it).
struct LessonEntry {
  std::string path, id, title;
  std::string level;           // "beginner", "intermediate", "advanced" ("" unknown)
  int minutes = 0;
  std::size_t steps = 0;
  std::string status;          // "done", "2/5 steps", "5 steps" or "has errors"
  std::string error;           // why the file cannot be opened ("" when it can)
};

class LessonPanel {
 public:
  virtual ~LessonPanel() = default;
  // Opens a lesson file; false with `err` set (shown in the window) when it cannot be used.
  virtual bool open(const std::string& path, std::string& err) = 0;
  virtual bool is_open() const = 0;
  virtual std::string title() const = 0;
  // Draws inside the current ImGui window (the layout's lesson slot).
  virtual LessonDraw draw(LessonHost& host) = 0;
  // What the keys and buttons do: move one step (false at either end or with no lesson),
  // answer predict `i` of the open step (false when there is no such predict).
  virtual bool next_step() = 0;
  virtual bool prev_step() = 0;
  virtual bool answer(std::size_t i, double guess) = 0;
  // The view the open step's lab names ("bank-map", ...; "" none or no lesson).
  virtual std::string lab_view() const = 0;
  // The value predict i of the open step is judged against (NaN: not known yet).
  virtual double answer_value(std::size_t i) const = 0;
  // The open step has a predict still to answer: typed numbers, Backspace, Enter and Tab
  // go to it while no text field has the focus, so the app's keys leave '-', '.' and ','
  // alone.
  virtual bool takes_typing() const { return false; }
  // Tab was pressed while it takes typing: the next open predict gets the keys. The
  // session hands Tab here instead of to ImGui, whose own Tab would put the focus in
  // whichever window had it last.
  virtual void typed_tab() {}
  // What the open step's unanswered predicts cover now (nothing once all are answered).
  virtual LessonCover cover() const { return {}; }
  // Opens step `i` (from 0) of the open lesson. @post false (and stays) when there is no
  // such step or no lesson.
  virtual bool go_step(std::size_t i) { return false; }
  // Every lesson found (paths::lessons_dir()), in order, with the student's progress;
  // empty when this build has no player or no lessons were found.
  virtual std::vector<LessonEntry> lessons() { return {}; }
};

std::unique_ptr<LessonPanel> make_lesson_panel();

}  // namespace ws::gui
