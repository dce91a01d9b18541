// `warpscope record`: measure on the GPU and write a recording for machines without one.
#include "app/cli/command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <memory>
#include <ostream>

#include "app/cli/record.h"

namespace ws::cli {

namespace {

struct RecordArgs {
  std::string out, backend = "cuda", lessons = "lessons";
  int repeats = 20;
  bool force = false;
  std::vector<std::string> kernels;  // only these families ("": all)
};

// The lesson files of a folder, in name order (README.md describes the format).
std::vector<std::string> lesson_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(dir, ec))
    if (f.path().extension() == ".md" && f.path().filename() != "README.md")
      out.push_back(f.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

int cmd_record(const RecordArgs& a, std::ostream& out, std::ostream& err, const Hooks& h) {
  RecordOptions o;
  o.out = a.out;
  o.repeats = a.repeats;
  o.force = a.force;
  o.lesson_timed = h.lesson_timed;
  for (const std::string& k : a.kernels)
    if (!find_family(k)) usage("--kernel " + k + ": no such family (warpscope list names them)");
  o.families = a.kernels;
  if (!a.lessons.empty() && a.lessons != "none") {
    if (!std::filesystem::is_directory(a.lessons))
      usage("--lessons " + a.lessons + " is not a folder of lesson files (or say --lessons none)");
    // A build without md4c cannot read them: say so rather than record without them.
    if (!h.lesson_timed)
      usage("this warpscope was built without lessons (they need libmd4c-dev): record with "
            "--lessons none, or rebuild");
    o.lessons = lesson_files(a.lessons);
  }
  if (!a.out.empty() && std::filesystem::is_directory(a.out))
    usage("--out " + a.out + " is a directory; give the recording's file name");
  auto b = backend_or_usage(a.backend, err);
  if (b->kind() != BackendKind::Cuda)
    usage("record needs a GPU: it measures, and the emulator only models (--backend cuda)");
  return record(*b, o, out, err);
}

}  // namespace

Action declare_record(CLI::App& sub) {
  auto a = std::make_shared<RecordArgs>();
  CLI::App* s = &sub;
  s->add_option("--out", a->out, "the recording's file (default assets/recordings/<gpu>.json)");
  s->add_option("--lessons", a->lessons, "folder of lessons whose timed steps to record ('none': skip)")
      ->capture_default_str();
  s->add_option("--repeats", a->repeats, "timed runs per configuration (median, min, max)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  s->add_flag("--force", a->force, "replace an existing recording file");
  s->add_option("--kernel", a->kernels, "record only this family (repeatable; a new family's runs, to merge)");
  add_backend(s, a->backend);
  return [a](std::ostream& out, std::ostream& err, const Hooks& hooks) { return cmd_record(*a, out, err, hooks); };
}

}  // namespace ws::cli
