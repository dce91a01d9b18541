// The lesson player in the window's lesson slot: the lesson list with progress, the open
// step's text, its lab applied through the host, predict inputs with the explanation
// from the trace, goal status, and a presenter mode (one step per screen, keys only). The
// ratios that need another run (`over:VARIANT`, a timed copy) run on the app's worker.
// The logic lives in ws::lesson::Player; this file only draws it and feeds it results.
//
// A step's blocks are drawn by app/gui/lesson_step.cpp.
//
// Index (search for "[SECTION] <name>"):
//   The player panel (LessonPanel)
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "app/gui/lesson_panel.h"
#include "app/gui/lesson_step.h"
#include "app/lesson/lesson_model.h"
#include "app/lesson/lesson_refs.h"
#include "app/paths.h"
#include "app/lesson/player.h"
#include "viz/imgui_util.h"
#include "viz/text_runs.h"

namespace ws::gui {

namespace {

using namespace ws::lesson;
namespace fs = std::filesystem;
using namespace ws::gui::step;

// [SECTION] The player panel (LessonPanel)
// The variant of `family` whose plan names the run's kernel ("" when the run is of
// another family): the student may switch variants from the app's controls.
// Every launch's kernel is compared, and `preferred` (the variant the player runs) first:
// two_pass begins with multiple_elements' kernel, and is not it.
std::string variant_of(const RunResult& r, const std::string& family, const std::string& preferred) {
  if (r.plan.launches.empty()) return "";
  auto same = [&](const VariantInfo& v) {
    if (v.family != family || !v.plan) return false;
    Params done;
    if (!validate(v, r.params, DeviceLimits{}, done).empty()) return false;
    const Plan p = v.plan(done);
    if (p.launches.size() != r.plan.launches.size()) return false;
    for (std::size_t i = 0; i < p.launches.size(); ++i)
      if (p.launches[i].kernel != r.plan.launches[i].kernel) return false;
    return true;
  };
  if (const VariantInfo* v = find_variant(family, preferred); v && same(*v)) return v->name;
  for (const auto& v : catalogue())
    if (same(v)) return v.name;
  return "";
}

struct ListEntry {
  std::string path, id, title, error;
  std::size_t steps = 0;
  std::string level;
  int minutes = 0;
};

class PlayerPanel : public LessonPanel {
 public:
  bool open(const std::string& path, std::string& err) override {
    ParseResult r = parse_lesson(path);
    std::vector<Diagnostic> d = r.errors;
    if (r.lesson) {
      auto v = validate_lesson(*r.lesson);
      d.insert(d.end(), v.begin(), v.end());
    }
    dir_ = fs::path(path).parent_path().string();
    entries_.clear();
    scanned_ = false;
    if (!d.empty()) {
      error_.clear();
      for (const auto& e : d) error_ += e.str() + "\n";
      err = "the lesson " + path + " has " + std::to_string(d.size()) + " error(s); first: " + d[0].str();
      player_.reset();
      return false;
    }
    error_.clear();
    player_.emplace(std::move(*r.lesson), default_data_dir());
    applied_ = SIZE_MAX;
    shown_step_ = SIZE_MAX;
    sought_step_ = SIZE_MAX;
    seen_gen_ = 0;
    ratios_.reset();
    inputs_.clear();
    typing_to_ = SIZE_MAX;
    reveal_ = SIZE_MAX;
    list_shown_ = false;
    return true;
  }
  bool is_open() const override { return player_.has_value(); }
  std::string title() const override { return player_ ? player_->lesson().title : "Lesson"; }

