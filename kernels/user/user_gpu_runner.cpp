// The parent's side of the GPU runner (see user_gpu_runner.h): the request and reply
// blobs, finding the runner, and running it with a time limit.
// Index (search for "[SECTION] <name>"):
//   Blobs: the framing, the made arrays, encode and decode, a reply against its request
//   Runner: finding it, starting it, watching it, its reply
#include "kernels/user/user_gpu_runner.h"

#include "kernels/user/sandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <sstream>

extern char** environ;

namespace ws::user {
namespace fs = std::filesystem;

// [SECTION] Blobs
namespace {

constexpr char kMagicRequest[] = "WSGPUQ1";
constexpr char kMagicReply[] = "WSGPUR1";
// Bounds on what a blob may declare, so a corrupt one is refused before any allocation.
constexpr std::uint64_t kMaxBytes = 1ull << 34;
constexpr std::uint32_t kMaxItems = 1u << 20;

class Out {
 public:
  template <class T>
  void put(T v) {
    s.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void bytes(const char* p, std::size_t n) {
    put<std::uint64_t>(n);
    s.append(p, n);
  }
  void str(const std::string& v) { bytes(v.data(), v.size()); }
  void blob(const std::vector<char>& v) { bytes(v.data(), v.size()); }
  std::string s;
};

class In {
 public:
  explicit In(const std::string& s) : s_(s) {}
  template <class T>
  bool get(T& v) {
    if (at_ + sizeof v > s_.size()) return fail();
    std::memcpy(&v, s_.data() + at_, sizeof v);
    at_ += sizeof v;
    return true;
  }
  bool count(std::uint32_t& n) { return get(n) && (n <= kMaxItems || fail()); }
  template <class C>
  bool bytes(C& out) {
    std::uint64_t n = 0;
    if (!get(n) || n > kMaxBytes || n > s_.size() - at_) return fail();
    out.assign(s_.data() + at_, s_.data() + at_ + n);
    at_ += n;
    return true;
  }
  bool magic(const char* m) {
    const std::size_t n = std::strlen(m);
    if (s_.compare(0, n, m) != 0) return fail();
    at_ = n;
    return true;
  }
  bool done() const { return ok_ && at_ == s_.size(); }

 private:
  bool fail() {
    ok_ = false;
    return false;
  }
  const std::string& s_;
  std::size_t at_ = 0;
  bool ok_ = true;
};

std::string self_exe() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

bool executable(const fs::path& p) { return ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); }

// An unlinked temporary file (the request and the reply travel through files, so neither
// side can block the other on a full pipe).
int temp_fd() {
  char name[] = "/tmp/warpscope-gpu-XXXXXX";
  const int fd = ::mkostemp(name, O_CLOEXEC);
  if (fd >= 0) ::unlink(name);
  return fd;
}

bool write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t w = ::write(fd, s.data() + off, s.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    off += std::size_t(w);
  }
  return true;
}

std::string read_all(int fd) {
  std::string s;
  ::lseek(fd, 0, SEEK_SET);
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    s.append(buf, std::size_t(n));
  }
  return s;
}

std::string seconds_text(double s) {
  std::ostringstream o;
  o << s;
  return o.str();
}

std::string signal_text(int sig) {
  const char* d = ::strsignal(sig);
  return "signal " + std::to_string(sig) + (d ? std::string(", ") + d : std::string());
}

