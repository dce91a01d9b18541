// The sandbox's pieces (see sandbox.h): process detachment, rlimits, Landlock, the seccomp
// filter table, bounded waits and reads, the record reader.
// Index (search for "[SECTION] <name>"):
//   Names
//   The filter table
//   The child's side: detach, limits, Landlock
//   The parent's side: waiting, killing, bounded reads
//   Records
#include "kernels/user/sandbox.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#if defined(WS_HAVE_SECCOMP)
#include <seccomp.h>
#endif
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

namespace ws::sandbox {

// [SECTION] Names
std::string_view to_string(Profile p) {
  switch (p) {
    case Profile::Kernel: return "kernel";
    case Profile::Compiler: return "compiler";
    case Profile::GpuRunner: return "gpu-runner";
  }
  return "?";
}

std::string_view to_string(FsPolicy p) {
  switch (p) {
    case FsPolicy::Enforced: return "enforced";
    case FsPolicy::Unsupported: return "unsupported (no Landlock in this kernel)";
    case FsPolicy::Failed: return "failed";
  }
  return "?";
}

std::string_view to_string(SpawnStatus s) {
  switch (s) {
    case SpawnStatus::Exited: return "exited";
    case SpawnStatus::Signaled: return "signaled";
    case SpawnStatus::TimedOut: return "timed out";
    case SpawnStatus::NotStarted: return "not started";
  }
  return "?";
}


namespace {

enum class Cond { Always, ArgNotSelf, NoCloneThread, ArgEq, ArgNe };
enum : unsigned { K = 1, C = 2, G = 4 };

// [SECTION] The filter table
struct Entry {
  const char* name;
  Cond cond;
  std::uint64_t arg;
  unsigned profiles;
  bool enosys;  // answered ENOSYS (glibc falls back: clone3 -> clone)
};

// One table for every profile, read by filter_rules() and install_filter().
const Entry kTable[] = {
    // signals to anything but itself
    {"kill", Cond::ArgNotSelf, 0, K | G, false},
    {"tkill", Cond::ArgNotSelf, 0, K, false},
    {"tgkill", Cond::ArgNotSelf, 0, K | G, false},
    {"rt_sigqueueinfo", Cond::ArgNotSelf, 0, K | G, false},
    {"rt_tgsigqueueinfo", Cond::ArgNotSelf, 0, K | G, false},
    {"pidfd_open", Cond::Always, 0, K | G, false},
    {"pidfd_send_signal", Cond::Always, 0, K | G, false},
    {"pidfd_getfd", Cond::Always, 0, K | G, false},
    // other processes' memory
    {"ptrace", Cond::Always, 0, K | C | G, false},
    {"process_vm_readv", Cond::Always, 0, K | C | G, false},
    {"process_vm_writev", Cond::Always, 0, K | C | G, false},
    {"kcmp", Cond::Always, 0, K | G, false},
    // new processes (threads stay allowed), new programs
    {"fork", Cond::Always, 0, K | G, false},
    {"vfork", Cond::Always, 0, K | G, false},
    {"clone", Cond::NoCloneThread, CLONE_THREAD, K | G, false},
    {"clone3", Cond::Always, 0, K | G, true},
    {"execve", Cond::Always, 0, K | G, false},
    {"execveat", Cond::Always, 0, K | G, false},
    // leaving the session or the parent's death signal
    {"setsid", Cond::Always, 0, K | G, false},
    {"setpgid", Cond::Always, 0, K | G, false},
    {"prctl", Cond::ArgEq, PR_SET_PDEATHSIG, K | G, false},
    // the network (the GPU runner keeps local sockets: the driver may use them)
    {"socket", Cond::Always, 0, K | C, false},
    {"socket", Cond::ArgNe, AF_UNIX, G, false},
    {"socketpair", Cond::Always, 0, K | C, false},
    {"connect", Cond::Always, 0, K | C, false},
    {"bind", Cond::Always, 0, K | C, false},
    {"listen", Cond::Always, 0, K | C, false},
    {"accept", Cond::Always, 0, K | C, false},
    {"accept4", Cond::Always, 0, K | C, false},
    // calls that bypass this filter or reach the kernel's wider surface
    {"io_uring_setup", Cond::Always, 0, K | C | G, false},
    {"unshare", Cond::Always, 0, K | C | G, false},
    {"setns", Cond::Always, 0, K | C | G, false},
    {"mount", Cond::Always, 0, K | C | G, false},
    {"umount2", Cond::Always, 0, K | C | G, false},
    {"pivot_root", Cond::Always, 0, K | C | G, false},
    {"chroot", Cond::Always, 0, K | C | G, false},
    {"bpf", Cond::Always, 0, K | C | G, false},
    {"perf_event_open", Cond::Always, 0, K | C, false},
    {"userfaultfd", Cond::Always, 0, K | C, false},
    {"memfd_create", Cond::Always, 0, K, false},  // memory files outside every limit
    {"keyctl", Cond::Always, 0, K | C | G, false},
    {"add_key", Cond::Always, 0, K | C | G, false},
    {"request_key", Cond::Always, 0, K | C | G, false},
};

unsigned bit(Profile p) { return p == Profile::Kernel ? K : p == Profile::Compiler ? C : G; }

std::string when_text(const Entry& e) {
  switch (e.cond) {
    case Cond::Always: return "";
    case Cond::ArgNotSelf: return "unless its first argument is this process";
    case Cond::NoCloneThread: return "unless it makes a thread (CLONE_THREAD)";
    case Cond::ArgEq:
      return std::string("when its first argument is ") +
             (e.arg == PR_SET_PDEATHSIG ? "PR_SET_PDEATHSIG" : std::to_string(e.arg));
    case Cond::ArgNe:
      return std::string("unless its first argument is ") + (e.arg == AF_UNIX ? "AF_UNIX" : std::to_string(e.arg));
  }
  return "";
}

}  // namespace

std::vector<Rule> filter_rules(Profile p) {
  std::vector<Rule> out;
  for (const Entry& e : kTable)
    if (e.profiles & bit(p))
      out.push_back({e.name, when_text(e), e.enosys ? "ENOSYS" : p == Profile::Kernel ? "trap" : "EPERM"});
  return out;
}

std::string describe(Profile p) {
  std::string s;
  for (const Rule& r : filter_rules(p))
    s += r.syscall + (r.when.empty() ? "" : "  " + r.when) + "  -> " + r.action + "\n";
  return s;
}

bool have_filter() {
#if defined(WS_HAVE_SECCOMP)
  return true;
#else
  return false;
#endif
}

std::string syscall_name(int nr) {
#if defined(WS_HAVE_SECCOMP)
  if (char* n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr)) {
    std::string s = n;
    std::free(n);
    return s;
  }
#endif
  return "number " + std::to_string(nr);
}