  LessonDraw draw(LessonHost& host) override {
    LessonDraw out;
    out.drawn = true;
    // Live on a GPU with a shipped recording, lessons read from now on quote its figures.
    if (!quoted_) {
      quoted_ = true;
      if (const Recording* r = recording_for_device(host.device().name)) set_quoted_recording(r);
    }
    if (!player_) {
      if (!error_.empty()) {
        out.error = error_;
        ImGui::TextColored(kBad, "This lesson cannot be opened:");
        ImGui::PushTextWrapPos(0);
        text_runs(kBad, error_, true);
        ImGui::PopTextWrapPos();
        ImGui::Separator();
      }
      lesson_list();
      return out;
    }
    Player& p = *player_;
    if (p.step_count() == 0) return out;
    apply_lab(host);
    take_result(host);
    take_ratios(host);
    const bool pres = host.presenter();
    out.classroom = pres;
    out.lesson_title = p.lesson().title;
    out.step_title = p.step().title;
    out.step = p.step_index();
    out.steps = p.step_count();
    out.verdicts.assign(p.step().predicts.size(), "");
    out.answers.assign(p.step().predicts.size(), "");
    out.goals.assign(p.step().goals.size(), "");
    out.lab_view = lab_view();
    out.typed.assign(p.step().predicts.size(), "");

    if (!p.notice().empty()) flow_plain(p.notice(), kBad);
    header(p, pres);
    ImGui::Separator();

    const bool new_step = shown_step_ != p.step_index();
    shown_step_ = p.step_index();
    if (new_step) list_shown_ = false;
    out.typing_to = take_typing(host);
    DrawCtx c{p, host, inputs_, reanswer_, out.typing_to, reveal_, pres, out};
    // In front of a class the open question stays in view, pinned above Back/Next (at
    // 1280x720 the step's prose filled the panel and its predict sat below the fold).
    const std::vector<std::size_t> open = open_predicts();
    const bool pin = pres && !open.empty() && !list_shown_;
    const std::size_t pinned_q =
        !pin ? 0 : std::find(open.begin(), open.end(), out.typing_to) != open.end() ? out.typing_to : open.front();
    // As tall as the question wraps (at 1600x1000 a five-line question lost its last line in a
    // fixed strip), at most half the panel; the strip scrolls beyond that.
    float pinned_h = 0.f;
    if (pin) {
      const float line = ImGui::GetTextLineHeightWithSpacing();
      const float wrap = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().WindowPadding.x * 2;
      const std::string q = "Predict: " + p.step().predicts[pinned_q].question;
      const float text_h = ImGui::CalcTextSize(q.c_str(), nullptr, false, wrap).y;
      pinned_h = std::min(text_h + line * 2.2f, ImGui::GetContentRegionAvail().y * 0.5f);
    }
    ImGui::BeginChild("step", ImVec2(0, -ImGui::GetFrameHeightWithSpacing() * (pres ? 1.3f : 1.2f) - pinned_h));
    if (new_step) ImGui::SetScrollY(0);  // each step opens at its top, heading first
    out.scroll_y = ImGui::GetScrollY();
    if (list_shown_) {
      // The lessons, in the player's place until one is picked or the step is back.
      out.list_shown = true;
      lesson_list();
      ImGui::EndChild();
      out.nav_hint = nav(p, pres);
      return out;
    }
    // In the classroom script a screen holds the step: the lesson's introduction, which the
    // presenter tells in their own words, folds away.
    if (p.step_index() == 0 && !p.lesson().intro.empty() &&
        (!pres || ImGui::CollapsingHeader("Introduction")))
      draw_blocks(p.lesson().intro, c);
    ImGui::SetWindowFontScale(pres ? 1.25f : 1.15f);
    ImGui::PushTextWrapPos(0);  // a long title wraps in the column
    text_runs(kHeading, p.step().title, true);
    ImGui::PopTextWrapPos();
    ImGui::SetWindowFontScale(1.f);
    ImGui::Spacing();
    draw_blocks(p.step().body, c);
    if (ratios_) ImGui::TextColored(kDim, "running the reference for the ratios...");
    if (!pres) {
      ImGui::Spacing();
      ImGui::Separator();
      if (ImGui::CollapsingHeader("All lessons")) lesson_list();
    }
    ImGui::EndChild();
    if (pin) {
      const std::size_t q = pinned_q;  // the question the strip was sized for
      ImGui::BeginChild("pinned question", ImVec2(0, pinned_h), false);
      ImGui::Separator();
      flow_lesson_text("Predict: " + p.step().predicts[q].question, kStrong);
      const std::string& typed = inputs_[q];
      flow_plain(typed.empty() ? "type the number, Enter to answer" : "answer: " + typed + "  (Enter)", kDim);
      out.pinned_whole = ImGui::GetScrollMaxY() <= 0.f;
      ImGui::EndChild();
      out.pinned_question = p.step().predicts[q].question;
    }
    out.nav_hint = nav(p, pres);
    return out;
  }