// The request's made arrays, seed, outputs and reference; `why` set when they do not fit
// its arrays (a made entry per array, Given sizes equal, words whole, a known kind).
bool decode_made(In& in, GpuRequest& r, std::string& why) {
  std::uint32_t n = 0;
  if (!in.count(n)) return false;
  for (std::uint32_t i = 0; i < n; ++i) {
    GpuMade& m = r.made.emplace_back();
    std::uint8_t how = 0, fill = 0;
    std::int32_t lo = 0, hi = 0;
    if (!in.get(how) || !in.get(m.bytes) || !in.get(fill) || !in.get(lo) || !in.get(hi)) return false;
    m.how = GpuFill(how);
    m.gen = InputGen{Fill(fill), lo, hi};
    const bool given = m.how == GpuFill::Given;
    if (how > 2 || fill > std::uint8_t(Fill::HalfUnit) || m.bytes > kMaxBytes || (!given && m.bytes % 4) ||
        i >= r.arrays.size() || (given ? r.arrays[i].size() != m.bytes : !r.arrays[i].empty())) {
      why = "the request's made array " + std::to_string(i) + " does not fit its arrays";
      return false;
    }
  }
  if (n != 0 && n != r.arrays.size()) {
    why = "the request makes " + std::to_string(n) + " arrays of " + std::to_string(r.arrays.size());
    return false;
  }
  std::uint8_t outputs = 0, kind = 0;
  Reference& f = r.ref;
  if (!in.get(r.seed) || !in.get(outputs) || !in.get(kind)) return false;
  for (std::uint64_t* v : {&f.count, &f.n, &f.step, &f.shift, &f.div, &f.groups})
    if (!in.get(*v)) return false;
  if (!in.get(f.elem) || !in.get(f.work) || !in.get(f.ulps) || !in.get(f.a) || !in.get(f.b) || !in.get(f.out))
    return false;
  r.outputs = GpuOutputs(outputs);
  f.kind = RefKind(kind);
  const std::size_t arrays = r.arrays.size();
  if (outputs > 2 || kind > std::uint8_t(RefKind::GemmHalf) ||
      (r.outputs == GpuOutputs::Check &&
       (f.kind == RefKind::None || f.a >= arrays || f.b >= arrays || f.out >= arrays ||
        (f.kind == RefKind::Smooth && f.div == 0)))) {
    why = "the request asks for a check it cannot have (outputs " + std::to_string(outputs) + ", reference " +
          std::to_string(kind) + ")";
    return false;
  }
  return true;
}

}  // namespace

std::uint64_t request_bytes(const GpuRequest& q, std::size_t i) {
  return q.made.empty() ? q.arrays.at(i).size() : q.made.at(i).bytes;
}

std::vector<char> request_array(const GpuRequest& q, std::size_t i) {
  if (q.made.empty() || q.made.at(i).how == GpuFill::Given) return q.arrays.at(i);
  const GpuMade& m = q.made[i];
  std::vector<char> a(m.bytes, char(0xFF));
  if (m.how == GpuFill::Generated)
    for (std::uint64_t k = 0; k < m.bytes / 4; ++k) {
      const std::uint32_t w = input_word(m.gen, q.seed, std::uint32_t(i), k);
      std::memcpy(a.data() + 4 * k, &w, 4);
    }
  return a;
}

std::string encode(const GpuRequest& r) {
  Out o;
  o.s = kMagicRequest;
  o.put<std::uint8_t>(r.probe);
  o.str(r.simulate);
  o.blob(r.cubin);
  o.put<std::uint32_t>(std::uint32_t(r.launches.size()));
  for (const auto& l : r.launches) o.put(l);
  o.put<std::uint32_t>(std::uint32_t(r.arrays.size()));
  for (const auto& a : r.arrays) o.blob(a);
  o.put<std::uint32_t>(std::uint32_t(r.args.size()));
  for (const auto& a : r.args) {
    o.put<std::uint8_t>(a.array);
    o.put(a.index);
    o.put(a.value);
  }
  o.put<std::uint8_t>(r.timing);
  o.put(r.warmup);
  o.put(r.repeats);
  o.blob(r.traced_cubin);
  o.str(r.trace_symbol);
  o.put(r.keep_block);
  o.put(r.event_capacity);
  o.str(r.entry);
  o.put<std::uint8_t>(r.plain);
  o.put<std::uint32_t>(std::uint32_t(r.made.size()));
  for (const GpuMade& m : r.made) {
    o.put<std::uint8_t>(std::uint8_t(m.how));
    o.put(m.bytes);
    o.put<std::uint8_t>(std::uint8_t(m.gen.fill));
    o.put<std::int32_t>(m.gen.lo);
    o.put<std::int32_t>(m.gen.hi);
  }
  o.put(r.seed);
  o.put<std::uint8_t>(std::uint8_t(r.outputs));
  const Reference& f = r.ref;
  o.put<std::uint8_t>(std::uint8_t(f.kind));
  for (std::uint64_t v : {f.count, f.n, f.step, f.shift, f.div, f.groups}) o.put(v);
  o.put(f.elem);
  o.put(f.work);
  o.put(f.ulps);
  for (std::uint8_t v : {f.a, f.b, f.out}) o.put(v);
  return o.s;
}

