#pragma once
// The sandbox of student code (issue 27): what a forked child does to itself before it runs
// a student's kernel, what the compiler runs under, and what the parent does to bound every
// child (deadlines on every wait, a size on every read, a group kill). Used by the emulator
// sandbox (kernels/user/user_kernel.cpp), the compiler spawn and the GPU runner.
//
// Layers, each independent (one failing leaves the others):
//  - process: own session and process group (setsid), SIGKILL when the parent dies
//    (PR_SET_PDEATHSIG, then a getppid() check for a parent gone before it), killed as a
//    group at the deadline;
//  - rlimits: address space, data, file size, CPU seconds, no core files;
//  - syscall filter (libseccomp): the list filter_rules() prints, denied by profile;
//  - filesystem (Landlock, where the kernel has it): writes and exec nowhere but the
//    writable directories (the empty scratch directory for a kernel). Reads are not limited.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ws::sandbox {

// Who the filter is for: a student kernel on the emulator (its code runs natively), the
// C++ compiler (forks cc1plus, as, ld), the GPU runner (CUDA needs threads, ioctl, mmap).
enum class Profile { Kernel, Compiler, GpuRunner };
std::string_view to_string(Profile p);

// One rule of a syscall filter: the call denied, and when ("" = always).
struct Rule {
  std::string syscall;
  std::string when;
  std::string action;  // "trap" (reported, kernel), "EPERM", "ENOSYS"
};
// The rules install_filter(p) loads, in order; everything else is allowed.
// @post the same list install_filter(p) loads (both read one table).
std::vector<Rule> filter_rules(Profile p);
// The rules, one a line: "kill  unless pid is this process  -> trap".
std::string describe(Profile p);

// --- the child's side (after fork, before the untrusted code) ------------------------

// Own session and group, SIGKILL when `parent` dies. false when the parent is already gone
// (the caller then _exits).
bool detach(pid_t parent);

struct Rlimits {
  std::uint64_t address_space = 0;  // bytes ADDED to the current address space (0 = none)
  std::uint64_t file_bytes = 0;     // largest file the process may write (0 = none)
  std::uint64_t cpu_s = 0;          // CPU seconds (0 = none); SIGXCPU, then SIGKILL 1 s later
  std::uint64_t open_files = 0;     // descriptors (0 = unchanged): with file_bytes, bounds
                                    // what unlinked or anonymous files can hold
  bool no_core = true;
};
// Sets the limits on this process (the address space from its VmSize now). false if one
// could not be set.
bool apply_limits(const Rlimits& r);

enum class FsPolicy { Enforced, Unsupported, Failed };
std::string_view to_string(FsPolicy p);
// The Landlock ABI of the running kernel (0 = none).
int landlock_abi();
// Restricts this process (and what it execs) to writing, creating and removing files only
// under `writable` (reads stay allowed everywhere; exec is allowed only under `exec_ok`,
// none when empty). Sets no_new_privs.
FsPolicy restrict_filesystem(const std::vector<std::string>& writable,
                             const std::vector<std::string>& exec_ok = {});

// Whether this build has the syscall filter (libseccomp found at build time).
bool have_filter();
// Loads the syscall filter of `p` (libseccomp). false with `why` when it could not be.
bool install_filter(Profile p, std::string& why);
// The name of a system call by number ("number N" when unknown).
std::string syscall_name(int nr);

// --- the parent's side ----------------------------------------------------------------

using Clock = std::chrono::steady_clock;

// SIGKILL to `pid`'s process group and to `pid` (before setsid the group is the parent's:
// the group is signalled only once it is pid's own).
void kill_group(pid_t pid);
// Waits for `pid` until `deadline`, reaping it. true with its wait status when it ended.
bool wait_until(pid_t pid, int& status, Clock::time_point deadline);
// Kills pid's group and reaps pid (it has no choice but to end).
int kill_and_reap(pid_t pid);

// At most `most` bytes of the file behind `fd` from offset 0; `truncated` when longer.
std::string read_bounded(int fd, std::size_t most, bool* truncated = nullptr);
// Bytes in the files under `dir` (recursively, links not followed); counting stops past
// `most_entries` entries, and then returns UINT64_MAX (a directory of millions of files).
std::uint64_t directory_bytes(const std::string& dir, std::size_t most_entries = 10000);
// Resident memory of a process in bytes (VmRSS, shared pages included); 0 if unknown.
std::uint64_t resident_bytes(pid_t pid);
// Text from an untrusted source, fit to show: control bytes and invalid bytes as '?'
// (newlines and tabs kept when `lines`), at most `most` bytes, then " [... N more bytes]".
std::string printable(std::string_view s, std::size_t most, bool lines = false);

// A program run under the sandbox (the compiler): stdin /dev/null, stdout and stderr into
// `log_path`, its own session, rlimits, a Landlock write policy; killed as a group at the
// deadline.
struct SpawnLimits {
  double time_s = 30;
  std::uint64_t memory_bytes = 0;  // address space of each process (0 = none)
  std::uint64_t file_bytes = 0;
  std::uint64_t cpu_s = 0;
  std::vector<std::string> writable;  // Landlock (empty: no policy)
};
enum class SpawnStatus { Exited, Signaled, TimedOut, NotStarted };
std::string_view to_string(SpawnStatus s);
struct SpawnResult {
  SpawnStatus status = SpawnStatus::NotStarted;
  int code = 0;  // the exit status or the signal
  double seconds = 0;
};
SpawnResult spawn_limited(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          const std::string& log_path, const SpawnLimits& lim);

// --- records from an untrusted child: tag(1) length(4, little endian) payload ----------

struct RecordKind {
  char tag;
  std::uint32_t min_len, max_len;
};
struct Record {
  char tag = 0;
  std::string payload;
};
// Splits a byte stream into records, refusing an unknown tag, a length outside its
// kind's bounds, and more than `max_total` bytes in all: the first such makes error()
// non-empty and next() false for good. Never holds more than one record plus a chunk.
class RecordReader {
 public:
  RecordReader(std::vector<RecordKind> kinds, std::uint64_t max_total);
  void feed(const char* p, std::size_t n);
  // @post true iff a whole, valid record was taken; false when more bytes are needed or
  //       after an error.
  bool next(Record& r);
  const std::string& error() const { return error_; }
  std::uint64_t total() const { return total_; }
  // Bytes fed but not yet taken (a partial record at the end of the stream).
  std::size_t pending() const { return buf_.size() - at_; }

 private:
  std::vector<RecordKind> kinds_;
  std::uint64_t max_total_, total_ = 0;
  std::string buf_;
  std::size_t at_ = 0;
  std::string error_;
};

}  // namespace ws::sandbox
