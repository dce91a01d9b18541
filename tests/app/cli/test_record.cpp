// `warpscope record` end to end without a GPU: a stand-in backend that says it is CUDA
// (it runs the emulator for the outputs and invents a time that depends on the
// configuration), the recording written and read back, and the emulator answering timed
// runs from it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "app/cli/record.h"
#include "kernels/hardware/recording.h"

using namespace ws;
namespace fs = std::filesystem;

namespace {

// Claims to be a GPU: times are 1 ms per million logical bytes, peers a fixed 2000 GB/s.
class FakeGpu : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::Cuda; }
  DeviceInfo device() const override {
    DeviceInfo d = emu_->device();
    d.name = "Fake GPU 80GB";
    d.driver = "1.0";
    d.peak_gbps = 3000;
    return d;
  }
  RunResult run(const std::string& f, const std::string& v, const Params& p,
                const RunOptions& opt) override {
    ++runs;
    RunOptions o = opt;
    o.timing = false;
    RunResult r = emu_->run(f, v, p, o);
    if (!r.error.empty()) return r;
    r.timing.source = sim::Provenance::measured("Fake GPU 80GB");
    r.timing.median_ms = r.plan.logical_bytes / 1e6;
    r.timing.min_ms = r.timing.median_ms * 0.99;
    r.timing.max_ms = r.timing.median_ms * 1.02;
    r.timing.samples_ms.assign(std::size_t(opt.repeats), r.timing.median_ms);
    r.timing.throughput = 1000;
    r.timing.unit = "GB/s";
    r.regs_per_thread = 40;
    return r;
  }
  PeerResult run_peer(Peer p, const Params&, const RunOptions&) override {
    PeerResult r;
    r.peer = p;
    r.timing.source = sim::Provenance::measured("Fake GPU 80GB");
    r.timing.median_ms = 0.5;
    r.timing.throughput = 2000;
    r.timing.unit = "GB/s";
    return r;
  }
  int runs = 0;

 private:
  std::unique_ptr<Backend> emu_ = make_emu_backend();
};

fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / ("ws_record_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST(Record, SlugOfADeviceName) {
  EXPECT_EQ(cli::recording_slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(cli::recording_slug("  --"), "gpu");
}

TEST(Record, StandardTargetsAreValidAndCoverEveryVariant) {
  const auto targets = cli::standard_targets();
  ASSERT_FALSE(targets.empty());
  for (const auto& v : catalogue()) {
    bool found = false;
    for (const auto& t : targets) found = found || (t.family == v.family && t.variant == v.name);
    EXPECT_TRUE(found) << v.family << "/" << v.name;
  }
  // The honest sizes of the lessons are among them.
  bool transpose8k = false;
  for (const auto& t : targets)
    transpose8k = transpose8k || (t.family == "transpose" && t.params.count("n") &&
                                  t.params.at("n") == 8192);
  EXPECT_TRUE(transpose8k);
}

TEST(Record, RefusesTheEmulator) {
  auto emu = make_emu_backend();
  std::ostringstream out, err;
  cli::RecordOptions o;
  o.out = (temp_dir() / "x.json").string();
  EXPECT_EQ(cli::record(*emu, o, out, err), 2);
  EXPECT_NE(err.str().find("record needs a GPU"), std::string::npos) << err.str();
  EXPECT_FALSE(fs::exists(o.out));
}

// A small recording through the real record() path, with only a lesson's target: the
// standard set is sized for a GPU.
TEST(Record, WritesAndTheEmulatorAnswersFromIt) {
  FakeGpu gpu;
  const fs::path dir = temp_dir();
  cli::RecordOptions o;
  o.out = (dir / "fake.json").string();
  o.repeats = 3;
  o.standard = false;
  o.lessons = {"lesson.md"};
  o.lesson_timed = [](const std::string& file, std::vector<RecordTarget>& out, std::string&) {
    out.push_back({"transpose", "naive", {{"n", 64}}, file + ":1"});
    return true;
  };
  std::ostringstream out, err;
  const int rc = cli::record(gpu, o, out, err);
  ASSERT_EQ(rc, 0) << err.str();
  EXPECT_NE(out.str().find("on Fake GPU 80GB to " + o.out), std::string::npos) << out.str();

  Recording rec;
  std::string why;
  ASSERT_TRUE(load_recording(o.out, rec, why)) << why;
  EXPECT_EQ(rec.device.name, "Fake GPU 80GB");
  EXPECT_EQ(rec.source(), sim::Provenance::recorded("Fake GPU 80GB", rec.date.substr(0, 10)));
  EXPECT_EQ(sim::long_label(rec.source()), "recorded on Fake GPU 80GB, " + rec.date.substr(0, 10));
  // The lesson's configuration, complete, with counters (small enough to trace).
  Params def;
  const VariantInfo* naive = find_variant("transpose", "naive");
  ASSERT_EQ(validate(*naive, {{"n", 64}}, DeviceLimits{}, def), "");
  const RecordedRun* rr = rec.find("transpose", "naive", def);
  ASSERT_NE(rr, nullptr);
  EXPECT_TRUE(rr->verified);
  EXPECT_EQ(rr->regs_per_thread, 40);
  ASSERT_TRUE(rr->totals.has_value());
  EXPECT_GT(rr->totals->global_st_sectors, 0u);
  EXPECT_DOUBLE_EQ(rr->copy_gbps, 2000);
  EXPECT_NE(rec.find_peer(Peer::MemcpyD2D, {{"bytes", 64 * 64 * 4}}), nullptr);

  // The emulator with the recording: a recorded configuration's time is the measurement,
  // labelled; its counts are the emulator's.
  auto b = make_recorded_backend(make_emu_backend(), &rec);
  RunOptions ro;
  ro.timing = true;
  RunResult r = b->run("transpose", "naive", {{"n", 64}}, ro);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.timing.source, rec.source());
  EXPECT_DOUBLE_EQ(r.timing.median_ms, rr->timing.median_ms);
  EXPECT_EQ(r.totals.global_st_sectors, rr->totals->global_st_sectors);
  EXPECT_EQ(r.regs_per_thread, 40);
  // An unrecorded size stays modelled.
  RunResult m = b->run("transpose", "naive", {{"n", 96}}, ro);
  ASSERT_EQ(m.error, "");
  EXPECT_EQ(m.timing.source.source, sim::Source::Modelled);
  // Time only, unrecorded, recorded_only: an error instead of emulating.
  RunOptions only;
  only.timing = true;
  only.totals = false;
  only.keep_blocks.clear();
  only.recorded_only = true;
  EXPECT_NE(b->run("transpose", "naive", {{"n", 96}}, only).error, "");
  RunResult t = b->run("transpose", "naive", {{"n", 64}}, only);
  EXPECT_EQ(t.error, "");
  EXPECT_EQ(t.timing.source, rec.source());
  // The copy peer at the recorded size.
  PeerResult pr = b->run_peer(Peer::MemcpyD2D, {{"bytes", 64 * 64 * 4}}, ro);
  EXPECT_EQ(pr.error, "");
  EXPECT_EQ(pr.timing.source, rec.source());
  EXPECT_NE(b->run_peer(Peer::MemcpyD2D, {{"bytes", 12}}, ro).error, "");
  fs::remove_all(dir);
}

