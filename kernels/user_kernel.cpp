// Student kernels on the emulator: the runtime build (system C++ compiler -> shared object)
// and the sandbox (a child process per run, streaming its warp events back through a pipe).
#define WS_MODE_EMU
#include "kernels/user_kernel.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include "kernels/registry.h"
#include "kernels/user/cuda_kernel.h"

extern char** environ;

namespace ws::user {
namespace fs = std::filesystem;

namespace {

struct TypeInfo {
  const char* name;
  std::size_t bytes;
  bool scalar;  // may be a scalar member (a job parameter)
};
constexpr TypeInfo kTypes[] = {
    {"float", 4, true},     {"int", 4, true},       {"unsigned", 4, true},
    {"long long", 8, true}, {"double", 8, false},   {"float2", 8, false},
    {"float4", 16, false},  {"int2", 8, false},     {"int4", 16, false},
};

const TypeInfo* type_info(const std::string& t) {
  for (const auto& ti : kTypes)
    if (t == ti.name) return &ti;
  return nullptr;
}

std::string read_file(const std::string& path, bool& ok) {
  std::ifstream f(path, std::ios::binary);
  ok = bool(f);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

bool executable(const std::string& p) { return ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); }

std::string self_exe() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// FNV-1a, 64 bits: names cached builds by their inputs.
std::uint64_t fnv(const std::string& s, std::uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string hex(std::uint64_t v) {
  char b[20];
  std::snprintf(b, sizeof b, "%016llx", (unsigned long long)v);
  return b;
}

// The line of `struct NAME` in the student's source (1 when not found): errors of the
// generated launch code are attributed to it.
int struct_line(const std::string& src, const std::string& name, bool any = false) {
  const std::regex re(any ? std::string("\\b(struct|class)\\s+[A-Za-z_]")
                          : "\\b(struct|class)\\s+" + name + "\\b");
  int line = 1;
  std::size_t start = 0;
  while (start <= src.size()) {
    std::size_t end = src.find('\n', start);
    if (end == std::string::npos) end = src.size();
    if (std::regex_search(src.begin() + long(start), src.begin() + long(end), re)) return line;
    ++line;
    start = end + 1;
  }
  return any ? 1 : struct_line(src, name, true);  // misnamed: the first struct
}

std::string launch_expression(const KernelSpec& spec) {
  std::string s = spec.struct_name + "{";
  for (std::size_t k = 0; k < spec.fields.size(); ++k) {
    const Field& f = spec.fields[k];
    s += k ? ", " : "";
    s += f.name;
  }
  return s + "}";
}

}  // namespace

bool is_scalar_type(const std::string& t) {
  const TypeInfo* ti = type_info(t);
  return ti && ti->scalar;
}
bool is_element_type(const std::string& t) { return type_info(t) != nullptr; }
std::size_t element_bytes(const std::string& t) {
  const TypeInfo* ti = type_info(t);
  return ti ? ti->bytes : 0;
}

std::string CompileError::text() const {
  return file + ":" + std::to_string(line) + ": " + message;
}

std::string Compiled::message() const {
  if (!error.empty()) return error;
  std::string s;
  for (const auto& e : errors) s += e.text() + "\n";
  return s;
}

std::string dialect_include_dir() {
  if (const char* e = std::getenv("WARPSCOPE_INCLUDE"); e && *e) return e;
  const std::string exe = self_exe();
  if (!exe.empty()) {
    fs::path inst = fs::path(exe).parent_path().parent_path() / "share" / "warpscope" / "include";
    if (fs::exists(inst / "kernels" / "simt.h")) return inst.string();
  }
#if defined(WS_DIALECT_SOURCE_DIR)
  return WS_DIALECT_SOURCE_DIR;
#else
  return "";
#endif
}

std::string find_cxx() {
  std::string want = "c++";
  if (const char* e = std::getenv("CXX"); e && *e) want = e;
  if (want.find('/') != std::string::npos) return executable(want) ? want : "";
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (dir.empty()) dir = ".";
    if (executable(dir + "/" + want)) return dir + "/" + want;
    start = end + 1;
  }
  return "";
}

std::string cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return (fs::path(x) / "warpscope" / "kernels").string();
  if (const char* h = std::getenv("HOME"); h && *h)
    return (fs::path(h) / ".cache" / "warpscope" / "kernels").string();
  return (fs::temp_directory_path() / "warpscope-kernels").string();
}