#if defined(WS_HAVE_SECCOMP)
bool install_filter(Profile p, std::string& why) {
  const std::uint32_t deny = p == Profile::Kernel ? SCMP_ACT_TRAP : SCMP_ACT_ERRNO(EPERM);
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) {
    why = "seccomp_init failed";
    return false;
  }
  const std::uint64_t self = std::uint64_t(::getpid());
  for (const Entry& e : kTable) {
    if (!(e.profiles & bit(p))) continue;
    const int nr = seccomp_syscall_resolve_name(e.name);
    if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture
    const std::uint32_t act = e.enosys ? SCMP_ACT_ERRNO(ENOSYS) : deny;
    int rc = 0;
    switch (e.cond) {
      case Cond::Always: rc = seccomp_rule_add(ctx, act, nr, 0); break;
      case Cond::ArgNotSelf: rc = seccomp_rule_add(ctx, act, nr, 1, SCMP_A0(SCMP_CMP_NE, self)); break;
      case Cond::NoCloneThread:
        rc = seccomp_rule_add(ctx, act, nr, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, e.arg, 0));
        break;
      case Cond::ArgEq: rc = seccomp_rule_add(ctx, act, nr, 1, SCMP_A0(SCMP_CMP_EQ, e.arg)); break;
      case Cond::ArgNe: rc = seccomp_rule_add(ctx, act, nr, 1, SCMP_A0(SCMP_CMP_NE, e.arg)); break;
    }
    if (rc != 0) {
      why = std::string("seccomp rule for ") + e.name + ": " + std::strerror(-rc);
      seccomp_release(ctx);
      return false;
    }
  }
  const int rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0) {
    why = std::string("seccomp_load: ") + std::strerror(-rc);
    return false;
  }
  return true;
}
#else
bool install_filter(Profile, std::string& why) {
  why = "warpscope was built without libseccomp";
  return false;
}
#endif