TEST(Recording, BadFilesSayWhy) {
  const fs::path dir = temp_dir();
  Recording rec;
  std::string why;
  EXPECT_FALSE(load_recording((dir / "missing.json").string(), rec, why));
  EXPECT_NE(why.find("missing.json does not exist"), std::string::npos) << why;
  std::ofstream(dir / "bad.json") << "{\"format\": 1, \"device\": {}}";
  EXPECT_FALSE(load_recording((dir / "bad.json").string(), rec, why));
  EXPECT_NE(why.find("not a readable recording"), std::string::npos) << why;
  std::ofstream(dir / "other.json") << "{\"format\": 7}";
  EXPECT_FALSE(load_recording((dir / "other.json").string(), rec, why));
  EXPECT_NE(why.find("not a warpscope recording"), std::string::npos) << why;
  fs::remove_all(dir);
}

// Issue 10 (the recording loader's fuzz target, tests/fuzz/fuzz_recording.cpp): an integer
// field holding a float or an out-of-range number was converted with a cast (undefined
// behaviour for 1e300) and accepted; it is an error naming the field now. The shipped
// recording reads back to the same JSON.
TEST(Recording, IntegersMustBeWholeAndInRange) {
  const std::string head = R"({"format": 1, "date": "d", "device": {"name": "G"}, "runs": [)";
  auto run_with = [&](const std::string& field) {
    return head + R"({"family": "transpose", "variant": "naive", "timing": {"median_ms": 1},)" +
           field + "}]}";
  };
  Recording rec;
  std::string why;
  ASSERT_TRUE(parse_recording(run_with(R"("params": {"n": 64})"), "r.json", rec, why)) << why;
  for (const auto& [field, what] : std::vector<std::pair<std::string, std::string>>{
           {R"("params": {"n": 1e300})", "parameter n"},
           {R"("params": {"n": 1.5})", "parameter n"},
           {R"("params": {"n": 18446744073709551615})", "parameter n"},
           {R"("params": {}, "regs_per_thread": 1e10)", "regs_per_thread"},
           {R"("params": 5)", "params"}}) {
    why.clear();
    EXPECT_FALSE(parse_recording(run_with(field), "r.json", rec, why)) << field;
    EXPECT_NE(why.find(what), std::string::npos) << field << ": " << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  }
  EXPECT_FALSE(parse_recording("[1, 2]", "r.json", rec, why));
  EXPECT_NE(why.find("not a warpscope recording"), std::string::npos) << why;

  const char* shipped = WS_SOURCE_DIR "/assets/recordings/nvidia-h100-80gb-hbm3.json";
  ASSERT_TRUE(load_recording(shipped, rec, why)) << why;
  EXPECT_EQ(rec.path, shipped);
  Recording again;
  ASSERT_TRUE(parse_recording(recording_json(rec), "again.json", again, why)) << why;
  EXPECT_EQ(recording_json(again), recording_json(rec));
  EXPECT_EQ(again.runs.size(), rec.runs.size());
}