  bool next_step() override { return player_ && player_->next(); }
  bool prev_step() override { return player_ && player_->back(); }
  bool answer(std::size_t i, double guess) override {
    if (!player_ || i >= player_->step().predicts.size()) return false;
    inputs_[i] = format_number(guess);
    player_->answer(i, guess);
    reanswer_.erase(i);
    reveal_ = i;
    return true;
  }
  double answer_value(std::size_t i) const override {
    if (!player_ || i >= player_->step().predicts.size() || !player_->has_facts())
      return std::numeric_limits<double>::quiet_NaN();
    return player_->facts().get(player_->step().predicts[i].answer.key());
  }
  std::string lab_view() const override {
    const Lab* lab = player_ && player_->step_count() ? player_->lab() : nullptr;
    return lab ? lab->view : "";
  }
  bool takes_typing() const override { return !open_predicts().empty(); }
  LessonCover cover() const override {
    LessonCover c;
    if (!player_ || player_->step_count() == 0) return c;
    const Player& p = *player_;
    for (std::size_t i = 0; i < p.step().predicts.size(); ++i)
      if (!p.answered(i)) add_cover(p.step().predicts[i].answer, c);
    // Another step's question about this very run (lesson 13's step 2 showed step 3's 8
    // sectors a request in its metrics): covered here as well.
    for (const auto& [s, q] : p.pending_same_run()) {
      add_cover(q, c);
      if (c.count_by_steps.empty() || c.count_by_steps.back() != s + 1) c.count_by_steps.push_back(s + 1);
    }
    // Descriptions name results ("pad=1 removes it", "32 sectors"): kept back with them.
    c.description = c.any();
    // A later (or skipped) step's timed question about this family: the chart of every
    // variant answers it, so times stay back here too (the description is this step's).
    const bool own_time = c.views.time;
    for (const Quantity& q : p.pending_timed_elsewhere()) add_cover(q, c);
    if (c.views.time && !own_time)
      for (const std::size_t s : p.pending_timed_steps()) c.time_by_steps.push_back(s + 1);
    return c;
  }
  bool go_step(std::size_t i) override { return player_ && player_->go(i); }
  void typed_tab() override { tab_pending_ = true; }

 private:
  bool quoted_ = false;  // the GPU's recording looked up (once)
  // The open step's predicts still to answer (unanswered, or opened again), in order.
  std::vector<std::size_t> open_predicts() const {
    std::vector<std::size_t> out;
    if (!player_ || player_->step_count() == 0 || list_shown_) return out;
    Player& p = const_cast<Player&>(*player_);  // result() reads only
    for (std::size_t i = 0; i < p.step().predicts.size(); ++i)
      if (!p.result(i) || reanswer_.count(i)) out.push_back(i);
    return out;
  }