namespace {
// What every emulator build includes first: the dialect, and the headers a kernel may
// include (so the student's own #include inside the namespace finds them guarded).
// Compiled once into a precompiled header in the cache: a recompile then parses only
// the student's file (about half the compiler's time).
constexpr const char* kEmuPrelude =
    "#define WS_MODE_EMU\n#include \"kernels/simt.h\"\n#include \"kernels/cuda_emu.h\"\n"
    "#include <algorithm>\n#include <cmath>\n#include <cstdint>\n#include <climits>\n";
}  // namespace

std::string emu_wrapper(const KernelSpec& spec) {
  std::string s;
  s += "// Generated by warpscope: the emulator build of " + spec.source_path + "\n";
  // The dialect, precompiled once per compiler and header set (see kEmuPrelude).
  s += "#include \"ws_emu_prelude.h\"\n";
  s += "WS_BEGIN_MODE\n";
  s += "#include \"" + fs::absolute(spec.source_path).string() + "\"\n";
  s += "WS_END_MODE\n";
  s += "extern \"C\" void ws_user_launch(ws::emu::Launcher& ws_L, const ws::LaunchCfg& ws_cfg,\n"
       "    void* const* ws_ptr, const std::uint64_t* ws_bytes, const std::uint8_t* ws_ids,\n"
       "    const long long* ws_scalars) {\n"
       "  using namespace ws::emu;\n";
  for (std::size_t k = 0; k < spec.fields.size(); ++k) {
    const Field& f = spec.fields[k];
    const std::string K = std::to_string(k);
    if (f.array) {
      const std::string T = (f.is_const ? "const " : "") + f.type;
      s += "  Global<" + T + "> " + f.name + "{static_cast<" + T + "*>(ws_ptr[" + K + "]), ws_bytes[" +
           K + "] / sizeof(" + f.type + "), ws_ids[" + K + "]};\n";
    } else {
      s += "  " + f.type + " " + f.name + " = static_cast<" + f.type + ">(ws_scalars[" + K + "]);\n";
    }
  }
  s += "  ws_L.launch(ws_cfg, " + launch_expression(spec) + ");\n}\n";
  return s;
}

std::string check_fields(const KernelSpec& spec, const Plan& plan, const Params& params) {
  if (spec.struct_name.empty()) return "the kernel struct has no name";
  for (const Field& f : spec.fields) {
    const TypeInfo* ti = type_info(f.type);
    if (!ti) return "member " + f.name + " has an unknown type '" + f.type + "'";
    if (f.array) {
      bool found = false;
      for (const auto& a : plan.arrays) {
        if (a.name != f.from()) continue;
        found = true;
        if ((a.count * a.elem_bytes) % ti->bytes != 0)
          return "array " + a.name + " of " + std::to_string(a.count * a.elem_bytes) +
                 " bytes is not a whole number of " + f.type + " (" + std::to_string(ti->bytes) +
                 " bytes)";
      }
      if (!found) return "member " + f.name + " names no array of the job ('" + f.from() + "')";
    } else {
      if (!ti->scalar) return "member " + f.name + ": a parameter must be int, unsigned, long long or float";
      if (!params.count(f.from()))
        return "member " + f.name + " names no parameter of the job ('" + f.from() + "')";
    }
  }
  return "";
}

// ------------------------------------------------------------------------- compile