namespace {

// A GPU whose short runs are noisy: the spread shrinks as the repeats grow (10 / repeats),
// like launch jitter averaging out; it counts the warm-up copies.
class NoisyGpu : public FakeGpu {
 public:
  explicit NoisyGpu(double median_ms) : median_ms_(median_ms) {}
  RunResult run(const std::string& f, const std::string& v, const Params& p,
                const RunOptions& opt) override {
    RunResult r = FakeGpu::run(f, v, p, opt);
    repeats_seen.push_back(opt.repeats);
    r.timing.median_ms = median_ms_;
    r.timing.min_ms = median_ms_ * (1 - 2.0 / opt.repeats);
    r.timing.max_ms = median_ms_ * (1 + 8.0 / opt.repeats);
    return r;
  }
  PeerResult run_peer(Peer p, const Params& pp, const RunOptions& opt) override {
    if (pp.count("bytes") && pp.at("bytes") == cli::kWarmBytes) warm_repeats = opt.repeats;
    return FakeGpu::run_peer(p, pp, opt);
  }
  std::vector<int> repeats_seen;
  int warm_repeats = 0;

 private:
  double median_ms_;
};

cli::RecordOptions one_target(const fs::path& file) {
  cli::RecordOptions o;
  o.out = file.string();
  o.repeats = 3;
  o.standard = false;
  o.force = true;
  o.lessons = {"lesson.md"};
  o.lesson_timed = [](const std::string& f, std::vector<RecordTarget>& out, std::string&) {
    out.push_back({"transpose", "naive", {{"n", 64}}, f + ":1"});
    return true;
  };
  return o;
}

}  // namespace

TEST(Record, SpreadAndWhenToRepeat) {
  Timing t;
  t.median_ms = 0.01;
  t.min_ms = 0.009;
  t.max_ms = 0.012;
  EXPECT_NEAR(cli::timing_spread(t), 0.3, 1e-9);
  EXPECT_TRUE(cli::needs_steadier(t));
  t.max_ms = 0.0105;
  t.min_ms = 0.0099;
  EXPECT_FALSE(cli::needs_steadier(t));  // 6 %: steady enough
  t.median_ms = 1.0;
  t.min_ms = 0.5;
  t.max_ms = 2.0;
  EXPECT_FALSE(cli::needs_steadier(t));  // long runs are not repeated
}

// A microsecond configuration is timed again with doubled repeats until its spread is
// under kSteadySpread or the cap, the GPU is warmed first, and the steadiest is recorded.
TEST(Record, WarmsUpAndRepeatsShortNoisyRunsUntilSteady) {
  NoisyGpu gpu(0.005);  // 5 µs
  const fs::path file = temp_dir() / "noisy.json";
  std::ostringstream out, err;
  ASSERT_EQ(cli::record(gpu, one_target(file), out, err), 0) << err.str();
  EXPECT_EQ(gpu.warm_repeats, cli::kWarmRepeats);
  EXPECT_NE(err.str().find("warm-up"), std::string::npos) << err.str();
  // 3 repeats (traced), then 6, 12, 24, 48: the cap, the spread still 10/48 > 10 %.
  ASSERT_EQ(gpu.repeats_seen.size(), std::size_t(1 + cli::kSteadyRounds));
  EXPECT_EQ(gpu.repeats_seen.back(), 3 << cli::kSteadyRounds);
  Recording rec;
  std::string why;
  ASSERT_TRUE(load_recording(file.string(), rec, why)) << why;
  ASSERT_EQ(rec.runs.size(), 1u);
  EXPECT_NEAR(cli::timing_spread(rec.runs[0].timing), 10.0 / 48, 1e-6);
}

TEST(Record, LongRunsAreNotRepeated) {
  NoisyGpu gpu(1.0);
  std::ostringstream out, err;
  ASSERT_EQ(cli::record(gpu, one_target(temp_dir() / "long.json"), out, err), 0) << err.str();
  EXPECT_EQ(gpu.repeats_seen.size(), 1u);
}