  // Typing without a click: while no text field has the focus, the typed characters of a
  // number, Backspace, Enter (answers) and Tab (the next question) go to the first open
  // predict, or the one Tab moved to. Returns that predict (SIZE_MAX: none).
  std::size_t take_typing(LessonHost& host) {
    const std::vector<std::size_t> open = open_predicts();
    if (open.empty()) return SIZE_MAX;
    if (std::find(open.begin(), open.end(), typing_to_) == open.end()) typing_to_ = open.front();
    ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput || ImGui::IsAnyItemActive()) return typing_to_;
    auto pressed = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k)); };
    const bool tab = tab_pending_;
    tab_pending_ = false;
    if (tab) {
      auto it = std::find(open.begin(), open.end(), typing_to_);
      typing_to_ = ++it == open.end() ? open.front() : *it;
      return typing_to_;
    }
    std::string& text = inputs_[typing_to_];
    for (const ImWchar ch : io.InputQueueCharacters)
      if ((ch >= '0' && ch <= '9') || ch == '.' || ch == '-' || ch == '+' || ch == 'e' || ch == 'E')
        if (text.size() < 40) text += char(ch);
    if (pressed(ImGuiKey_Backspace) && !text.empty()) text.pop_back();
    if (pressed(ImGuiKey_Enter) || pressed(ImGuiKey_KeyPadEnter)) {
      Player& p = *player_;
      const std::size_t i = typing_to_;
      DrawCtx c{p, host, inputs_, reanswer_, i, reveal_, host.presenter(), scratch_};
      answer_typed(i, c);
    }
    return typing_to_;
  }

  void header(Player& p, bool pres) {
    const Lesson& l = p.lesson();
    if (!pres) {
      ImGui::SetWindowFontScale(1.2f);
      ImGui::PushTextWrapPos(0);
      text_runs(kHeading, l.title, true);
      ImGui::PopTextWrapPos();
      ImGui::SetWindowFontScale(1.f);
      ImGui::TextColored(kDim, "%s, %d min", l.level.c_str(), l.minutes);
      // The other lessons stay one click away.
      const char* label = list_shown_ ? "back to the step" : "all lessons";
      ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x -
                                                           ImGui::CalcTextSize(label).x -
                                                           ImGui::GetStyle().FramePadding.x * 2));
      if (ImGui::SmallButton(label)) list_shown_ = !list_shown_;
    }
    const float frac = float(p.lesson_progress().steps_done()) / float(p.step_count());
    char buf[64];
    std::snprintf(buf, sizeof buf, "step %zu of %zu", p.step_index() + 1, p.step_count());
    ImGui::ProgressBar(frac, ImVec2(-1, 0), buf);
  }

  // Back/Next buttons and one line of state. The keys (PageDown/PageUp, and n/b in the
  // presenter's script) are handled with the app's other keys (keys.cpp).
  std::string nav(Player& p, bool pres) {
    bool back = false, next = false;
    if (ImGui::Button("< Back") && !p.at_first()) back = true;
    ImGui::SameLine();
    if (ImGui::Button("Next >") && !p.at_last()) next = true;
    ImGui::SameLine();
    std::string hint;
    if (p.step_complete()) {
      hint = p.lesson_complete() ? "lesson complete" : "step done";
      ImGui::TextColored(kGood, "%s", hint.c_str());
    } else {
      hint = pres ? "PgDn or n: next step, PgUp or b: back" : "answer and reach the goals to finish the step";
      ImGui::TextColored(kDim, "%s", hint.c_str());
    }
    if (next) p.next();
    if (back) p.back();
    return hint;
  }

  // Opening a step applies its lab: kernel, variant and parameters go to the app's views.
  void apply_lab(LessonHost& host) {
    Player& p = *player_;
    if (applied_ == p.step_index()) return;
    applied_ = p.step_index();
    inputs_.clear();
    reanswer_.clear();
    reveal_ = SIZE_MAX;
    if (const Lab* lab = p.lab()) {
      host.open_lab(lab->family, p.variant(), p.params(), lab->timing);
      seen_gen_ = host.result_generation();  // results before this request are not the lab's
    }
  }

  // A finished run becomes the player's facts, with the student's changes read off it.
  void take_result(LessonHost& host) {
    Player& p = *player_;
    const Lab* lab = p.lab();
    if (!lab || host.run_pending() || host.result_generation() == seen_gen_) return;
    seen_gen_ = host.result_generation();
    auto r = host.latest_result();
    if (!r) return;
    const std::string v = variant_of(*r, lab->family, p.variant());
    if (v.empty()) return;  // the student is looking at another kernel
    const VariantInfo* vi = find_variant(lab->family, v);
    Params lab_done;
    validate(*vi, params_for(lab->family, v, lab->params), DeviceLimits{}, lab_done);
    p.reset_params();
    p.set_variant(v == lab->variant ? "" : v);
    Params changed;  // the student's changes: the timing run applies them too
    for (const auto& [k, val] : r->params)
      if (!lab_done.count(k) || lab_done.at(k) != val) {
        p.set_param(k, val);
        changed[k] = val;
      }
    const DeviceInfo dev = host.device();
    Facts f = facts_from_run(*r, dev);
    f.backend = r->timing.source.on_gpu() ? "cuda" : "emu";
    if (!r->error.empty()) f.error = r->error;
    else if (!r->verified) f.error = "the output is wrong: " + r->verify_message;
    Lab ran = *lab;
    ran.variant = v;
    const std::vector<Quantity> wanted = p.wanted();
    add_ratio_facts(f, ran, *r, dev, wanted, nullptr);
    // The ratios that need another run go to the worker; until they come back the step
    // is judged on what this run gives (on the emulator, copy_bandwidth from the model).
    // A lab with a timing size gets every timed quantity from a run at that size (live on
    // a GPU, from the recording on the emulator): lessons/README.md.
    const bool timing_run = !lab->timing.empty();
    std::vector<Quantity> extra;
    for (const Quantity& q : wanted)
      if ((timing_run && q.timed()) ||
          (q.kind == QuantityKind::Ratio &&
           (q.name == "copy_bandwidth" || q.name == "library" || q.name.rfind("over:", 0) == 0)))
        extra.push_back(q);
    ratios_.reset();
    if (!extra.empty() && r->error.empty()) {
      auto got = std::make_shared<Facts>();
      RunOptions opt;
      opt.timing = true;
      PendingRatios pr;
      pr.id = host.run_on_worker([got, ran, r, dev, extra, opt, timing_run, changed](Backend& b) {
        if (timing_run)
          *got = run_lab(ran, changed, b, extra);
        else
          add_ratio_facts(*got, ran, *r, dev, extra, &b, opt);
      });
      pr.step = p.step_index();
      pr.gen = seen_gen_;
      pr.changes = p.changes();
      pr.variant = p.variant();
      pr.base = f;
      pr.got = std::move(got);
      ratios_ = std::move(pr);
    }
    p.set_facts(std::move(f));
    // The step is about one event: open the views on it when the step opens, and again
    // when a later run of it has put the stepper back at the start (on the H100 a second
    // run of the lab, once the GPU was up, left lesson 01's step 3 on event 1); the
    // student may step elsewhere meanwhile.
    if (!lab->at.empty() && v == lab->variant &&
        (sought_step_ != p.step_index() || host.stepper_at_start())) {
      const bool first = sought_step_ != p.step_index();
      sought_step_ = p.step_index();
      if (!host.seek_to(lab->at) && first) host.notice("this step's event (" + lab->at + ") is not in the run");
    }
  }

  // The worker's reference runs, merged into the facts of the run they were asked for
  // (dropped when the student has moved on: another step, run or parameter change).
  void take_ratios(LessonHost& host) {
    if (!ratios_ || !host.task_finished(ratios_->id)) return;
    PendingRatios pr = std::move(*ratios_);
    ratios_.reset();
    Player& p = *player_;
    if (pr.step != p.step_index() || pr.gen != seen_gen_ || pr.changes != p.changes() || pr.variant != p.variant())
      return;
    if (!pr.got->timed_params.empty()) {
      // A run at the timing size: its timed values and where they come from.
      if (!pr.got->error.empty()) return;
      std::set<std::string> timed;
      for (const auto& q : plain_quantities())
        if (q.timed) {
          timed.insert(q.name);
          pr.base.values.erase(q.name);
        }
      pr.base.measured = pr.got->measured;
      pr.base.timed = pr.got->timed;
      pr.base.timed_source = pr.got->timed_source;
      pr.base.timed_params = pr.got->timed_params;
      for (const auto& [k, v] : pr.got->values)
        if (k.rfind("ratio:", 0) == 0 || timed.count(k)) pr.base.values[k] = v;
    } else {
      for (const auto& [k, v] : pr.got->values) pr.base.values[k] = v;
    }
    p.set_facts(std::move(pr.base));
  }

  // "done", "2/5 steps", "5 steps" or "has errors".
  static std::string status_of(const ListEntry& e, const Progress& prog) {
    auto it = prog.lessons.find(e.id);
    if (!e.error.empty()) return "has errors";
    if (it != prog.lessons.end() && it->second.completed) return "done";
    if (it != prog.lessons.end())
      return std::to_string(it->second.steps_done()) + "/" + std::to_string(e.steps) + " steps";
    return std::to_string(e.steps) + " steps";
  }

  std::vector<LessonEntry> lessons() override {
    if (!scanned_) {
      scan();
      list_progress_ = load_progress(default_data_dir(), false);
      scanned_ = true;
    }
    std::vector<LessonEntry> out;
    for (const ListEntry& e : entries_)
      out.push_back({e.path, e.id, e.title.empty() ? e.id : e.title, e.level, e.minutes, e.steps,
                     status_of(e, list_progress_), e.error});
    return out;
  }

  void lesson_list() {
    // Scanned and read once, not every frame (a large progress file read 60 times a
    // second stalled the window); only reading, the player moves a bad file aside.
    if (!scanned_) {
      scan();
      list_progress_ = load_progress(default_data_dir(), false);
      scanned_ = true;
    }
    const Progress& prog = list_progress_;
    if (entries_.empty()) {
      ImGui::TextColored(kDim, "No lessons found in %s", dir_.c_str());
      return;
    }
    for (const ListEntry& e : entries_) {
      const std::string status = status_of(e, prog);
      const bool current = player_ && player_->lesson().id == e.id;
      const std::string title = e.title.empty() ? e.id : e.title;
      const std::string label = title + "##" + e.id;
      // The title gets all the width the status leaves, and wraps onto a second line
      // rather than being cut; one click on it opens the lesson.
      const float avail = ImGui::GetContentRegionAvail().x;
      const float title_w = std::max(avail * 0.5f, avail - ImGui::CalcTextSize(status.c_str()).x -
                                                        ImGui::GetStyle().ItemSpacing.x);
      const ImVec2 at = ImGui::GetCursorPos();
      const float h = ImGui::CalcTextSize(title.c_str(), nullptr, false, title_w).y;
      const bool clicked = ImGui::Selectable(label.c_str() + title.size(), current, 0, ImVec2(title_w, h));
      if (clicked && !current) {
        std::string err;
        open(e.path, err);
        entries_.clear();
        scanned_ = false;
        return;
      }
      ImGui::SameLine();
      ImGui::TextColored(status == "done" ? kGood : e.error.empty() ? kDim : kBad, "%s", status.c_str());
      ImGui::SetCursorPos(at);
      ImGui::PushTextWrapPos(at.x + title_w);
      text_runs(ImGui::GetStyleColorVec4(ImGuiCol_Text), title, true);
      ImGui::PopTextWrapPos();
    }
  }

  void scan() {
    if (dir_.empty()) dir_ = paths::lessons_dir();
    if (dir_.empty()) {  // named in the "No lessons found" line: every place searched
      for (const std::string& r : paths::data_roots())
        dir_ += (dir_.empty() ? "" : ", ") + (fs::path(r) / "lessons").string();
      return;
    }
    std::error_code ec;
    for (const auto& de : fs::directory_iterator(dir_, ec)) {
      if (de.path().extension() != ".md" || de.path().filename() == "README.md") continue;
      ListEntry e;
      e.path = de.path().string();
      e.id = de.path().stem().string();
      // Each file fails alone: its error is the entry's notice, the rest still list.
      ParseResult r;
      try {
        r = parse_lesson(e.path);
      } catch (const std::exception& ex) {
        r.errors.push_back({e.path, 0, std::string("cannot be read: ") + ex.what()});
      }
      if (r.lesson) {
        e.title = r.lesson->title;
        e.steps = r.lesson->steps.size();
        e.level = r.lesson->level;
        e.minutes = r.lesson->minutes;
      } else {
        e.error = r.errors.empty() ? "?" : r.errors[0].str();
      }
      entries_.push_back(std::move(e));
    }
    std::sort(entries_.begin(), entries_.end(),
              [](const ListEntry& a, const ListEntry& b) { return a.id < b.id; });
  }

  struct PendingRatios {
    std::uint64_t id = 0, gen = 0;
    std::size_t step = 0;
    Params changes;
    std::string variant;
    Facts base;                   // the run's facts without the worker's ratios
    std::shared_ptr<Facts> got;   // written by the worker's task
  };

  std::optional<Player> player_;
  std::optional<PendingRatios> ratios_;
  bool scanned_ = false;
  Progress list_progress_;
  std::string error_, dir_;
  std::vector<ListEntry> entries_;
  std::size_t applied_ = SIZE_MAX;
  std::size_t shown_step_ = SIZE_MAX;  // the step drawn last frame: a new one scrolls to its top
  std::size_t sought_step_ = SIZE_MAX;  // the step whose `at:` event the views were moved to
  std::uint64_t seen_gen_ = 0;
  std::map<std::size_t, std::string> inputs_;
  std::set<std::size_t> reanswer_;
  std::size_t typing_to_ = SIZE_MAX;  // the predict Tab moved typing to
  bool list_shown_ = false;           // "all lessons": the list in the step's place
  bool tab_pending_ = false;          // typed_tab() since the last frame
  std::size_t reveal_ = SIZE_MAX;     // the predict whose verdict scrolls into view next frame
  LessonDraw scratch_;                // what answering outside the step's drawing writes to
};

}  // namespace

std::unique_ptr<LessonPanel> make_lesson_panel() { return std::make_unique<PlayerPanel>(); }

}  // namespace ws::gui