std::string encode(const GpuReply& r) {
  Out o;
  o.s = kMagicReply;
  o.str(r.error);
  o.str(r.device);
  o.str(r.arch);
  o.put<std::uint32_t>(std::uint32_t(r.arrays.size()));
  for (const auto& a : r.arrays) o.blob(a);
  o.put<std::uint32_t>(std::uint32_t(r.samples_ms.size()));
  for (double v : r.samples_ms) o.put(v);
  o.put<std::uint32_t>(std::uint32_t(r.traced.size()));
  for (const auto& t : r.traced) {
    o.blob(t.sites);
    o.blob(t.fault);
    o.blob(t.shared_arrays);
    o.blob(t.events);
    o.put(t.event_count);
    o.put(t.sites_full);
  }
  o.put<std::uint8_t>(r.checked);
  o.put(r.check.mismatches);
  o.put(r.check.first);
  o.put(r.check.got);
  o.put(r.check.want);
  return o.s;
}

bool decode(const std::string& s, GpuRequest& r, std::string& why) {
  r = {};
  In in(s);
  std::uint8_t probe = 0, timing = 0, plain = 0;
  std::uint32_t n = 0;
  bool ok = in.magic(kMagicRequest) && in.get(probe) && in.bytes(r.simulate) && in.bytes(r.cubin) &&
            in.count(n);
  for (std::uint32_t i = 0; ok && i < n; ++i) ok = in.get(r.launches.emplace_back());
  ok = ok && in.count(n);
  for (std::uint32_t i = 0; ok && i < n; ++i) ok = in.bytes(r.arrays.emplace_back());
  ok = ok && in.count(n);
  for (std::uint32_t i = 0; ok && i < n; ++i) {
    GpuArg& a = r.args.emplace_back();
    std::uint8_t arr = 0;
    ok = in.get(arr) && in.get(a.index) && in.get(a.value);
    a.array = arr != 0;
    if (ok && a.array && a.index >= r.arrays.size()) {
      why = "the request's argument " + std::to_string(i) + " names array " + std::to_string(a.index) +
            " of " + std::to_string(r.arrays.size());
      return false;
    }
  }
  ok = ok && in.get(timing) && in.get(r.warmup) && in.get(r.repeats) && in.bytes(r.traced_cubin) &&
       in.bytes(r.trace_symbol) && in.get(r.keep_block) && in.get(r.event_capacity) &&
       in.bytes(r.entry) && in.get(plain) && decode_made(in, r, why) && in.done();
  if (!ok) {
    if (why.empty()) why = "the request is truncated or malformed (" + std::to_string(s.size()) + " bytes)";
    return false;
  }
  r.probe = probe != 0;
  r.timing = timing != 0;
  r.plain = plain != 0;
  return true;
}

bool decode(const std::string& s, GpuReply& r, std::string& why) {
  r = {};
  In in(s);
  std::uint32_t n = 0;
  bool ok = in.magic(kMagicReply) && in.bytes(r.error) && in.bytes(r.device) && in.bytes(r.arch) &&
            in.count(n);
  for (std::uint32_t i = 0; ok && i < n; ++i) ok = in.bytes(r.arrays.emplace_back());
  ok = ok && in.count(n);
  for (std::uint32_t i = 0; ok && i < n; ++i) ok = in.get(r.samples_ms.emplace_back());
  ok = ok && in.count(n);
  for (std::uint32_t i = 0; ok && i < n; ++i) {
    GpuTracedLaunch& t = r.traced.emplace_back();
    ok = in.bytes(t.sites) && in.bytes(t.fault) && in.bytes(t.shared_arrays) && in.bytes(t.events) &&
         in.get(t.event_count) && in.get(t.sites_full);
  }
  std::uint8_t checked = 0;
  ok = ok && in.get(checked) && in.get(r.check.mismatches) && in.get(r.check.first) && in.get(r.check.got) &&
       in.get(r.check.want) && in.done();
  r.checked = checked != 0;
  if (!ok) {
    why = "the GPU runner's reply is truncated or malformed (" + std::to_string(s.size()) + " bytes)";
    return false;
  }
  return true;
}

