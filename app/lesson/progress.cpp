// The student's progress: one JSON file in the user's data directory, written atomically
// so a crash mid-save never leaves half a file, and never thrown away when it is corrupt.
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "app/lesson/lesson_model.h"

namespace ws::lesson {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kVersion = 1;
constexpr const char* kFile = "progress.json";

template <class V>
json index_map(const std::map<std::size_t, V>& m) {
  json j = json::object();
  for (const auto& [k, v] : m) j[std::to_string(k)] = v;
  return j;
}

// A step or block index written as a JSON key; std::stoul would say only "stoul".
std::size_t parse_index(const std::string& k, const char* what) {
  std::size_t idx = 0;
  const auto [p, ec] = std::from_chars(k.data(), k.data() + k.size(), idx);
  if (k.empty() || ec != std::errc() || p != k.data() + k.size())
    throw std::runtime_error(std::string(what) + " '" + k + "' is not an index");
  return idx;
}

template <class V>
void read_index_map(const json& j, std::map<std::size_t, V>& m) {
  if (!j.is_object()) throw std::runtime_error("expected an object of step/block indices");
  for (const auto& [k, v] : j.items()) m[parse_index(k, "key")] = v.template get<V>();
}

json to_json(const Progress& p) {
  json lessons = json::object();
  for (const auto& [id, lp] : p.lessons) {
    json steps = json::object();
    for (const auto& [i, sp] : lp.steps)
      steps[std::to_string(i)] = {{"done", sp.done},
                                  {"answers", index_map(sp.answers)},
                                  {"correct", index_map(sp.correct)},
                                  {"goals", index_map(sp.goals)}};
    lessons[id] = {{"current_step", lp.current_step},
                   {"completed", lp.completed},
                   {"steps", steps}};
  }
  return {{"version", kVersion}, {"lessons", lessons}};
}

Progress from_json(const json& j) {
  if (!j.is_object()) throw std::runtime_error("the top level is not an object");
  if (j.value("version", 0) != kVersion)
    throw std::runtime_error("unknown version " + j.value("version", json()).dump());
  Progress p;
  for (const auto& [id, lj] : j.at("lessons").items()) {
    LessonProgress lp;
    lp.current_step = lj.at("current_step").get<std::size_t>();
    lp.completed = lj.at("completed").get<bool>();
    for (const auto& [k, sj] : lj.at("steps").items()) {
      StepProgress sp;
      sp.done = sj.at("done").get<bool>();
      read_index_map(sj.at("answers"), sp.answers);
      read_index_map(sj.at("correct"), sp.correct);
      read_index_map(sj.at("goals"), sp.goals);
      lp.steps[parse_index(k, "step")] = std::move(sp);
    }
    p.lessons[id] = std::move(lp);
  }
  return p;
}

}  // namespace

std::size_t LessonProgress::steps_done() const {
  std::size_t n = 0;
  for (const auto& [i, s] : steps) n += s.done ? 1 : 0;
  return n;
}

std::string default_data_dir() {
  const char* xdg = std::getenv("XDG_DATA_HOME");
  if (xdg && *xdg) return (fs::path(xdg) / "warpscope").string();
  const char* home = std::getenv("HOME");
  if (home && *home) return (fs::path(home) / ".local" / "share" / "warpscope").string();
  return "";
}

Progress load_progress(const std::string& dir) {
  Progress p;
  const fs::path file = fs::path(dir) / kFile;
  std::error_code ec;
  if (dir.empty() || !fs::exists(file, ec)) return p;
  if (!fs::is_regular_file(file, ec)) {
    // A directory (or a device) in the file's place is not ours to move aside.
    p.notice = "Your progress cannot be loaded or saved: " + file.string() +
               " is not a file (remove or rename it). Progress in this session is not kept.";
    return p;
  }
  std::ifstream in(file, std::ios::binary);
  std::string why;
  if (!in) {
    why = std::string("cannot be read: ") + std::strerror(errno);
  } else {
    std::stringstream ss;
    ss << in.rdbuf();
    try {
      p = from_json(json::parse(ss.str()));
      return p;
    } catch (const std::exception& e) {
      why = e.what();
    }
  }
  // Keep the bad file for the student (or us) to look at; a fresh one starts beside it.
  const fs::path bak = fs::path(dir) / (std::string(kFile) + ".bak");
  fs::rename(file, bak, ec);
  p = Progress{};
  p.notice = "Your saved progress in " + file.string() + " could not be read (" + why + "). " +
             (ec ? "It was left in place (" + ec.message() + ") and progress starts afresh."
                 : "It was kept as " + bak.string() + " and progress starts afresh.");
  return p;
}

bool save_progress(const Progress& p, const std::string& dir, std::string& error) {
  if (dir.empty()) {
    error = "no data directory: set XDG_DATA_HOME or HOME";
    return false;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  const fs::path file = fs::path(dir) / kFile;
  // The temporary file is in the same directory, so the rename is atomic on POSIX.
  const fs::path tmp = fs::path(dir) / (std::string(kFile) + ".tmp." + std::to_string(::getpid()));
  {
    const std::string text = to_json(p).dump(2) + "\n";
    std::FILE* out = std::fopen(tmp.c_str(), "wb");
    if (!out) {
      error = "cannot write " + tmp.string() + ": " + std::strerror(errno);
      return false;
    }
    // Flushed to disk before the rename, so the new name never points at a partial file.
    bool ok = std::fwrite(text.data(), 1, text.size(), out) == text.size() &&
              std::fflush(out) == 0 && ::fsync(::fileno(out)) == 0;
    const int err = errno;
    ok = (std::fclose(out) == 0) && ok;
    if (!ok) {
      error = "writing " + tmp.string() + " failed: " + std::strerror(err);
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, file, ec);
  if (ec) {
    error = "cannot replace " + file.string() + ": " + ec.message();
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

}  // namespace ws::lesson
