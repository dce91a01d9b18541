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
#include <type_traits>
#include <vector>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/lesson/lesson_model.h"
#include "io/atomic_file.h"
#include "io/json_whole.h"

namespace ws::lesson {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kVersion = 1;
constexpr const char* kFile = "progress.json";
// A class's progress is a few kilobytes; these bound what a damaged or hostile file costs.
constexpr std::uintmax_t kMaxProgressBytes = 8u << 20;
constexpr int kMaxProgressDepth = 16;

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

// A member of an entry, named in the error when it is missing (nlohmann would say only
// "cannot use at() with number").
const json& member(const json& o, const char* name) {
  if (!o.is_object()) throw std::runtime_error("is " + o.dump().substr(0, 20) + ", not an object");
  const auto it = o.find(name);
  if (it == o.end()) throw std::runtime_error(std::string("has no '") + name + "'");
  return *it;
}

bool boolean(const json& v, const std::string& what) {
  if (!v.is_boolean()) throw std::runtime_error(what + " is " + v.dump().substr(0, 20) + ", not true or false");
  return v.get<bool>();
}

double number(const json& v, const std::string& what) {
  if (!v.is_number()) throw std::runtime_error(what + " is " + v.dump().substr(0, 20) + ", not a number");
  return v.get<double>();
}

template <class V>
void read_index_map(const json& j, std::map<std::size_t, V>& m, const char* what) {
  if (!j.is_object()) throw std::runtime_error(std::string("'") + what + "' is not an object of indices");
  for (const auto& [k, v] : j.items()) {
    const std::string name = std::string("'") + what + "' " + k;
    if constexpr (std::is_same_v<V, bool>) m[parse_index(k, "key")] = boolean(v, name);
    else m[parse_index(k, "key")] = number(v, name);
  }
}

LessonProgress lesson_from_json(const json& lj) {
  LessonProgress lp;
  lp.current_step = io::whole<std::size_t>(member(lj, "current_step"), "current_step");
  lp.completed = boolean(member(lj, "completed"), "'completed'");
  const json& steps = member(lj, "steps");
  if (!steps.is_object()) throw std::runtime_error("'steps' is not an object");
  for (const auto& [k, sj] : steps.items()) {
    StepProgress sp;
    try {
      sp.done = boolean(member(sj, "done"), "'done'");
      read_index_map(member(sj, "answers"), sp.answers, "answers");
      read_index_map(member(sj, "correct"), sp.correct, "correct");
      read_index_map(member(sj, "goals"), sp.goals, "goals");
    } catch (const std::exception& e) {
      throw std::runtime_error("step " + k + " " + e.what());
    }
    lp.steps[parse_index(k, "step")] = std::move(sp);
  }
  return lp;
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

// `damaged` null: any damaged lesson throws (the strict parser). Else a damaged lesson's
// entry is left out and named there, and the others are read.
Progress from_json(const json& j, std::vector<std::string>* damaged) {
  if (!j.is_object()) throw std::runtime_error("the top level is not an object");
  const json version = j.value("version", json());
  if (!version.is_number_integer() || version.get<std::int64_t>() != kVersion)
    throw std::runtime_error("unknown version " + version.dump().substr(0, 40));
  const json& lessons = member(j, "lessons");
  if (!lessons.is_object()) throw std::runtime_error("'lessons' is not an object");
  Progress p;
  for (const auto& [id, lj] : lessons.items()) {
    try {
      p.lessons[id] = lesson_from_json(lj);
    } catch (const std::exception& e) {
      const std::string why = "lesson '" + id + "': " + e.what();
      if (!damaged) throw std::runtime_error(why);
      damaged->push_back(why);
    }
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

Progress parse_progress(const std::string& text) { return parse_progress(text, nullptr); }

Progress parse_progress(const std::string& text, std::vector<std::string>* damaged) {
  if (text.size() > kMaxProgressBytes)
    throw std::runtime_error(std::to_string(text.size()) + " bytes, more than the " +
                             std::to_string(kMaxProgressBytes >> 20) + " MiB a progress file can be");
  // nlohmann's parser keeps its own stack, but the value it builds is freed recursively:
  // nesting is bounded here (the format needs 5 levels).
  int deepest = 0;
  json::parser_callback_t bound = [&deepest](int depth, json::parse_event_t, json&) {
    if (depth > kMaxProgressDepth)
      throw std::runtime_error("nested more than " + std::to_string(kMaxProgressDepth) +
                               " levels deep");
    deepest = std::max(deepest, depth);
    return true;
  };
  return from_json(json::parse(text, bound), damaged);
}

Progress load_progress(const std::string& dir, bool rescue) {
  Progress p;
  if (dir.empty()) return p;
  const fs::path file = fs::path(dir) / kFile;
  struct stat st {};
  if (::lstat(file.c_str(), &st) != 0) {
    if (errno == ENOENT) return p;
    p.notice = "Your progress in " + file.string() + " cannot be read (" + std::strerror(errno) +
               "). It is left as it is and progress in this session is not saved.";
    p.read_only = true;
    return p;
  }
  if (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode)) {
    // A link, a directory, a FIFO or a device in the file's place is not ours to replace.
    p.notice = "Your progress cannot be loaded or saved: " + file.string() + " is " +
               (S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISDIR(st.st_mode) ? "a directory" : "not a regular file") +
               " (remove or rename it). It is left alone and progress in this session is not kept.";
    p.read_only = true;
    return p;
  }
  // O_NONBLOCK: a FIFO that appears after the lstat above still cannot hang the open.
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    // Unreadable is not corrupt: the file may be fine, so it is neither moved nor replaced.
    p.notice = "Your progress in " + file.string() + " cannot be read (" + std::strerror(errno) +
               "). It is left as it is and progress in this session is not saved.";
    p.read_only = true;
    return p;
  }
  std::string text, why;
  struct stat fst {};
  if (::fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
    ::close(fd);
    p.notice = "Your progress cannot be loaded or saved: " + file.string() +
               " is not a regular file (remove or rename it). It is left alone and progress in this session is not kept.";
    p.read_only = true;
    return p;
  }
  if (std::uintmax_t(st.st_size) > kMaxProgressBytes) {
    why = std::to_string(st.st_size) + " bytes, more than the " +
          std::to_string(kMaxProgressBytes >> 20) + " MiB a progress file can be";
  } else {
    char buf[65536];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      text.append(buf, std::size_t(n));
      if (text.size() > kMaxProgressBytes) break;
    }
  }
  ::close(fd);
  if (why.empty()) {
    std::vector<std::string> damaged;
    try {
      Progress parsed = parse_progress(text, &damaged);
      if (damaged.empty()) {
        parsed.on_disk = parsed.lessons;
        return parsed;
      }
      // Some lessons' entries are damaged: the others are the student's and are kept. The
      // file as it was goes to a backup (nothing of it lost); the next save writes afresh.
      std::string list;
      for (std::size_t i = 0; i < damaged.size() && i < 3; ++i) list += (i ? "; " : "") + damaged[i];
      if (damaged.size() > 3) list += "; and " + std::to_string(damaged.size() - 3) + " more";
      const std::string which = damaged.size() == 1 ? "one lesson's entry is" : std::to_string(damaged.size()) + " lessons' entries are";
      if (!rescue) {
        parsed.notice = "In your saved progress " + file.string() + ", " + which + " damaged (" + list + ").";
        parsed.read_only = true;
        return parsed;
      }
      std::string err;
      const std::string bak = io::move_to_backup(file.string(), err);
      parsed.notice = "In your saved progress " + file.string() + ", " + which + " damaged (" + list +
                      "): " + (damaged.size() == 1 ? "that lesson starts" : "those lessons start") +
                      " afresh, the other lessons are loaded. " +
                      (bak.empty() ? "The file was left in place (" + err + ") and progress in this session is not saved."
                                   : "The file as it was is kept as " + bak + ".");
      parsed.read_only = bak.empty();
      return parsed;
    } catch (const std::exception& e) {
      why = e.what();
    }
  }
  p = Progress{};
  if (!rescue) {
    p.notice = "Your saved progress in " + file.string() + " could not be read (" + why + ").";
    p.read_only = true;
    return p;
  }
  // Kept for the student (or us) to look at, under a number never used before, so a
  // second bad file never replaces the first one's rescue; a fresh file starts beside it.
  std::string err;
  const std::string bak = io::move_to_backup(file.string(), err);
  p.notice = "Your saved progress in " + file.string() + " could not be read (" + why + "). " +
             (bak.empty() ? "It was left in place (" + err + ") and progress in this session is not saved."
                          : "It was kept as " + bak + " and progress starts afresh.");
  p.read_only = bak.empty();
  return p;
}

Progress merge_progress(const Progress& mine, const Progress& theirs) {
  Progress out = theirs;
  out.notice.clear();
  out.read_only = false;
  for (const auto& [id, lp] : mine.lessons) {
    const auto base = mine.on_disk.find(id);
    const bool changed = base == mine.on_disk.end() || !(base->second == lp);
    if (!changed) continue;  // theirs (or absent there: another window may have reset it)
    const auto other = theirs.lessons.find(id);
    if (other == theirs.lessons.end() || (base != mine.on_disk.end() && other->second == base->second)) {
      out.lessons[id] = lp;  // only this window changed it
      continue;
    }
    // Both windows changed the lesson: this window's steps where it changed them.
    LessonProgress m = other->second;
    m.current_step = lp.current_step;
    m.completed = lp.completed || other->second.completed;
    for (const auto& [i, sp] : lp.steps) {
      const bool step_changed = base == mine.on_disk.end() || !base->second.steps.contains(i) ||
                                !(base->second.steps.at(i) == sp);
      if (step_changed || !m.steps.contains(i)) m.steps[i] = sp;
    }
    out.lessons[id] = std::move(m);
  }
  // A lesson this window dropped (its progress reset) goes, unless another window has
  // changed it since.
  for (const auto& [id, lp] : mine.on_disk) {
    const auto other = theirs.lessons.find(id);
    if (!mine.lessons.contains(id) && other != theirs.lessons.end() && other->second == lp) out.lessons.erase(id);
  }
  out.on_disk = out.lessons;
  return out;
}

namespace {

// An exclusive flock on the data directory for one save: every warpscope window saving
// progress there takes it, so one read-merge-write never interleaves with another's.
// On a directory, so no lock file is left beside progress.json.
class DirLock {
 public:
  explicit DirLock(const std::string& dir) {
    fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) {
      error_ = "cannot lock " + dir + ": " + std::strerror(errno);
      return;
    }
    // A few seconds at most: a save takes milliseconds, so a longer wait is a stuck window.
    for (int i = 0; i < 500; ++i) {
      if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
      if (errno != EWOULDBLOCK && errno != EINTR) break;
      ::usleep(10000);
    }
    error_ = "cannot lock " + dir + " (another warpscope window holds it): " + std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
  }
  ~DirLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  const std::string& error() const { return error_; }

