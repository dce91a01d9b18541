// A time target's runs on the GPU (user::time_cuda): the request carries its arrays as
// specs (generated inputs, poisoned outputs) that the runner makes, and asks back only the
// device's check of the output (or nothing, in a timing round). Without a GPU: the protocol
// of the new fields, and that the runner's arrays are the ones the host fills (through the
// real runner process, its echo mode). On a GPU (label gpu): the device's check gives the
// host check's verdict at the timing size, a wrong element included.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "app/puzzle/puzzle.h"
#include "kernels/user/cuda_nvrtc.h"
#include "kernels/user/user_nvrtc.h"

namespace ws::user {
namespace {

namespace fs = std::filesystem;

GpuRequest made_request() {
  GpuRequest q;
  q.cubin = {'\x7f', 'E', 'L', 'F'};
  q.arrays = {{}, {'a', 'b', 'c', 'd'}, {}};
  q.made = {{GpuFill::Generated, 4096, {Fill::IntRange, -3, 9}},
            {GpuFill::Given, 4, {}},
            {GpuFill::Poisoned, 64, {}}};
  q.seed = 0x1234567890ull;
  q.outputs = GpuOutputs::Check;
  q.ref.kind = RefKind::Transpose;
  q.ref.n = 4;
  q.ref.count = 16;
  q.ref.a = 0;
  q.ref.out = 2;
  q.args = {{true, 0, 0}, {true, 2, 0}, {false, 0, 4}};
  return q;
}

TEST(GpuTimingProtocol, MadeArraysSeedOutputsAndReferenceRoundTrip) {
  const GpuRequest q = made_request();
  const std::string blob = encode(q);
  GpuRequest b;
  std::string why;
  ASSERT_TRUE(decode(blob, b, why)) << why;
  ASSERT_EQ(b.made.size(), 3u);
  EXPECT_EQ(b.made[0].how, GpuFill::Generated);
  EXPECT_EQ(b.made[0].bytes, 4096u);
  EXPECT_EQ(b.made[0].gen.fill, Fill::IntRange);
  EXPECT_EQ(b.made[0].gen.lo, -3);
  EXPECT_EQ(b.made[0].gen.hi, 9);
  EXPECT_EQ(b.made[1].how, GpuFill::Given);
  EXPECT_EQ(b.made[2].how, GpuFill::Poisoned);
  EXPECT_EQ(b.seed, q.seed);
  EXPECT_EQ(b.outputs, GpuOutputs::Check);
  EXPECT_EQ(b.ref.kind, RefKind::Transpose);
  EXPECT_EQ(b.ref.n, 4u);
  EXPECT_EQ(b.ref.out, 2u);
  EXPECT_EQ(request_bytes(b, 0), 4096u);
  EXPECT_EQ(request_bytes(b, 1), 4u);
  for (std::size_t n = 0; n < blob.size(); ++n) EXPECT_FALSE(decode(blob.substr(0, n), b, why)) << n;

  // What does not fit its arrays is refused, saying so.
  auto refused = [&](GpuRequest bad, const std::string& words) {
    EXPECT_FALSE(decode(encode(bad), b, why)) << words;
    EXPECT_NE(why.find(words), std::string::npos) << why;
  };
  GpuRequest bad = q;
  bad.made[1].bytes = 8;  // Given, but 4 bytes sent
  refused(bad, "made array 1");
  bad = q;
  bad.made[0].bytes = 4095;  // not whole words
  refused(bad, "made array 0");
  bad = q;
  bad.arrays[0] = {'x'};  // bytes sent for a generated array
  refused(bad, "made array 0");
  bad = q;
  bad.made.pop_back();
  refused(bad, "makes 2 arrays of 3");
  bad = q;
  bad.ref.kind = RefKind::None;  // a check without a reference
  refused(bad, "a check it cannot have");
  bad = q;
  bad.ref.out = 3;
  refused(bad, "a check it cannot have");

  GpuReply r;
  r.device = "d";
  r.checked = true;
  r.check.mismatches = 3;
  r.check.first = 17;
  r.check.got = 0.5;
  r.check.want = -0.25;
  r.samples_ms = {1.5};
  GpuReply rb;
  const std::string rblob = encode(r);
  ASSERT_TRUE(decode(rblob, rb, why)) << why;
  EXPECT_TRUE(rb.checked);
  EXPECT_EQ(rb.check.mismatches, 3u);
  EXPECT_EQ(rb.check.first, 17);
  EXPECT_EQ(rb.check.got, 0.5);
  EXPECT_EQ(rb.check.want, -0.25);
  for (std::size_t n = 0; n < rblob.size(); ++n) EXPECT_FALSE(decode(rblob.substr(0, n), rb, why)) << n;

  // A reply fits the request's outputs: a check when asked, no arrays then, a first wrong
  // element inside the output.
  GpuRequest qt = q;
  EXPECT_EQ(check_reply(qt, r), "");
  GpuReply arrays = r;
  arrays.arrays = {{}, {}, {}};
  EXPECT_NE(check_reply(qt, arrays), "");
  GpuReply outside = r;
  outside.check.first = 64;  // the output has 64 bytes
  EXPECT_NE(check_reply(qt, outside), "");
  GpuReply unchecked = r;
  unchecked.checked = false;
  EXPECT_EQ(check_reply(qt, unchecked), "no check of the output");
  qt.outputs = GpuOutputs::None;
  EXPECT_EQ(check_reply(qt, unchecked), "");
  EXPECT_EQ(check_reply(qt, r), "a check it was not asked for");
}

// For every puzzle's job: the request time_cuda sends (specs, no bytes) is made by the
// runner into the arrays the host fills (fill_inputs, outputs poisoned), through the runner
// process itself (its echo mode replies the arrays it made).
TEST(GpuTimingProtocol, GeneratedInputsAreTheArraysTheHostFills) {
  int n = 0;
  for (const auto& f : puzzle::list_files(std::string(WS_SOURCE_DIR) + "/puzzles")) {
    puzzle::Puzzle p;
    std::vector<puzzle::Error> e;
    ASSERT_TRUE(puzzle::parse_file(f, p, e)) << f;
    const VariantInfo* job = find_variant(p.family, p.variant);
    ASSERT_NE(job, nullptr) << f;
    Params at;
    ASSERT_EQ(validate(*job, p.params, DeviceLimits{}, at), "") << f;
    const Plan plan = job->plan(at);
    GpuRequest q;
    request_made(plan, 77, true, q);
    EXPECT_EQ(q.outputs, plan.ref.kind != RefKind::None ? GpuOutputs::Check : GpuOutputs::Arrays) << f;
    std::size_t sent = 0;
    for (const auto& a : q.arrays) sent += a.size();
    EXPECT_EQ(sent, 0u) << f << ": no array's bytes travel";
    HostArrays h = HostArrays::allocate(plan);
    fill_inputs(h, plan, 77);
    q.outputs = GpuOutputs::Arrays;  // the echo replies what it made
    q.simulate = "echo";
    const GpuReply r = run_in_runner(q, RunnerLimits{});
    ASSERT_EQ(r.error, "") << f;
    ASSERT_EQ(r.arrays.size(), h.data.size()) << f;
    for (std::size_t i = 0; i < h.data.size(); ++i) {
      std::vector<char> want(h.data[i].size());
      if (plan.arrays[i].output)
        std::fill(want.begin(), want.end(), char(0xFF));
      else
        std::memcpy(want.data(), h.data[i].data(), want.size());
      EXPECT_TRUE(r.arrays[i] == want) << f << ": array " << plan.arrays[i].name;
    }
    ++n;
  }
  EXPECT_GE(n, 10);
  // A timing round asks nothing back.
  GpuRequest q;
  request_made(Plan{}, 1, false, q);
  EXPECT_EQ(q.outputs, GpuOutputs::None);
}

bool have_gpu() {
  std::string why;
  return gpu_available(why);
}

// Puzzle 04's solution with one element of the output wrong (block (3, 2), thread (1, 0)).
std::string wrong_solution(const std::string& right) {
  std::ifstream in(right);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t end = s.rfind('}');
  s.insert(end, "  if (blockIdx.x == 3 && blockIdx.y == 2 && threadIdx.x == 1 && threadIdx.y == 0) out[y * n + x] = 7.0f;\n");
  const fs::path d = fs::path(WS_BINARY_DIR) / "test-gpu-timing";
  fs::create_directories(d);
  const std::string path = (d / "04-wrong.cu").string();
  std::ofstream(path) << s;
  return path;
}

// The device's check (plan.ref) against the host's (the plan without its reference: the
// outputs come back and the job's verify runs here, as the old path did), at the timing size.
TEST(GpuTiming, TheDevicesCheckGivesTheHostsVerdictAtTheTimingSize) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  const std::string pf = std::string(WS_SOURCE_DIR) + "/puzzles/04-transpose-shared.md";
  puzzle::Puzzle p;
  std::vector<puzzle::Error> e;
  ASSERT_TRUE(puzzle::parse_file(pf, p, e));
  const VariantInfo* job = find_variant(p.family, p.variant);
  ASSERT_NE(job, nullptr);
  VariantInfo on_host = *job;
  on_host.plan = [orig = job->plan](const Params& at) {
    Plan pl = orig(at);
    pl.ref = {};
    return pl;
  };
  const Params at = puzzle::timing_params(p);
  ASSERT_NE(job->plan(at).ref.kind, RefKind::None);
  RunOptions o;
  o.repeats = 10;
  KernelSpec spec = p.spec;
  for (const bool wrong : {false, true}) {
    spec.source_path = wrong ? wrong_solution(puzzle::solution_path(pf)) : puzzle::solution_path(pf);
    Compiled c;
    const RunResult dev = time_cuda(spec, *job, at, o, c);
    const RunResult host = time_cuda(spec, on_host, at, o, c);
    ASSERT_EQ(dev.error, "") << wrong;
    ASSERT_EQ(host.error, "") << wrong;
    EXPECT_EQ(dev.verified, !wrong) << dev.verify_message;
    EXPECT_EQ(host.verified, !wrong) << host.verify_message;
    if (wrong) {
      EXPECT_NE(dev.verify_message.find("1 element wrong"), std::string::npos) << dev.verify_message;
      // The same element: the device names it flat ("out[i]"), the family's host check by
      // row and column ("out[r][c]").
      long long i = -1, r = -1, col = -1;
      const std::size_t at_out = dev.verify_message.find("out[");
      ASSERT_NE(at_out, std::string::npos) << dev.verify_message;
      std::sscanf(dev.verify_message.c_str() + at_out, "out[%lld]", &i);
      std::sscanf(host.verify_message.c_str(), "out[%lld][%lld]", &r, &col);
      EXPECT_EQ(i, r * at.at("n") + col) << dev.verify_message << " / " << host.verify_message;
      EXPECT_NE(dev.verify_message.find("7"), std::string::npos) << dev.verify_message;
    }
    EXPECT_GT(dev.timing.median_ms, 0);
    EXPECT_EQ(dev.timing.source.source, sim::Source::Measured);
    // A timing round: timed, not checked.
    const RunResult round = time_cuda(spec, *job, at, o, c, Limits{}, /*verify=*/false);
    ASSERT_EQ(round.error, "");
    EXPECT_FALSE(round.verified);
    EXPECT_EQ(round.verify_message, "not checked: a timing round");
    EXPECT_GT(round.timing.median_ms, 0);
  }
}

// The runner's inputs made on the device are the host's words: puzzle 04's solution run on
// a request of specs (its puzzle size), every array sent back: the input equals fill_inputs'
// and the output its transpose (the host's check_reference).
TEST(GpuTiming, TheDevicesInputsAreTheHostsWords) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  const std::string pf = std::string(WS_SOURCE_DIR) + "/puzzles/04-transpose-shared.md";
  puzzle::Puzzle p;
  std::vector<puzzle::Error> e;
  ASSERT_TRUE(puzzle::parse_file(pf, p, e));
  const VariantInfo* job = find_variant(p.family, p.variant);
  Params at;
  ASSERT_EQ(validate(*job, p.params, DeviceLimits{}, at), "");
  const Plan plan = job->plan(at);
  std::string why, arch;
  ASSERT_TRUE(gpu_available(why, &arch)) << why;
  const CudaGpuBuild b = compile_cuda_nvrtc(puzzle::solution_path(pf), arch);
  ASSERT_TRUE(b.compiled.ok) << b.compiled.log;
  GpuRequest q;
  q.plain = true;
  q.cubin = b.cubin;
  q.entry = b.lowered;
  request_made(plan, 5, true, q);
  q.outputs = GpuOutputs::Arrays;
  auto index = [&](const std::string& name) {
    std::uint32_t i = 0;
    while (i < plan.arrays.size() && plan.arrays[i].name != name) ++i;
    return i;
  };
  ASSERT_EQ(b.params.size(), 3u);  // (const float* in, float* out, int n)
  q.args = {{true, index(b.params[0].name), 0}, {true, index(b.params[1].name), 0},
            {false, 0, at.at(b.params[2].name)}};
  const GpuReply r = run_in_runner(q, RunnerLimits{});
  ASSERT_EQ(r.error, "");
  HostArrays h = HostArrays::allocate(plan);
  fill_inputs(h, plan, 5);
  ASSERT_EQ(r.arrays.size(), h.data.size());
  for (std::size_t i = 0; i < h.data.size(); ++i) {
    if (plan.arrays[i].output) continue;
    EXPECT_EQ(std::memcmp(r.arrays[i].data(), h.data[i].data(), h.data[i].size()), 0) << plan.arrays[i].name;
  }
  for (std::size_t i = 0; i < h.data.size(); ++i)
    std::memcpy(h.data[i].data(), r.arrays[i].data(), h.data[i].size());
  ASSERT_NE(plan.ref.kind, RefKind::None);
  EXPECT_EQ(check_reference(plan.ref, h).mismatches, 0u);
}

