// Grading a class (see grade.h): one grading process per student kernel, a bounded number
// at once, each with a deadline and a bounded reply; the CSV through io's atomic writer.
#include "app/puzzle/grade.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <filesystem>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <thread>

#include "io/atomic_file.h"
#include "kernels/user/sandbox.h"

namespace ws::puzzle {
namespace fs = std::filesystem;

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Missed: return "targets missed";
    case Verdict::Wrong: return "wrong output";
    case Verdict::CompileError: return "compile error";
    case Verdict::RunError: return "run error";
    case Verdict::BadInput: return "unusable file";
  }
  return "?";
}

namespace {

constexpr char kSep = '\x1f';
constexpr std::size_t kMaxReply = 64 * 1024;

std::string figure(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

// One line, printable, bounded.
std::string one_line(const std::string& s) {
  std::string t;
  for (char c : s) t += c == '\n' || c == '\r' || c == '\t' ? ' ' : c;
  while (!t.empty() && t.back() == ' ') t.pop_back();
  return sandbox::printable(t, 400);
}

GradeRow grade_one(const Puzzle& p, const std::string& file, const GradeOptions& opt) {
  GradeRow row;
  row.file = fs::path(file).filename().string();
  row.figures.assign(p.targets.size(), "");
  const auto t0 = std::chrono::steady_clock::now();
  auto backend = make_emu_backend();
  CheckOptions o;
  o.kernel_file = file;
  o.limits = opt.limits;
  o.compile = opt.compile;
  const CheckResult r = check(p, *backend, o);
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  row.failure = one_line(r.failure);
  if (r.bad_input) row.verdict = Verdict::BadInput;
  else if (!r.compiled.ok) row.verdict = Verdict::CompileError;
  else if (!r.run.error.empty() || !r.run.problems.empty()) row.verdict = Verdict::RunError;
  else if (!r.run.verified) row.verdict = Verdict::Wrong;
  else row.verdict = r.all_met() ? Verdict::Pass : Verdict::Missed;
  for (std::size_t i = 0; i < r.targets.size() && i < row.figures.size(); ++i)
    if (r.targets[i].evaluated) row.figures[i] = figure(r.targets[i].got);
  return row;
}

std::string encode_row(const GradeRow& r) {
  std::string s = std::to_string(int(r.verdict)) + kSep + figure(r.seconds) + kSep + r.failure;
  for (const auto& f : r.figures) s += kSep + f;
  return s;
}

// A grading process's reply: refused (false) unless it has the expected shape.
bool decode_row(const std::string& s, std::size_t targets, GradeRow& r) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  for (;;) {
    const std::size_t e = s.find(kSep, at);
    parts.push_back(s.substr(at, e == std::string::npos ? std::string::npos : e - at));
    if (e == std::string::npos) break;
    at = e + 1;
  }
  if (parts.size() != 3 + targets || parts[0].size() != 1 || parts[0][0] < '0' || parts[0][0] > '5') return false;
  r.verdict = Verdict(parts[0][0] - '0');
  r.seconds = std::strtod(parts[1].c_str(), nullptr);
  r.failure = sandbox::printable(parts[2], 400);
  r.figures.assign(parts.begin() + 3, parts.end());
  for (auto& f : r.figures) f = sandbox::printable(f, 32);
  return true;
}

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::size_t index = 0;
  sandbox::Clock::time_point deadline;
  std::string reply;
  bool eof = false;
};

