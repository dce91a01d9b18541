// The sandbox of student code (kernels/user/sandbox.h, issue 27): every row of the table
// that concerns student code, as a kernel that attacks the app; then the sandbox's parts
// (records, bounded text, the filter's list). Each kernel is small: the runs take seconds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "kernels/user/sandbox.h"
#include "kernels/user/user_kernel.h"

namespace ws::user {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

class Sandbox : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  }
  static fs::path dir() {
    const fs::path d = fs::path(WS_BINARY_DIR) / "test-sandbox";
    fs::create_directories(d);
    return d;
  }
  std::string write(const std::string& body) {
    const std::string f =
        (dir() / (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".cuh")).string();
    std::ofstream(f) << body;
    return f;
  }
  static KernelSpec spec(const std::string& file) {
    KernelSpec s;
    s.source_path = file;
    s.struct_name = "Copy";
    s.fields = {{"in", "float", true, true, ""}, {"out", "float", false, true, ""}};
    return s;
  }
  // The copy job, with `globals` before the struct and `body` in it.
  static std::string kernel(const std::string& globals, const std::string& body = "    out(i) = in(i);\n") {
    return globals +
           "struct Copy {\n"
           "  Global<const float> in;\n"
           "  Global<float> out;\n"
           "  WS_DEVICE void operator()(Thread& t) const {\n"
           "    long long i = (long long)t.blockIdx.x * t.blockDim.x + t.threadIdx.x;\n" +
           body + "  }\n};\n";
  }
  RunResult run(const std::string& src, Limits lim = {}, Compiled* out = nullptr) {
    const KernelSpec s = spec(write(src));
    Compiled c = compile_emu(s);
    if (out) *out = c;
    EXPECT_TRUE(c.ok) << c.message();
    RunOptions o;
    return run_emu(c, s, *find_variant("access", "offset"),
                   {{"n", 1024}, {"block", 256}, {"offset", 0}, {"elem", 4}}, o, lim);
  }
  // The C library's calls, declared as a student would (the file is included inside the
  // dialect's namespace, so no system header of its own).
  static constexpr const char* kLibc =
      "extern \"C\" int kill(int, int) noexcept;\n"
      "extern \"C\" int getppid() noexcept;\n"
      "extern \"C\" int fork() noexcept;\n"
      "extern \"C\" int system(const char*);\n"
      "extern \"C\" int close(int) noexcept;\n"
      "extern \"C\" long write(int, const void*, unsigned long);\n"
      "extern \"C\" int socket(int, int, int) noexcept;\n"
      "extern \"C\" int printf(const char*, ...);\n"
      "extern \"C\" void* mmap(void*, unsigned long, int, int, int, long) noexcept;\n"
      "extern \"C\" void* memset(void*, int, unsigned long) noexcept;\n"
      "extern \"C\" struct _IO_FILE* fopen(const char*, const char*);\n"
      "extern \"C\" int fputs(const char*, struct _IO_FILE*);\n"
      "extern \"C\" int fclose(struct _IO_FILE*);\n"
      "extern \"C\" unsigned long fwrite_unlocked(const void*, unsigned long, unsigned long, struct _IO_FILE*);\n";
};

// Row: a compile error with a 30,000-character identifier, a 200 KB #error, a 100 KB token:
// std::regex ran out of stack and took warpscope down.
TEST_F(Sandbox, HugeCompileMessagesAreReadWithoutARegexAndBounded) {
  const std::string id(30000, 'x');
  const std::string token(100000, 'q');
  const std::string src = "// " + token + "\n" + kernel("", "    int a = " + id + ";\n") + "#error " +
                          std::string(200000, 'e') + "\n";
  const Compiled c = compile_emu(spec(write(src)));
  ASSERT_FALSE(c.ok);
  ASSERT_FALSE(c.errors.empty()) << c.error;
  bool at_7 = false, at_10 = false;  // the undeclared name, the #error
  for (const auto& e : c.errors) {
    at_7 |= e.line == 7;
    at_10 |= e.line == 10;
    EXPECT_LT(e.message.size(), 600u);
  }
  EXPECT_TRUE(at_7 && at_10) << c.message().substr(0, 400);
  EXPECT_LE(c.log.size(), 300u * 1024);
}

