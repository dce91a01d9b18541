// Drawing one lesson step: text runs, code blocks, labs, predicts and goals (the player
// panel itself is in lesson_player.cpp).
//
// Index (search for "[SECTION] <name>"):
//   Text: spans and plain runs
//   Drawing a step: blocks, labs, predicts, goals
#include "app/gui/lesson_step.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>

#include "app/lesson/lesson_refs.h"
#include "viz/text_runs.h"

namespace ws::gui::step {

// [SECTION] Text: spans and plain runs
// Lesson text in bounded runs (viz/text_runs.h): ImGui 1.86 reserves 4 vertices a
// character per text call with 16-bit indices, and its Text*() formatters cut at 3 KB, so
// an unbroken 17,000-character word aborted the window. `wrap`: each piece wraps at the
// current wrap position and starts a line; otherwise the pieces of a line are laid side
// by side (code keeps its lines) and every '\n' starts a new line.
void text_runs(const ImVec4& col, std::string_view text, bool wrap) {
  ImGui::PushStyleColor(ImGuiCol_Text, col);
  std::size_t at = 0;
  for (;;) {
    const std::size_t nl = text.find('\n', at);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    const auto pieces = viz::text_pieces(text.substr(at, end - at));
    if (pieces.empty()) ImGui::TextUnformatted("");
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      if (i > 0 && !wrap) ImGui::SameLine(0, 0);
      ImGui::TextUnformatted(pieces[i].data(), pieces[i].data() + pieces[i].size());
    }
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  ImGui::PopStyleColor();
}

// Draws styled runs as flowing text, wrapped at the panel's width, word by word.
void flow(const std::vector<Span>& spans, const ImVec4& base) {
  const float left = ImGui::GetCursorPosX();
  const float width = std::max(50.f, ImGui::GetContentRegionAvail().x);
  const float space = ImGui::CalcTextSize(" ").x;
  float x = 0;          // end of the line so far, from `left`
  bool line_empty = true, pending_space = false, any = false;
  for (const Span& s : spans) {
    if (s.line_break) {
      line_empty = true;
      pending_space = false;
      x = 0;
      continue;
    }
    const ImVec4 col = s.code ? kCode : s.strong ? kStrong : s.emphasis || !s.link.empty() ? kEmph : base;
    const std::string& t = s.text;
    std::size_t i = 0;
    while (i < t.size()) {
      if (t[i] == ' ') {
        pending_space = true;
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < t.size() && t[j] != ' ') ++j;
      const std::string word = t.substr(i, j - i);
      const float w = ImGui::CalcTextSize(word.c_str()).x;
      const float gap = pending_space && !line_empty ? space : 0;
      if (!line_empty && x + gap + w > width) {
        x = 0;  // wrap: the next item starts a new line
        line_empty = true;
      } else if (!line_empty) {
        ImGui::SameLine(0, 0);
        ImGui::SetCursorPosX(left + x + gap);
        x += gap;
      }
      if (line_empty) ImGui::SetCursorPosX(left);
      if (line_empty && w > width) {
        // A word longer than the line (a metric's name): broken where the line ends,
        // in bounded pieces whatever its length.
        ImGui::PushTextWrapPos(left + width);
        text_runs(col, word, true);
        ImGui::PopTextWrapPos();
        x = width;
      } else {
        ImGui::TextColored(col, "%s", word.c_str());
        x += w;
      }
      line_empty = false;
      pending_space = false;
      any = true;
      i = j;
    }
  }
  if (!any) ImGui::NewLine();
}

void flow_plain(const std::string& text, const ImVec4& col) {
  Span s;
  s.text = text;
  flow({s}, col);
}

void flow_lesson_text(const std::string& text, const ImVec4& col) {
  // A lesson's one-line texts (questions, explanations, goals) mark code as the prose does:
  // `tiled` in colour, not in raw backticks. Unbalanced backticks stay as they are.
  if (std::count(text.begin(), text.end(), '`') % 2 != 0) return flow_plain(text, col);
  std::vector<Span> spans;
  bool code = false;
  std::size_t from = 0;
  for (std::size_t at = text.find('`'); ; at = text.find('`', from)) {
    Span sp;
    sp.text = text.substr(from, at == std::string::npos ? std::string::npos : at - from);
    sp.code = code;
    if (!sp.text.empty()) spans.push_back(sp);
    if (at == std::string::npos) break;
    code = !code;
    from = at + 1;
  }
  flow(spans, col);
}

// [SECTION] Drawing a step: blocks, labs, predicts, goals
// Every predict of the step answered: only then do goals show their current value, which
// would otherwise give a prediction's answer away.
bool predicts_answered(Player& p) {
  for (std::size_t i = 0; i < p.step().predicts.size(); ++i)
    if (!p.result(i)) return false;
  return true;
}

// What a predict's quantity shows on the other panels, added to `c`: the views that draw
// it and the words of the metrics rows that hold it (or a number it follows from).
std::string time_cover_reason(const LessonCover& c) {
  const auto& s = c.time_by_steps;
  if (s.empty()) return "this step's question";
  if (s.size() == 1) return "step " + std::to_string(s[0]) + "'s question";
  std::string r = "the questions of steps ";
  for (std::size_t i = 0; i < s.size(); ++i)
    r += (i == 0 ? "" : i + 1 == s.size() ? " and " : ", ") + std::to_string(s[i]);
  return r;
}

void add_cover(const Quantity& q, LessonCover& c) {
  viz::Covered& v = c.views;
  auto words = [&](std::initializer_list<const char*> ws) {
    for (const char* w : ws) c.metric_words.emplace_back(w);
  };
  auto shared = [&] {
    v.shared = true;
    words({"wavefront", "bank", "shared conflicts", "op_shared"});
  };
  auto global = [&] {
    v.global = true;
    words({"global", "sector"});
  };
  auto branch = [&] {
    v.branch = true;
    words({"SIMD", "branch"});
  };
  if (q.timed()) {  // a time, a throughput or a ratio of them: every chart and time row
    v.time = true;
    return;
  }
  const std::string& n = q.name;
  if (q.kind == QuantityKind::Metric) {
    if (n.find("shared") != std::string::npos) shared();
    else if (n.find("global") != std::string::npos) global();
    else words({n.c_str()});
    return;
  }
  auto has = [&](const char* w) { return n.find(w) != std::string::npos; };
  if (has("sectors") || has("global") || has("bytes_moved") || has("bytes_requested")) global();
  else if (has("wavefronts") || has("bank_conflicts") || n == "shared_requests") shared();
  else if (has("simd") || has("branch") || has("divergent") || n == "active_lanes" || n == "warp_instructions")
    branch();
  else if (n == "barriers") {
    v.barrier = true;
    words({"barrier"});
  } else if (has("flop") || has("fma") || n == "logical_bytes") {
    v.flops = true;
    words({"flop", "FLOP", "fma", "FMA"});
    if (n == "flops_per_byte") global();
    if (n == "shared_loads_per_fma") shared();
  } else if (n != "verified") {  // the launch's shape: blocks, warps, registers, occupancy
    v.launch = true;
    words({"occupancy", "registers", "blocks per SM"});
  }
  if (n == "active_lanes" || n == "idle_lanes_per_block") v.lanes = true;  // the stepper counts them
}

// Code keeps its lines: one wider than the panel scrolls sideways rather than being cut.
void code_block(const Block& b) {
  ImGui::PushStyleColor(ImGuiCol_ChildBg, kBox);
  const float lines = float(std::count(b.text.begin(), b.text.end(), '\n') + 1);
  const ImGuiStyle& st = ImGui::GetStyle();
  const bool wide = ImGui::CalcTextSize(b.text.c_str()).x + st.WindowPadding.x * 2 > ImGui::GetContentRegionAvail().x;
  const float h = lines * ImGui::GetTextLineHeightWithSpacing() + st.WindowPadding.y * 2 + (wide ? st.ScrollbarSize : 0);
  ImGui::BeginChild(ImGui::GetID(&b), ImVec2(0, h), false,
                    wide ? ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_AlwaysHorizontalScrollbar
                         : ImGuiWindowFlags_NoScrollbar);
  text_runs(kCode, b.text, false);  // every line whole, however long (no 3 KB cut)
  ImGui::EndChild();
  ImGui::PopStyleColor();
}

void lab_line(const Lab& lab, DrawCtx& c) {
  std::string s = "Lab: " + lab.family + " / " + c.player.variant() + "  " + ws::to_string(c.player.params());
  if (!lab.view.empty()) s += "  (view: " + lab.view + ")";
  flow_plain(s, kDim);
  if (const std::string sz = c.host.sizes_line(); !sz.empty()) flow_plain(sz, kDim);
  if (!c.player.changes().empty() || c.player.variant() != lab.variant) {
    if (ImGui::SmallButton("reset lab")) {
      c.player.reset_params();
      c.player.set_variant(lab.variant);
      c.host.open_lab(lab.family, lab.variant, lab.params, lab.timing);
    }
  }
}

// The text typed for predict i as a number, answered; text that is no number is said so.
void answer_typed(std::size_t i, DrawCtx& c) {
  const std::string& text = c.inputs[i];
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || *end != 0) {
    c.host.notice("the answer '" + text + "' is not a number");
    return;
  }
  c.player.answer(i, v);
  c.reanswer.erase(i);
  c.reveal = i;
}

