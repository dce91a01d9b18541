// A puzzle's hints, one at a time (`puzzle --hint FILE [N]`), and which of them the
// student has seen: DIR/hints.json, {"01-strided-copy": 2, ...}, read and written through
// io/ (the one reader and the one writer).
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <ostream>

#include "app/puzzle/puzzle.h"
#include "io/atomic_file.h"
#include "io/json_whole.h"
#include "io/read_file.h"

namespace ws::puzzle {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxHintsFile = 1 << 20;

std::string hints_file(const std::string& dir) { return (fs::path(dir) / "hints.json").string(); }

// The counts of the file; an empty object when it is absent, unreadable or malformed (a
// damaged file costs the student the hints' order, never the command).
nlohmann::json read_counts(const std::string& dir, std::string* why = nullptr) {
  const io::ReadResult f = io::read_file(hints_file(dir), kMaxHintsFile, "hints file");
  if (!f.ok) {
    if (why && !f.missing) *why = f.error;
    return nlohmann::json::object();
  }
  const auto j = nlohmann::json::parse(f.text, nullptr, false);
  if (!j.is_object()) {
    if (why) *why = "hints file " + hints_file(dir) + " is not a JSON object: started again";
    return nlohmann::json::object();
  }
  return j;
}

}  // namespace

std::string student_dir() {
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return (fs::path(x) / "warpscope" / "puzzles").string();
  if (const char* h = std::getenv("HOME"); h && *h)
    return (fs::path(h) / ".local" / "share" / "warpscope" / "puzzles").string();
  return "";
}

int hints_seen(const std::string& dir, const std::string& slug) {
  const nlohmann::json j = read_counts(dir);
  if (!j.contains(slug)) return 0;
  try {
    return std::max(0, io::whole<int>(j.at(slug), slug));
  } catch (const std::exception&) {
    return 0;
  }
}

bool record_hints_seen(const std::string& dir, const std::string& slug, int n, std::string& error) {
  if (dir.empty()) {
    error = "no data directory to keep the hints seen in (set XDG_DATA_HOME or HOME)";
    return false;
  }
  if (n <= hints_seen(dir, slug)) return true;
  std::error_code ec;
  fs::create_directories(dir, ec);
  nlohmann::json j = read_counts(dir);
  j[slug] = n;
  io::WriteOptions o;
  o.overwrite = true;
  const io::WriteResult w = io::write_file(hints_file(dir), j.dump(2) + "\n", o);
  if (!w.ok) error = w.error;
  return w.ok;
}

int hint_command(const std::string& file, int number, const std::string& dir_in, std::ostream& out,
                 std::ostream& err) {
  Puzzle p;
  std::vector<Error> es;
  if (!parse_file(file, p, es)) {
    for (const auto& e : es) err << e.text() << "\n";
    return 2;
  }
  const int count = int(p.hints.size());
  if (count == 0) {
    err << "warpscope: " << file << " has no hints\n";
    return 2;
  }
  if (number < 0 || number > count) {
    err << "warpscope: " << p.slug << " has " << count << " hint" << (count == 1 ? "" : "s") << "; there is no hint "
        << number << "\n";
    return 2;
  }
  const std::string dir = dir_in.empty() ? student_dir() : dir_in;
  std::string why;
  read_counts(dir, &why);
  if (!why.empty()) err << "warning: " << why << "\n";
  const int seen = dir.empty() ? 0 : hints_seen(dir, p.slug);
  const bool next = number == 0;
  const int n = next ? std::min(seen + 1, count) : number;
  out << p.slug << ", hint " << n << " of " << count << (next && seen >= count ? " (you have seen them all)" : "")
      << ":\n\n" << p.hints[std::size_t(n - 1)].text << "\n";
  if (n < count) out << "\n(the next: warpscope puzzle --hint " << file << ")\n";
  if (!record_hints_seen(dir, p.slug, n, why)) err << "warning: the hints seen were not kept: " << why << "\n";
  return 0;
}

}  // namespace ws::puzzle
