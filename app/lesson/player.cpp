// The player's state machine: steps, the student's parameter changes, answers and goals,
// with progress recorded after every change.
#include "app/lesson/player.h"

#include <algorithm>

#include <cmath>

namespace ws::lesson {

Player::Player(Lesson lesson, std::string data_dir)
    : lesson_(std::move(lesson)), data_dir_(std::move(data_dir)) {
  if (!data_dir_.empty()) progress_ = load_progress(data_dir_);
  notice_ = progress_.notice;
  const LessonProgress& lp = progress_.lessons[lesson_.id];
  step_ = lesson_.steps.empty() ? 0 : std::min(lp.current_step, lesson_.steps.size() - 1);
  open_step();
}

const LessonProgress& Player::lesson_progress() const {
  static const LessonProgress empty;
  auto it = progress_.lessons.find(lesson_.id);
  return it == progress_.lessons.end() ? empty : it->second;
}

void Player::open_step() {
  changes_.clear();
  variant_.clear();
  facts_ = base_ = Facts{};
  has_facts_ = has_base_ = false;
  const std::size_t n = lesson_.steps.empty() ? 0 : step().predicts.size();
  results_.assign(n, std::nullopt);
  guesses_.assign(n, std::nan(""));
  if (lesson_.steps.empty()) return;
  const auto& sp = progress_.lessons[lesson_.id].steps[step_];
  for (const auto& [i, g] : sp.answers)
    if (i < n) {
      guesses_[i] = g;
      PredictResult r;
      auto c = sp.correct.find(i);
      r.correct = c != sp.correct.end() && c->second;
      r.answer = std::nan("");
      r.explanation = "Answered earlier: " + format_number(g) + ".";
      results_[i] = r;
    }
  record();
}

bool Player::go(std::size_t s) {
  if (s >= lesson_.steps.size()) return false;
  step_ = s;
  open_step();
  save();
  return true;
}

bool Player::next() { return !at_last() && go(step_ + 1); }
bool Player::back() { return !at_first() && go(step_ - 1); }

Params Player::params() const {
  const Lab* l = lab();
  if (!l) return changes_;
  Params p = l->params;
  for (const auto& [k, v] : changes_) p[k] = v;
  return params_for(l->family, variant(), p);
}

void Player::set_param(const std::string& key, long long value) {
  const Lab* l = lab();
  auto it = l ? l->params.find(key) : Params::const_iterator{};
  if (l && it != l->params.end() && it->second == value)
    changes_.erase(key);
  else
    changes_[key] = value;
}

std::string Player::variant() const {
  if (!variant_.empty()) return variant_;
  const Lab* l = lab();
  return l ? l->variant : "";
}

void Player::set_facts(Facts f) {
  facts_ = std::move(f);
  has_facts_ = true;
  const Lab* l = lab();
  if (changes_.empty() && l && variant() == l->variant) {
    base_ = facts_;
    has_base_ = true;
    for (std::size_t i = 0; i < results_.size(); ++i)
      if (!std::isnan(guesses_[i])) results_[i] = check_predict(step().predicts[i], guesses_[i], base_);
  }
  auto& sp = progress_.lessons[lesson_.id].steps[step_];
  for (std::size_t i = 0; i < step().goals.size(); ++i)
    if (goal_reached(step().goals[i], facts_).reached) sp.goals[i] = true;
  record();
  save();
}

PredictResult Player::answer(std::size_t i, double guess) {
  PredictResult r;
  if (i >= results_.size()) return r;
  guesses_[i] = guess;
  if (has_base_) {
    r = check_predict(step().predicts[i], guess, base_);
  } else {
    r.answer = std::nan("");
    r.explanation = "Your answer " + format_number(guess) +
                    " is kept: it is checked when the lab has run as the step sets it up.";
  }
  results_[i] = r;
  auto& sp = progress_.lessons[lesson_.id].steps[step_];
  sp.answers[i] = guess;
  sp.correct[i] = r.correct;
  record();
  save();
  return r;
}

bool Player::answered(std::size_t i) const { return i < results_.size() && results_[i].has_value(); }

const PredictResult* Player::result(std::size_t i) const {
  return answered(i) ? &*results_[i] : nullptr;
}

template <class F>
void Player::for_pending_timed(F&& f) const {
  const Lab* here = lab();
  if (!here) return;
  const LessonProgress& lp = lesson_progress();
  for (std::size_t s = 0; s < lesson_.steps.size(); ++s) {
    const Lab* there = lesson_.lab_at(s);
    if (s == step_ || !there || there->family != here->family) continue;
    const auto st = lp.steps.find(s);
    const auto& preds = lesson_.steps[s].predicts;
    for (std::size_t i = 0; i < preds.size(); ++i)
      if (preds[i].answer.timed() && (st == lp.steps.end() || !st->second.answers.count(i)))
        f(s, preds[i].answer);
  }
}

std::vector<Quantity> Player::pending_timed_elsewhere() const {
  std::vector<Quantity> out;
  for_pending_timed([&](std::size_t, const Quantity& q) { out.push_back(q); });
  return out;
}

std::vector<std::size_t> Player::pending_timed_steps() const {
  std::vector<std::size_t> out;
  for_pending_timed([&](std::size_t s, const Quantity&) {
    if (out.empty() || out.back() != s) out.push_back(s);
  });
  return out;
}

std::vector<std::size_t> Player::pending_steps_asking(const Quantity& q) const {
  std::vector<std::size_t> out;
  const std::string key = q.key();
  for_pending_timed([&](std::size_t s, const Quantity& asked) {
    if (asked.key() == key) out.push_back(s);
  });
  for (const auto& [s, asked] : pending_same_run())
    if (asked.key() == key) out.push_back(s);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::pair<std::size_t, Quantity>> Player::pending_same_run() const {
  std::vector<std::pair<std::size_t, Quantity>> out;
  const Lab* here = lab();
  if (!here) return out;
  const LessonProgress& lp = lesson_progress();
  for (std::size_t s = 0; s < lesson_.steps.size(); ++s) {
    const Lab* there = lesson_.lab_at(s);
    if (s == step_ || !there || there->family != here->family || there->variant != here->variant ||
        there->params != here->params)
      continue;
    const auto st = lp.steps.find(s);
    const auto& preds = lesson_.steps[s].predicts;
    for (std::size_t i = 0; i < preds.size(); ++i)
      if (!preds[i].answer.timed() && (st == lp.steps.end() || !st->second.answers.count(i)))
        out.emplace_back(s, preds[i].answer);
  }
  return out;
}

GoalStatus Player::goal(std::size_t i) const {
  if (i >= step().goals.size()) return {};
  GoalStatus s = goal_reached(step().goals[i], facts_);
  if (!s.reached && goal_done(i)) s.label += "; reached earlier";
  return s;
}

bool Player::goal_done(std::size_t i) const {
  const auto& lp = lesson_progress();
  auto st = lp.steps.find(step_);
  if (st == lp.steps.end()) return false;
  auto g = st->second.goals.find(i);
  return g != st->second.goals.end() && g->second;
}

bool Player::step_complete() const {
  if (lesson_.steps.empty()) return false;
  for (std::size_t i = 0; i < step().predicts.size(); ++i)
    if (!answered(i)) return false;
  for (std::size_t i = 0; i < step().goals.size(); ++i)
    if (!goal_done(i)) return false;
  return true;
}

bool Player::lesson_complete() const {
  const auto& lp = lesson_progress();
  for (std::size_t i = 0; i < lesson_.steps.size(); ++i) {
    auto it = lp.steps.find(i);
    if (it == lp.steps.end() || !it->second.done) return false;
  }
  return !lesson_.steps.empty();
}

void Player::record() {
  if (lesson_.steps.empty()) return;
  auto& lp = progress_.lessons[lesson_.id];
  lp.current_step = step_;
  if (step_complete()) lp.steps[step_].done = true;
  lp.completed = lesson_complete();
}

bool Player::save() {
  if (data_dir_.empty()) return true;
  if (progress_.read_only) return false;  // the notice from loading says why, and stays
  std::string err;
  // Merged with what other windows saved meanwhile; progress_ becomes what was written.
  if (save_progress(progress_, data_dir_, err, &progress_)) return true;
  notice_ = "Progress not saved: " + err;
  return false;
}

}  // namespace ws::lesson
