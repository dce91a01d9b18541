// Student kernels on the emulator, the run: the built kernel (user_build.h) in a sandboxed
// child process per run (user_child.h), whose records are read back here as hostile.
// Index (search for "[SECTION] <name>"):
//   Messages
//   One sandboxed run
//   Blocks on several cores
#define WS_MODE_EMU
#include "kernels/user/user_kernel.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <new>
#include <sstream>

#include "kernels/user/compile_log.h"
#include "io/read_file.h"
#include "io/atomic_file.h"
#include "io/data_paths.h"
#include "kernels/dialect/registry.h"
#include "kernels/user/sandbox.h"
#include "kernels/user/cuda_kernel.h"
#include "kernels/user/user_child.h"

extern char** environ;

namespace ws::user {
namespace fs = std::filesystem;
using child::get;
using child::put;

namespace {

// [SECTION] Messages
std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV, an invalid memory access";
    case SIGBUS: return "SIGBUS, a misaligned or unmapped access";
    case SIGFPE: return "SIGFPE, an integer division by zero";
    case SIGILL: return "SIGILL, an illegal instruction";
    case SIGABRT: return "SIGABRT, abort() or a failed assert";
    case SIGTRAP: return "SIGTRAP, __builtin_trap()";
    case SIGKILL: return "SIGKILL";
    case SIGXCPU: return "SIGXCPU, its CPU time ran out";
    case SIGSYS: return "SIGSYS, a forbidden system call";
  }
  return "signal " + std::to_string(sig);
}

// "global array #1" -> "`out`", with the names the launch declared. A linear scan.
std::string name_arrays(const std::string& msg, const std::vector<ArrayDesc>& arrays) {
  std::string out;
  std::size_t at = 0;
  for (;;) {
    std::size_t best = std::string::npos, skip = 0;
    for (const char* w : {"global array #", "shared array #"}) {
      const std::size_t f = msg.find(w, at);
      if (f < best) {
        best = f;
        skip = std::strlen(w);
      }
    }
    if (best == std::string::npos) break;
    std::size_t e = best + skip;
    int id = 0;
    while (e < msg.size() && msg[e] >= '0' && msg[e] <= '9' && e - best - skip < 4) id = id * 10 + (msg[e++] - '0');
    out.append(msg, at, best - at);
    std::string name = msg.substr(best, e - best);
    if (e > best + skip)
      for (const auto& a : arrays)
        if (a.id == id && !a.name.empty()) name = "`" + a.name + "`";
    out += name;
    at = e;
  }
  return out + msg.substr(at);
}

// The last line of the kernel's output (for a crash message).
std::string last_line(const std::string& s) {
  std::string t = s;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  const auto nl = t.rfind('\n');
  return sandbox::printable(nl == std::string::npos ? t : t.substr(nl + 1), 300);
}

bool valid_event(const WarpEvent& e) {
  const unsigned k = unsigned(e.kind);
  const unsigned b = e.bytes;
  // A student's CUDA has no bulk copy (cuda_emu.h offers none): a BulkStore is a forged event.
  return k < unsigned(kEventKindCount) && e.kind != EventKind::BulkStore &&
         (b == 0 || b == 1 || b == 2 || b == 4 || b == 8 || b == 16);
}

}  // namespace

std::string describe_kernel_sandbox() { return sandbox::describe(sandbox::Profile::Kernel); }