namespace {

// Runs argv with stdout+stderr into `log_path`; returns the exit status, -1 if it could
// not start, -2 when killed after `timeout_s`.
int spawn_wait(const std::vector<std::string>& argv, const std::string& log_path, double timeout_s) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<char*> av;
  for (const auto& a : argv) av.push_back(const_cast<char*>(a.c_str()));
  av.push_back(nullptr);
  // The compiler's messages in plain ASCII (no locale quotes), whatever the user's locale.
  std::vector<std::string> env_s;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "LC_ALL=", 7) != 0 && std::strncmp(*e, "LANG=", 5) != 0 &&
        std::strncmp(*e, "LANGUAGE=", 9) != 0)
      env_s.push_back(*e);
  env_s.push_back("LC_ALL=C");
  std::vector<char*> ev;
  for (auto& e : env_s) ev.push_back(e.data());
  ev.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, av[0], &fa, nullptr, av.data(), ev.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  const auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0) return -1;
    if (seconds_since(t0) > timeout_s) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -2;
    }
    ::usleep(2000);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// The compiler's errors on the student's lines. Errors inside the dialect's headers are
// moved to the student's line that instantiated them ("required from here"); errors of
// the generated launch code go to the struct's line, with what the launch builds.
std::vector<CompileError> parse_errors(const std::string& log, const std::string& user_abs,
                                       const std::string& shown, const std::string& wrapper,
                                       int struct_at, const KernelSpec& spec) {
  std::vector<CompileError> out;
  const std::regex loc("^(.*?):([0-9]+):(?:[0-9]+:)? *(fatal error|error|note|warning)?:? ?(.*)$");
  int last_user_line = 0;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line) && out.size() < 50) {
    std::smatch m;
    if (!std::regex_match(line, m, loc)) continue;
    const std::string file = m[1], kind = m[3], msg = m[4];
    const int at = std::atoi(std::string(m[2]).c_str());
    const bool user = file == user_abs || fs::path(file).filename() == fs::path(user_abs).filename();
    if (kind != "error" && kind != "fatal error") {
      if (user) last_user_line = at;
      continue;
    }
    CompileError e;
    e.file = shown;
    if (user) {
      e.line = at;
      e.message = msg;
    } else if (file == wrapper) {
      e.line = struct_at;
      e.message = msg + " (the job builds " + launch_expression(spec) +
                  ": check the struct's name and members)";
    } else {
      e.line = last_user_line ? last_user_line : struct_at;
      e.message = msg + " (in " + fs::path(file).filename().string() + ")";
    }
    bool dup = false;
    for (const auto& o : out) dup = dup || (o.line == e.line && o.message == e.message);
    if (!dup) out.push_back(e);
    last_user_line = 0;
  }
  return out;
}

}  // namespace

namespace {
Compiled compile_dialect(const KernelSpec& spec, const CompileOptions& opt);
}

Compiled compile_emu(const KernelSpec& spec, const CompileOptions& opt) {
  if (!is_cuda_file(spec.source_path) || fs::is_directory(spec.source_path))
    return compile_dialect(spec, opt);
  Compiled c;
  const CudaPrepared p = prepare_cuda(spec.source_path, opt.cache_dir.empty() ? cache_dir() : opt.cache_dir);
  if (!p.ok) {
    c.errors = p.errors;
    return c;
  }
  c = compile_dialect(p.spec, opt);
  for (auto& e : c.errors) e.file = spec.source_path;
  c.translated = p.spec;
  return c;
}