// [SECTION] The child's side: detach, limits, Landlock

bool detach(pid_t parent) {
  ::setsid();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died before the death signal was armed.
  return ::getppid() == parent;
}

namespace {
std::uint64_t status_kb(const char* path, const char* key) {
  std::FILE* f = std::fopen(path, "re");
  if (!f) return 0;
  char line[256];
  std::uint64_t v = 0;
  const std::size_t n = std::strlen(key);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, key, n) == 0) {
      v = std::strtoull(line + n, nullptr, 10);
      break;
    }
  std::fclose(f);
  return v;
}

bool set_limit(int which, std::uint64_t v) {
  rlimit r{rlim_t(v), rlim_t(v)};
  return ::setrlimit(which, &r) == 0;
}
}  // namespace

bool apply_limits(const Rlimits& r) {
  bool ok = true;
  if (r.no_core) ok &= set_limit(RLIMIT_CORE, 0);
  if (r.address_space) {
    // Every mapping counts here, MAP_SHARED and MAP_ANONYMOUS ones too (RLIMIT_DATA does
    // not see shared mappings).
    const std::uint64_t now = status_kb("/proc/self/status", "VmSize:") * 1024;
    ok &= set_limit(RLIMIT_AS, now + r.address_space);
  }
  if (r.file_bytes) {
    ok &= set_limit(RLIMIT_FSIZE, r.file_bytes);
    ::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails (EFBIG) instead of killing
  }
  if (r.open_files) ok &= set_limit(RLIMIT_NOFILE, r.open_files);
  if (r.cpu_s) {
    rlimit c{rlim_t(r.cpu_s), rlim_t(r.cpu_s + 1)};
    ok &= ::setrlimit(RLIMIT_CPU, &c) == 0;
  }
  return ok;
}

int landlock_abi() {
  const long v = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return v < 0 ? 0 : int(v);
}

FsPolicy restrict_filesystem(const std::vector<std::string>& writable,
                             const std::vector<std::string>& exec_ok) {
  const int abi = landlock_abi();
  if (abi <= 0) return FsPolicy::Unsupported;
  const std::uint64_t file_rights = LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 3 ? LANDLOCK_ACCESS_FS_TRUNCATE : 0);
  std::uint64_t write_rights = file_rights | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                               LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
                               LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                               LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                               LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) write_rights |= LANDLOCK_ACCESS_FS_REFER;
  // Exec is handled (so denied) unless "/" is allowed whole.
  bool exec_everywhere = false;
  for (const auto& e : exec_ok) exec_everywhere |= e == "/";
  const std::uint64_t handled = write_rights | (exec_everywhere ? 0 : LANDLOCK_ACCESS_FS_EXECUTE);
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = handled;
  const int rs = int(::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (rs < 0) return FsPolicy::Failed;
  auto add = [&](const std::string& path, std::uint64_t rights) {
    const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
      rights &= file_rights | LANDLOCK_ACCESS_FS_EXECUTE;  // a file takes file rights only
    landlock_path_beneath_attr pb{};
    pb.allowed_access = rights & handled;
    pb.parent_fd = fd;
    const long rc = ::syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
    ::close(fd);
    return rc == 0;
  };
  bool ok = true;
  for (const auto& w : writable) ok &= add(w, write_rights);
  if (!exec_everywhere)
    for (const auto& e : exec_ok) ok &= add(e, LANDLOCK_ACCESS_FS_EXECUTE);
  ok = ok && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
       ::syscall(SYS_landlock_restrict_self, rs, 0) == 0;
  ::close(rs);
  return ok ? FsPolicy::Enforced : FsPolicy::Failed;
}