// Row: `static int k = kill(getppid(), 15);` killed the CLI or the window (exit 143).
TEST_F(Sandbox, KillingTheParentIsAForbiddenSystemCall) {
  if (!sandbox::have_filter()) GTEST_SKIP() << "built without libseccomp";
  const RunResult r = run(kernel(std::string(kLibc) + "static int k = kill(getppid(), 15);\n"));
  EXPECT_NE(r.error.find("forbidden system call (kill)"), std::string::npos) << r.error;
}

// Row: a kernel that closes descriptors 3-1023, then loops: the parent waited without a
// deadline (42.8 s with a limit of 2 s).
TEST_F(Sandbox, ClosingEveryDescriptorDoesNotOutliveTheDeadline) {
  Limits lim;
  lim.time_s = 1;
  const auto t0 = Clock::now();
  const RunResult r = run(kernel(std::string(kLibc) +
                                 "static int k = [] { for (int fd = 3; fd < 1024; ++fd) close(fd);\n"
                                 "  volatile long long x = 0; for (long long j = 0; j < 4000000000LL; ++j) x = x + 1;\n"
                                 "  return 0; }();\n"),
                          lim);
  const double took = since(t0);
  // Stopped at the deadline, or at once when its closed pipe fails its next write: either
  // way an error of its own, never a wait without a deadline.
  // (Prefixed FILE:LINE: when the emulator had issued an event before the deadline.)
  EXPECT_TRUE(r.error.find("your kernel did not finish in 1 s") != std::string::npos ||
              r.error.find("closed the pipe its results go back through") != std::string::npos)
      << r.error;
  EXPECT_LT(took, 12.0);  // the compile included; the run itself is stopped at 1 s
}

// Row: a 3 GiB shared anonymous mapping: 2.9 GB resident past the limit, check passed.
TEST_F(Sandbox, ASharedMappingCountsAgainstTheMemoryLimit) {
  Limits lim;
  lim.memory_mb = 64;
  const RunResult r = run(kernel(std::string(kLibc) +
                                 "static int k = [] { void* p = mmap(nullptr, 256ul << 20, 3, 0x21, -1, 0);\n"
                                 "  if (p == (void*)-1) throw std::bad_alloc();\n"
                                 "  memset(p, 1, 256ul << 20); return 0; }();\n"),
                          lim);
  EXPECT_NE(r.error.find("ran out of memory (the limit is 64 MB)"), std::string::npos) << r.error;
}

// Row: a forged result record (length 0xFFFFFFF0) grew warpscope to 4.26 GB.
TEST_F(Sandbox, AForgedRecordLengthIsRefusedAtOnce) {
  Limits lim;
  lim.time_s = 5;
  const auto t0 = Clock::now();
  const RunResult r = run(kernel(std::string(kLibc) +
                                 "static int k = [] { static char junk[65536];\n"
                                 "  char head[5] = {'E', char(0xF0), char(0xFF), char(0xFF), char(0xFF)};\n"
                                 "  for (int fd = 3; fd < 64; ++fd) write(fd, head, 5);\n"
                                 "  for (int n = 0; n < 20000; ++n) for (int fd = 3; fd < 64; ++fd) write(fd, junk, sizeof junk);\n"
                                 "  return 0; }();\n"),
                          lim);
  EXPECT_NE(r.error.find("broke the sandbox's protocol"), std::string::npos) << r.error;
  EXPECT_LT(since(t0), 20.0);
}

// Row: a forged done-record printed 87 KB of binary into the report.
TEST_F(Sandbox, AForgedDoneRecordIsNeverPrintedRaw) {
  const RunResult r = run(kernel(std::string(kLibc) +
                                 "static int k = [] { static char msg[2000];\n"
                                 "  for (int j = 0; j < 2000; ++j) msg[j] = char(j % 31);\n"
                                 "  unsigned n = sizeof msg; char head[5] = {'D'}; __builtin_memcpy(head + 1, &n, 4);\n"
                                 "  write(3, head, 5); write(3, msg, n); return 0; }();\n"));
  EXPECT_NE(r.error.find("broke the sandbox's protocol (a done record that is not text)"), std::string::npos)
      << r.error;
  EXPECT_LT(r.error.size(), 1000u);
  for (char ch : r.error) EXPECT_TRUE(ch >= 0x20 || ch == '\n') << int(ch);
}