std::string check_reply(const GpuRequest& q, const GpuReply& r) {
  if (!r.error.empty() || q.probe) return "";
  if (!q.simulate.empty() && q.simulate != "echo") return "";
  // Arrays come back only when asked for; a check only when asked for (an echo has none).
  const std::size_t want = q.outputs == GpuOutputs::Arrays ? q.arrays.size() : 0;
  if (r.arrays.size() != want) return std::to_string(r.arrays.size()) + " arrays for " + std::to_string(want);
  for (std::size_t i = 0; i < r.arrays.size(); ++i)
    if (r.arrays[i].size() != request_bytes(q, i))
      return "array " + std::to_string(i) + " of " + std::to_string(r.arrays[i].size()) + " bytes for " +
             std::to_string(request_bytes(q, i));
  if (r.checked != (q.outputs == GpuOutputs::Check && q.simulate.empty()))
    return r.checked ? "a check it was not asked for" : "no check of the output";
  if (r.checked && r.check.mismatches > 0 &&
      (r.check.first < 0 || std::uint64_t(r.check.first) >= request_bytes(q, q.ref.out)))
    return "a first wrong element outside the output";
  const std::uint64_t samples = q.timing ? std::uint64_t(std::max(0, q.repeats)) : 0;
  if (r.samples_ms.size() > samples + 1)
    return std::to_string(r.samples_ms.size()) + " timing samples for " + std::to_string(samples);
  for (double v : r.samples_ms)
    if (!(v >= 0 && v < 1e9)) return "a timing sample of " + std::to_string(v) + " ms";
  if (r.traced.size() > q.launches.size())
    return std::to_string(r.traced.size()) + " traced launches for " + std::to_string(q.launches.size());
  for (const auto& t : r.traced)
    if (t.events.size() > q.event_capacity * 160) return "more traced events than the capacity";
  return "";
}

// [SECTION] Runner
std::string gpu_runner_path() {
  if (const char* e = std::getenv("WARPSCOPE_GPU_RUNNER"); e && *e) return executable(e) ? e : "";
  const std::string exe = self_exe();
  if (!exe.empty()) {
    const fs::path dir = fs::path(exe).parent_path();
    for (const fs::path& p : {dir / "warpscope-gpu-run", dir.parent_path() / "libexec" / "warpscope" / "warpscope-gpu-run"})
      if (executable(p)) return p.string();
  }
#if defined(WS_GPU_RUNNER_BUILD_PATH)
  if (executable(WS_GPU_RUNNER_BUILD_PATH)) return WS_GPU_RUNNER_BUILD_PATH;
#endif
  return "";
}

namespace {

// Starts the runner in a session of its own with the request on stdin, the reply file on
// stdout, its stderr, and `go_write` as descriptor 3 (it writes there when it launches).
// @post 0 and pid set, or the errno of posix_spawn.
int spawn_runner(const std::string& runner, int in_fd, int out_fd, int err_fd, int go_write, pid_t& pid) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
  posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
  posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
  posix_spawn_file_actions_adddup2(&fa, go_write, 3);
  // Its own session (killed as a group), and this process's pid: the runner arms its death
  // signal and checks that this process is still its parent (sandbox.h).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  std::vector<std::string> env_s;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "WARPSCOPE_GPU_RUNNER_PARENT=", 28) != 0) env_s.push_back(*e);
  env_s.push_back("WARPSCOPE_GPU_RUNNER_PARENT=" + std::to_string(::getpid()));
  std::vector<char*> ev;
  for (auto& e : env_s) ev.push_back(e.data());
  ev.push_back(nullptr);
  std::vector<char*> av = {const_cast<char*>(runner.c_str()), nullptr};
  const int rc = ::posix_spawn(&pid, runner.c_str(), &fa, &attr, av.data(), ev.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  return rc;
}

struct Watched {
  bool launched = false, timed_out = false, reaped = false, cancelled = false;
  int st = 0;  // the wait status, when reaped
};

// Waits for the runner: until it says it launches, the start-up limit; then the kernel's.
// Every wait has a deadline, the end of the pipe included (a runner may close it and go on).
Watched watch_runner(pid_t pid, int go_read, const RunnerLimits& limits) {
  Watched w;
  bool& launched = w.launched;
  bool& timed_out = w.timed_out;
  bool& reaped = w.reaped;
  int& st = w.st;
  using clock = sandbox::Clock;
  auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(limits.start_s));
  bool eof = false;
  while (!reaped) {
    const auto now = clock::now();
    if (now >= deadline) {
      timed_out = true;
      break;
    }
    if (limits.cancel && limits.cancel->load(std::memory_order_relaxed)) {
      w.cancelled = true;
      break;
    }
    if (eof) {
      reaped = sandbox::wait_until(pid, st, std::min(deadline, now + std::chrono::milliseconds(50)));
      continue;
    }
    const double left = std::chrono::duration<double>(deadline - now).count();
    pollfd pf{go_read, POLLIN, 0};
    const int pr = ::poll(&pf, 1, int(std::min(left, 0.05) * 1000) + 1);
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0) {
      // A process forked meanwhile by another thread may hold the pipe open: the
      // runner's end is also seen by waiting for it.
      reaped = sandbox::wait_until(pid, st, now);
      continue;
    }
    if (pr < 0) continue;
    char c[16];
    const ssize_t n = ::read(go_read, c, sizeof c);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof = true;  // the runner closed its end: wait for its end, under the deadline
      continue;
    }
    if (!launched) {
      launched = true;
      deadline = clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(limits.time_s));
    }
  }
  return w;
}

}  // namespace

