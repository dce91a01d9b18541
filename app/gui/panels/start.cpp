// The Start page: where the window opens when nothing was named on the command line. It
// leads to lesson 1, lists every lesson (level, minutes, progress) and every puzzle, each
// opened by a click, or lets the student explore the kernels as they are.
#include <filesystem>

#include "app/gui/panels/panel.h"
#include "app/puzzle/puzzle.h"

namespace ws::gui {

namespace {

struct PuzzleEntry {
  std::string path, slug, title, job, error;
};

// The puzzles found (puzzle::default_dir()), read once: the files do not change while the
// window is open.
const std::vector<PuzzleEntry>& puzzles() {
  static const std::vector<PuzzleEntry> list = [] {
    std::vector<PuzzleEntry> out;
    const std::string dir = puzzle::default_dir();
    if (dir.empty()) return out;
    for (const std::string& f : puzzle::list_files(dir)) {
      PuzzleEntry e;
      e.path = f;
      puzzle::Puzzle p;
      std::vector<puzzle::Error> errors;
      if (puzzle::parse_file(f, p, errors)) {
        e.slug = p.slug;
        e.title = p.title;
        e.job = p.family + "/" + p.variant;
      } else {
        e.slug = std::filesystem::path(f).stem().string();
        e.title = e.slug;
        e.error = errors.empty() ? "cannot be read" : errors.front().message;
      }
      out.push_back(std::move(e));
    }
    return out;
  }();
  return list;
}

// "01" from "01-warps": the number a list shows in its first column.
std::string number_of(const std::string& id) {
  const std::size_t dash = id.find('-');
  return dash == std::string::npos ? id : id.substr(0, dash);
}

ImVec4 dim() { return ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled); }

// One clickable row of a list table: the whole row is the target; true when clicked.
bool row(const std::string& id, const std::vector<std::string>& cells, const std::vector<bool>& dimmed,
         StartDraw::Row& drawn) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const bool clicked =
      ImGui::Selectable(("##" + id).c_str(), false, ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap);
  ImGui::SameLine(0, 0);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) ImGui::TableNextColumn();
    // Cells wrap in their column rather than being cut (presenter type, a narrow window):
    // the stretch columns (a title; a puzzle's kernel, the last of its 3) narrow, fixed
    // ones keep their width.
    const bool wraps = i == 1 || (cells.size() == 3 && i == 2);
    if (wraps) ImGui::PushTextWrapPos(0);
    if (dimmed[i])
      ImGui::TextColored(dim(), "%s", cells[i].c_str());
    else
      ImGui::TextUnformatted(cells[i].c_str());
    if (wraps) ImGui::PopTextWrapPos();
  }
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  drawn.rect = Rect{top.x, top.y, right, top.y + ImGui::GetTextLineHeight()};
  return clicked;
}

