// Lesson text the window must draw whatever its words (issue 27): a lesson that validates
// with one unbroken 17,000-character word aborted Dear ImGui (16-bit vertex indices), and
// so did 6 of 8 pathological-markdown lessons. Every lesson below either fails
// `lesson --validate` (the same parser and checks) or is drawn, every step, in the
// player and in presenter mode, without aborting. Run under xvfb-run.
#include <gtest/gtest.h>
#include <imgui.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/gui/gui.h"
#include "app/gui/session.h"
#include "app/model/worker.h"
#include "app/lesson/lesson.h"
#include "app/lesson/lesson_model.h"

namespace fs = std::filesystem;
using namespace ws;
using namespace ws::gui;

namespace {

const std::string kFront = "---\ntitle: T\nlevel: beginner\nminutes: 5\n---\n\n";
const std::string kLab = "```lab\nfamily: transpose\nvariant: tiled\nparams: n=64 tile=32 block_rows=8\n```\n\n";

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// name -> lesson text.
std::vector<std::pair<std::string, std::string>> pathological() {
  const std::string word(17000, 'x');
  const std::string wide = repeat("\xC3\xA9", 17000);  // é, two bytes each
  std::vector<std::pair<std::string, std::string>> v;
  v.push_back({"word", kFront + "## One\n\n" + kLab + "Before " + word + " after.\n"});
  v.push_back({"utf8-word", kFront + "## One\n\n" + kLab + wide + "\n"});
  v.push_back({"title", "---\ntitle: " + word + "\nlevel: beginner\nminutes: 5\n---\n\n## One\n\n" + kLab + "x\n"});
  v.push_back({"heading", kFront + "## " + word + "\n\n" + kLab + "x\n\n### " + word + "\n"});
  v.push_back({"code-line", kFront + "## One\n\n" + kLab + "```cpp\n" + std::string(100000, 'y') + "\n```\n"});
  v.push_back({"inline-code", kFront + "## One\n\n" + kLab + "`" + word + "` and **" + word + "** and [" + word +
                                  "](http://x)\n"});
  std::string lists = kFront + "## One\n\n" + kLab;
  for (int d = 0; d < 30; ++d) lists += std::string(std::size_t(2 * d), ' ') + "- " + word.substr(0, 3000) + "\n";
  v.push_back({"nested-lists", lists});
  std::string quotes = kFront + "## One\n\n" + kLab;
  for (int d = 1; d <= 30; ++d) quotes += std::string(std::size_t(d), '>') + " " + word.substr(0, 3000) + "\n";
  v.push_back({"nested-quotes", quotes});
  v.push_back({"table", kFront + "## One\n\n" + kLab + repeat("| c ", 200) + "|\n" + repeat("|---", 200) + "|\n" +
                            repeat("| " + word.substr(0, 200) + " ", 200) + "|\n"});
  v.push_back({"many-words", kFront + "## One\n\n" + kLab + repeat("ab ", 100000) + "\n"});
  v.push_back({"hard-breaks", kFront + "## One\n\n" + kLab + repeat(word.substr(0, 1000) + "\\\n", 100) + "\n"});
  return v;
}

std::unique_ptr<Session> open_lesson(const std::string& lesson, bool presenter) {
  GuiOptions o;
  o.width = 1600;
  o.height = 1000;
  o.backend = "emu";
  o.family = "transpose";
  o.variant = "tiled";
  o.params = {{"n", 64}, {"tile", 32}, {"block_rows", 8}};
  o.lesson = lesson;
  o.presenter = presenter;
  SessionOptions so;
  so.focus = false;
  so.visible = true;
  so.vsync = false;
  so.idle_wait = false;
  so.backend = backend_factory("emu");
  std::string err;
  auto s = Session::open(o, so, err);
  EXPECT_TRUE(s) << err;
  return s;
}

TEST(GuiLessonText, AnyWordLengthAndPathologicalMarkdownAreDrawnOrRefused) {
  if (!ws::gui::display_available()) GTEST_SKIP() << "no display: run under xvfb-run";
  const fs::path dir = fs::temp_directory_path() / ("ws_gui_text_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ::setenv("XDG_DATA_HOME", dir.c_str(), 1);
  int drawn = 0;
  for (const auto& [name, text] : pathological()) {
    const std::string file = (dir / (name + ".md")).string();
    std::ofstream(file, std::ios::binary) << text;
    std::ostringstream out;
    const int valid = lesson::validate_files({file}, out);
    if (valid != 0) {
      // Refused by --validate: the window then shows the error (MalformedLesson test).
      EXPECT_EQ(valid, 2) << name;
      continue;
    }
    for (bool presenter : {false, true}) {
      SCOPED_TRACE(name + (presenter ? " (presenter)" : ""));
      auto s = open_lesson(file, presenter);
      ASSERT_TRUE(s);
      std::string err;
      EXPECT_TRUE(s->settle(120, err)) << err;
      FrameDraw fd = s->frame(true);
      EXPECT_TRUE(fd.lesson.drawn);
      EXPECT_EQ(fd.lesson.error, "");
      // Scrolled through: the wrapped pieces further down are drawn too.
      for (int i = 0; i < 6; ++i) {
        ImGui::GetIO().MouseWheel = -40.f;
        s->frame();
      }
      fd = s->frame(true);
      EXPECT_TRUE(fd.lesson.drawn);
    }
    ++drawn;
  }
  EXPECT_GE(drawn, 6) << "most of these are valid lessons: they must be drawn, not refused";
  ::unsetenv("XDG_DATA_HOME");
  fs::remove_all(dir);
}

}  // namespace
