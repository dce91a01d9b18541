// The CUDA front end on its own: what it rewrites, that lines stay where they were, and
// the one sentence an unsupported construct gets.
#include "kernels/user/cuda_front.h"
#include "kernels/user/cache_dir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ws::cuda {
namespace {

std::string student(const std::string& name) {
  std::ifstream f(std::string(WS_SOURCE_DIR) + "/tests/kernels/students/" + name);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Line k of the rewritten text (after its #line 1 header) is line k of the source.
std::string line_of(const std::string& text, int k) {
  std::istringstream in(text);
  std::string l;
  std::getline(in, l);  // #line 1 "..."
  for (int i = 0; i < k && std::getline(in, l);) ++i;
  return l;
}

TEST(CudaFront, ANaiveTransposeIsRewrittenOnItsOwnLines) {
  const std::string src = student("transpose_naive.cu");
  const Translation t = translate(src, "/k/transpose_naive.cu");
  ASSERT_TRUE(t.ok) << t.message("k.cu");
  EXPECT_EQ(t.kernel, "transpose");
  ASSERT_EQ(t.params.size(), 3u);
  EXPECT_EQ(t.params[0].name, "in");
  EXPECT_TRUE(t.params[0].pointer);
  EXPECT_TRUE(t.params[0].is_const);
  EXPECT_EQ(t.params[0].type, "float");
  EXPECT_EQ(t.params[2].name, "n");
  EXPECT_FALSE(t.params[2].pointer);
  EXPECT_EQ(t.params[2].type, "int");
  EXPECT_EQ(t.text.rfind("#line 1 \"/k/transpose_naive.cu\"\n", 0), 0u);
  // No line moved: the source's line count plus the header and the struct's two lines.
  EXPECT_EQ(std::count(t.text.begin(), t.text.end(), '\n'),
            std::count(src.begin(), src.end(), '\n') + 3);
  EXPECT_EQ(line_of(t.text, 9), "    ::ws::cu::at(out, x * n + (y + j)) = ::ws::cu::at(in, (y + j) * n + x);");
  EXPECT_NE(line_of(t.text, 8).find("::ws::cu::br(j < ::ws::cu::blockDim().x)"), std::string::npos)
      << line_of(t.text, 8);
  EXPECT_NE(line_of(t.text, 5).find("::ws::cu::Ptr<const float> in"), std::string::npos) << line_of(t.text, 5);
  EXPECT_NE(line_of(t.text, 6).find("::ws::cu::blockIdx().x"), std::string::npos);
}

TEST(CudaFront, ASharedTileBecomesTheBlocksSharedArray) {
  const Translation t = translate(student("transpose_shared.cu"), "/k/t.cu");
  ASSERT_TRUE(t.ok) << t.message("k.cu");
  EXPECT_NE(line_of(t.text, 8).find("auto tile = ::ws::cu::shared2d<float>(32, 33, \"tile\", 128);"),
            std::string::npos)
      << line_of(t.text, 8);
  EXPECT_NE(line_of(t.text, 14).find("::ws::cu::at(::ws::cu::at(tile, ::ws::cu::threadIdx().y + j), ::ws::cu::threadIdx().x)"), std::string::npos)
      << line_of(t.text, 14);
}

TEST(CudaFront, UnsupportedConstructsGetOneSentenceWithTheirLine) {
  auto first = [](const std::string& src) {
    const Translation t = translate(src, "/k/bad.cu");
    EXPECT_FALSE(t.ok);
    return t.errors.empty() ? Diagnostic{} : t.errors[0];
  };
  Diagnostic d = first("__device__ int f(int k) {\n  return k ? f(k - 1) : 0;\n}\n"
                       "__global__ void k(int* out) { out[0] = f(3); }\n");
  EXPECT_EQ(d.line, 2);
  EXPECT_EQ(d.message, "recursion is not supported in a kernel (f calls itself)");
  d = first("__global__ void k(float* out) {\n  float* p = new float[4];\n  out[0] = p[0];\n}\n");
  EXPECT_EQ(d.line, 2);
  EXPECT_NE(d.message.find("new and delete are not supported"), std::string::npos);
  d = first("__global__ void k(float* out) { out[0] = 1; }\nint main() { return 0; }\n");
  EXPECT_EQ(d.line, 2);
  EXPECT_NE(d.message.find("leave out host code (main)"), std::string::npos);
  d = first("__global__ void k(float* out) {\n  __shared__ float s[4][4][4];\n}\n");
  EXPECT_EQ(d.line, 2);
  EXPECT_EQ(d.message, "a __shared__ array of three or more dimensions is not supported");
}

TEST(CudaFront, ClangsOwnErrorsAreOnTheStudentsLine) {
  const Translation t = translate("__global__ void k(float* out) {\n  int x = ;\n}\n", "/k/e.cu");
  ASSERT_FALSE(t.ok);
  ASSERT_FALSE(t.errors.empty());
  EXPECT_EQ(t.errors[0].line, 2);
  EXPECT_NE(t.errors[0].message.find("expected expression"), std::string::npos) << t.errors[0].message;
}

TEST(CudaFront, ConstantConditionsAreNotBranches) {
  const Translation t = translate("constexpr int kTile = sizeof(float) == 4 ? 32 : 16;\n"
                                  "__global__ void k(float* out, int n) {\n"
                                  "  constexpr int half = kTile > 16 ? kTile / 2 : kTile;\n"
                                  "  static_assert(half == 16 ? true : false, \"half\");\n"
                                  "  out[threadIdx.x] = threadIdx.x < n ? half : 0;\n}\n",
                                  "/k/c.cu");
  ASSERT_TRUE(t.ok) << t.message("c.cu");
  EXPECT_EQ(line_of(t.text, 1).find("::ws::cu::br"), std::string::npos) << line_of(t.text, 1);
  EXPECT_EQ(line_of(t.text, 3).find("::ws::cu::br"), std::string::npos) << line_of(t.text, 3);
  EXPECT_EQ(line_of(t.text, 4).find("::ws::cu::br"), std::string::npos) << line_of(t.text, 4);
  EXPECT_NE(line_of(t.text, 5).find("::ws::cu::br(::ws::cu::threadIdx().x < n)"), std::string::npos)
      << line_of(t.text, 5);
}

TEST(CudaFront, ADialectFileIsNotCuda) {
  EXPECT_FALSE(is_cuda_source("struct K { WS_DEVICE void operator()(Thread& t) const {} };"));
  EXPECT_TRUE(is_cuda_source("__global__ void k(float* a) {}"));
}

// Both translations of `src`, field by field.
void expect_same(const Translation& a, const Translation& b, const std::string& what) {
  EXPECT_EQ(a.ok, b.ok) << what;
  EXPECT_EQ(a.text, b.text) << what;
  EXPECT_EQ(a.kernel, b.kernel) << what;
  EXPECT_EQ(a.kernel_line, b.kernel_line) << what;
  ASSERT_EQ(a.params.size(), b.params.size()) << what;
  for (std::size_t i = 0; i < a.params.size(); ++i) {
    EXPECT_EQ(a.params[i].name, b.params[i].name) << what;
    EXPECT_EQ(a.params[i].type, b.params[i].type) << what;
    EXPECT_EQ(a.params[i].pointer, b.params[i].pointer) << what;
    EXPECT_EQ(a.params[i].is_const, b.params[i].is_const) << what;
  }
  EXPECT_EQ(a.message("k.cu"), b.message("k.cu")) << what;
}

// The prelude precompiled is a shortcut only: every student file, every puzzle solution,
// and files with mistakes translate to the same text, parameters and errors.
TEST(CudaFront, ThePrecompiledPreludeChangesNoTranslation) {
  const std::string dir = testing::TempDir() + "/ws-front-pch";
  std::filesystem::remove_all(dir);
  const std::string pch = prelude_pch(dir);
  ASSERT_FALSE(pch.empty()) << "libclang could not precompile the prelude";
  EXPECT_EQ(prelude_pch(dir), pch);  // made once, then found
  // Made again after it was dropped, its header left as it was (a PCH records the header's
  // time: rewriting it would void a PCH another process has just made).
  const std::filesystem::path header = std::filesystem::path(pch).replace_extension(".h");
  ASSERT_TRUE(std::filesystem::exists(header)) << header;
  const auto written = std::filesystem::last_write_time(header);
  std::filesystem::remove(pch);
  EXPECT_EQ(prelude_pch(dir), pch);
  EXPECT_TRUE(std::filesystem::exists(pch));
  EXPECT_EQ(std::filesystem::last_write_time(header), written);
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& d : {std::string(WS_SOURCE_DIR) + "/tests/kernels/students",
                        std::string(WS_SOURCE_DIR) + "/puzzles/solutions"})
    for (const auto& e : std::filesystem::directory_iterator(d))
      if (e.path().extension() == ".cu") {
        std::ifstream f(e.path());
        std::ostringstream s;
        s << f.rdbuf();
        files.push_back({e.path().string(), s.str()});
      }
  files.push_back({"/k/e.cu", "__global__ void k(float* out) {\n  int x = ;\n  out[0] = sqrtf(2.f);\n}\n"});
  files.push_back({"/k/u.cu", "__global__ void k(float* out) {\n  out[0] = undeclared(1);\n}\n"});
  ASSERT_GE(files.size(), 20u);
  for (const auto& [path, src] : files) {
    const Translation with = translate_with(src, path, pch);
    EXPECT_TRUE(with.precompiled) << path;
    expect_same(translate_with(src, path, ""), with, path);
  }
}

// A file that is not libclang's PCH (a torn write, another libclang's) is not used.
TEST(CudaFront, AnUnreadablePrecompiledPreludeIsIgnored) {
  const std::string bad = testing::TempDir() + "/ws-front-bad.pch";
  {
    std::ofstream o(bad);
    o << "not a precompiled header";
  }
  const std::string src = student("transpose_shared.cu");
  const Translation want = translate_with(src, "/k/t.cu", "");
  ASSERT_TRUE(want.ok) << want.message("t.cu");
  const Translation got = translate_with(src, "/k/t.cu", bad);
  EXPECT_FALSE(got.precompiled);
  expect_same(want, got, "garbage");
  expect_same(want, translate_with(src, "/k/t.cu", testing::TempDir() + "/ws-front-missing.pch"), "missing");
}

// Cache entries are named by FNV-1a of their inputs: the published test values (the three
// copies this replaced had lost the offset basis's last digit).
TEST(CacheKey, IsFnv1aOfTheInputsInHex) {
  EXPECT_EQ(ws::user::cache_key(""), "cbf29ce484222325");
  EXPECT_EQ(ws::user::cache_key("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(ws::user::cache_key("foobar"), "85944171f73967e8");
}

}  // namespace
}  // namespace ws::cuda
