// The kernel editor panel (see editor_panel.h).
#include "app/gui/editor_panel.h"

#include "io/atomic_file.h"
#include "io/read_file.h"

#include <imgui.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>

#include "app/gui/app_state.h"
#include "kernels/user/cuda_front.h"
#include "viz/imgui_util.h"

namespace ws::gui {
namespace fs = std::filesystem;

namespace {

std::string data_dir() {
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return (fs::path(x) / "warpscope" / "puzzles").string();
  if (const char* h = std::getenv("HOME"); h && *h)
    return (fs::path(h) / ".local" / "share" / "warpscope" / "puzzles").string();
  return (fs::temp_directory_path() / "warpscope-puzzles").string();
}

int resize_cb(ImGuiInputTextCallbackData* d) {
  if (d->EventFlag == ImGuiInputTextFlags_CallbackResize) {
    auto* s = static_cast<std::string*>(d->UserData);
    s->resize(std::size_t(d->BufTextLen));
    d->Buf = s->data();
  }
  return 0;
}

int count_lines(const std::string& s) {
  int n = 1;
  for (char c : s) n += c == '\n';
  return n;
}

// "file:LINE: message" lines of a failure that name the kernel file.
void marks_from(const std::string& text, const std::string& file, std::map<int, std::string>& out) {
  auto add = [&](int n, const std::string& msg) {
    auto& slot = out[n];
    if (slot.find(msg) == std::string::npos) slot += (slot.empty() ? "" : "; ") + msg;
  };
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(file + ":", 0) != 0) continue;
    const std::string rest = line.substr(file.size() + 1);
    char* end = nullptr;
    const long n = std::strtol(rest.c_str(), &end, 10);
    if (n <= 0 || !end || *end != ':') continue;
    std::string msg = end + 1;
    while (!msg.empty() && msg[0] == ' ') msg.erase(0, 1);
    add(int(n), msg);
  }
}

}  // namespace

EditorPanel::EditorPanel(const std::string& puzzle_file, const std::string& kernel_file)
    : puzzle_file_(puzzle_file), kernel_file_(kernel_file) {
  puzzle::parse_file(puzzle_file, p_, perr_);
  if (kernel_file_.empty())
    kernel_file_ = (fs::path(data_dir()) / (p_.slug + (cuda::is_cuda_source(p_.starter) ? ".cu" : ".cuh"))).string();
  std::error_code ec;
  if (!fs::exists(kernel_file_, ec) && perr_.empty()) {
    fs::create_directories(fs::path(kernel_file_).parent_path(), ec);
    buf_ = p_.starter;
    std::string why;
    if (!save(why)) message_ = why;
  }
  load_file();
}

void EditorPanel::load_file() {
  // The one reader: a FIFO or directory given as --edit is named, never waited on.
  io::ReadResult f = io::read_file(kernel_file_, io::kDefaultReadCap, "kernel file");
  if (!f.ok) {
    message_ = f.error;
    return;
  }
  buf_ = std::move(f.text);
  dirty_ = false;
  changed_on_disk_ = false;
  std::error_code ec;
  mtime_ = fs::last_write_time(kernel_file_, ec);
}

bool EditorPanel::save(std::string& why) {
  // The one writer: a unique temporary renamed into place (a crash never leaves half a
  // kernel), the version before kept as FILE.bak, a link or FIFO in its place left alone.
  io::WriteOptions o;
  o.overwrite = true;
  o.keep_previous = true;
  const io::WriteResult w = io::write_file(kernel_file_, buf_, o);
  if (!w.ok) {
    why = "cannot save: " + w.error;
    return false;
  }
  std::error_code ec;
  mtime_ = fs::last_write_time(kernel_file_, ec);
  dirty_ = false;
  return true;
}

void EditorPanel::set_text(const std::string& t) {
  buf_ = t;
  dirty_ = true;
}

