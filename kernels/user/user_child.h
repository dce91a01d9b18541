#pragma once
// The child side of a student kernel's emulator run: user_kernel.cpp forks it, it sets up
// the sandbox, loads the student's shared object and streams its warp events back through
// a pipe as tagged records (sandbox.h), which the parent reads as hostile.
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/catalogue/catalogue.h"
#include "kernels/user/sandbox.h"
#include "sim/trace.h"

namespace ws::user::child {

// The child's exit status when its pipe to warpscope fails (warpscope gone, or the kernel
// closed the descriptor).
constexpr int kExitPipeGone = 120;

// Written by the child, read by the parent after it ends (a MAP_SHARED page). The child
// runs the student's code, so the parent checks every field before use.
struct Status {
  volatile int signal;        // the fatal signal, 0 if none
  std::atomic<int> line;      // the line of the last event issued (sim::EmuOptions::last_line)
  volatile int overflow;      // the fault was next to the stack pointer: a stack overflow
  volatile int out_of_memory; // std::bad_alloc in the kernel's process
  volatile int finished;      // the child wrote its result and exits normally
  volatile int syscall;       // SIGSYS: the system call the filter stopped
  volatile int fs_policy;     // sandbox::FsPolicy, + 1 (0: not reached)
  volatile int no_filter;     // this build has no syscall filter
};
// Shared between two processes: only a lock-free atomic is one there.
static_assert(std::atomic<int>::is_always_lock_free);

// What the child needs, prepared before the fork.
struct Setup {
  pid_t parent = 0;
  int pipe_fd = -1, output_fd = -1, null_fd = -1;
  std::string scratch;
  sandbox::Rlimits limits;
  std::string so;
  const std::vector<LaunchCfg>* launches = nullptr;
  const std::vector<ArrayDesc>* arrays = nullptr;
  std::string source;
  const std::vector<void*>* ptr = nullptr;
  const std::vector<std::uint64_t>* bytes = nullptr;
  const std::vector<std::uint8_t>* ids = nullptr;
  const std::vector<long long>* scalars = nullptr;
  unsigned threads = 1;  // sim::EmuOptions::threads: blocks on that many cores
};

template <class T>
inline void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class T>
inline T get(const std::string& s, std::size_t& at) {
  T v{};
  if (at + sizeof v <= s.size()) std::memcpy(&v, s.data() + at, sizeof v);
  at += sizeof v;
  return v;
}

// The records the child may send, each with its size bounds (sandbox::RecordReader).
std::vector<sandbox::RecordKind> record_kinds();

// The child: never returns. `status` is the page both processes share.
[[noreturn]] void run(const Setup& cs, Status* status);

}  // namespace ws::user::child
