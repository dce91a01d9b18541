#pragma once
// The kernel editor: a puzzle's task and targets, the student's kernel file in an editor
// with line numbers (compile errors, crashes and out-of-bounds reports marked on their
// lines), a Check that builds and runs it on the window's backend (on a GPU: the worker's
// thread, NVRTC, the GPU runner, with the emulator's sandboxed trace for the views, as
// `puzzle --check --backend cuda`; without one: the emulator on a thread of its own), and a
// watch on the file so an external editor's saves are picked up. A kernel that ran is
// shown by every view (stepper, maps, masks, per-line counts), and Compare puts the
// catalogue's variant of the same job beside it.
#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/puzzle/puzzle.h"

namespace ws::gui {

// The label of the editor's text box. ImGui's multiline input scrolls its own text with the
// caret, so the cut-text check (panels.cpp) does not count its window's extent as cut.
inline constexpr const char* kEditorTextLabel = "##kernel_text";

class AppState;

struct EditorDraw {
  bool drawn = false;
  int lines = 0;                        // lines in the buffer
  int lines_visible = 0;                // lines of code the box shows without scrolling
  int current_line = 0;                 // the stepper's line (0: not this kernel's run)
  std::map<int, std::string> marked;    // line -> message shown on it
  std::vector<std::string> targets;     // "[met] ..." / "[missed] ..." rows shown
  std::string status;                   // the verdict line
  std::string ran_on;                   // "checked on ...": which backend gave the verdict
  std::string kernel_output;            // what the kernel printed, shown apart ("" = none)
  std::vector<std::string> hints;       // the hints revealed so far
};

class EditorPanel {
 public:
  // Opens a puzzle and the student's kernel file; a missing kernel file is created from
  // the starter (in $XDG_DATA_HOME/warpscope/puzzles when `kernel_file` is empty).
  EditorPanel(const std::string& puzzle_file, const std::string& kernel_file);

  EditorDraw draw(AppState& s);
  // Once a frame: picks up a finished check and a file changed on disk.
  void poll(AppState& s);

  // Saves the buffer and starts a check (a no-op while one is running).
  void check(AppState& s);
  bool checking() const { return pending_.valid(); }
  const std::vector<puzzle::Error>& puzzle_errors() const { return perr_; }
  const std::string& kernel_file() const { return kernel_file_; }
  const puzzle::Puzzle& puzzle() const { return p_; }
  const std::string& text() const { return buf_; }
  void set_text(const std::string& t);  // as if typed
  const std::map<int, std::string>& marks() const { return marks_; }
  bool has_result() const { return have_last_; }
  const puzzle::CheckResult& result() const { return last_; }
  std::string status() const;
  // Which backend the last check ran on ("checked on the emulator ..." or "checked on the
  // GPU ..."), "" before the first.
  const std::string& ran_on() const { return ran_on_; }

 private:
  bool save(std::string& why);
  void load_file();
  void install(AppState& s);

  std::string puzzle_file_, kernel_file_;
  puzzle::Puzzle p_;
  std::vector<puzzle::Error> perr_;
  std::string buf_;
  bool dirty_ = false, changed_on_disk_ = false;
  std::filesystem::file_time_type mtime_{};
  std::chrono::steady_clock::time_point last_stat_{};
  // A check's verdict and the words for the backend it ran on.
  struct Checked {
    puzzle::CheckResult result;
    std::string on;
  };
  std::future<Checked> pending_;
  std::string ran_on_;
  puzzle::CheckResult last_;
  bool have_last_ = false;
  std::map<int, std::string> marks_;
  int scroll_to_ = 0;    // a check's first marked line, brought into view once (0: none)
  std::string message_;  // save/load problems
  int hints_shown_ = -1;  // -1: not read yet from the hints the student has seen
};

}  // namespace ws::gui