void EditorPanel::check(AppState& s) {
  if (checking() || !perr_.empty()) return;
  std::string why;
  if (!save(why)) {
    message_ = why;
    return;
  }
  message_.clear();
  puzzle::CheckOptions o;
  o.kernel_file = kernel_file_;
  const puzzle::Puzzle p = p_;
  // A window on a GPU checks there, on the worker's thread (the only one that touches its
  // backend): NVRTC, the GPU runner and the emulator's sandboxed trace for the views, as
  // `puzzle --check --backend cuda` does. A worker still starting takes the task when ready.
  const bool gpu_window = !s.worker().ready() || s.worker().backend_kind() == BackendKind::Cuda;
  if (gpu_window) {
    auto done = std::make_shared<std::promise<Checked>>();
    pending_ = done->get_future();
    s.run_editor_task([done, p, o](Backend& b) {
      Checked c;
      c.result = puzzle::check_in_window(p, b, o, c.on);
      done->set_value(std::move(c));
    });
    return;
  }
  // The emulator, in its sandboxed child process, on a thread of its own: a run of the
  // views under way on the worker does not hold the check back.
  pending_ = std::async(std::launch::async, [p, o] {
    auto b = make_emu_backend();
    Checked c;
    c.result = puzzle::check_in_window(p, *b, o, c.on);
    return c;
  });
}

void EditorPanel::install(AppState& s) {
  marks_.clear();
  for (const auto& e : last_.compiled.errors)
    if (e.file == kernel_file_) {
      auto& slot = marks_[e.line];
      slot += (slot.empty() ? "" : "; ") + e.message;
    }
  marks_from(last_.failure, kernel_file_, marks_);
  scroll_to_ = marks_.empty() ? 0 : marks_.begin()->first;
  // A run that happened is shown, a wrong one too (its output marked wrong, its races and
  // faults at their lines): the views must never keep an earlier run of the same file.
  if (last_.run.error.empty() && !last_.run.plan.launches.empty())
    s.show_user_run(std::make_shared<RunResult>(last_.run), p_.family, p_.variant, kernel_file_,
                    p_.spec.struct_name);
}

void EditorPanel::poll(AppState& s) {
  if (pending_.valid() &&
      pending_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    try {
      Checked c = pending_.get();
      last_ = std::move(c.result);
      ran_on_ = std::move(c.on);
      have_last_ = true;
      install(s);
    } catch (const std::exception& e) {  // the worker ended before it ran (the window closing)
      message_ = std::string("the check did not run: ") + e.what();
    }
  }
  // The file, at most four times a second: an external editor's save reloads and checks
  // it, unless the buffer here has unsaved edits (then the panel asks).
  const auto now = std::chrono::steady_clock::now();
  if (now - last_stat_ < std::chrono::milliseconds(250)) return;
  last_stat_ = now;
  std::error_code ec;
  const auto m = fs::last_write_time(kernel_file_, ec);
  if (ec || m == mtime_) return;
  if (dirty_) {
    changed_on_disk_ = true;
    return;
  }
  load_file();
  check(s);
}

std::string EditorPanel::status() const {
  if (!perr_.empty()) return perr_[0].text();
  if (checking()) return "checking...";
  if (!message_.empty()) return message_;
  if (!have_last_) return "not checked yet: Check (Ctrl+Enter) saves and runs it";
  if (!last_.failure.empty()) {
    const auto nl = last_.failure.find('\n');
    return "FAILED: " + last_.failure.substr(0, nl);
  }
  int met = 0;
  for (const auto& t : last_.targets) met += t.met;
  if (last_.all_met()) return "solved: all " + std::to_string(met) + " targets met";
  return std::to_string(met) + " of " + std::to_string(last_.targets.size()) + " targets met";
}