void lessons_table(AppState& s, StartDraw& d, float height) {
  const std::vector<LessonEntry> lessons = s.lesson ? s.lesson->lessons() : std::vector<LessonEntry>{};
  ImGui::TextUnformatted("Lessons");
  if (lessons.empty()) {
    wrapped_dim("No lessons found (this build has no lesson player, or the lessons folder is missing).");
    return;
  }
  const ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("##lessons", 5, tf, ImVec2(0, height))) return;
  ImGui::TableSetupColumn("#");
  ImGui::TableSetupColumn("lesson", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("level");
  ImGui::TableSetupColumn("min", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("progress");
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableHeadersRow();
  const ImVec2 wp = ImGui::GetWindowPos(), ws = ImGui::GetWindowSize();
  d.lessons_clip = Rect{wp.x, wp.y, wp.x + ws.x, wp.y + ws.y};
  std::string open;
  for (const LessonEntry& e : lessons) {
    StartDraw::Row r{e.title, e.level, e.status, e.minutes, {}};
    const std::string minutes = e.minutes > 0 ? std::to_string(e.minutes) : "";
    if (row(e.id, {number_of(e.id), e.title, e.level, minutes, e.status}, {true, false, true, true, true}, r) &&
        e.error.empty())
      open = e.path;
    d.lessons.push_back(std::move(r));
  }
  ImGui::EndTable();
  if (!open.empty()) s.open_lesson(open);
}

void puzzles_table(AppState& s, StartDraw& d, float height) {
  const std::vector<PuzzleEntry>& list = puzzles();
  ImGui::TextUnformatted("Puzzles: write the kernel, the checks judge it");
  if (list.empty()) {
    wrapped_dim("No puzzles found (set WARPSCOPE_PUZZLES, or run from the source tree).");
    return;
  }
  const ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("##puzzles", 3, tf, ImVec2(0, height))) return;
  ImGui::TableSetupColumn("#");
  // The kernel column shares the width (a third), so a long family/variant does not
  // squeeze the titles to a few letters a line in presenter type.
  ImGui::TableSetupColumn("puzzle", ImGuiTableColumnFlags_WidthStretch, 2.0f);
  ImGui::TableSetupColumn("kernel", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableHeadersRow();
  const ImVec2 wp = ImGui::GetWindowPos(), ws = ImGui::GetWindowSize();
  d.puzzles_clip = Rect{wp.x, wp.y, wp.x + ws.x, wp.y + ws.y};
  std::string open;
  for (const PuzzleEntry& e : list) {
    StartDraw::Row r{e.title, "", e.error.empty() ? "" : "has errors", 0, {}};
    if (row(e.slug, {number_of(e.slug), e.title, e.error.empty() ? e.job : "has errors"}, {true, false, true}, r) &&
        e.error.empty())
      open = e.path;
    d.puzzles.push_back(std::move(r));
  }
  ImGui::EndTable();
  if (!open.empty()) s.open_puzzle(open);
}

StartDraw start_page(AppState& s) {
  StartDraw d;
  d.drawn = true;
  const std::vector<LessonEntry> lessons = s.lesson ? s.lesson->lessons() : std::vector<LessonEntry>{};
  ImGui::SetWindowFontScale(1.3f);
  ImGui::TextUnformatted("warpscope: what a GPU kernel does, warp by warp");
  ImGui::SetWindowFontScale(1.f);
  wrapped_dim("Each lesson runs a kernel, asks you to predict what it does, then shows the warps, the banks, "
              "the sectors and the time. Each puzzle gives you a kernel to fix, and checks it.");
  ImGui::Spacing();
  // Lesson 1 first: the button a newcomer needs; then exploring without a lesson.
  const LessonEntry* first = nullptr;
  for (const LessonEntry& e : lessons)
    if (e.error.empty()) {
      first = &e;
      break;
    }
  if (first) {
    std::string n = number_of(first->id);
    while (n.size() > 1 && n[0] == '0') n.erase(0, 1);  // "lesson 1", not "lesson 01"
    d.first_lesson = "Start with lesson " + n + ": " + first->title;
    if (ImGui::Button(d.first_lesson.c_str())) {
      s.open_lesson(first->path);
      return d;
    }
    ImGui::SameLine();
  }
  if (ImGui::Button("Explore the kernels")) {
    s.explore();
    return d;
  }
  ImGui::SameLine();
  ImGui::TextColored(dim(), "(the start page comes back with the toolbar's \"start\")");
  ImGui::Spacing();
  // Two columns: the lessons take the larger, the puzzles the rest; each list scrolls on
  // its own when the window is too small for it.
  const float h = ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing();
  const float w = ImGui::GetContentRegionAvail().x;
  ImGui::BeginChild("##lessons_col", ImVec2(w * 0.58f, h + ImGui::GetTextLineHeightWithSpacing()));
  lessons_table(s, d, h);
  ImGui::EndChild();
  if (!s.start_page) return d;  // a lesson was opened
  ImGui::SameLine();
  ImGui::BeginChild("##puzzles_col", ImVec2(0, h + ImGui::GetTextLineHeightWithSpacing()));
  puzzles_table(s, d, h);
  ImGui::EndChild();
  return d;
}

}  // namespace

void draw_start(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::Start).c_str(), r)) fd.drawn[std::size_t(View::Start)] = start_page(s);
  end_panel(r);
}

}  // namespace ws::gui
