// A recording's runs are tied to the family header they were measured from: a run whose
// header changed since is stale, and find() leaves it out, so the app models that time
// again instead of showing a measurement of code that no longer exists. The recorded
// backend answers a recorded configuration from the recording without emulating it
// (checked by counting the emulator's runs, never by a clock).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "kernels/hardware/recording.h"

namespace ws {
namespace {

Recording one_run(const std::string& hash) {
  Recording rec;
  rec.device.name = "test GPU";
  RecordedRun r;
  r.family = "transpose";
  r.variant = "tiled";
  r.params = {{"n", 1024}};
  r.source_hash = hash;
  r.timing.median_ms = r.timing.min_ms = r.timing.max_ms = 0.25;  // a time is positive
  rec.runs.push_back(r);
  return rec;
}

// The text of a one-run recording whose timing is `timing` (JSON).
std::string with_timing(const std::string& timing) {
  std::string text = recording_json(one_run(""));
  const auto at = text.find("\"timing\"");
  const auto open = text.find('{', at), close = text.find('}', open);
  return text.substr(0, open) + timing + text.substr(close + 1);
}

// Issue 27: times -1, 0 and 1e308 were shown as recorded ("-1 GB/s", "2.98e+306 % of
// peak"). A recorded time is finite, positive and under an hour, or the file is refused
// with one line naming it and the run.
TEST(Recording, TimesThatAreNotTimesAreRefusedNamingTheFileAndTheRun) {
  Recording back;
  std::string err;
  ASSERT_TRUE(parse_recording(with_timing(R"({"median_ms": 0.5})"), "ok.json", back, err)) << err;
  EXPECT_EQ(back.runs.at(0).timing.median_ms, 0.5);
  for (const char* bad : {R"({"median_ms": -1})", R"({"median_ms": 0})", R"({"median_ms": 1e308})",
                          R"({"median_ms": 1, "min_ms": -5})", R"({"median_ms": 1, "max_ms": 0.5})",
                          R"({"median_ms": "fast"})", R"({})", R"({"median_ms": 1, "throughput": -3})"}) {
    Recording r;
    err.clear();
    EXPECT_FALSE(parse_recording(with_timing(bad), "bad.json", r, err)) << bad;
    EXPECT_EQ(err.rfind("bad.json: ", 0), 0u) << err;
    EXPECT_NE(err.find("run 1 (transpose/tiled)"), std::string::npos) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  }
  Recording r;
  EXPECT_FALSE(parse_recording(with_timing(R"({"median_ms": 1e308})"), "huge.json", r, err));
  EXPECT_NE(err.find("median_ms 1e+308 is not a time"), std::string::npos) << err;
}

// A truncated file was a silent fall back to modelled times; a directory gave "internal
// error: basic_filebuf::underflow". Both are one line naming the file.
TEST(Recording, ATruncatedFileOrADirectoryIsAnErrorNamingIt) {
  const std::string dir = testing::TempDir() + "/ws-recording-dir";
  std::filesystem::create_directories(dir);
  Recording r;
  std::string err;
  EXPECT_FALSE(load_recording(dir, r, err));
  EXPECT_EQ(err, "recording " + dir + " is a directory, not a file");
  const std::string path = testing::TempDir() + "/ws-recording-cut.json";
  const std::string whole = recording_json(one_run(""));
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_TRUE(f);
  std::fwrite(whole.data(), 1, whole.size() / 2, f);
  std::fclose(f);
  EXPECT_FALSE(load_recording(path, r, err));
  EXPECT_EQ(err.rfind(path + ": not a readable recording", 0), 0u) << err;
  std::remove(path.c_str());
  std::filesystem::remove(dir);
}

TEST(Recording, FamilySourceHashIsTheHeadersFnv1a) {
  const std::string h = family_source_hash("kernels/families/transpose.cuh");
  ASSERT_EQ(h.size(), 16u) << "the source tree is found from the test binary";
  EXPECT_EQ(h, family_source_hash("kernels/families/transpose.cuh"));
  EXPECT_NE(h, family_source_hash("kernels/families/reduce.cuh"));
  EXPECT_EQ(family_source_hash("kernels/no-such-family.cuh"), "");
}

TEST(Recording, ARunOfChangedSourceIsStaleAndNotFound) {
  const Recording current = one_run(family_source_hash("kernels/families/transpose.cuh"));
  EXPECT_FALSE(current.is_stale(current.runs[0]));
  EXPECT_NE(current.find("transpose", "tiled", {{"n", 1024}}), nullptr);
  EXPECT_EQ(current.stale_families(), "");

  const Recording old = one_run("0123456789abcdef");
  EXPECT_TRUE(old.is_stale(old.runs[0]));
  EXPECT_EQ(old.find("transpose", "tiled", {{"n", 1024}}), nullptr);
  EXPECT_EQ(old.stale_families(), "transpose");

  // A run recorded before hashes were kept is taken as it is.
  const Recording legacy = one_run("");
  EXPECT_FALSE(legacy.is_stale(legacy.runs[0]));
  EXPECT_NE(legacy.find("transpose", "tiled", {{"n", 1024}}), nullptr);
}

TEST(Recording, TheHashSurvivesTheFile) {
  const Recording rec = one_run("00000000000000ff");
  const std::string path = testing::TempDir() + "/ws-recording-hash.json";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_TRUE(f);
    const std::string text = recording_json(rec);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  Recording back;
  std::string err;
  ASSERT_TRUE(load_recording(path, back, err)) << err;
  ASSERT_EQ(back.runs.size(), 1u);
  EXPECT_EQ(back.runs[0].source_hash, "00000000000000ff");
  EXPECT_TRUE(back.is_stale(back.runs[0]));
  std::remove(path.c_str());
}

// The emulator, counting the runs it is asked for: a test of "no emulation" holds this
// count at zero.
class CountingEmu : public Backend {
 public:
  explicit CountingEmu(int* runs) : runs_(runs) {}
  BackendKind kind() const override { return inner_->kind(); }
  DeviceInfo device() const override { return inner_->device(); }
  RunResult run(const std::string& f, const std::string& v, const Params& p,
                const RunOptions& o) override {
    ++*runs_;
    return inner_->run(f, v, p, o);
  }
  PeerResult run_peer(Peer p, const Params& pp, const RunOptions& o) override {
    return inner_->run_peer(p, pp, o);
  }
  double expected_work(const std::string& f, const std::string& v, const Params& p,
                       const RunOptions& o) const override {
    return inner_->expected_work(f, v, p, o);
  }
  std::string refusal(const std::string& f, const std::string& v, const Params& p,
                      const RunOptions& o) const override {
    return inner_->refusal(f, v, p, o);
  }