// Row: system() in a global initializer ran as the user and wrote a file; a forked
// grandchild in its own session outlived warpscope.
TEST_F(Sandbox, SystemAndForkAreForbidden) {
  if (!sandbox::have_filter()) GTEST_SKIP() << "built without libseccomp";
  const fs::path mark = dir() / "system-ran";
  fs::remove(mark);
  const RunResult r =
      run(kernel(std::string(kLibc) + "static int k = system(\"touch " + mark.string() + "\");\n"));
  EXPECT_NE(r.error.find(": your kernel made a forbidden system call"), std::string::npos) << r.error;
  EXPECT_FALSE(fs::exists(mark));
  const RunResult f = run(kernel(std::string(kLibc) + "static int k = fork();\n"));
  EXPECT_NE(f.error.find("forbidden system call (clone)"), std::string::npos) << f.error;  // glibc's fork
}

TEST_F(Sandbox, TheNetworkIsForbidden) {
  if (!sandbox::have_filter()) GTEST_SKIP() << "built without libseccomp";
  const RunResult r = run(kernel(std::string(kLibc) + "static int k = socket(2, 1, 0);\n"));
  EXPECT_NE(r.error.find("forbidden system call (socket)"), std::string::npos) << r.error;
}

// A kernel writes only into its scratch directory (Landlock, where the kernel has it).
TEST_F(Sandbox, AKernelWritesOnlyIntoItsScratchDirectory) {
  if (sandbox::landlock_abi() == 0) GTEST_SKIP() << "no Landlock in this Linux kernel";
  const fs::path outside = dir() / "escaped.txt";
  fs::remove(outside);
  const RunResult r = run(kernel(std::string(kLibc) +
                                 "static int k = [] {\n"
                                 "  auto* a = fopen(\"" + outside.string() + "\", \"w\");\n"
                                 "  if (a) { fputs(\"x\", a); fclose(a); }\n"
                                 "  auto* b = fopen(\"inside.txt\", \"w\");\n"
                                 "  if (b) { fputs(\"y\", b); fclose(b); }\n"
                                 "  printf(\"outside=%d inside=%d\\n\", a != nullptr, b != nullptr); return 0; }();\n"));
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_FALSE(fs::exists(outside));
  EXPECT_NE(r.kernel_output.find("outside=0 inside=1"), std::string::npos) << r.kernel_output;
  EXPECT_EQ(r.sandbox_note.find("Landlock"), std::string::npos) << r.sandbox_note;
  EXPECT_EQ(r.sandbox_note.empty(), sandbox::have_filter()) << r.sandbox_note;  // says what it lacks
}

// The scratch directory is bounded as a whole (it may be in memory): many files each
// under the file-size limit are stopped too.
TEST_F(Sandbox, TheScratchDirectoryIsBoundedAsAWhole) {
  Limits lim;
  lim.scratch_mb = 8;
  lim.time_s = 20;
  const RunResult r = run(kernel(std::string(kLibc) +
                                 "static int k = [] { static char mb[1 << 20];\n"
                                 "  for (int f = 0; f < 64; ++f) { char name[32]; __builtin_snprintf(name, sizeof name, \"f%d\", f);\n"
                                 "    auto* h = fopen(name, \"w\"); if (!h) break;\n"
                                 "    for (int m = 0; m < 4; ++m) fwrite_unlocked(mb, 1, sizeof mb, h);\n"
                                 "    fclose(h); }\n"
                                 "  for (;;) {} return 0; }();\n"),
                          lim);
  EXPECT_NE(r.error.find("wrote more than 8 MB"), std::string::npos) << r.error;
}