// [SECTION] The parent's side: waiting, killing, bounded reads

void kill_group(pid_t pid) {
  if (pid <= 0) return;
  // Only a group the child leads (after its setsid): before that its group is ours.
  if (::getpgid(pid) == pid) ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
}

bool wait_until(pid_t pid, int& status, Clock::time_point deadline) {
  for (;;) {
    siginfo_t si{};
    // WNOWAIT: the pid stays reserved (a zombie) while its group is killed, so the
    // signal cannot reach a recycled pid.
    const int rc = ::waitid(P_PID, id_t(pid), &si, WEXITED | WNOHANG | WNOWAIT);
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) return false;
    if (si.si_pid == pid) {
      if (::getpgid(pid) == pid) ::kill(-pid, SIGKILL);  // leftovers of its group
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return true;
    }
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int kill_and_reap(pid_t pid) {
  kill_group(pid);
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return st;
}

std::string read_bounded(int fd, std::size_t most, bool* truncated) {
  std::string s;
  if (truncated) *truncated = false;
  if (fd < 0) return s;
  std::size_t want = most + 1;  // one more byte says whether there is more
  s.resize(std::min<std::size_t>(want, 1 << 16));
  std::size_t got = 0;
  while (got < want) {
    if (got == s.size()) s.resize(std::min(want, s.size() * 2));
    const ssize_t n = ::pread(fd, s.data() + got, s.size() - got, off_t(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += std::size_t(n);
  }
  s.resize(got);
  if (s.size() > most) {
    s.resize(most);
    if (truncated) *truncated = true;
  }
  return s;
}

std::uint64_t directory_bytes(const std::string& dir, std::size_t most_entries) {
  namespace fs = std::filesystem;
  std::uint64_t total = 0;
  std::size_t n = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (++n > most_entries) return UINT64_MAX;
    std::error_code e;
    if (it->is_regular_file(e)) total += it->file_size(e);
  }
  return total;
}

std::uint64_t resident_bytes(pid_t pid) {
  return status_kb(("/proc/" + std::to_string(pid) + "/status").c_str(), "VmRSS:") * 1024;
}

std::string printable(std::string_view s, std::size_t most, bool lines) {
  std::string out;
  out.reserve(std::min(s.size(), most) + 32);
  std::size_t i = 0;
  while (i < s.size() && out.size() < most) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
      ++i;
      continue;
    }
    if ((c == '\n' || c == '\t') && lines) {
      out += char(c);
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence is kept whole; anything else shows as '?'.
    const int len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    bool ok = len > 0 && i + std::size_t(len) <= s.size();
    for (int k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + std::size_t(k)]) & 0xc0) == 0x80;
    if (ok) {
      out.append(s.substr(i, std::size_t(len)));
      i += std::size_t(len);
    } else {
      out += c == '\n' || c == '\t' || c == '\r' ? ' ' : '?';
      ++i;
    }
  }
  if (i < s.size()) out += " [... " + std::to_string(s.size() - i) + " more bytes]";
  return out;
}