void predict_box(std::size_t i, DrawCtx& c) {
  const Predict& p = c.player.step().predicts.at(i);
  ImGui::PushID(int(1000 + i));
  ImGui::Separator();
  ImGui::TextColored(kStrong, "Predict");
  flow_lesson_text(p.question);
  const PredictResult* r = c.player.result(i);
  if (r && !c.reanswer.count(i)) {
    flow_lesson_text(r->explanation, r->correct ? kGood : kBad);
    // Just answered: the verdict comes into view, where the answer was typed.
    if (c.reveal == i) {
      ImGui::SetScrollHereY(1.0f);
      c.reveal = SIZE_MAX;
    }
    if (i < c.out.verdicts.size()) c.out.verdicts[i] = r->explanation;
    if (i < c.out.answers.size()) c.out.answers[i] = answer_text(p, r->answer);
    if (ImGui::SmallButton("answer again")) c.reanswer.insert(i);  // opens the input again
  } else {
    std::string& text = c.inputs[i];
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s", text.c_str());
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    const bool typing_here = c.typing_to == i;
    // Where typed keys go without a click: framed in the answer colour.
    if (typing_here) {
      ImGui::PushStyleColor(ImGuiCol_Border, kStrong);
      ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, 2.f);
    }
    bool enter = ImGui::InputText("##guess", buf, sizeof buf,
                                  ImGuiInputTextFlags_CharsScientific | ImGuiInputTextFlags_EnterReturnsTrue);
    if (typing_here) {
      ImGui::PopStyleVar();
      ImGui::PopStyleColor();
    }
    text = buf;
    if (!p.unit.empty()) {
      ImGui::SameLine();
      ImGui::TextColored(kDim, "%s", p.unit.c_str());
    }
    ImGui::SameLine();
    if (ImGui::Button("Answer")) enter = true;
    if (enter) answer_typed(i, c);
    if (typing_here && !c.presenter)
      flow_plain(text.empty() ? "type your answer here, Enter to answer" : "Enter to answer, Tab: next question", kDim);
    if (i < c.out.typed.size()) c.out.typed[i] = text;
    if (!c.player.has_base_facts())
      ImGui::TextColored(kDim, "%s", c.host.run_pending() ? "the lab is running..." : "waiting for the lab's run");
  }
  ImGui::PopID();
}