// Row: a raw copy through out.ptr / in.ptr was not traced ("all targets met").
TEST_F(Sandbox, TheRawPointerIsHiddenFromStudentCode) {
  const Compiled c = compile_emu(spec(write(kernel("", "    out.ptr[i] = in.ptr[i];\n"))));
  ASSERT_FALSE(c.ok);
  ASSERT_FALSE(c.errors.empty()) << c.message();
  EXPECT_EQ(c.errors[0].line, 6) << c.message();
  EXPECT_NE(c.message().find("private"), std::string::npos) << c.message();
}

// Row: printf in a kernel: 24.6 MB into warpscope's stdout; 50 MB to stderr dropped.
TEST_F(Sandbox, KernelOutputIsCapturedBoundedAndKeptApart) {
  std::fflush(stdout);
  const fs::path ours = dir() / "our-stdout.txt";
  const int saved = ::dup(1);
  std::FILE* f = std::fopen(ours.c_str(), "w");
  ASSERT_TRUE(f);
  ::dup2(::fileno(f), 1);
  Limits lim;
  lim.output_kb = 4;
  const RunResult r = run(kernel(std::string(kLibc) +
                                 "static int k = [] { for (int j = 0; j < 200000; ++j) printf(\"line %d of the kernel\\n\", j);\n"
                                 "  return 0; }();\n"),
                          lim);
  std::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  std::fclose(f);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(fs::file_size(ours), 0u);  // nothing of it in this process's stdout
  EXPECT_EQ(r.kernel_output.rfind("line 0 of the kernel\n", 0), 0u) << r.kernel_output.substr(0, 80);
  EXPECT_LT(r.kernel_output.size(), 5u * 1024);
  EXPECT_NE(r.kernel_output.find("more bytes of output not kept"), std::string::npos);
}

// Row: a constexpr-heavy kernel ran the compiler 69 s with --time-limit 1 (a fixed,
// undocumented 120 s limit). The compiler's own limit is shorter and configurable.
TEST_F(Sandbox, TheCompilerStopsAtItsOwnTimeLimit) {
  // Warm the precompiled prelude under the default limit first.
  ASSERT_TRUE(compile_emu(spec(write(kernel(""))), {}).ok);
  // 2^26 distinct instantiations.
  const std::string src = kernel(
      "template <int N, unsigned long long M> struct Bomb {\n"
      "  static constexpr unsigned long long v = Bomb<N - 1, 2 * M>::v + Bomb<N - 1, 2 * M + 1>::v; };\n"
      "template <unsigned long long M> struct Bomb<0, M> { static constexpr unsigned long long v = M; };\n"
      "constexpr unsigned long long kBomb = Bomb<26, 0>::v;\n");
  CompileOptions o;
  o.time_s = 2;
  o.memory_mb = 16384;  // the time limit is the one tried here
  const auto t0 = Clock::now();
  const Compiled c = compile_emu(spec(write(src)), o);
  const double took = since(t0);
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.message().find(":1: the compiler did not finish in 2 s"), std::string::npos) << c.message();
  EXPECT_LT(took, 8.0);
}

// The same bomb under a memory limit: the compiler had none (an outside 8 GB cap stopped it).
TEST_F(Sandbox, TheCompilerStopsAtItsMemoryLimit) {
  ASSERT_TRUE(compile_emu(spec(write(kernel(""))), {}).ok);
  const std::string src = kernel(
      "template <int N, unsigned long long M> struct Bomb {\n"
      "  static constexpr unsigned long long v = Bomb<N - 1, 2 * M>::v + Bomb<N - 1, 2 * M + 1>::v; };\n"
      "template <unsigned long long M> struct Bomb<0, M> { static constexpr unsigned long long v = M; };\n"
      "constexpr unsigned long long kBomb = Bomb<26, 0>::v;\n");
  CompileOptions o;
  o.time_s = 60;
  o.memory_mb = 768;
  const auto t0 = Clock::now();
  const Compiled c = compile_emu(spec(write(src)), o);
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.message().find(":1: the compiler ran out of memory (its limit is 768 MB)"), std::string::npos)
      << c.message().substr(0, 300);
  EXPECT_LT(since(t0), 40.0);
}

// ------------------------------------------------------------------ the parts