SpawnResult spawn_limited(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          const std::string& log_path, const SpawnLimits& lim) {
  SpawnResult res;
  if (argv.empty()) return res;
  // Everything the child needs is built before the fork.
  std::vector<char*> av, ev;
  for (const auto& a : argv) av.push_back(const_cast<char*>(a.c_str()));
  av.push_back(nullptr);
  for (const auto& e : env) ev.push_back(const_cast<char*>(e.c_str()));
  ev.push_back(nullptr);
  const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (log < 0 || null < 0) {
    if (log >= 0) ::close(log);
    if (null >= 0) ::close(null);
    return res;
  }
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) {
    ::close(log);
    ::close(null);
    return res;
  }
  const pid_t parent = ::getpid();
  const auto t0 = Clock::now();
  // Unwritten output would be copied into the child and written again from there (as the
  // kernel's own): flushed first.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!detach(parent)) ::_exit(126);
    // Above every number in use first, so the dup2s cannot overwrite one another.
    const int n0 = ::fcntl(null, F_DUPFD, 100), l0 = ::fcntl(log, F_DUPFD, 100), r0 = ::fcntl(ready[1], F_DUPFD, 100);
    if (n0 < 0 || l0 < 0 || r0 < 0) ::_exit(126);
    ::dup2(n0, 0);
    ::dup2(l0, 1);
    ::dup2(l0, 2);
    ::dup2(r0, 3);
    ::fcntl(3, F_SETFD, FD_CLOEXEC);
    ::syscall(SYS_close_range, 4u, ~0u, 0u);
    Rlimits rl;
    rl.file_bytes = lim.file_bytes;
    rl.cpu_s = lim.cpu_s;
    apply_limits(rl);
    if (!lim.writable.empty()) restrict_filesystem(lim.writable, {"/"});
    std::string why;
    install_filter(Profile::Compiler, why);
    // Last: absolute, for the program exec starts (this copy of the parent may be larger).
    if (lim.memory_bytes) {
      rlimit r{};
      r.rlim_cur = r.rlim_max = lim.memory_bytes;
      ::setrlimit(RLIMIT_AS, &r);
    }
    ::execve(av[0], av.data(), ev.data());
    const char c = 'x';  // exec failed: the parent reads one byte
    (void)!::write(3, &c, 1);
    ::_exit(127);
  }
  ::close(ready[1]);
  ::close(log);
  ::close(null);
  if (pid < 0) {
    ::close(ready[0]);
    return res;
  }
  // exec closes the pipe (CLOEXEC): EOF means it started, a byte means it did not.
  char c = 0;
  ssize_t n;
  while ((n = ::read(ready[0], &c, 1)) < 0 && errno == EINTR) {
  }
  ::close(ready[0]);
  int st = 0;
  if (n == 1) {
    ::waitpid(pid, &st, 0);
    return res;
  }
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(lim.time_s));
  if (!wait_until(pid, st, deadline)) {
    kill_and_reap(pid);
    res.status = SpawnStatus::TimedOut;
  } else if (WIFSIGNALED(st)) {
    res.status = SpawnStatus::Signaled;
    res.code = WTERMSIG(st);
  } else {
    res.status = SpawnStatus::Exited;
    res.code = WEXITSTATUS(st);
  }
  res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return res;
}


RecordReader::RecordReader(std::vector<RecordKind> kinds, std::uint64_t max_total)
    : kinds_(std::move(kinds)), max_total_(max_total) {}

// [SECTION] Records
void RecordReader::feed(const char* p, std::size_t n) {
  if (!error_.empty()) return;
  total_ += n;
  if (total_ > max_total_) {
    error_ = "it sent more than " + std::to_string(max_total_ >> 20) + " MB of records";
    return;
  }
  if (at_ > 0 && at_ * 2 >= buf_.size()) {
    buf_.erase(0, at_);
    at_ = 0;
  }
  buf_.append(p, n);
}

bool RecordReader::next(Record& r) {
  if (!error_.empty() || buf_.size() - at_ < 5) return false;
  const char tag = buf_[at_];
  const RecordKind* k = nullptr;
  for (const auto& kk : kinds_)
    if (kk.tag == tag) k = &kk;
  if (!k) {
    error_ = "a record of unknown kind " + std::to_string(static_cast<unsigned char>(tag));
    return false;
  }
  std::uint32_t len = 0;
  std::memcpy(&len, buf_.data() + at_ + 1, 4);
  if (len < k->min_len || len > k->max_len) {
    error_ = std::string("a record '") + tag + "' of " + std::to_string(len) + " bytes (" +
             std::to_string(k->min_len) + " to " + std::to_string(k->max_len) + " allowed)";
    return false;
  }
  if (buf_.size() - at_ - 5 < len) return false;
  r.tag = tag;
  r.payload.assign(buf_, at_ + 5, len);
  at_ += 5 + std::size_t(len);
  return true;
}

}  // namespace ws::sandbox