// The whole check of puzzle 04 at the timing size: the wrong kernel fails its check, the
// solution meets its time target, and a timing round's run is short (no arrays travel).
TEST(GpuTiming, AWrongElementFailsTheTimeTargetsCheckAndTheRoundsAreShort) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  const std::string pf = std::string(WS_SOURCE_DIR) + "/puzzles/04-transpose-shared.md";
  puzzle::Puzzle p;
  std::vector<puzzle::Error> e;
  ASSERT_TRUE(puzzle::parse_file(pf, p, e));
  const VariantInfo* job = find_variant(p.family, p.variant);
  KernelSpec spec = p.spec;
  spec.source_path = wrong_solution(puzzle::solution_path(pf));
  RunOptions o;
  Compiled c;
  const RunResult r = time_cuda(spec, *job, puzzle::timing_params(p), o, c);
  EXPECT_EQ(r.error, "");
  EXPECT_FALSE(r.verified);
  spec.source_path = puzzle::solution_path(pf);
  const auto t0 = std::chrono::steady_clock::now();
  const RunResult round = time_cuda(spec, *job, puzzle::timing_params(p), o, c, Limits{}, false);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(round.error, "");
  EXPECT_LT(s, 3.0) << "a timing round at " << to_string(puzzle::timing_params(p));
  std::printf("a timing round of puzzle 04 at its timing size: %.2f s\n", s);
}

}  // namespace
}  // namespace ws::user