TEST(SandboxParts, RecordsOutsideTheirBoundsAreRefused) {
  sandbox::RecordReader rr({{'B', 4, 4}, {'D', 0, 16}}, 1 << 20);
  std::string s;
  auto rec = [&](char tag, const std::string& payload) {
    const std::uint32_t n = std::uint32_t(payload.size());
    s += tag;
    s.append(reinterpret_cast<const char*>(&n), 4);
    s += payload;
  };
  rec('B', "abcd");
  rec('D', "done");
  rr.feed(s.data(), 7);  // a partial record waits for the rest
  sandbox::Record r;
  EXPECT_FALSE(rr.next(r));
  rr.feed(s.data() + 7, s.size() - 7);
  ASSERT_TRUE(rr.next(r));
  EXPECT_EQ(r.tag, 'B');
  ASSERT_TRUE(rr.next(r));
  EXPECT_EQ(r.payload, "done");
  EXPECT_FALSE(rr.next(r));
  EXPECT_TRUE(rr.error().empty());
  const char forged[5] = {'D', char(0xF0), char(0xFF), char(0xFF), char(0xFF)};
  rr.feed(forged, 5);
  EXPECT_FALSE(rr.next(r));
  EXPECT_NE(rr.error().find("4294967280 bytes"), std::string::npos) << rr.error();
  sandbox::RecordReader unknown({{'B', 4, 4}}, 1 << 20);
  unknown.feed("Z\0\0\0\0", 5);
  EXPECT_FALSE(unknown.next(r));
  EXPECT_FALSE(unknown.error().empty());
  sandbox::RecordReader flood({{'B', 4, 4}}, 8);
  flood.feed(s.data(), s.size());
  EXPECT_NE(flood.error().find("more than"), std::string::npos);
}

TEST(SandboxParts, UntrustedTextIsMadePrintableAndBounded) {
  EXPECT_EQ(sandbox::printable(std::string("a\x01" "b\n", 4), 100), "a?b ");
  EXPECT_EQ(sandbox::printable("a\nb", 100, true), "a\nb");
  EXPECT_EQ(sandbox::printable("caf\xc3\xa9", 100), "caf\xc3\xa9");
  EXPECT_EQ(sandbox::printable("\xff\xfe", 100), "??");
  EXPECT_EQ(sandbox::printable(std::string(10, 'x'), 4), "xxxx [... 6 more bytes]");
}

TEST(SandboxParts, TheFilterIsAListToRead) {
  const std::string k = sandbox::describe(sandbox::Profile::Kernel);
  for (const char* call : {"kill", "fork", "clone", "execve", "socket", "connect", "ptrace"})
    EXPECT_NE(k.find(std::string(call) + " "), std::string::npos) << call << "\n" << k;
  const std::string g = sandbox::describe(sandbox::Profile::GpuRunner);
  EXPECT_NE(g.find("socket  unless its first argument is AF_UNIX"), std::string::npos) << g;
  EXPECT_EQ(g.find("ioctl"), std::string::npos);  // CUDA's calls stay allowed
  EXPECT_EQ(g.find("mmap"), std::string::npos);
}

TEST(SandboxParts, AProgramPastItsTimeLimitIsKilledAsAGroup) {
  const fs::path log = fs::path(WS_BINARY_DIR) / "test-sandbox-spawn.log";
  sandbox::SpawnLimits lim;
  lim.time_s = 0.5;
  const auto t0 = Clock::now();
  // The shell's background child would outlive a kill of the shell alone.
  const auto r = sandbox::spawn_limited({"/bin/sh", "-c", "sleep 30 & sleep 30"}, {}, log.string(), lim);
  EXPECT_EQ(r.status, sandbox::SpawnStatus::TimedOut);
  EXPECT_LT(since(t0), 5.0);
  const auto ok = sandbox::spawn_limited({"/bin/sh", "-c", "exit 3"}, {}, log.string(), lim);
  EXPECT_EQ(ok.status, sandbox::SpawnStatus::Exited);
  EXPECT_EQ(ok.code, 3);
}

}  // namespace
}  // namespace ws::user