 private:
  int* runs_;
  std::unique_ptr<Backend> inner_ = make_emu_backend();
};

Params complete(const std::string& f, const std::string& v, const Params& given) {
  Params out;
  EXPECT_EQ(validate(*find_variant(f, v), given, DeviceLimits{}, out), "");
  return out;
}

RecordedRun recorded(const std::string& f, const std::string& v, const Params& given,
                     double ms, bool with_counts) {
  RecordedRun r;
  r.family = f;
  r.variant = v;
  r.params = complete(f, v, given);
  r.verified = true;
  r.timing.median_ms = r.timing.min_ms = r.timing.max_ms = ms;
  r.timing.samples_ms = {ms};
  r.timing.throughput = 1234;
  r.timing.unit = "GB/s";
  if (with_counts) {
    sim::Totals t;
    t.global_ld_requests = 1000;
    t.global_ld_sectors = 4000;
    t.events = 77;
    r.totals = t;
    const std::size_t launches = find_variant(f, v)->plan(r.params).launches.size();
    for (std::size_t i = 0; i < launches; ++i) {
      sim::Totals l;
      l.global_ld_requests = 1000 - i;  // the two launches of two_pass differ
      r.launch_totals.push_back(l);
    }
  }
  return r;
}

// Sizes the emulator refuses (2^26 floats) and one it takes 40 s over (transpose at 8192).
Recording big_recording() {
  Recording rec;
  rec.device.name = "test GPU";
  rec.date = "2026-11-25T15:29:31Z";
  rec.path = "test.json";
  rec.runs.push_back(recorded("reduce", "sequential", {{"n", 1 << 26}}, 0.25, true));
  rec.runs.push_back(recorded("reduce", "two_pass", {{"n", 1 << 26}}, 0.3, true));
  rec.runs.push_back(recorded("reduce", "first_add", {{"n", 1 << 26}}, 0.5, false));
  rec.runs.push_back(recorded("transpose", "tiled", {{"n", 8192}, {"pad", 1}}, 0.9, false));
  rec.runs.push_back(recorded("transpose", "naive", {{"n", 64}}, 0.01, true));
  for (RecordedRun& r : rec.runs) r.timing.source = rec.source();  // as load_recording does
  return rec;
}

RunOptions bench_options() {  // what `bench` asks of the emulator: time and counts
  RunOptions o;
  o.timing = true;
  o.totals = true;
  o.keep_blocks.clear();
  return o;
}

TEST(RecordedBackend, ATooLargeRecordedConfigurationIsAnsweredWithoutEmulating) {
  const Recording rec = big_recording();
  int runs = 0;
  auto b = make_recorded_backend(std::make_unique<CountingEmu>(&runs), &rec);
  const RunOptions o = bench_options();
  // The premise: the emulator alone refuses it.
  EXPECT_NE(make_emu_backend()->refusal("reduce", "sequential", {{"n", 1 << 26}}, o), "");
  EXPECT_EQ(b->refusal("reduce", "sequential", {{"n", 1 << 26}}, o), "");
  EXPECT_EQ(b->expected_work("reduce", "sequential", {{"n", 1 << 26}}, o), 1);
  const RunResult r = b->run("reduce", "sequential", {{"n", 1 << 26}}, o);
  EXPECT_EQ(runs, 0) << "the emulator ran for a recorded configuration";
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.timing.source, rec.source());
  EXPECT_DOUBLE_EQ(r.timing.median_ms, 0.25);
  EXPECT_EQ(r.counts, CountsSource::Recorded);
  EXPECT_EQ(r.counts_label, "model counts recorded on test GPU, 2026-11-25");
  EXPECT_EQ(r.totals.global_ld_sectors, 4000u);
  ASSERT_EQ(r.launches.size(), 1u);
  EXPECT_EQ(r.launches[0].totals.global_ld_requests, 1000u);
  // Two launches: each its own recorded counts.
  const RunResult two = b->run("reduce", "two_pass", {{"n", 1 << 26}}, o);
  ASSERT_EQ(two.launches.size(), 2u);
  EXPECT_EQ(two.launches[1].totals.global_ld_requests, 999u);
  // Counts alone (what `metrics` asks): the recording's too.
  RunOptions counts = o;
  counts.timing = false;
  const RunResult c = b->run("reduce", "sequential", {{"n", 1 << 26}}, counts);
  EXPECT_EQ(c.error, "");
  EXPECT_EQ(c.counts, CountsSource::Recorded);
  EXPECT_EQ(c.totals.events, 77u);
  EXPECT_EQ(runs, 0);
  // An unrecorded size as large is still refused, before it runs.
  EXPECT_NE(b->refusal("reduce", "sequential", {{"n", 1 << 26}, {"block", 128}}, o), "");
}

// Recordings made before `record` traced every configuration: the time, and "counts not
// recorded" instead of emulating a configuration too large (or too slow) to emulate.
TEST(RecordedBackend, AnOlderRecordingWithoutCountsGivesTheTimeAndSaysSo) {
  const Recording rec = big_recording();
  int runs = 0;
  auto b = make_recorded_backend(std::make_unique<CountingEmu>(&runs), &rec);
  const RunResult r = b->run("reduce", "first_add", {{"n", 1 << 26}}, bench_options());
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.counts, CountsSource::NotRecorded);
  EXPECT_NE(r.counts_label.find("not recorded"), std::string::npos) << r.counts_label;
  EXPECT_EQ(r.totals.events, 0u);
  EXPECT_TRUE(r.launches.empty());
  EXPECT_DOUBLE_EQ(r.timing.median_ms, 0.5);
  // Emulating transpose at 8192 takes about 40 s: the recorded time is shown at once.
  const RunResult t = b->run("transpose", "tiled", {{"n", 8192}, {"pad", 1}}, bench_options());
  ASSERT_EQ(t.error, "");
  EXPECT_EQ(t.counts, CountsSource::NotRecorded);
  EXPECT_DOUBLE_EQ(t.timing.median_ms, 0.9);
  EXPECT_EQ(runs, 0) << "the emulator ran for a recorded configuration";
  // Too large to emulate and only counts wanted: still none invented, none emulated.
  RunOptions counts = bench_options();
  counts.timing = false;
  EXPECT_EQ(b->run("reduce", "first_add", {{"n", 1 << 26}}, counts).counts,
            CountsSource::NotRecorded);
  EXPECT_EQ(runs, 0);
}

