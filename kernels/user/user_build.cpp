// Student kernels on the emulator, the build: the system C++ compiler, under the sandbox,
// turns the student's file (plain CUDA rewritten by the front end first, or the dialect)
// into a shared object against a precompiled prelude, cached by its inputs (user_build.h).
// Index (search for "[SECTION] <name>"):
//   Types and names: the fields a kernel's struct may have
//   Compiler, cache and the struct the job builds
//   Compile: the system compiler under the sandbox
#define WS_MODE_EMU
#include "kernels/user/user_build.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "io/atomic_file.h"
#include "io/data_paths.h"
#include "io/read_file.h"
#include "kernels/user/compile_log.h"
#include "kernels/user/cuda_kernel.h"
#include "kernels/user/sandbox.h"

extern char** environ;

namespace ws::user {
namespace fs = std::filesystem;

namespace {

// [SECTION] Types and names: the fields a kernel's struct may have
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

// A kernel file: a regular file of at most 1 MB (a FIFO or /dev/zero is refused), read by
// io's one reader.
constexpr std::size_t kMaxSourceBytes = 1 << 20;

bool executable(const std::string& p) { return ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The line of `struct NAME` (or `class NAME`) in the student's source (1 when not found):
// errors of the generated launch code are attributed to it. A linear scan, no regex: a
// file may hold one 100 KB token.
int struct_line(const std::string& src, const std::string& name, bool any = false) {
  int line = 1;
  for (std::size_t i = 0; i < src.size(); ++i) {
    if (src[i] == '\n') {
      ++line;
      continue;
    }
    if (i > 0 && ident_char(src[i - 1])) continue;
    std::size_t kw = 0;
    if (src.compare(i, 6, "struct") == 0) kw = 6;
    else if (src.compare(i, 5, "class") == 0) kw = 5;
    if (!kw) continue;
    std::size_t j = i + kw;
    std::size_t ws = j;
    while (j < src.size() && (src[j] == ' ' || src[j] == '\t')) ++j;
    if (j == ws || j >= src.size()) continue;
    if (any) {
      if ((src[j] >= 'a' && src[j] <= 'z') || (src[j] >= 'A' && src[j] <= 'Z') || src[j] == '_') return line;
      continue;
    }
    if (src.compare(j, name.size(), name) == 0 &&
        (j + name.size() == src.size() || !ident_char(src[j + name.size()])))
      return line;
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

// [SECTION] Compiler, cache and the struct the job builds
std::string CompileError::text() const {
  return file + ":" + std::to_string(line) + ": " + message;
}

std::string Compiled::message() const {
  if (!error.empty()) return error;
  std::string s;
  for (const auto& e : errors) s += e.text() + "\n";
  return s;
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

double default_compile_time_limit() {
  if (const char* e = std::getenv("WARPSCOPE_COMPILE_TIME_LIMIT"); e && *e) {
    char* end = nullptr;
    const double v = std::strtod(e, &end);
    if (end && *end == '\0' && v > 0 && v <= 3600) return v;
  }
  return 30;
}

namespace {
// What every emulator build includes first: the dialect, and the headers a kernel may
// include (so the student's own #include inside the namespace finds them guarded).
// Compiled once into a precompiled header in the cache: a recompile then parses only
// the student's file (about half the compiler's time).
constexpr const char* kEmuPrelude =
    "#define WS_MODE_EMU\n#define WS_STUDENT_BUILD\n#include \"kernels/dialect/simt.h\"\n"
    "#include \"kernels/user/cuda_emu.h\"\n"
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


namespace {

// The compiler's environment: the user's, in plain ASCII (no locale quotes), its
// temporary files in `tmp` (the only place besides the cache it may write).
// [SECTION] Compile: the system compiler under the sandbox
std::vector<std::string> compiler_env(const std::string& tmp) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "LC_ALL=", 7) != 0 && std::strncmp(*e, "LANG=", 5) != 0 &&
        std::strncmp(*e, "LANGUAGE=", 9) != 0 && std::strncmp(*e, "TMPDIR=", 7) != 0)
      env.push_back(*e);
  env.push_back("LC_ALL=C");
  env.push_back("TMPDIR=" + tmp);
  return env;
}

// Runs the compiler with stdout+stderr into `log_path` under the sandbox's limits (own
// session, address space, CPU, file size, writes only into `dir`); returns the exit status,
// -1 if it could not start, -2 when killed after opt.time_s.
int run_compiler(const std::vector<std::string>& argv, const std::string& log_path,
                 const std::string& dir, const CompileOptions& opt) {
  const std::string tmp = (fs::path(dir) / "tmp").string();
  std::error_code ec;
  fs::create_directories(tmp, ec);
  sandbox::SpawnLimits lim;
  lim.time_s = opt.time_s;
  lim.memory_bytes = opt.memory_mb << 20;
  lim.file_bytes = 512ull << 20;  // the precompiled prelude is the largest output
  lim.cpu_s = std::uint64_t(opt.time_s) + 2;
  lim.writable = {dir, "/dev/null"};
  const sandbox::SpawnResult r = sandbox::spawn_limited(argv, compiler_env(tmp), log_path, lim);
  switch (r.status) {
    case sandbox::SpawnStatus::NotStarted: return -1;
    case sandbox::SpawnStatus::TimedOut: return -2;
    case sandbox::SpawnStatus::Signaled:
      return r.code == SIGXCPU || r.code == SIGKILL ? -2 : 128 + r.code;
    case sandbox::SpawnStatus::Exited: return r.code;
  }
  return -1;
}

// The compiler's errors on the student's lines. Errors inside the dialect's headers are
// moved to the student's line that instantiated them ("required from here"); errors of
// the generated launch code go to the struct's line, with what the launch builds. Read
// line by line with a linear scan (compile_log.h); every message is bounded.
std::vector<CompileError> parse_errors(const std::string& log, const std::string& user_abs,
                                       const std::string& shown, const std::string& wrapper,
                                       int struct_at, const KernelSpec& spec) {
  std::vector<CompileError> out;
  int last_user_line = 0;
  const std::string user_name = fs::path(user_abs).filename().string();
  std::size_t start = 0;
  while (start < log.size() && out.size() < 50) {
    std::size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    const std::string_view line(log.data() + start, end - start);
    start = end + 1;
    Diagnostic d;
    if (!parse_gcc_line(line, d)) continue;
    const std::string file(d.file.substr(0, 4096));
    const bool user = file == user_abs || fs::path(file).filename() == user_name;
    if (d.kind != "error" && d.kind != "fatal error") {
      if (user) last_user_line = d.line;
      continue;
    }
    const std::string msg = short_message(d.message);
    CompileError e;
    e.file = shown;
    if (user) {
      e.line = d.line;
      e.message = msg;
    } else if (file == wrapper) {
      e.line = struct_at;
      e.message = msg + " (the job builds " + launch_expression(spec) +
                  ": check the struct's name and members)";
    } else {
      e.line = last_user_line ? last_user_line : struct_at;
      e.message = msg + " (in " + short_message(fs::path(file).filename().string()) + ")";
    }
    bool dup = false;
    for (const auto& o : out) dup = dup || (o.line == e.line && o.message == e.message);
    if (!dup) out.push_back(e);
    last_user_line = 0;
  }
  return out;
}

// A name for temporary files no other thread or process of this user picks.
std::string unique_tag() {
  static std::atomic<unsigned> n{0};
  return std::to_string(::getpid()) + "-" + std::to_string(n++);
}

}  // namespace

namespace {
Compiled compile_dialect(const KernelSpec& spec, const CompileOptions& opt);
}

Compiled compile_emu(const KernelSpec& spec, const CompileOptions& opt, const std::function<void()>& front_ok) {
  if (!is_cuda_file(spec.source_path) || fs::is_directory(spec.source_path))
    return compile_dialect(spec, opt);
  Compiled c;
  const CudaPrepared p = prepare_cuda(spec.source_path, opt.cache_dir.empty() ? cache_dir() : opt.cache_dir);
  if (!p.ok) {
    c.errors = p.errors;
    return c;
  }
  if (front_ok) front_ok();
  c = compile_dialect(p.spec, opt);
  for (auto& e : c.errors) e.file = spec.source_path;
  c.translated = p.spec;
  return c;
}

namespace {
// The dialect's prelude precompiled into `dir`'s prelude-<hash>/ on first use, for every
// later build with the same compiler, headers and flags; returns that folder. A failure
// only costs speed (the build then parses the headers itself).
// The headers a student's build includes, stamped (name, size, modification time), so a
// cached build or precompiled prelude is never used across an edit of them.
std::string header_stamp(const std::string& inc) {
  std::string stamp;
  std::error_code ec;
  for (const char* d : {"kernels/dialect", "kernels/user", "kernels/catalogue", "sim"}) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(fs::path(inc) / d, ec))
      if (e.path().extension() == ".h") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      const auto t = fs::last_write_time(f, ec).time_since_epoch().count();
      stamp += f.filename().string() + ":" + std::to_string(fs::file_size(f, ec)) + ":" + std::to_string(t) + ";";
    }
  }
  return stamp;
}

fs::path precompiled_prelude(const std::string& cxx, const std::string& inc, const std::string& stamp,
                             const std::string& dir, const std::vector<std::string>& flags,
                             const CompileOptions& opt) {
  std::string pkey = std::string(kEmuPrelude) + cxx + inc + stamp + __DATE__ __TIME__;
  for (const auto& f : flags) pkey += f;
  const fs::path pdir = fs::path(dir) / ("prelude-" + cache_key(pkey));
  if (fs::exists(pdir / "ws_emu_prelude.h.gch")) return pdir;
  std::error_code ec;
  fs::create_directories(pdir, ec);
  const std::string tag = "." + unique_tag();
  const fs::path h = pdir / "ws_emu_prelude.h";
  io::write_file(h.string(), kEmuPrelude, {.overwrite = true});
  std::vector<std::string> pargv = {cxx};
  for (const auto& f : flags)
    if (f != "-shared") pargv.push_back(f);
  pargv.insert(pargv.end(), {"-I" + inc, "-x", "c++-header", h.string(), "-o", h.string() + ".gch" + tag});
  if (run_compiler(pargv, (pdir / ("prelude.log" + tag)).string(), dir, opt) == 0)
    fs::rename(h.string() + ".gch" + tag, h.string() + ".gch", ec);
  fs::remove(h.string() + ".gch" + tag, ec);
  fs::remove(pdir / ("prelude.log" + tag), ec);
  return pdir;
}

Compiled compile_dialect(const KernelSpec& spec, const CompileOptions& opt) {
  Compiled c;
  try {
    const io::ReadResult rf = io::read_file(spec.source_path, kMaxSourceBytes, "kernel file");
    const std::string& src = rf.text;
    if (!rf.ok) {
      c.error = rf.error;
      return c;
    }
    const std::string cxx = find_cxx();
    if (cxx.empty()) {
      c.error = "no C++ compiler found: install g++ (or set CXX) to build kernels for the emulator";
      return c;
    }
    const std::string inc = paths::dialect_include_dir();
    if (inc.empty() || !fs::exists(fs::path(inc) / "kernels" / "dialect" / "simt.h")) {
      c.error = "the dialect headers (kernels/dialect/simt.h) were not found: set WARPSCOPE_INCLUDE";
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
    const std::string stamp = header_stamp(inc);  // read once: the build's key and the prelude's
    std::string key = wrapper_text + src + cxx + inc + stamp + kEmuPrelude + __DATE__ __TIME__;
    for (const auto& f : flags) key += f;
    const fs::path pdir = precompiled_prelude(cxx, inc, stamp, dir, flags, opt);
    const std::string base = (fs::path(dir) / ("k" + cache_key(key))).string();
    c.artifact = base + ".so";
    if (opt.use_cache && fs::exists(c.artifact)) {
      c.ok = true;
      c.cached = true;
      return c;
    }
    const std::string tag = unique_tag();
    const std::string wrapper = base + "." + tag + ".cpp", log = base + "." + tag + ".log";
    const std::string tmp = base + "." + tag + ".tmp.so";
    struct RemoveWrapper {
      std::string f;
      ~RemoveWrapper() {
        std::error_code e;
        fs::remove(f, e);
      }
    } remove_wrapper{wrapper};
    if (const io::WriteResult w = io::write_file(wrapper, wrapper_text); !w.ok) {
      c.error = w.error;
      return c;
    }
    std::vector<std::string> argv = {cxx};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"-I" + pdir.string(), "-I" + inc, "-o", tmp, wrapper});
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = run_compiler(argv, log, dir, opt);
    c.seconds = seconds_since(t0);
    {
      // The log is bounded: a 200 KB #error or 30,000-character names must not grow it.
      const int lfd = ::open(log.c_str(), O_RDONLY | O_CLOEXEC);
      bool cut = false;
      c.log = sandbox::read_bounded(lfd, kMaxLogBytes, &cut);
      if (lfd >= 0) ::close(lfd);
      if (cut) c.log += "\n[the compiler's output was cut at " + std::to_string(kMaxLogBytes / 1024) + " KB]";
      fs::remove(log, ec);
    }
    if (rc == -1) {
      c.error = "could not start the compiler " + cxx;
      return c;
    }
    if (rc == -2) {
      std::ostringstream t;
      t << opt.time_s;
      // The kernel's doing, so an error on its file (not `error`, which says nothing
      // could be built).
      c.errors.push_back({spec.source_path, 1,
                          "the compiler did not finish in " + t.str() +
                              " s (its limit; WARPSCOPE_COMPILE_TIME_LIMIT sets it): templates or "
                              "constexpr evaluation too heavy?"});
      return c;
    }
    if (rc != 0 && (c.log.find("memory exhausted") != std::string::npos ||
                    c.log.find("out of memory") != std::string::npos)) {
      c.errors.push_back({spec.source_path, 1,
                          "the compiler ran out of memory (its limit is " + std::to_string(opt.memory_mb) +
                              " MB): templates or constexpr evaluation too heavy?"});
      return c;
    }
    if (rc != 0) {
      c.errors = parse_errors(c.log, fs::absolute(spec.source_path).string(), spec.source_path,
                              wrapper, struct_line(src, spec.struct_name), spec);
      if (c.errors.empty())
        c.errors.push_back({spec.source_path, 1,
                            "the compiler failed (exit " + std::to_string(rc) + "): " +
                                short_message(c.log.substr(0, 300))});
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

}  // namespace ws::user
