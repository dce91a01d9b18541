// The child side of a student kernel's emulator run (user_child.h): the sandbox in order,
// the student's shared object, its events back through the pipe, a fatal signal's line.
#define WS_MODE_EMU
#include "kernels/user/user_child.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <new>
#include <stdexcept>

#include "kernels/dialect/registry.h"

namespace ws::user::child {
namespace {

Status* g_status = nullptr;

void on_fatal(int sig, siginfo_t* si, void* uc_) {
  if (g_status) {
    g_status->signal = sig;
    if (sig == SIGSYS) g_status->syscall = si->si_syscall;
    if (sig == SIGSEGV || sig == SIGBUS) {
      auto* uc = static_cast<ucontext_t*>(uc_);
      std::uintptr_t sp = 0;
#if defined(__x86_64__)
      sp = std::uintptr_t(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
      sp = std::uintptr_t(uc->uc_mcontext.sp);
#endif
      const auto a = std::uintptr_t(si->si_addr);
      if (sp && a + 65536 > sp && a < sp + 65536) g_status->overflow = 1;
    }
  }
  ::_exit(128 + sig);
}

// Tagged records on the pipe: tag(1) size(4) payload(size).
class PipeWriter {
 public:
  explicit PipeWriter(int fd) : fd_(fd) { buf_.reserve(1 << 16); }
  void record(char tag, const void* p, std::uint32_t n) {
    buf_.push_back(tag);
    buf_.append(reinterpret_cast<const char*>(&n), 4);
    buf_.append(static_cast<const char*>(p), n);
    if (buf_.size() >= (1 << 16)) flush();
  }
  void record(char tag, const std::string& s) {
    record(tag, s.data(), std::uint32_t(std::min<std::size_t>(s.size(), kMaxText)));
  }
  void flush() {
    std::size_t off = 0;
    while (off < buf_.size()) {
      const ssize_t w = ::write(fd_, buf_.data() + off, buf_.size() - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) ::_exit(kExitPipeGone);  // the parent is gone, or the kernel closed the pipe
      off += std::size_t(w);
    }
    buf_.clear();
  }
  static constexpr std::size_t kMaxText = 4096;

 private:
  int fd_;
  std::string buf_;
};


class PipeSink : public TraceSink {
 public:
  explicit PipeSink(PipeWriter& w) : w_(w) {}
  void begin_launch(const LaunchInfo&) override {
    std::uint32_t i = launch_++;
    w_.record('B', &i, 4);
  }
  void on_array(const ArrayDesc& a) override {
    std::string s;
    put(s, a.id);
    put(s, std::uint8_t(a.space));
    put(s, a.elem_bytes);
    put(s, a.count);
    put(s, a.base_offset);
    put(s, a.cols);
    s += a.name.substr(0, 256);
    w_.record('A', s);
  }
  void on_event(const WarpEvent& e) override {
    w_.record('E', &e, sizeof e);
  }
  void end_launch() override { w_.record('X', nullptr, 0); }

 private:
  PipeWriter& w_;
  std::uint32_t launch_ = 0;
};

using LaunchFn = void (*)(emu::Launcher&, const LaunchCfg&, void* const*, const std::uint64_t*,
                          const std::uint8_t*, const long long*);


// Moves `fd` to `to` whatever the numbers (`fd` may already sit on 0, 1 or 2).
void place_fd(int fd, int to) {
  if (fd == to) {
    ::fcntl(to, F_SETFD, 0);
    return;
  }
  ::dup2(fd, to);
}

// The child: never returns. The sandbox in order: session, descriptors (0 /dev/null,
// 1 and 2 the output file, 3 the pipe, nothing else), scratch directory, rlimits,
// Landlock, fatal-signal handlers, the syscall filter; only then the student's code
// (its global initializers run in dlopen).
[[noreturn]] void child_main(const Setup& cs) {
  if (!sandbox::detach(cs.parent)) ::_exit(125);
  // Above every number in use, so the dup2s below cannot overwrite one another.
  const int p = ::fcntl(cs.pipe_fd, F_DUPFD, 100), o = ::fcntl(cs.output_fd, F_DUPFD, 100),
            n = ::fcntl(cs.null_fd, F_DUPFD, 100);
  if (p < 0 || o < 0 || n < 0) ::_exit(124);
  place_fd(n, 0);
  place_fd(o, 1);
  place_fd(o, 2);
  place_fd(p, 3);
  ::syscall(SYS_close_range, 4u, ~0u, 0u);
  if (::chdir(cs.scratch.c_str()) != 0) ::_exit(124);
  sandbox::apply_limits(cs.limits);
  g_status->fs_policy = int(sandbox::restrict_filesystem({cs.scratch})) + 1;

  // Signals are handled on a stack of their own: a fiber that overflowed has none left.
  static std::byte alt[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alt;
  ss.ss_size = sizeof alt;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_fatal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS}) ::sigaction(s, &sa, nullptr);

  PipeWriter w(3);
  std::string why;
  if (!sandbox::have_filter()) {
    g_status->no_filter = 1;  // said with the result
  } else if (!sandbox::install_filter(sandbox::Profile::Kernel, why)) {
    w.record('D', "the sandbox could not start (" + why + "): your kernel was not run");
    w.flush();
    ::_exit(2);
  }
  try {
    void* h = ::dlopen(cs.so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      w.record('D', std::string("your kernel could not be loaded: ") + ::dlerror());
      w.flush();
      ::_exit(2);
    }
    auto fn = reinterpret_cast<LaunchFn>(::dlsym(h, "ws_user_launch"));
    if (!fn) {
      w.record('D', "your kernel's library has no ws_user_launch");
      w.flush();
      ::_exit(2);
    }
    PipeSink sink(w);
    sim::EmuOptions eo;  // student runs are small: always the whole grid
    eo.threads = cs.threads;
    eo.last_line = &g_status->line;  // a crash's or a deadline's line, as the emulator issues
    emu::Launcher L(sink, *cs.arrays, cs.source, eo);
    for (const auto& cfg : *cs.launches)
      fn(L, cfg, cs.ptr->data(), cs.bytes->data(), cs.ids->data(), cs.scalars->data());
    std::fflush(nullptr);  // the kernel's printf, before the result
    const sim::EmuResult& r = L.result();
    for (const auto& pb : r.problems) {
      std::string s;
      put(s, std::uint8_t(pb.kind));
      put(s, pb.line);
      put(s, pb.other_line);
      put(s, pb.block);
      put(s, pb.thread);
      s += pb.message.substr(0, 1024);
      w.record('P', s);
    }
    std::string s;
    put(s, std::uint8_t(r.ok));
    put(s, r.events);
    put(s, r.threads_run);
    w.record('R', s);
    w.flush();
    g_status->finished = 1;
    ::_exit(0);
  } catch (const std::bad_alloc&) {
    g_status->out_of_memory = 1;
    ::_exit(3);
  } catch (const std::exception& e) {
    w.record('D', std::string("your kernel threw an exception: ") + e.what());
    w.flush();
    ::_exit(4);
  }
}

}  // namespace

// The records the child may send, each with its size bounds (sandbox::RecordReader).
std::vector<sandbox::RecordKind> record_kinds() {
  const std::uint32_t array_head = 1 + 1 + 4 + 8 + 4 + 4;
  const std::uint32_t problem_head = 1 + 2 + 2 + 4 + 4;
  return {{'B', 4, 4},
          {'A', array_head, array_head + 256},
          {'E', sizeof(WarpEvent), sizeof(WarpEvent)},
          {'X', 0, 0},
          {'P', problem_head, problem_head + 1024},
          {'R', 17, 17},
          {'D', 0, std::uint32_t(PipeWriter::kMaxText)}};
}

[[noreturn]] void run(const Setup& cs, Status* status) {
  g_status = status;
  child_main(cs);
}

}  // namespace ws::user::child