namespace {
Compiled compile_dialect(const KernelSpec& spec, const CompileOptions& opt) {
  Compiled c;
  try {
    bool ok = false;
    const std::string src = read_file(spec.source_path, ok);
    if (!ok || fs::is_directory(spec.source_path)) {
      c.error = spec.source_path + ": cannot read the kernel file";
      return c;
    }
    const std::string cxx = find_cxx();
    if (cxx.empty()) {
      c.error = "no C++ compiler found: install g++ (or set CXX) to build kernels for the emulator";
      return c;
    }
    const std::string inc = dialect_include_dir();
    if (inc.empty() || !fs::exists(fs::path(inc) / "kernels" / "simt.h")) {
      c.error = "the dialect headers (kernels/simt.h) were not found: set WARPSCOPE_INCLUDE";
      return c;
    }
    const std::string dir = opt.cache_dir.empty() ? cache_dir() : opt.cache_dir;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
      c.error = "cannot create the kernel cache " + dir + ": " + ec.message();
      return c;
    }
    const std::string wrapper_text = emu_wrapper(spec);
    const std::vector<std::string> flags = {"-std=c++20", "-O1", "-fPIC", "-shared",
                                            "-fno-diagnostics-color", "-fmax-errors=20",
                                            "-fdiagnostics-plain-output"};
    std::string key = wrapper_text + src + cxx + inc + kEmuPrelude + __DATE__ __TIME__;
    for (const auto& f : flags) key += f;
    // The precompiled prelude, built on first use (a failure only costs speed).
    std::string pkey = std::string(kEmuPrelude) + cxx + inc + __DATE__ __TIME__;
    for (const auto& f : flags) pkey += f;
    const fs::path pdir = fs::path(dir) / ("prelude-" + hex(fnv(pkey)));
    if (!fs::exists(pdir / "ws_emu_prelude.h.gch")) {
      fs::create_directories(pdir, ec);
      const std::string tag = "." + std::to_string(::getpid());
      const fs::path h = pdir / "ws_emu_prelude.h";
      {
        std::ofstream o(h.string() + tag, std::ios::binary | std::ios::trunc);
        o << kEmuPrelude;
      }
      fs::rename(h.string() + tag, h, ec);
      std::vector<std::string> pargv = {cxx};
      for (const auto& f : flags)
        if (f != "-shared") pargv.push_back(f);
      pargv.insert(pargv.end(), {"-I" + inc, "-x", "c++-header", h.string(), "-o",
                                 h.string() + ".gch" + tag});
      if (spawn_wait(pargv, (pdir / ("prelude.log" + tag)).string(), 120) == 0)
        fs::rename(h.string() + ".gch" + tag, h.string() + ".gch", ec);
      fs::remove(h.string() + ".gch" + tag, ec);
      fs::remove(pdir / ("prelude.log" + tag), ec);
    }
    const std::string base = (fs::path(dir) / ("k" + hex(fnv(key)))).string();
    c.artifact = base + ".so";
    if (opt.use_cache && fs::exists(c.artifact)) {
      c.ok = true;
      c.cached = true;
      return c;
    }
    const std::string wrapper = base + ".cpp", log = base + ".log";
    const std::string tmp = base + "." + std::to_string(::getpid()) + ".tmp.so";
    {
      std::ofstream w(wrapper, std::ios::binary | std::ios::trunc);
      w << wrapper_text;
      if (!w) {
        c.error = "cannot write " + wrapper;
        return c;
      }
    }
    std::vector<std::string> argv = {cxx};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"-I" + pdir.string(), "-I" + inc, "-o", tmp, wrapper});
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = spawn_wait(argv, log, 120);
    c.seconds = seconds_since(t0);
    bool lok = false;
    c.log = read_file(log, lok);
    if (rc == -1) {
      c.error = "could not start the compiler " + cxx;
      return c;
    }
    if (rc == -2) {
      c.error = spec.source_path + ":1: the compiler did not finish in 120 s";
      return c;
    }
    if (rc != 0) {
      c.errors = parse_errors(c.log, fs::absolute(spec.source_path).string(), spec.source_path,
                              wrapper, struct_line(src, spec.struct_name), spec);
      if (c.errors.empty())
        c.errors.push_back({spec.source_path, 1,
                            "the compiler failed (exit " + std::to_string(rc) + "): " +
                                c.log.substr(0, 300)});
      fs::remove(tmp, ec);
      return c;
    }
    fs::rename(tmp, c.artifact, ec);
    if (ec) {
      c.error = "cannot move the built kernel into " + c.artifact + ": " + ec.message();
      return c;
    }
    c.ok = true;
  } catch (const std::exception& e) {
    c.error = std::string("building the kernel failed: ") + e.what();
  }
  return c;
}
}  // namespace