namespace {

// [SECTION] One sandboxed run
// How a run ended, where one core might end it better: a signal (whose handler knows the
// faulting line only when one thread ran) or no memory (each worker maps its own lanes'
// stacks).
enum class Ending { Other, Signal, Memory };

// One sandboxed run on `threads` cores; `ended` says how it ended and `parallel` whether
// its blocks did run on several cores.
RunResult run_emu_on(const Compiled& c, const KernelSpec& caller_spec, const VariantInfo& job,
                     const Params& params, const RunOptions& opt, const Limits& limits,
                     unsigned threads, Ending& ended, bool& parallel) {
  ended = Ending::Other;
  parallel = false;
  // A CUDA kernel's parameters bind by name; a caller's field of the same name may bind it
  // to an array of another name (a puzzle's `a: const float @A`).
  KernelSpec bound;
  if (c.translated) {
    bound = *c.translated;
    for (Field& f : bound.fields)
      for (const Field& g : caller_spec.fields)
        if (g.name == f.name && !g.source.empty()) f.source = g.source;
  }
  const KernelSpec& spec = c.translated ? bound : caller_spec;
  RunResult res;
  try {
    if (!c.ok) {
      res.error = c.message().empty() ? "the kernel was not compiled" : c.message();
      return res;
    }
    res.error = validate(job, params, DeviceLimits{}, res.params);
    if (!res.error.empty()) return res;
    res.plan = job.plan(res.params);
    if (std::string why = check_fields(spec, res.plan, res.params); !why.empty()) {
      res.error = why;
      return res;
    }

    HostArrays h = HostArrays::allocate(res.plan);
    fill_inputs(h, res.plan, opt.seed);
    // The arrays live in a shared mapping, so the child's outputs survive its end.
    std::vector<std::size_t> off;
    std::size_t total = 0;
    for (const auto& d : h.data) {
      off.push_back(total);
      total += (d.size() + 255) / 256 * 256;
    }
    const std::size_t map_bytes = total + 4096;
    void* mem = ::mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
      res.error = "not enough memory for the arrays of the job";
      return res;
    }
    struct Unmap {
      void* p;
      std::size_t n;
      ~Unmap() { ::munmap(p, n); }
    } unmap{mem, map_bytes};
    auto* base = static_cast<std::byte*>(mem) + 4096;
    auto* status = new (mem) child::Status{};  // zeroed, its atomic constructed
    std::vector<ArrayDesc> arrays;
    for (std::size_t i = 0; i < res.plan.arrays.size(); ++i) {
      const ArraySpec& s = res.plan.arrays[i];
      if (s.output) std::memset(h.data[i].data(), 0xFF, h.data[i].size());
      std::memcpy(base + off[i], h.data[i].data(), h.data[i].size());
      ArrayDesc d;
      d.id = std::uint8_t(i);
      d.space = Space::Global;
      d.name = s.name;
      d.elem_bytes = s.elem_bytes;
      d.count = s.count;
      arrays.push_back(d);
    }
    std::vector<void*> ptr;
    std::vector<std::uint64_t> bytes;
    std::vector<std::uint8_t> ids;
    std::vector<long long> scalars;
    for (const Field& f : spec.fields) {
      void* p = nullptr;
      std::uint64_t b = 0;
      std::uint8_t id = kNoArray;
      long long v = 0;
      if (f.array) {
        for (std::size_t i = 0; i < res.plan.arrays.size(); ++i)
          if (res.plan.arrays[i].name == f.from()) {
            p = base + off[i];
            b = h.data[i].size();
            id = std::uint8_t(i);
          }
      } else {
        v = res.params.at(f.from());
      }
      ptr.push_back(p);
      bytes.push_back(b);
      ids.push_back(id);
      scalars.push_back(v);
    }

    // The descriptors and the scratch directory, all closed or removed on every return.
    struct Resources {
      int fds[2] = {-1, -1};
      int out = -1, null = -1;
      std::string scratch;
      ~Resources() {
        for (int fd : {fds[0], fds[1], out, null})
          if (fd >= 0) ::close(fd);
        std::error_code ec;
        if (!scratch.empty()) fs::remove_all(scratch, ec);
      }
    } rs;
    if (::pipe2(rs.fds, O_CLOEXEC) != 0) {
      res.error = "cannot create a pipe for the kernel's process";
      return res;
    }
    // The kernel's stdout and stderr: a memory file, bounded by the file-size limit.
    rs.out = ::memfd_create("warpscope-kernel-output", MFD_CLOEXEC);
    rs.null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    {
      std::string tmpl = (fs::temp_directory_path() / "warpscope-kernel-XXXXXX").string();
      if (::mkdtemp(tmpl.data())) rs.scratch = tmpl;
    }
    if (rs.out < 0 || rs.null < 0 || rs.scratch.empty()) {
      res.error = std::string("cannot prepare the kernel's sandbox: ") + std::strerror(errno);
      return res;
    }

    child::Setup cs;
    cs.parent = ::getpid();
    cs.pipe_fd = rs.fds[1];
    cs.output_fd = rs.out;
    cs.null_fd = rs.null;
    cs.scratch = rs.scratch;
    cs.limits.address_space = limits.memory_mb << 20;
    cs.limits.file_bytes = limits.file_mb << 20;
    // CPU time is summed over threads: each of them gets the wall limit's worth.
    cs.limits.cpu_s = (std::uint64_t(limits.time_s) + 2) * threads;
    cs.threads = threads;
    cs.limits.open_files = 64;
    cs.so = c.artifact;
    cs.launches = &res.plan.launches;
    cs.arrays = &arrays;
    cs.source = caller_spec.source_path;
    cs.ptr = &ptr;
    cs.bytes = &bytes;
    cs.ids = &ids;
    cs.scalars = &scalars;
    // Resident memory is watched too: a kernel that unmaps what it inherited could map
    // that much again under the address-space limit.
    const std::uint64_t rss_limit = sandbox::resident_bytes(::getpid()) + (limits.memory_mb << 20) + (64ull << 20);

    // Unwritten output would be copied into the child and written again from there (as the
    // kernel's own): flushed first.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
      res.error = "cannot start a process for the kernel";
      return res;
    }
    if (pid == 0) {
      child::run(cs, status);
    }
    ::close(rs.fds[1]);
    rs.fds[1] = -1;

