#pragma once
// The lesson player's logic without drawing: which step is open, the lab in force with
// the student's parameter changes, answers to predicts, goal status, progress saved
// after every change. The GUI (app/gui/lesson_player.cpp) draws it and runs the labs on
// its worker; the tests drive it directly.
#include <optional>
#include <string>
#include <vector>

#include "app/lesson/lesson_model.h"

namespace ws::lesson {

class Player {
 public:
  // Loads the progress for this lesson from `data_dir` ("" keeps it in memory only) and
  // reopens the step the student was on.
  Player(Lesson lesson, std::string data_dir);

  const Lesson& lesson() const { return lesson_; }
  std::size_t step_index() const { return step_; }
  const Step& step() const { return lesson_.steps.at(step_); }
  std::size_t step_count() const { return lesson_.steps.size(); }
  bool at_first() const { return step_ == 0; }
  bool at_last() const { return step_ + 1 >= lesson_.steps.size(); }

  // Move between steps. Opening a step resets the student's parameter changes to the
  // step's lab. @post returns false (and stays) at either end.
  bool next();
  bool back();
  bool go(std::size_t step);

  // The lab in force at the open step (nullptr: none yet) and the parameters to run it
  // with: the lab's own, with the student's changes on top.
  const Lab* lab() const { return lesson_.lab_at(step_); }
  Params params() const;
  const Params& changes() const { return changes_; }
  // @post params() reflects the change; the goals are judged again on the next run.
  void set_param(const std::string& key, long long value);
  void reset_params() { changes_.clear(); }
  // The variant to run (the student may switch variants within the lab's family).
  std::string variant() const;
  void set_variant(const std::string& v) { variant_ = v; }

  // The quantities the open step needs from a run (pass to run_lab).
  std::vector<Quantity> wanted() const { return wanted_quantities(step()); }

  // The result of running lab() with variant() and params(): goals are judged on it. A
  // run with no changes is also the step's base run, which predicts are checked against
  // (a predict asks about the lab as the step sets it up).
  void set_facts(Facts f);
  const Facts& facts() const { return facts_; }
  bool has_facts() const { return has_facts_; }
  bool has_base_facts() const { return has_base_; }

  // Records the student's guess for predict `i` of the open step and checks it against
  // the facts. @post answered(i); the step's progress holds the guess and verdict.
  PredictResult answer(std::size_t i, double guess);
  bool answered(std::size_t i) const;
  const PredictResult* result(std::size_t i) const;  // nullptr until answered
  // The timed predicts of the lesson's other steps whose lab runs the open lab's family
  // and that are still unanswered: the open step's charts of that family (every variant,
  // recorded or measured) would show their answers before they are asked.
  // @post each entry is a Quantity q with q.timed(), from step s != step_index() with
  //       lab_at(s)->family == lab()->family and predict i unanswered in the progress.
  std::vector<Quantity> pending_timed_elsewhere() const;
  // The steps of those questions, each once, in lesson order (0-based).
  // @post s is in the result iff some entry of pending_timed_elsewhere() comes from step s.
  std::vector<std::size_t> pending_timed_steps() const;
  // The steps whose pending question asks `q` itself (a goal showing q's value would answer
  // it): a timed one of the family, or an untimed one about this very run; each once, in
  // lesson order (0-based).
  // @post s is in the result iff pending_timed_elsewhere() or pending_same_run() holds an
  //       entry from step s with key() == q.key().
  std::vector<std::size_t> pending_steps_asking(const Quantity& q) const;
  // The untimed questions of other steps whose lab is this step's very run (the same
  // family, variant and parameters), still unanswered: this step's views of that run
  // (its maps, its metrics) would show their answers.
  // @post each entry (s, q) has s != step_index(), lab_at(s) equal to lab() in family,
  //       variant and params, !q.timed(), and the predict unanswered in the progress.
  std::vector<std::pair<std::size_t, Quantity>> pending_same_run() const;


  // Goal status of the open step from the current facts (reached goals stay reached).
  GoalStatus goal(std::size_t i) const;
  bool goal_done(std::size_t i) const;

  // Every predict answered and every goal reached.
  bool step_complete() const;
  bool lesson_complete() const;

  const Progress& progress() const { return progress_; }
  const LessonProgress& lesson_progress() const;
  // Load/save problems for the student to see ("" when none).
  const std::string& notice() const { return notice_; }
  // @post returns true iff the progress file now holds the player's state (or there is
  //       no data dir); false sets notice().
  bool save();

 private:
  // Calls f(step, quantity) for each timed predict of pending_timed_elsewhere().
  template <class F>
  void for_pending_timed(F&& f) const;
  void open_step();
  void record();

  Lesson lesson_;
  std::string data_dir_;
  Progress progress_;
  std::size_t step_ = 0;
  Params changes_;
  std::string variant_;
  Facts facts_, base_;
  bool has_facts_ = false, has_base_ = false;
  std::vector<double> guesses_;  // NaN: not answered
  std::vector<std::optional<PredictResult>> results_;
  std::string notice_;
};

}  // namespace ws::lesson