// ------------------------------------------------------------------------- sandbox

namespace {

// Written by the child, read by the parent after it ends (a MAP_SHARED page).
struct ChildStatus {
  volatile int signal;        // the fatal signal, 0 if none
  volatile int line;          // the line of the last event issued before it
  volatile int overflow;      // the fault was next to the stack pointer: a stack overflow
  volatile int out_of_memory; // std::bad_alloc in the kernel's process
  volatile int finished;      // the child wrote its result and exits normally
};

ChildStatus* g_status = nullptr;
volatile int g_last_line = 0;

void on_fatal(int sig, siginfo_t* si, void* uc_) {
  if (g_status) {
    g_status->signal = sig;
    g_status->line = g_last_line;
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
  void record(char tag, const std::string& s) { record(tag, s.data(), std::uint32_t(s.size())); }
  void flush() {
    std::size_t off = 0;
    while (off < buf_.size()) {
      const ssize_t w = ::write(fd_, buf_.data() + off, buf_.size() - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) ::_exit(120);  // the parent is gone
      off += std::size_t(w);
    }
    buf_.clear();
  }

 private:
  int fd_;
  std::string buf_;
};

template <class T>
void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class T>
T get(const std::string& s, std::size_t& at) {
  T v{};
  if (at + sizeof v <= s.size()) std::memcpy(&v, s.data() + at, sizeof v);
  at += sizeof v;
  return v;
}

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
    s += a.name;
    w_.record('A', s);
  }
  void on_event(const WarpEvent& e) override {
    g_last_line = e.line;
    w_.record('E', &e, sizeof e);
  }
  void end_launch() override { w_.record('X', nullptr, 0); }

 private:
  PipeWriter& w_;
  std::uint32_t launch_ = 0;
};

using LaunchFn = void (*)(emu::Launcher&, const LaunchCfg&, void* const*, const std::uint64_t*,
                          const std::uint8_t*, const long long*);

std::uint64_t vm_data_kb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmData:", 0) == 0) return std::strtoull(line.c_str() + 7, nullptr, 10);
  return 0;
}

// The child: never returns.
[[noreturn]] void child_main(int wfd, int errfd, const std::string& so,
                             const std::vector<LaunchCfg>& launches,
                             const std::vector<ArrayDesc>& arrays, const std::string& source,
                             const std::vector<void*>& ptr, const std::vector<std::uint64_t>& bytes,
                             const std::vector<std::uint8_t>& ids,
                             const std::vector<long long>& scalars, std::uint64_t data_limit,
                             const sim::EmuOptions& eo) {
  if (errfd >= 0) ::dup2(errfd, 2);
  rlimit core{0, 0};
  ::setrlimit(RLIMIT_CORE, &core);
  if (data_limit) {
    rlimit r{data_limit, data_limit};
    ::setrlimit(RLIMIT_DATA, &r);
  }
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
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) ::sigaction(s, &sa, nullptr);

  PipeWriter w(wfd);
  try {
    void* h = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
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
    emu::Launcher L(sink, arrays, source, eo);
    for (const auto& cfg : launches) fn(L, cfg, ptr.data(), bytes.data(), ids.data(), scalars.data());
    const sim::EmuResult& r = L.result();
    for (const auto& p : r.problems) {
      std::string s;
      put(s, std::uint8_t(p.kind));
      put(s, p.line);
      put(s, p.other_line);
      put(s, p.block);
      put(s, p.thread);
      s += p.message;
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

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV, an invalid memory access";
    case SIGBUS: return "SIGBUS, a misaligned or unmapped access";
    case SIGFPE: return "SIGFPE, an integer division by zero";
    case SIGILL: return "SIGILL, an illegal instruction";
    case SIGABRT: return "SIGABRT, abort() or a failed assert";
    case SIGTRAP: return "SIGTRAP, __builtin_trap()";
    case SIGKILL: return "SIGKILL";
  }
  return "signal " + std::to_string(sig);
}

