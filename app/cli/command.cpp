// What the commands share: bad input as one line, backends, variants, --set/--sweep,
// lessons and steps, files a command will write.
#include "app/cli/command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <ostream>

#include "app/paths.h"
#include "io/atomic_file.h"

namespace ws::cli {

void usage(const std::string& msg) { throw UsageError(msg); }

std::unique_ptr<Backend> backend_or_usage(const std::string& name, std::ostream& err) {
  std::string notice, why;
  auto b = open_backend(name, notice, why);
  if (!b) usage(why);
  if (!notice.empty()) err << "warpscope: " << notice << "\n";
  return b;
}

const VariantInfo& variant_or_usage(const std::string& family, const std::string& variant) {
  std::string why;
  const VariantInfo* v = lookup(family, variant, why);
  if (!v) usage(why);
  return *v;
}

Params sets_or_usage(const std::vector<std::string>& sets) {
  Params p;
  std::string why;
  if (!parse_sets(sets, p, why)) usage(why);
  return p;
}

std::vector<Sweep> sweeps_or_usage(const std::vector<std::string>& items) {
  std::vector<Sweep> out;
  for (const auto& s : items) {
    Sweep sw;
    std::string why;
    if (!parse_sweep(s, sw, why)) usage(why);
    out.push_back(std::move(sw));
  }
  return out;
}

// One variant at one parameter set, validated against the backend's device.
Config single_config(const VariantInfo& v, const Params& given, const Backend& b) {
  std::vector<Config> cs;
  std::string why;
  if (!make_configs({&v}, given, {}, b.device().limits, cs, why)) usage(why);
  return cs.at(0);
}

std::string dims(const Dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// A run that did not finish: interrupted (130), refused as bad input (2, one line), or
// failed (1). -1 when it ran.
int run_failed(const VariantInfo& v, const RunResult& r, std::ostream& err) {
  if (r.cancelled) {
    err << "warpscope: interrupted\n";
    return kExitInterrupted;
  }
  if (r.error.empty()) return -1;
  if (r.rejected) usage(r.error);
  err << "warpscope: " << v.family << "/" << v.name << " failed: " << r.error << "\n";
  return kExitFailed;
}

void lesson_file_or_usage(const std::string& f) {
  std::error_code ec;
  const auto st = std::filesystem::status(f, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    usage("lesson file " + f + ": " + ec.message());
  if (std::filesystem::is_directory(st))
    usage("lesson file " + f + " is a directory; give a lesson's .md file (e.g. " + f +
          "/01-warps.md)");
  if (!std::filesystem::exists(st)) usage("lesson file " + f + " does not exist");
  if (!std::filesystem::is_regular_file(st))
    usage("lesson file " + f + " is not a regular file (a device, FIFO or socket)");
}

// `--lesson ID|FILE`: an existing file as given, else the id as `lesson --list` prints it.
std::string lesson_or_usage(const std::string& arg) {
  std::error_code ec;
  const bool md = arg.size() > 3 && arg.compare(arg.size() - 3, 3, ".md") == 0;
  if (arg.find('/') != std::string::npos || md || std::filesystem::exists(arg, ec)) {
    lesson_file_or_usage(arg);
    return arg;
  }
  const std::string dir = paths::lessons_dir();
  const auto file = std::filesystem::path(dir) / (arg + ".md");
  if (dir.empty() || arg == "README" || !std::filesystem::is_regular_file(file, ec))
    usage("no lesson '" + arg + "' (lesson --list prints the ids; a lesson file's path works too)");
  return file.string();
}

// `--step N` of a lesson: its `##` sections counted from 1. 0 when not given.
int step_or_usage(const std::string& lesson, const std::string& step, const Hooks& h) {
  if (step.empty()) return 0;
  if (lesson.empty()) usage("--step needs --lesson");
  const bool digits = step.size() < 6 && std::all_of(step.begin(), step.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) usage("--step '" + step + "' is not a step number (1, 2, ...)");
  const int n = std::stoi(step);
  if (!h.lesson_steps) usage("this warpscope was built without lessons (they need libmd4c-dev)");
  std::string why;
  const int steps = h.lesson_steps(lesson, why);
  if (steps < 0) usage("lesson " + lesson + ": " + why);
  if (n < 1 || n > steps)
    usage("--step " + step + " is outside lesson " + std::filesystem::path(lesson).stem().string() + " (steps 1.." +
          std::to_string(steps) + ")");
  return n;
}

// A file the command writes at the end: refused before anything runs when it could not
// be written (missing folder, an existing file without --force, a link, a directory), so
// a long sweep does not end in "cannot write".
void writable_or_usage(const std::string& path, const std::string& option, bool force) {
  if (path.empty() || path == "-") return;
  if (std::string why = io::check_writable(path, force); !why.empty())
    usage(option + " " + path + ": " + why +
          (why.find("already exists") != std::string::npos ? "; pass --force to overwrite it"
                                                           : ""));
}

void add_backend(CLI::App* s, std::string& target) {
  s->add_option("--backend", target, "auto (CUDA when usable, else the emulator), emu or cuda")
      ->capture_default_str();
}

}  // namespace ws::cli