TEST(RecordedBackend, QuickCountsAreEmulatedBesideTheRecordedTime) {
  const Recording rec = big_recording();
  int runs = 0;
  auto b = make_recorded_backend(std::make_unique<CountingEmu>(&runs), &rec);
  const RunResult r = b->run("transpose", "naive", {{"n", 64}}, bench_options());
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(runs, 1);  // its sites and verification come from this machine
  EXPECT_EQ(r.counts, CountsSource::Run);
  EXPECT_EQ(r.timing.source, rec.source());
  EXPECT_GT(r.totals.global_st_sectors, 0u);
  EXPECT_FALSE(r.launches.empty());
  EXPECT_FALSE(r.launches[0].sites.empty());
  // Time only: nothing to emulate.
  RunOptions time_only = bench_options();
  time_only.totals = false;
  EXPECT_EQ(b->run("transpose", "naive", {{"n", 64}}, time_only).timing.source, rec.source());
  EXPECT_EQ(runs, 1);
}

// Every counter of the model survives the file (a field left out of the recording read 0:
// a tensor kernel's HMMA and cp.async counts did).
TEST(Recording, EveryCounterSurvivesTheFile) {
  Recording rec = big_recording();
  sim::Totals t;
  auto* f = reinterpret_cast<std::uint64_t*>(static_cast<sim::Counters*>(&t));
  for (int i = 0; i < sim::kCounterFields; ++i) f[i] = std::uint64_t(1000 + i);
  rec.runs[0].totals = t;
  Recording back;
  std::string err;
  ASSERT_TRUE(parse_recording(recording_json(rec), "t.json", back, err)) << err;
  ASSERT_TRUE(back.runs[0].totals.has_value());
  const auto* g = reinterpret_cast<const std::uint64_t*>(
      static_cast<const sim::Counters*>(&*back.runs[0].totals));
  for (int i = 0; i < sim::kCounterFields; ++i) EXPECT_EQ(g[i], f[i]) << "counter field " << i;
}