EditorDraw EditorPanel::draw(AppState& s) {
  EditorDraw d;
  d.drawn = true;
  const viz::Theme& th = viz::theme({});
  const ImVec4 red = viz::to_imvec4(th.editor_error), green = viz::to_imvec4(th.editor_ok),
               dim = viz::to_imvec4(th.editor_dim);
  ImGui::TextWrapped("%s", p_.title.empty() ? puzzle_file_.c_str() : p_.title.c_str());
  ImGui::PushTextWrapPos(0);  // a long path wraps rather than running under the next panel
  ImGui::TextColored(dim, "%s  (job %s/%s)", kernel_file_.c_str(), p_.family.c_str(), p_.variant.c_str());
  ImGui::PopTextWrapPos();
  if (!perr_.empty()) {
    for (const auto& e : perr_) ImGui::TextColored(red, "%s", e.text().c_str());
    d.status = status();
    return d;
  }
  // The buttons share a row while they fit, else the next one starts a row: a narrow panel
  // (the editor's column at some window sizes) never lays a button past its edge.
  const ImGuiStyle& bst = ImGui::GetStyle();
  const float row_end = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  auto beside = [&](const std::string& label) {
    const float w = ImGui::CalcTextSize(label.c_str()).x + 2 * bst.FramePadding.x;
    const float x = ImGui::GetItemRectMax().x + bst.ItemSpacing.x;
    if (x + w <= row_end) ImGui::SameLine();
  };
  const std::string compare_label = "Compare with " + p_.variant;
  if (ImGui::Button(checking() ? "Checking..." : "Check")) check(s);
  beside("Reload");
  if (ImGui::Button("Reload")) load_file();
  beside("Starter");
  if (ImGui::Button("Starter")) set_text(p_.starter);
  beside(compare_label);
  if (ImGui::Button(compare_label.c_str()) && s.user_shown())
    s.set_compare(!s.results.compare_mode, p_.variant);
  if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && ImGui::GetIO().KeyCtrl &&
      ImGui::IsKeyPressed(ImGuiKey_Enter))
    check(s);
  d.status = status();
  const bool bad = have_last_ && !last_.all_met() && !checking();
  ImGui::PushTextWrapPos(0);  // the verdict is read whole at any width, never cut at the edge
  ImGui::TextColored(checking() ? dim : bad ? red : have_last_ ? green : dim, "%s", d.status.c_str());
  ImGui::PopTextWrapPos();
  d.ran_on = ran_on_;
  if (!ran_on_.empty() && !checking()) {
    ImGui::PushTextWrapPos(0);  // a narrow column wraps the backend's name, never cuts it
    ImGui::TextColored(dim, "%s", ran_on_.c_str());
    ImGui::PopTextWrapPos();
  }
  if (changed_on_disk_) ImGui::TextColored(red, "the file changed on disk: Reload takes it, Check keeps yours");

  // Targets, then the editor in the rest of the panel. A long target wraps rather than
  // running past the panel's edge (a metric's full name at 1600x1000).
  ImGui::PushTextWrapPos(0);
  for (const auto& t : (have_last_ ? last_.targets : std::vector<puzzle::TargetResult>{})) {
    std::string row = std::string(t.met ? "[met]    " : "[missed] ") + t.target.text;
    if (t.evaluated) {
      std::ostringstream g;
      g << t.got;
      row += "   got " + g.str() + (t.target.quantity == "time" ? " % (" + t.note + ")" : "");
    }
    if (!t.worst.text.empty()) row += "   (" + t.worst.text + ")";  // the line that costs it most
    ImGui::TextColored(t.met ? green : red, "%s", row.c_str());
    d.targets.push_back(row);
  }
  if (!have_last_)
    for (const auto& t : p_.targets) {
      ImGui::TextColored(dim, "[ ]      %s", t.text.c_str());
      d.targets.push_back("[ ] " + t.text);
    }

  // Hints, one at a time; the count seen is the one `puzzle --hint` keeps.
  if (!p_.hints.empty()) {
    const int total = int(p_.hints.size());
    if (hints_shown_ < 0) hints_shown_ = std::min(total, puzzle::hints_seen(puzzle::student_dir(), p_.slug));
    for (int i = 0; i < hints_shown_; ++i) {
      ImGui::TextColored(dim, "hint %d of %d: %s", i + 1, total, p_.hints[std::size_t(i)].text.c_str());
      d.hints.push_back(p_.hints[std::size_t(i)].text);
    }
    if (hints_shown_ < total &&
        ImGui::SmallButton(("Hint " + std::to_string(hints_shown_ + 1) + " of " + std::to_string(total)).c_str())) {
      ++hints_shown_;
      std::string why;
      if (!puzzle::record_hints_seen(puzzle::student_dir(), p_.slug, hints_shown_, why)) message_ = why;
    }
  }

  // What the kernel printed is its own (set apart, every line marked, as the CLI does), and
  // the sandbox's note (no Landlock, no syscall filter in this build) beside it.
  if (have_last_ && !last_.run.kernel_output.empty()) {
    ImGui::TextColored(dim, "your kernel printed:");
    std::istringstream lines(last_.run.kernel_output);
    int n = 0;
    for (std::string l; std::getline(lines, l) && n < 8; ++n) ImGui::TextColored(dim, "  | %s", l.c_str());
    if (n == 8) ImGui::TextColored(dim, "  | ... (the rest in `warpscope puzzle --check`)");
    d.kernel_output = last_.run.kernel_output;
  }
  if (have_last_ && !last_.run.sandbox_note.empty())
    ImGui::TextColored(dim, "note: %s", last_.run.sandbox_note.c_str());
  // The marked lines' messages, but for the one the verdict above already says (the code
  // box keeps the height: 1280x720 showed three lines of code under two copies of it).
  int shown = 0;
  for (const auto& [line, msg] : marks_)
    if (d.status.find(":" + std::to_string(line) + ": " + msg) == std::string::npos && shown++ < 4)
      ImGui::TextColored(red, "line %d: %s", line, msg.c_str());
  ImGui::PopTextWrapPos();

  d.lines = count_lines(buf_);
  d.marked = marks_;
  const float lh = ImGui::GetTextLineHeight();
  const float gutter = ImGui::CalcTextSize("0000 ").x + 8;
  ImGui::BeginChild("##code", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
  const ImGuiStyle& st = ImGui::GetStyle();
  if (scroll_to_ > 0) {
    // After a check, the first marked line in view (two lines of context above it), so
    // a small window shows the line the verdict names.
    const float box = ImGui::GetContentRegionAvail().y;
    const float y = float(scroll_to_ - 1) * lh + st.FramePadding.y;
    if (y < ImGui::GetScrollY() || y + lh > ImGui::GetScrollY() + box - st.ScrollbarSize)
      ImGui::SetScrollY(std::max(0.f, y - 2 * lh));
    scroll_to_ = 0;
  }
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float width = std::max(ImGui::GetContentRegionAvail().x, 200.f);
  // Whole lines between the box's padding, less a horizontal scrollbar's height.
  d.lines_visible = std::max(0, int((ImGui::GetContentRegionAvail().y - 2 * st.FramePadding.y - st.ScrollbarSize) / lh));
  // Line numbers and marks, drawn beside a text box as tall as the text: the child
  // window scrolls both together.
  // The stepper's current line, when the views show this kernel's run.
  int current = 0;
  if (s.user_shown() && s.results.stepper.pos < s.results.main.order.size())
    current = s.results.main.events()[s.results.main.order[s.results.stepper.pos]].line;
  d.current_line = current;
  for (int i = 1; i <= d.lines; ++i) {
    const float y = origin.y + st.FramePadding.y + float(i - 1) * lh;
    const auto m = marks_.find(i);
    const auto n = s.results.main.marks.find(i);
    if (i == current)
      dl->AddRectFilled(ImVec2(origin.x, y), ImVec2(origin.x + gutter - 2, y + lh), viz::to_imgui(th.gutter_mark));
    if (m != marks_.end())
      dl->AddRectFilled(ImVec2(origin.x, y), ImVec2(origin.x + width, y + lh), viz::to_imgui(th.error_line));
    char num[16];
    std::snprintf(num, sizeof num, "%4d", i);
    dl->AddText(ImVec2(origin.x, y), viz::to_imgui(m != marks_.end() ? th.error_number : th.line_number), num);
    if (n != s.results.main.marks.end() && s.user_shown() && m == marks_.end())
      dl->AddCircleFilled(ImVec2(origin.x + gutter - 5, y + lh * 0.5f), lh * 0.22f, n->second);
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x + gutter, origin.y));
  const float h = float(d.lines + 2) * lh + 2 * st.FramePadding.y;
  // As wide as the longest line: a long line scrolls with the panel's scrollbar, not
  // hidden past the box's edge.
  const float text_w = ImGui::CalcTextSize(buf_.c_str()).x + 2 * st.FramePadding.x + ImGui::GetFontSize();
  if (ImGui::InputTextMultiline(kEditorTextLabel, buf_.data(), buf_.capacity() + 1,
                                ImVec2(std::max({width - gutter, 100.f, text_w}), std::max(h, ImGui::GetContentRegionAvail().y)),
                                ImGuiInputTextFlags_AllowTabInput | ImGuiInputTextFlags_CallbackResize,
                                resize_cb, &buf_))
    dirty_ = true;
  // Hovering a marked line shows its message.
  if (ImGui::IsWindowHovered(ImGuiHoveredFlags_AllowWhenBlockedByActiveItem)) {
    const float my = ImGui::GetIO().MousePos.y - origin.y - st.FramePadding.y;
    const int line = my >= 0 ? int(my / lh) + 1 : 0;
    if (auto m = marks_.find(line); m != marks_.end()) ImGui::SetTooltip("line %d: %s", line, m->second.c_str());
    else if (auto n = s.results.main.notes.find(line); n != s.results.main.notes.end() && s.user_shown())
      ImGui::SetTooltip("line %d: %s", line, n->second.c_str());
  }
  ImGui::EndChild();
  return d;
}

}  // namespace ws::gui