std::string csv_field(std::string s, bool text) {
  // A leading =, +, - or @ would be a formula to a spreadsheet.
  if (text && !s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@')) s = "'" + s;
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::vector<std::string> student_files(const std::string& dir, std::string& why) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    why = dir + " is not a directory";
    return out;
  }
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path f = it->path();
    std::error_code fe;
    if ((f.extension() == ".cuh" || f.extension() == ".cu") && it->is_regular_file(fe)) out.push_back(f.string());
  }
  if (ec) {
    why = "cannot read the directory " + dir + ": " + ec.message();
    out.clear();
    return out;
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<GradeRow> grade(const Puzzle& p, const std::vector<std::string>& files, const GradeOptions& opt) {
  std::vector<GradeRow> rows(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    rows[i].file = fs::path(files[i]).filename().string();
    rows[i].figures.assign(p.targets.size(), "");
  }
  unsigned jobs = opt.jobs ? opt.jobs : std::max(1u, std::thread::hardware_concurrency());
  // Each kernel's emulator run spreads its blocks over cores: the jobs share the machine's
  // instead of each taking them all (unless the caller chose).
  GradeOptions each = opt;
  if (!each.limits.threads)
    each.limits.threads = std::max(1u, std::max(1u, std::thread::hardware_concurrency()) / jobs);
  const double budget = opt.compile.time_s + opt.limits.time_s + opt.margin_s;
  std::vector<Worker> running;
  std::size_t next = 0;
  const pid_t self = ::getpid();
  auto finish = [&](Worker& w, const std::string& why) {
    GradeRow& r = rows[w.index];
    if (why.empty() && decode_row(w.reply, p.targets.size(), r)) {
      r.file = fs::path(files[w.index]).filename().string();
    } else {
      r.verdict = Verdict::RunError;
      r.failure = why.empty() ? "the grading process sent no usable row" : why;
    }
    ::close(w.fd);
    w.fd = -1;
  };
  while (next < files.size() || !running.empty()) {
    while (running.size() < jobs && next < files.size()) {
      Worker w;
      w.index = next++;
      int fds[2];
      if (::pipe2(fds, O_CLOEXEC) != 0) {
        rows[w.index].failure = "cannot create a pipe for its grading process";
        continue;
      }
      w.deadline = sandbox::Clock::now() + std::chrono::duration_cast<sandbox::Clock::duration>(
                                               std::chrono::duration<double>(budget));
      // Unwritten output would be copied into the child and written again from there (as the
      // kernel's own): flushed first.
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
      w.pid = ::fork();
      if (w.pid == 0) {
        ::close(fds[0]);
        if (!sandbox::detach(self)) ::_exit(125);
        const std::string s = encode_row(grade_one(p, files[w.index], each));
        std::size_t off = 0;
        while (off < s.size()) {
          const ssize_t n = ::write(fds[1], s.data() + off, s.size() - off);
          if (n < 0 && errno == EINTR) continue;
          if (n <= 0) break;
          off += std::size_t(n);
        }
        ::_exit(0);
      }
      ::close(fds[1]);
      if (w.pid < 0) {
        ::close(fds[0]);
        rows[w.index].failure = "cannot start its grading process";
        continue;
      }
      w.fd = fds[0];
      running.push_back(std::move(w));
    }
    std::vector<pollfd> pf;
    for (const auto& w : running) pf.push_back({w.eof ? -1 : w.fd, POLLIN, 0});
    ::poll(pf.data(), pf.size(), 50);
    for (std::size_t k = 0; k < running.size(); ++k) {
      Worker& w = running[k];
      if (!w.eof && (pf[k].revents & (POLLIN | POLLHUP | POLLERR))) {
        char buf[4096];
        const ssize_t n = ::read(w.fd, buf, sizeof buf);
        if (n > 0) {
          w.reply.append(buf, std::size_t(n));
          if (w.reply.size() > kMaxReply) w.eof = true;  // refused below
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
          w.eof = true;
        }
      }
    }
    for (std::size_t k = 0; k < running.size();) {
      Worker& w = running[k];
      int st = 0;
      const auto now = sandbox::Clock::now();
      bool done = false;
      if (now >= w.deadline) {
        sandbox::kill_and_reap(w.pid);
        std::ostringstream s;
        s << "grading this kernel took longer than " << budget << " s: its process was stopped";
        finish(w, s.str());
        done = true;
      } else if (w.eof && sandbox::wait_until(w.pid, st, now)) {
        std::string why;
        if (w.reply.size() > kMaxReply) why = "its grading process sent more than 64 KB";
        else if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
          why = WIFSIGNALED(st) ? "its grading process was killed (signal " + std::to_string(WTERMSIG(st)) + ")"
                                : "its grading process ended early (exit " + std::to_string(WEXITSTATUS(st)) + ")";
        finish(w, why);
        done = true;
      }
      if (done) running.erase(running.begin() + long(k));
      else ++k;
    }
  }
  return rows;
}

std::string grade_csv(const Puzzle& p, const std::vector<GradeRow>& rows) {
  std::string s = "file,verdict";
  for (const auto& t : p.targets) s += "," + csv_field(t.text, true);
  s += ",failure,seconds\n";
  for (const auto& r : rows) {
    s += csv_field(r.file, true) + "," + csv_field(std::string(to_string(r.verdict)), true);
    for (std::size_t i = 0; i < p.targets.size(); ++i) s += "," + (i < r.figures.size() ? csv_field(r.figures[i], false) : "");
    s += "," + csv_field(r.failure, true) + "," + figure(r.seconds) + "\n";
  }
  return s;
}

int grade_command(const std::string& puzzle_file, const std::string& dir, const std::string& csv,
                  bool force, double time_limit, unsigned jobs, std::ostream& out, std::ostream& err) {
  Puzzle p;
  std::vector<Error> es;
  if (!parse_file(puzzle_file, p, es)) {
    err << "warpscope: " << (es.empty() ? puzzle_file + ": not a puzzle" : es.front().text()) << "\n";
    return 2;
  }
  std::string why;
  const std::vector<std::string> files = student_files(dir, why);
  if (!why.empty()) {
    err << "warpscope: " << why << "\n";
    return 2;
  }
  if (files.empty()) {
    err << "warpscope: " << dir << " holds no kernel files (*.cuh, *.cu)\n";
    return 2;
  }
  if (std::string w = io::check_writable(csv, force); !w.empty()) {
    err << "warpscope: " << w << "\n";
    return 2;
  }
  GradeOptions o;
  o.limits.time_s = time_limit;
  o.jobs = jobs;
  out << "grading " << files.size() << " kernels in " << dir << " against " << p.slug << " ("
      << (jobs ? jobs : std::max(1u, std::thread::hardware_concurrency())) << " at once, "
      << time_limit << " s each on the emulator)\n";
  const std::vector<GradeRow> rows = grade(p, files, o);
  const io::WriteResult w = io::write_file(csv, grade_csv(p, rows), io::WriteOptions{force});
  if (!w.ok) {
    err << "warpscope: " << w.error << "\n";
    return 2;
  }
  int pass = 0;
  for (const auto& r : rows) pass += r.verdict == Verdict::Pass;
  out << pass << " of " << rows.size() << " passed; one row each in " << csv << "\n";
  return 0;
}

}  // namespace ws::puzzle