    // The parent: events into the model's totals and the kept blocks as they come.
    std::vector<sim::Totals> per_launch;
    // The same counters per source line of the student's file: what a missed target names.
    std::vector<sim::SiteSink> per_launch_sites;
    sim::DeviceModel model;
    std::unique_ptr<KeepSink> keep;
    if (opt.keep_all_blocks)
      keep = std::make_unique<KeepSink>();
    else if (!opt.keep_blocks.empty())
      keep = std::make_unique<KeepSink>(opt.keep_blocks);
    std::vector<ArrayDesc> seen = arrays;
    std::string done_msg, protocol_error;
    std::vector<sim::Problem> problems;
    bool got_result = false, emu_ok = false;
    sandbox::RecordReader reader(child::record_kinds(), limits.stream_mb << 20);
    auto handle = [&](const sandbox::Record& rec) {
      const std::string& payload = rec.payload;
      std::size_t p = 0;
      if (got_result && rec.tag != 'D') {
        protocol_error = "a record after its result";
        return;
      }
      switch (rec.tag) {
        case 'B': {
          const auto i = get<std::uint32_t>(payload, p);
          if (i != per_launch.size() || i >= res.plan.launches.size()) {
            protocol_error = "launch " + std::to_string(i) + " out of order";
            return;
          }
          per_launch.emplace_back();
          per_launch_sites.emplace_back(model);
          if (keep) {
            const LaunchCfg& cfg = res.plan.launches[i];
            keep->begin_launch(LaunchInfo{cfg.kernel, caller_spec.source_path, cfg.grid, cfg.block,
                                          cfg.shared_bytes, arrays});
          }
          break;
        }
        case 'A': {
          if (seen.size() > 4096) {
            protocol_error = "too many arrays";
            return;
          }
          ArrayDesc d;
          d.id = get<std::uint8_t>(payload, p);
          const auto space = get<std::uint8_t>(payload, p);
          d.elem_bytes = get<std::uint32_t>(payload, p);
          d.count = get<std::uint64_t>(payload, p);
          d.base_offset = get<std::uint32_t>(payload, p);
          d.cols = get<decltype(d.cols)>(payload, p);
          if (space > std::uint8_t(Space::Shared) || d.elem_bytes > 64) {
            protocol_error = "a malformed array record";
            return;
          }
          d.space = Space(space);
          d.name = sandbox::printable(payload.substr(std::min(p, payload.size())), 64);
          seen.push_back(d);
          if (keep) keep->on_array(d);
          break;
        }
        case 'E': {
          WarpEvent e;
          std::memcpy(&e, payload.data(), sizeof e);
          if (!valid_event(e) || per_launch.empty()) {
            protocol_error = "a malformed event";
            return;
          }
          per_launch.back().add(e, model);
          per_launch_sites.back().on_event(e);
          if (keep) keep->on_event(e);
          break;
        }
        case 'X':
          if (keep) keep->end_launch();
          break;
        case 'P': {
          if (problems.size() >= 1000) break;  // the first thousand are plenty
          sim::Problem pb;
          const auto kind = get<std::uint8_t>(payload, p);
          if (kind > std::uint8_t(sim::ProblemKind::Internal)) {
            protocol_error = "a malformed problem record";
            return;
          }
          pb.kind = sim::ProblemKind(kind);
          pb.line = get<std::uint16_t>(payload, p);
          pb.other_line = get<std::uint16_t>(payload, p);
          pb.block = get<std::uint32_t>(payload, p);
          pb.thread = get<std::uint32_t>(payload, p);
          pb.message = name_arrays(sandbox::printable(payload.substr(std::min(p, payload.size())), 400), seen);
          problems.push_back(pb);
          break;
        }
        case 'R':
          emu_ok = get<std::uint8_t>(payload, p) != 0;
          got_result = true;
          break;
        case 'D':
          // Text (dlerror, an exception's what()): control bytes mean a forged record.
          for (char ch : payload)
            if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') {
              protocol_error = "a done record that is not text";
              return;
            }
          done_msg = sandbox::printable(payload, 400);
          break;
        default:
          protocol_error = "an unknown record";
          break;
      }
    };

    const auto t0 = sandbox::Clock::now();
    const auto deadline = t0 + std::chrono::duration_cast<sandbox::Clock::duration>(
                                   std::chrono::duration<double>(limits.time_s));
    bool timed_out = false, eof = false, reaped = false, over_memory = false, over_disk = false;
    int wst = 0;
    auto next_memory_check = t0;
    std::vector<char> chunk(1 << 16);
    while (!reaped) {
      const auto now = sandbox::Clock::now();
      if (now >= deadline) {
        timed_out = true;
        break;
      }
      if (now >= next_memory_check) {
        if (limits.memory_mb && sandbox::resident_bytes(pid) > rss_limit) {
          over_memory = true;
          break;
        }
        // The scratch directory may be in memory (tmpfs): bounded as a whole, not only
        // file by file.
        if (sandbox::directory_bytes(rs.scratch) > (limits.scratch_mb << 20)) {
          over_disk = true;
          break;
        }
        next_memory_check = now + std::chrono::milliseconds(100);
      }
      if (eof) {
        // The child closed its end (or every descriptor it had): its end is still
        // awaited under the deadline.
        reaped = sandbox::wait_until(pid, wst, std::min(deadline, now + std::chrono::milliseconds(50)));
        continue;
      }
      const double left = std::chrono::duration<double>(deadline - now).count();
      pollfd pf{rs.fds[0], POLLIN, 0};
      const int pr = ::poll(&pf, 1, int(std::min(left, 0.05) * 1000) + 1);
      if (pr <= 0) continue;
      const ssize_t n = ::read(rs.fds[0], chunk.data(), chunk.size());
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        eof = true;
        continue;
      }
      reader.feed(chunk.data(), std::size_t(n));
      sandbox::Record rec;
      while (protocol_error.empty() && reader.next(rec)) handle(rec);
      if (protocol_error.empty() && !reader.error().empty()) protocol_error = reader.error();
      if (!protocol_error.empty()) break;
    }
    if (!reaped) wst = sandbox::kill_and_reap(pid);

    // The kernel's output, bounded; the rest is counted.
    {
      struct stat st {};
      const std::uint64_t size = ::fstat(rs.out, &st) == 0 ? std::uint64_t(st.st_size) : 0;
      const std::string raw = sandbox::read_bounded(rs.out, std::size_t(limits.output_kb) << 10);
      res.kernel_output = sandbox::printable(raw, raw.size(), true);
      if (size > raw.size())
        res.kernel_output += "\n[... " + std::to_string(size - raw.size()) + " more bytes of output not kept]";
    }
    const int fsp = status->fs_policy - 1;
    if (fsp == int(sandbox::FsPolicy::Unsupported))
      res.sandbox_note = "no Landlock in this Linux kernel: your kernel could write outside its scratch directory";
    else if (fsp == int(sandbox::FsPolicy::Failed))
      res.sandbox_note = "the filesystem policy (Landlock) could not be applied";
    if (!sandbox::have_filter())
      res.sandbox_note += std::string(res.sandbox_note.empty() ? "" : "; ") +
                          "no syscall filter (warpscope was built without libseccomp): your kernel "
                          "could signal other processes, start programs and reach the network";

    const std::string& file = caller_spec.source_path;
    auto limit_s = [&] {
      std::ostringstream s;
      s << limits.time_s;
      return s.str();
    };
    const std::string stderr_tail = last_line(res.kernel_output);
    // Where the kernel was last seen, for a run stopped by a limit: the last traced step (an
    // access, a branch, a barrier) is inside an endless loop that makes any, or the last one
    // before a loop of arithmetic. Prefixed as a crash is, so the editor marks the line.
    const int line_seen = status->line.load(), last_line = line_seen > 0 && line_seen < 65536 ? line_seen : 0;
    const std::string at = last_line ? file + ":" + std::to_string(last_line) + ": " : std::string();
    const std::string seen_note =
        last_line ? "; this line is the last it was seen at (an access, a branch or a barrier)" : std::string();
    if (timed_out) {
      res.error = at + "your kernel did not finish in " + limit_s() + " s (an endless loop, or too "
                  "much work for the emulator): it was stopped" + seen_note;
      return res;
    }
    // std::bad_alloc thrown where nothing catches it (a global initializer) aborts.
    const bool abort_oom = status->signal == SIGABRT && res.kernel_output.find("std::bad_alloc") != std::string::npos;
    for (const auto& cfg : res.plan.launches) parallel = parallel || (threads > 1 && cfg.grid.count() > 1);
    if (over_memory || status->out_of_memory || abort_oom) {
      ended = Ending::Memory;
      // An endless loop of accesses ends here, not at the deadline: its trace fills memory.
      res.error = at + "your kernel ran out of memory (the limit is " + std::to_string(limits.memory_mb) +
                  " MB)" + (last_line ? seen_note + ": an endless loop that keeps accessing memory "
                                                    "fills the emulator's trace until it does"
                                      : std::string());
      return res;
    }
    if (over_disk) {
      res.error = "your kernel wrote more than " + std::to_string(limits.scratch_mb) +
                  " MB (or 10,000 files) into its scratch directory: it was stopped";
      return res;
    }
    if (!protocol_error.empty()) {
      res.error = "your kernel's process broke the sandbox's protocol (" + protocol_error +
                  "): it was stopped";
      return res;
    }
    const int sig = status->signal;
    // Not the limits' own kills (CPU time, the deadline's SIGKILL): those would recur.
    if ((sig > 0 && sig < 65) || (WIFSIGNALED(wst) && WTERMSIG(wst) != SIGXCPU && WTERMSIG(wst) != SIGKILL))
      ended = Ending::Signal;
    if (sig > 0 && sig < 65) {
      const int line = last_line;
      const std::string where = line ? file + ":" + std::to_string(line) + ": " : file + ": ";
      if (sig == SIGSYS) {
        res.error = where + "your kernel made a forbidden system call (" +
                    sandbox::syscall_name(status->syscall) + "): the sandbox stopped it";
      } else if (status->overflow) {
        res.error = where + "your kernel overflowed its stack (deep or endless recursion?)" +
                    (line ? " after line " + std::to_string(line) : std::string());
      } else {
        res.error = where + "your kernel crashed (" + signal_name(sig) + ")" +
                    (line ? ", after the access at line " + std::to_string(line) : std::string()) +
                    (stderr_tail.empty() ? "" : ": " + stderr_tail);
      }
      return res;
    }
    if (!done_msg.empty()) {
      res.error = done_msg;
      return res;
    }
    if (!got_result || !(WIFEXITED(wst) && WEXITSTATUS(wst) == 0)) {
      if (WIFSIGNALED(wst) && WTERMSIG(wst) == SIGSYS)  // with signals blocked (posix_spawn)
        res.error = file + ": your kernel made a forbidden system call: the sandbox stopped it";
      else if (WIFSIGNALED(wst))
        res.error = "your kernel's process was killed (" + signal_name(WTERMSIG(wst)) + ")";
      else if (WIFEXITED(wst) && WEXITSTATUS(wst) == child::kExitPipeGone)
        res.error = "your kernel closed the pipe its results go back through (a descriptor it did not "
                    "open): it was stopped";
      else
        res.error = "your kernel's process ended early (exit " +
                    std::to_string(WIFEXITED(wst) ? WEXITSTATUS(wst) : -1) + ")" +
                    (stderr_tail.empty() ? "" : ": " + stderr_tail);
      return res;
    }

    for (const auto& pb : problems)
      if (pb.message.find("bad_alloc") != std::string::npos) {
        res.error = "your kernel ran out of memory (the limit is " +
                    std::to_string(limits.memory_mb) + " MB)";
        return res;
      }
    res.problems = problems;
    if (keep) res.kept = std::move(keep->launches());
    for (std::size_t i = 0; i < per_launch.size(); ++i) {
      LaunchTotals lt;
      if (i < res.plan.launches.size()) lt.cfg = res.plan.launches[i];
      lt.totals = per_launch[i];
      lt.sites = per_launch_sites[i].sites();
      res.totals.merge(lt.totals);
      res.launches.push_back(lt);
    }
    for (std::size_t i = 0; i < h.data.size(); ++i)
      std::memcpy(h.data[i].data(), base + off[i], h.data[i].size());
    if (!emu_ok || !res.problems.empty()) {
      res.verify_message = "not verified: the emulator reported " +
                           std::to_string(res.problems.size()) + " problem(s)";
    } else {
      res.verify_message = job.verify(h, res.params);
      res.verified = res.verify_message.empty();
    }
    if (opt.timing && res.launches.size() == res.plan.launches.size())
      res.timing = modelled_timing(res.plan, res.launches, res.regs_per_thread);
  } catch (const std::bad_alloc&) {
    res.error = "not enough host memory for the arrays of the job";
  } catch (const std::exception& e) {
    res.error = std::string("running the kernel failed: ") + e.what();
  }
  return res;
}

}  // namespace

