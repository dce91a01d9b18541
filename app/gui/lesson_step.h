// Drawing one lesson step inside the player (app/gui/lesson_player.cpp): the text runs,
// code, labs, predicts and goals of a step's blocks. Internal to the lesson player.
#pragma once

#include <imgui.h>

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "app/gui/lesson_panel.h"
#include "app/lesson/lesson_model.h"
#include "app/lesson/player.h"
#include "viz/imgui_util.h"

namespace ws::gui::step {

using namespace ws::lesson;

// The lesson's colours (viz/theme.h).
inline const viz::Theme& kTheme = viz::theme({});
inline const ImVec4 kText = viz::to_imvec4(kTheme.lesson_text);
inline const ImVec4 kEmph = viz::to_imvec4(kTheme.lesson_emphasis);
inline const ImVec4 kStrong = viz::to_imvec4(kTheme.lesson_strong);
inline const ImVec4 kCode = viz::to_imvec4(kTheme.lesson_code);
inline const ImVec4 kHeading = viz::to_imvec4(kTheme.lesson_heading);
inline const ImVec4 kDim = viz::to_imvec4(kTheme.lesson_dim);
inline const ImVec4 kGood = viz::to_imvec4(kTheme.lesson_good);
inline const ImVec4 kBad = viz::to_imvec4(kTheme.lesson_bad);
inline const ImVec4 kBox = viz::to_imvec4(kTheme.lesson_box);

// What block markers need: the player and the host.
struct DrawCtx {
  Player& player;
  LessonHost& host;
  std::map<std::size_t, std::string>& inputs;  // per predict: the text in its input
  std::set<std::size_t>& reanswer;  // answered predicts whose input is open again
  std::size_t typing_to;            // the predict typed keys go to
  std::size_t& reveal;              // a predict just answered: its verdict scrolls into view
  bool presenter;
  LessonDraw& out;
  int depth = 0;
};

// Text in bounded runs; `wrap`: each piece wraps and starts a line.
void text_runs(const ImVec4& col, std::string_view text, bool wrap);
// Spans of lesson prose, emphasis and code in their colours.
void flow(const std::vector<Span>& spans, const ImVec4& base = kText);
void flow_plain(const std::string& text, const ImVec4& col = kText);
// flow_plain with `code` drawn as the prose draws it (a lesson's questions, explanations, goals).
void flow_lesson_text(const std::string& text, const ImVec4& col = kText);
// Every predict of the step answered (goals show their values only then).
bool predicts_answered(Player& p);
// What a predict's quantity shows on the other panels, added to `c`.
void add_cover(const Quantity& q, LessonCover& c);
// Why a chart or a time is kept back, said truly: "this step's question" or "step 4's
// question" / "the questions of steps 4 and 6".
// @post "this step's question" when c.time_by_steps is empty; else names every step of it.
std::string time_cover_reason(const LessonCover& c);
// A typed answer to predict `i` (presenter keys), checked as if entered in its box.
void answer_typed(std::size_t i, DrawCtx& c);
void draw_blocks(const std::vector<Block>& blocks, DrawCtx& c);

}  // namespace ws::gui::step