void goal_box(std::size_t i, DrawCtx& c) {
  const Goal& g = c.player.step().goals.at(i);
  ImGui::Separator();
  ImGui::TextColored(kStrong, "Goal");
  flow_lesson_text(g.text);
  const GoalStatus s = c.player.goal(i);
  const bool done = c.player.goal_done(i);
  flow_plain("target: " + goal_target_text(g), kDim);
  // A goal's value answers another step's open question that asks the same quantity (lesson
  // 04's last step, opened first, showed naive's 0.16 of cudaMemcpy: step 3's answer): kept
  // back, reached or not. Another quantity's question (a ratio over another variant) leaves
  // the student's progress in view.
  LessonCover elsewhere;
  for (const std::size_t st : c.player.pending_steps_asking(g.quantity)) elsewhere.time_by_steps.push_back(st + 1);
  const bool gives_away = !elsewhere.time_by_steps.empty();
  const std::string line =
      gives_away ? (done ? "[x] reached (its value shows once " : "[ ] not yet (its value shows once ") +
                       time_cover_reason(elsewhere) + (elsewhere.time_by_steps.size() == 1 ? " is" : " are") + " answered)"
      : done || predicts_answered(c.player) ? (done ? "[x] " : "[ ] ") + s.label
                                             : "[ ] not yet (its value shows once the predictions are answered)";
  flow_plain(line, done ? kGood : kText);
  if (i < c.out.goals.size()) c.out.goals[i] = line;
}

void draw_blocks(const std::vector<Block>& blocks, DrawCtx& c) {
  for (const Block& b : blocks) {
    switch (b.kind) {
      case BlockKind::Heading:
        ImGui::Spacing();
        ImGui::SetWindowFontScale(b.level <= 2 ? 1.3f : 1.12f);
        flow(b.spans, kHeading);
        ImGui::SetWindowFontScale(1.f);
        break;
      case BlockKind::Paragraph:
        flow(b.spans);
        ImGui::Spacing();
        break;
      case BlockKind::Code:
        code_block(b);
        break;
      case BlockKind::List: {
        int n = b.start;
        for (const Block& item : b.children) {
          const std::string mark = b.ordered ? std::to_string(n++) + "." : "-";
          ImGui::TextColored(kDim, "%s", mark.c_str());
          ImGui::SameLine();
          ImGui::BeginGroup();
          ++c.depth;
          draw_blocks(item.children, c);
          --c.depth;
          ImGui::EndGroup();
        }
        ImGui::Spacing();
        break;
      }
      case BlockKind::ListItem:
        draw_blocks(b.children, c);
        break;
      case BlockKind::Quote:
        ImGui::Indent();
        draw_blocks(b.children, c);
        ImGui::Unindent();
        break;
      case BlockKind::Rule:
        ImGui::Separator();
        break;
      case BlockKind::Lab:
        if (c.player.step().lab) lab_line(*c.player.step().lab, c);
        break;
      case BlockKind::Predict:
        predict_box(b.index, c);
        break;
      case BlockKind::Goal:
        goal_box(b.index, c);
        break;
    }
  }
}

}  // namespace ws::gui::step