// [SECTION] Blocks on several cores
// Blocks spread over the cores as in the catalogue's runs (results and traces equal to one
// core's: tests/sim/test_emulator.cpp). A crash is run again on one core, where the signal
// handler's last line is the faulting thread's and its alternate stack catches an overflow;
// so is running out of memory, which the workers' own stacks may have caused.
RunResult run_emu(const Compiled& c, const KernelSpec& caller_spec, const VariantInfo& job,
                  const Params& params, const RunOptions& opt, const Limits& limits) {
  const unsigned threads = limits.threads ? limits.threads : std::min(8u, sim::emu_threads());
  Ending ended, ended1;
  bool parallel, parallel1;
  const auto t0 = std::chrono::steady_clock::now();
  RunResult r = run_emu_on(c, caller_spec, job, params, opt, limits, threads, ended, parallel);
  if (!parallel || ended == Ending::Other) return r;
  // The second run gets what is left of the time limit; its report replaces the first's
  // when it ends the same way or well (a timeout there would hide the crash).
  Limits rest = limits;
  rest.time_s = std::max(1.0, limits.time_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  RunResult one = run_emu_on(c, caller_spec, job, params, opt, rest, 1, ended1, parallel1);
  return ended1 == ended || one.error.empty() ? one : r;
}

}  // namespace ws::user