 private:
  int fd_ = -1;
  std::string error_;
};

}  // namespace

bool save_progress(const Progress& p, const std::string& dir, std::string& error, Progress* merged) {
  if (dir.empty()) {
    error = "no data directory: set XDG_DATA_HOME or HOME";
    return false;
  }
  if (p.read_only) {
    error = "the progress file could not be read, so it is not replaced";
    return false;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  const DirLock lock(dir);
  if (!lock.error().empty()) {
    error = lock.error();
    return false;
  }
  // Re-read under the lock: what another window saved since `p` was loaded is merged in,
  // never overwritten. A file that became unreadable or corrupt meanwhile is left alone.
  const Progress now = load_progress(dir, false);
  if (!now.notice.empty()) {
    error = now.notice;
    return false;
  }
  Progress out = merge_progress(p, now);
  // The one atomic writer: a unique temporary beside it, fsync, rename; a link, FIFO or
  // directory that appeared in its place is left alone.
  io::WriteOptions o;
  o.overwrite = true;
  const io::WriteResult r =
      io::write_file((fs::path(dir) / kFile).string(), to_json(out).dump(2) + "\n", o);
  if (!r.ok) {
    error = r.error;
    return false;
  }
  if (merged) *merged = std::move(out);
  return true;
}

}  // namespace ws::lesson