// "global array #1" -> "`out`", with the names the launch declared.
std::string name_arrays(std::string msg, const std::vector<ArrayDesc>& arrays) {
  static const std::regex re("(global|shared) array #([0-9]+)");
  std::smatch m;
  std::string out;
  while (std::regex_search(msg, m, re)) {
    const int id = std::atoi(std::string(m[2]).c_str());
    std::string name = m.str();
    for (const auto& a : arrays)
      if (a.id == id && !a.name.empty()) name = "`" + a.name + "`";
    out += m.prefix().str() + name;
    msg = m.suffix().str();
  }
  return out + msg;
}

std::string last_lines(int fd, std::size_t most = 400) {
  if (fd < 0) return "";
  const off_t end = ::lseek(fd, 0, SEEK_END);
  if (end <= 0) return "";
  const off_t from = end > off_t(most) ? end - off_t(most) : 0;
  std::string s(std::size_t(end - from), '\0');
  if (::pread(fd, s.data(), s.size(), from) < 0) return "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  const auto nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

}  // namespace

RunResult run_emu(const Compiled& c, const KernelSpec& caller_spec, const VariantInfo& job,
                  const Params& params, const RunOptions& opt, const Limits& limits) {
  const KernelSpec& spec = c.translated ? *c.translated : caller_spec;
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
    auto* status = static_cast<ChildStatus*>(mem);
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

    sim::EmuOptions eo;  // student runs are small: always the whole grid

    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      res.error = "cannot create a pipe for the kernel's process";
      return res;
    }
    char errname[] = "/tmp/warpscope-kernel-stderr-XXXXXX";
    const int errfd = ::mkstemp(errname);
    if (errfd >= 0) ::unlink(errname);
    std::uint64_t data_limit = 0;
    if (limits.memory_mb) data_limit = vm_data_kb() * 1024 + limits.memory_mb * (1ull << 20);

    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(fds[0]);
      ::close(fds[1]);
      if (errfd >= 0) ::close(errfd);
      res.error = "cannot start a process for the kernel";
      return res;
    }
    if (pid == 0) {
      ::close(fds[0]);
      g_status = status;
      child_main(fds[1], errfd, c.artifact, res.plan.launches, arrays, caller_spec.source_path, ptr,
                 bytes, ids, scalars, data_limit, eo);
    }
    ::close(fds[1]);

    // The parent: events into the model's totals and the kept blocks as they come.
    std::vector<sim::Totals> per_launch;
    sim::DeviceModel model;
    std::unique_ptr<KeepSink> keep;
    if (opt.keep_all_blocks)
      keep = std::make_unique<KeepSink>();
    else if (!opt.keep_blocks.empty())
      keep = std::make_unique<KeepSink>(opt.keep_blocks);
    std::vector<ArrayDesc> seen = arrays;
    std::string buf, done_msg;
    std::vector<sim::Problem> problems;
    bool got_result = false, emu_ok = false;
    const auto t0 = std::chrono::steady_clock::now();
    bool timed_out = false;
    std::vector<char> chunk(1 << 16);
    for (;;) {
      const double left = limits.time_s - seconds_since(t0);
      if (left <= 0) {
        timed_out = true;
        break;
      }
      pollfd pf{fds[0], POLLIN, 0};
      const int pr = ::poll(&pf, 1, int(std::min(left, 0.25) * 1000) + 1);
      if (pr < 0 && errno == EINTR) continue;
      if (pr <= 0) continue;
      const ssize_t n = ::read(fds[0], chunk.data(), chunk.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      buf.append(chunk.data(), std::size_t(n));
      std::size_t at = 0;
      while (buf.size() - at >= 5) {
        const char tag = buf[at];
        std::uint32_t len;
        std::memcpy(&len, buf.data() + at + 1, 4);
        if (buf.size() - at - 5 < len) break;
        const std::string payload = buf.substr(at + 5, len);
        at += 5 + len;
        std::size_t p = 0;
        switch (tag) {
          case 'B': {
            const auto i = get<std::uint32_t>(payload, p);
            per_launch.emplace_back();
            if (keep && i < res.plan.launches.size()) {
              const LaunchCfg& cfg = res.plan.launches[i];
              keep->begin_launch(LaunchInfo{cfg.kernel, caller_spec.source_path, cfg.grid, cfg.block,
                                            cfg.shared_bytes, arrays});
            }
            break;
          }
          case 'A': {
            ArrayDesc d;
            d.id = get<std::uint8_t>(payload, p);
            d.space = Space(get<std::uint8_t>(payload, p));
            d.elem_bytes = get<std::uint32_t>(payload, p);
            d.count = get<std::uint64_t>(payload, p);
            d.base_offset = get<std::uint32_t>(payload, p);
            d.cols = get<decltype(d.cols)>(payload, p);
            d.name = payload.substr(std::min(p, payload.size()));
            seen.push_back(d);
            if (keep) keep->on_array(d);
            break;
          }
          case 'E': {
            WarpEvent e;
            if (payload.size() == sizeof e) {
              std::memcpy(&e, payload.data(), sizeof e);
              if (per_launch.empty()) per_launch.emplace_back();
              per_launch.back().add(e, model);
              if (keep) keep->on_event(e);
            }
            break;
          }
          case 'X':
            if (keep) keep->end_launch();
            break;
          case 'P': {
            sim::Problem pb;
            pb.kind = sim::ProblemKind(get<std::uint8_t>(payload, p));
            pb.line = get<std::uint16_t>(payload, p);
            pb.other_line = get<std::uint16_t>(payload, p);
            pb.block = get<std::uint32_t>(payload, p);
            pb.thread = get<std::uint32_t>(payload, p);
            pb.message = name_arrays(payload.substr(std::min(p, payload.size())), seen);
            problems.push_back(pb);
            break;
          }
          case 'R':
            emu_ok = get<std::uint8_t>(payload, p) != 0;
            got_result = true;
            break;
          case 'D':
            done_msg = payload;
            break;
          default:
            break;
        }
      }
      buf.erase(0, at);
    }
    if (timed_out) ::kill(pid, SIGKILL);
    int wst = 0;
    while (::waitpid(pid, &wst, 0) < 0 && errno == EINTR) {
    }
    ::close(fds[0]);
    const std::string stderr_tail = last_lines(errfd);
    if (errfd >= 0) ::close(errfd);

    const std::string& file = caller_spec.source_path;
    auto limit_s = [&] {
      std::ostringstream s;
      s << limits.time_s;
      return s.str();
    };
    if (timed_out) {
      res.error = "your kernel did not finish in " + limit_s() + " s (an endless loop, or too "
                  "much work for the emulator): it was stopped";
      return res;
    }
    if (status->out_of_memory) {
      res.error = "your kernel ran out of memory (the limit is " +
                  std::to_string(limits.memory_mb) + " MB)";
      return res;
    }
    if (status->signal) {
      const int sig = status->signal, line = status->line;
      const std::string where = line ? file + ":" + std::to_string(line) + ": " : file + ": ";
      if (status->overflow)
        res.error = where + "your kernel overflowed its stack (deep or endless recursion?)" +
                    (line ? " after line " + std::to_string(line) : std::string());
      else
        res.error = where + "your kernel crashed (" + signal_name(sig) + ")" +
                    (line ? ", after the access at line " + std::to_string(line) : std::string()) +
                    (stderr_tail.empty() ? "" : ": " + stderr_tail);
      return res;
    }
    if (!done_msg.empty()) {
      res.error = done_msg;
      return res;
    }
    if (!got_result) {
      if (WIFSIGNALED(wst))
        res.error = "your kernel's process was killed (" + signal_name(WTERMSIG(wst)) + ")";
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

}  // namespace ws::user