TEST(Recording, CountsPerLaunchSurviveTheFileAndOldFilesStillRead) {
  const Recording rec = big_recording();
  Recording back;
  std::string err;
  ASSERT_TRUE(parse_recording(recording_json(rec), "t.json", back, err)) << err;
  ASSERT_EQ(back.runs.size(), rec.runs.size());
  EXPECT_EQ(back.runs[1].launch_totals.size(), 2u);
  EXPECT_EQ(back.runs[1].launch_totals[1].global_ld_requests, 999u);
  EXPECT_FALSE(back.runs[2].totals.has_value());
  EXPECT_TRUE(back.runs[2].launch_totals.empty());
  // The counters under Nsight Compute's names are written beside them.
  EXPECT_NE(recording_json(rec).find("\"launches\""), std::string::npos);
  EXPECT_NE(recording_json(rec).find("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
            std::string::npos);
}

// The shipped H100 recording holds every reduction at 2^26 floats (the lessons' timing
// size): each is answered, and none emulated.
TEST(RecordedBackend, TheShippedRecordingAnswersEveryReductionAt2To26) {
  const Recording* rec = default_recording();
  if (!rec) GTEST_SKIP() << "no recording in assets/recordings";
  int runs = 0;
  auto b = make_recorded_backend(std::make_unique<CountingEmu>(&runs), rec);
  int variants = 0;
  for (const VariantInfo& v : catalogue()) {
    if (v.family != "reduce") continue;
    ++variants;
    const RunResult r = b->run("reduce", v.name, {{"n", 1 << 26}}, bench_options());
    EXPECT_EQ(r.error, "") << v.name;
    EXPECT_EQ(r.timing.source, rec->source()) << v.name;
    EXPECT_NE(r.counts, CountsSource::Run) << v.name;
  }
  EXPECT_EQ(variants, 11);
  EXPECT_EQ(runs, 0);
}

}  // namespace
}  // namespace ws
