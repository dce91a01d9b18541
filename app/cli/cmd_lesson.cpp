// `warpscope lesson`: list the lessons, validate lesson files, check their labs.
#include "app/cli/command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>

#include "app/paths.h"

namespace ws::cli {

namespace {

struct LessonArgs {
  std::vector<std::string> validate;
  std::string check, backend = "auto";
  bool list = false;
};

// The title in a lesson's front matter ("" when it has none).
std::string lesson_title(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  if (!std::getline(in, line) || line != "---") return "";
  while (std::getline(in, line) && line != "---")
    if (line.rfind("title:", 0) == 0) {
      std::string t = line.substr(6);
      t.erase(0, t.find_first_not_of(" \t\"'"));
      while (!t.empty() && (t.back() == '"' || t.back() == '\'' || t.back() == ' ')) t.pop_back();
      return t;
    }
  return "";
}

// The lessons this binary finds (app/paths.h: next to it first, then its source tree).
int cmd_lesson_list(std::ostream& out, std::ostream& err) {
  const std::string dir = paths::lessons_dir();
  if (dir.empty()) {
    std::string where;
    for (const std::string& r : paths::data_roots())
      where += (where.empty() ? "" : ", ") + (std::filesystem::path(r) / "lessons").string();
    err << "warpscope: no lessons found (looked in " << where << ")\n";
    return kExitFailed;
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".md" && e.path().filename() != "README.md") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  out << "lessons in " << dir << "\n";
  for (const auto& f : files) {
    const std::string id = f.stem().string();
    out << "  " << id << std::string(id.size() < 24 ? 24 - id.size() : 1, ' ') << lesson_title(f) << "\n";
  }
  return kExitOk;
}

int cmd_lesson(const LessonArgs& a, std::ostream& out, std::ostream& err, const Hooks& h) {
  if (a.list) {
    if (!a.validate.empty() || !a.check.empty()) usage("lesson --list takes no other option");
    return cmd_lesson_list(out, err);
  }
  if (a.validate.empty() == a.check.empty())
    usage("lesson needs --list, --validate FILE... or --check FILE");
  if (!h.lesson_validate || !h.lesson_check)
    usage("this warpscope was built without lessons (they need libmd4c-dev: run scripts/setup "
          "and rebuild)");
  // --validate reports each unreadable file on its own line and goes on with the rest.
  if (!a.validate.empty()) return h.lesson_validate(a.validate, out);
  lesson_file_or_usage(a.check);
  auto b = backend_or_usage(a.backend, err);
  return h.lesson_check(a.check, *b, out);
}

}  // namespace

Action declare_lesson(CLI::App& sub) {
  auto a = std::make_shared<LessonArgs>();
  CLI::App* s = &sub;
  s->add_flag("--list", a->list, "print the lessons found and the folder they are in");
  s->add_option("--validate", a->validate, "lesson files to validate against the catalogue");
  s->add_option("--check", a->check, "run every lab of one lesson file");
  add_backend(s, a->backend);
  return [a](std::ostream& out, std::ostream& err, const Hooks& hooks) { return cmd_lesson(*a, out, err, hooks); };
}

}  // namespace ws::cli