GpuReply run_in_runner(const GpuRequest& req, const RunnerLimits& limits) {
  GpuReply rep;
  const std::string runner = gpu_runner_path();
  if (runner.empty()) {
    rep.error = "the GPU runner (warpscope-gpu-run) was not found beside warpscope, in "
                "../libexec/warpscope or at $WARPSCOPE_GPU_RUNNER";
    return rep;
  }
  const int in_fd = temp_fd(), out_fd = temp_fd(), err_fd = temp_fd();
  int go[2] = {-1, -1};
  auto close_all = [&] {
    for (int fd : {in_fd, out_fd, err_fd, go[0], go[1]})
      if (fd >= 0) ::close(fd);
  };
  if (in_fd < 0 || out_fd < 0 || err_fd < 0 || ::pipe2(go, O_CLOEXEC) != 0 || !write_all(in_fd, encode(req)) ||
      ::lseek(in_fd, 0, SEEK_SET) != 0) {
    close_all();
    rep.error = "cannot prepare the files for the GPU runner: " + std::string(std::strerror(errno));
    return rep;
  }
  pid_t pid = 0;
  const int rc = spawn_runner(runner, in_fd, out_fd, err_fd, go[1], pid);
  ::close(go[1]);
  go[1] = -1;
  if (rc != 0) {
    close_all();
    rep.error = "cannot start the GPU runner " + runner + ": " + std::strerror(rc);
    return rep;
  }

  const Watched w = watch_runner(pid, go[0], limits);
  const bool launched = w.launched, timed_out = w.timed_out, reaped = w.reaped;
  int st = w.st;
  if (!reaped) st = sandbox::kill_and_reap(pid);
  // The reply is bounded by what the request can ask back: its arrays, the traced events.
  std::uint64_t most = 1u << 20;
  for (std::size_t i = 0; i < req.arrays.size(); ++i) most += 8 + request_bytes(req, i);
  most += (req.launches.size() + 1) * (req.event_capacity * 160 + (64u << 20));
  struct stat sst {};
  bool too_big = ::fstat(out_fd, &sst) == 0 && std::uint64_t(sst.st_size) > most;
  const std::string out = too_big ? std::string() : sandbox::read_bounded(out_fd, std::size_t(most));
  std::string err;
  if (::fstat(err_fd, &sst) == 0) {
    const off_t from = sst.st_size > 4096 ? sst.st_size - 4096 : 0;
    err.resize(std::size_t(sst.st_size - from));
    const ssize_t n = ::pread(err_fd, err.data(), err.size(), from);
    err.resize(n > 0 ? std::size_t(n) : 0);
  }
  close_all();
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
  if (const auto nl = err.rfind('\n'); nl != std::string::npos) err = err.substr(nl + 1);
  err = sandbox::printable(err, 300);

  if (w.cancelled) {
    rep.error = "the GPU run was stopped: the check no longer needed it";
    return rep;
  }
  if (timed_out) {
    rep.error = launched ? "your kernel did not finish on the GPU in " + seconds_text(limits.time_s) +
                               " s (an endless loop or a deadlock?): its process was stopped"
                         : "the GPU runner did not start the kernel within " + seconds_text(limits.start_s) +
                               " s: its process was stopped";
    return rep;
  }
  if (WIFSIGNALED(st)) {
    rep.error = "the GPU runner crashed (" + signal_text(WTERMSIG(st)) + ")" + (err.empty() ? "" : ": " + err);
    return rep;
  }
  std::string why;
  if (too_big) {
    rep.error = "the GPU runner's reply is larger than the request allows (" + std::to_string(sst.st_size) +
                " bytes): refused";
    return rep;
  }
  if (!decode(out, rep, why)) {
    rep = {};
    rep.error = "the GPU runner ended (exit " + std::to_string(WIFEXITED(st) ? WEXITSTATUS(st) : -1) +
                ") without a reply" + (err.empty() ? "" : ": " + err);
    return rep;
  }
  if (std::string bad = check_reply(req, rep); !bad.empty()) {
    rep = {};
    rep.error = "the GPU runner's reply does not match its request (" + bad + "): refused";
  }
  rep.error = sandbox::printable(rep.error, 1000);
  rep.device = sandbox::printable(rep.device, 200);
  rep.arch = sandbox::printable(rep.arch, 32);
  return rep;
}

}  // namespace ws::user
