// The command line end to end: in process through ws::cli::run (output captured), and the
// built binary for what only a process shows (exit status, one line on stderr, the demo
// without a display). Everything runs on the emulator, so no GPU is needed.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>

#include "app/cli/cli.h"
#include "app/cli/latency.h"
#include "app/cli/demo.h"
#include "app/cli/report.h"
#include "app/cli/util.h"
#include "app/paths.h"
#include "kernels/backends/backend.h"

namespace ws::cli {
namespace {

namespace fs = std::filesystem;

struct Out {
  int code = -1;
  std::string out, err;
};

Out cli(const std::vector<std::string>& args, const Hooks& h = {}) {
  std::ostringstream o, e;
  Out r;
  r.code = run(args, o, e, h);
  r.out = o.str();
  r.err = e.str();
  return r;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A fresh, empty directory per test.
fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("ws_cli_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Runs the built binary in `cwd` with `env` prefixed (e.g. "env -u DISPLAY").
Out binary(const std::string& args, const fs::path& cwd, const std::string& env = "") {
  const fs::path o = cwd / "stdout.txt", e = cwd / "stderr.txt";
  const std::string cmd = "cd '" + cwd.string() + "' && " + env + " '" WS_BINARY_DIR "/warpscope' " +
                          args + " > '" + o.string() + "' 2> '" + e.string() + "'";
  const int st = std::system(cmd.c_str());
  Out r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = slurp(o);
  r.err = slurp(e);
  return r;
}

std::size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

// ------------------------------------------------------------------------------- list

TEST(CliList, JsonDescribesEveryVariantOfTheCatalogue) {
  const Out r = cli({"list", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json j = Json::parse(r.out);
  ASSERT_TRUE(j["families"].is_array());
  std::size_t variants = 0;
  for (const auto& f : j["families"]) {
    ASSERT_TRUE(f["family"].is_string());
    for (const auto& v : f["variants"]) {
      ++variants;
      for (const char* k : {"name", "title", "why", "source_file", "entry", "params"})
        EXPECT_TRUE(v.contains(k)) << k;
      const VariantInfo* info = find_variant(f["family"], v["name"]);
      ASSERT_NE(info, nullptr) << f["family"] << "/" << v["name"];
      ASSERT_EQ(v["params"].size(), info->params.size());
      for (std::size_t i = 0; i < info->params.size(); ++i) {
        const auto& p = v["params"][i];
        EXPECT_EQ(p["name"], info->params[i].name);
        EXPECT_EQ(p["default"].get<long long>(), info->params[i].def);
        if (info->params[i].choices.empty()) {
          EXPECT_EQ(p["min"].get<long long>(), info->params[i].min);
          EXPECT_EQ(p["max"].get<long long>(), info->params[i].max);
        } else {
          EXPECT_EQ(p["choices"].get<std::vector<long long>>(), info->params[i].choices);
        }
      }
    }
  }
  EXPECT_EQ(variants, catalogue().size());
}

TEST(CliList, TextNamesFamiliesVariantsAndParameters) {
  const Out r = cli({"list"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& v : catalogue()) {
    EXPECT_NE(r.out.find(v.family), std::string::npos);
    EXPECT_NE(r.out.find(v.name + " - " + v.title), std::string::npos);
  }
  EXPECT_NE(r.out.find("--set tile="), std::string::npos);
}

// ---------------------------------------------------------------------------- metrics

TEST(CliMetrics, JsonHasExactlyTheContractKeys) {
  const Out r = cli({"metrics", "--kernel", "transpose", "--variant", "tiled", "--set", "n=64",
                     "--backend", "emu", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json j = Json::parse(r.out);
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"kernel", "variant", "params", "backend", "launches",
                                            "totals", "modelled", "verified", "device"}));
  EXPECT_EQ(j["kernel"], "transpose");
  // The model's time from these counts, with its parts; the largest part is the bound.
  const Json& m = j["modelled"];
  for (const char* k : {"time_us", "dram_us", "l1_us", "issue_us", "l2_us", "latency_us",
                        "compute_us", "launch_us"})
    EXPECT_TRUE(m[k].is_number()) << k;
  EXPECT_NEAR(m["time_us"].get<double>(),
              std::max({m["dram_us"].get<double>(), m["l1_us"].get<double>(),
                        m["issue_us"].get<double>(), m["l2_us"].get<double>(),
                        m["latency_us"].get<double>(), m["compute_us"].get<double>()}) +
                  m["launch_us"].get<double>(),
              1e-9);
  // Four blocks: waiting for one load and a barrier round outlasts the rest. Of the
  // throughput parts, pad=0's 32-way conflict (in the L1 data pipe) outweighs the bytes.
  EXPECT_EQ(m["bound"], "latency");
  EXPECT_GT(m["l1_us"].get<double>(), m["dram_us"].get<double>());
  // The fast build keeps its four rows' loads in flight (the recorded SASS); its arrays
  // fit in L2, so Little's law for DRAM does not apply.
  EXPECT_EQ(m.value("loads_in_flight", -1), 4);
  EXPECT_EQ(m.value("in_flight_us", -1.0), 0.0);
  EXPECT_EQ(j["variant"], "tiled");
  EXPECT_EQ(j["backend"], "emu");
  EXPECT_EQ(j["params"]["n"], 64);
  EXPECT_TRUE(j["params"].contains("pad"));  // defaults filled in
  EXPECT_EQ(j["verified"], true);
  ASSERT_EQ(j["launches"].size(), 1u);
  const auto& l = j["launches"][0];
  std::vector<std::string> lkeys;
  for (auto it = l.begin(); it != l.end(); ++it) lkeys.push_back(it.key());
  EXPECT_EQ(lkeys, (std::vector<std::string>{"name", "grid", "block", "metrics"}));
  EXPECT_EQ(l["grid"], Json::array({2, 2, 1}));
  EXPECT_EQ(l["block"], Json::array({32, 8, 1}));
  EXPECT_FALSE(l["metrics"].empty());
  EXPECT_EQ(l["metrics"], j["totals"]);  // one launch: its metrics are the totals
  EXPECT_TRUE(j["device"]["name"].is_string());
}

// Nsight Compute on an H100 (docs/h100-anchors.md), 1024 x 1024 floats.
struct Anchor {
  const char* variant;
  std::vector<std::string> sets;
  std::map<std::string, double> expect;
};

const char* kLdReq = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
const char* kLdSec = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
const char* kStReq = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
const char* kStSec = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
const char* kLdConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
const char* kShLdWf = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
const char* kShLdBc = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
const char* kShStWf = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
const char* kShStBc = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";

TEST(CliMetrics, TransposeTotalsEqualTheH100Anchors) {
  const std::vector<Anchor> anchors = {
      {"naive",
       {"n=1024", "tile=32", "block_rows=32"},
       {{kLdReq, 32768}, {kLdSec, 131072}, {kStReq, 32768}, {kStSec, 1048576}}},
      {"tiled",
       {"n=1024", "tile=32", "block_rows=8", "pad=0"},
       {{kLdReq, 32768}, {kLdSec, 131072}, {kStReq, 32768}, {kStSec, 131072},
        {kShLdWf, 1048576}, {kShLdBc, 1015808}, {kShStWf, 32768}, {kShStBc, 0}}},
      {"tiled",
       {"n=1024", "tile=32", "block_rows=8", "pad=1"},
       {{kLdReq, 32768}, {kLdSec, 131072}, {kStReq, 32768}, {kStSec, 131072},
        {kShLdWf, 32768}, {kShLdBc, 0}, {kShStWf, 32768}, {kShStBc, 0}}},
  };
  for (const auto& a : anchors) {
    std::vector<std::string> args = {"metrics", "--kernel", "transpose", "--variant", a.variant,
                                     "--backend", "emu", "--json"};
    for (const auto& s : a.sets) args.insert(args.end(), {"--set", s});
    const Out r = cli(args);
    ASSERT_EQ(r.code, 0) << a.variant << ": " << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j["verified"], true);
    for (const auto& [metric, value] : a.expect) {
      ASSERT_TRUE(j["totals"].contains(metric)) << metric;
      EXPECT_TRUE(j["totals"][metric].is_number_integer()) << metric;
      EXPECT_EQ(j["totals"][metric].get<double>(), value) << a.variant << " " << metric;
    }
  }
}

TEST(CliMetrics, TextShowsMetricNamesAndVerification) {
  const Out r = cli({"metrics", "--kernel", "transpose", "--variant", "naive", "--set", "n=64",
                     "--backend", "emu"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(kStSec), std::string::npos);
  EXPECT_NE(r.out.find("verified"), std::string::npos);
}

TEST(CliMetrics, FastOnlyNeedsTheCudaBackend) {
  const Out r = cli({"metrics", "--kernel", "transpose", "--variant", "naive", "--backend", "emu",
                     "--fast-only"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("--fast-only needs the cuda backend"), std::string::npos) << r.err;
}

TEST(CliMetrics, HardwareWithoutTheCudaBackendExits2NamingWhy) {
  // On the emulator, asked for by name.
  Out r = cli({"metrics", "--kernel", "transpose", "--variant", "tiled", "--backend", "emu",
               "--hardware"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("--hardware reads the GPU's counters: it needs the cuda backend"),
            std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  // With no usable GPU (this machine, or CI), the reason CUDA is unavailable is named.
  std::string why;
  if (make_cuda_backend(why)) GTEST_SKIP() << "a GPU is present";
  r = cli({"metrics", "--kernel", "transpose", "--variant", "tiled", "--hardware", "--json"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("the cuda backend is not available: " + why), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  r = cli({"metrics", "--kernel", "transpose", "--variant", "tiled", "--hardware", "--fast-only"});
  EXPECT_EQ(r.code, kExitUsage);
}

TEST(CliSass, PrintsTheRecordedSassGroupedBySourceLine) {
  const Out r = cli({"sass", "--kernel", "transpose", "--variant", "tiled"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("kernel TransposeTiled<32, 8>: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" registers, 0 spill stores, 0 spill loads"), std::string::npos);
  EXPECT_EQ(r.out.find("STALE"), std::string::npos) << "re-record assets/sass";
  // The column read of the tile: its line, then its four LDS (the loop unrolled).
  const auto at = r.out.find("= s(t.threadIdx.x, t.threadIdx.y + j);");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string after = r.out.substr(at, 400);
  int lds = 0;
  for (std::size_t p = 0; (p = after.find("  LDS ", p)) != std::string::npos; ++p) ++lds;
  EXPECT_EQ(lds, 4) << after;
  // Other parameters, another instance.
  const Out r16 = cli({"sass", "--kernel", "transpose", "--variant", "tiled", "--set", "tile=16",
                       "--set", "block_rows=4"});
  ASSERT_EQ(r16.code, kExitOk) << r16.err;
  EXPECT_NE(r16.out.find("kernel TransposeTiled<16, 4>: "), std::string::npos);
  const Out bad = cli({"sass", "--kernel", "transpose", "--variant", "nope"});
  EXPECT_EQ(bad.code, kExitUsage);
}

// The per-line counters: every line's counters add up to the launch's, and the line of
// the tile's column read holds all of the unpadded transpose's conflicts.
TEST(CliMetrics, ByLineSplitsTheLaunchBySourceLine) {
  const Out r = cli({"metrics", "--kernel", "transpose", "--variant", "tiled", "--set", "n=256",
                     "--backend", "emu", "--json", "--by-line"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& l = j["launches"][0];
  ASSERT_TRUE(l.contains("lines"));
  ASSERT_GE(l["lines"].size(), 2u);
  std::map<std::string, double> sum;
  int conflict_lines = 0;
  for (const auto& line : l["lines"]) {
    ASSERT_TRUE(line.contains("line"));
    for (const auto& [k, v] : line["metrics"].items()) sum[k] += v.get<double>();
    if (line["metrics"][kLdConflicts].get<double>() > 0) ++conflict_lines;
  }
  for (const auto& [k, v] : l["metrics"].items()) EXPECT_EQ(sum[k], v.get<double>()) << k;
  EXPECT_EQ(conflict_lines, 1);
  const Out t = cli({"metrics", "--kernel", "transpose", "--variant", "tiled", "--set", "n=256",
                     "--backend", "emu", "--by-line"});
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("by source line (kernels/families/transpose.cuh)"), std::string::npos);
  // Without the flag the JSON has no lines.
  const Out plain = cli({"metrics", "--kernel", "transpose", "--variant", "tiled", "--set",
                         "n=256", "--backend", "emu", "--json"});
  EXPECT_FALSE(nlohmann::json::parse(plain.out)["launches"][0].contains("lines"));
}

TEST(CliLatency, JsonShapeAndPercentiles) {
  StageStats s;
  s.seconds = {0.4, 0.1, 0.3, 0.2, 5.0};
  EXPECT_DOUBLE_EQ(s.percentile(0.5), 0.3);
  EXPECT_DOUBLE_EQ(s.percentile(0.95), 5.0);
  EXPECT_DOUBLE_EQ(StageStats{}.percentile(0.5), 0.0);
  LatencyReport rep;
  rep.backend = "emu";
  rep.device = "emulator";
  LatencyCase c;
  c.kernel = "transpose";
  c.variant = "tiled";
  c.params = {{"n", 8192}};
  c.stages = {{"measured", s}, {"counters", s}};
  rep.cases.push_back(c);
  const Json j = latency_json(rep);
  EXPECT_EQ(j["backend"], "emu");
  EXPECT_EQ(j["device"], "emulator");
  const auto& cj = j["cases"][0];
  EXPECT_EQ(cj["kernel"], "transpose");
  EXPECT_EQ(cj["variant"], "tiled");
  EXPECT_EQ(cj["params"]["n"], 8192);
  EXPECT_EQ(cj["stages"]["measured"]["runs"], 5);
  EXPECT_DOUBLE_EQ(cj["stages"]["measured"]["p50_s"].get<double>(), 0.3);
  EXPECT_DOUBLE_EQ(cj["stages"]["measured"]["p95_s"].get<double>(), 5.0);
  EXPECT_FALSE(cj["stages"].contains("sweep"));  // a stage that does not apply is absent
}

TEST(CliLatency, BadRunsAndBackendAreUsageErrors) {
  Out r = cli({"latency", "--backend", "emu", "--runs", "0"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("--runs must be between 1 and 1000"), std::string::npos) << r.err;
  r = cli({"latency", "--backend", "tpu"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("unknown backend 'tpu'"), std::string::npos) << r.err;
  r = cli({"metrics", "--kernel", "transpose", "--variant", "tiled", "--backend", "emu",
           "--by-line", "--fast-only"});
  EXPECT_EQ(r.code, kExitUsage);
}

// `latency --editor`: the editor's check after an edit, timed per step; its JSON parsed.
TEST(CliLatency, EditorStagesOfACheck) {
  ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  const Out r = cli({"latency", "--backend", "emu", "--runs", "2", "--json", "--editor",
                     std::string(WS_SOURCE_DIR) + "/puzzles/01-strided-copy.md"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.err.find("checked on the emulator (times modelled)"), std::string::npos) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j["backend"], "emu");
  ASSERT_EQ(j["cases"].size(), 1u);
  const Json& c = j["cases"][0];
  EXPECT_EQ(c["kernel"], "editor");
  EXPECT_EQ(c["variant"], "01-strided-copy");
  EXPECT_EQ(c["params"]["n"], 65536);  // the puzzle's own
  const Json& st = c["stages"];
  EXPECT_EQ(st["first"]["runs"], 1);  // the warm-up, apart
  for (const char* k : {"save", "compile", "trace", "targets", "verdict"}) {
    ASSERT_TRUE(st.contains(k)) << k;
    EXPECT_EQ(st[k]["runs"], 2) << k;
    EXPECT_GE(st[k]["p95_s"].get<double>(), st[k]["p50_s"].get<double>()) << k;
  }
  for (const char* k : {"run", "nvrtc", "wait"}) EXPECT_FALSE(st.contains(k)) << k;  // no GPU side
  // The system compiler's part of the build, itself timed (the rest is the front end's).
  ASSERT_TRUE(st.contains("c++"));
  EXPECT_GT(st["c++"]["p50_s"].get<double>(), 0.0);
  EXPECT_LE(st["c++"]["p50_s"].get<double>(), st["compile"]["p50_s"].get<double>());
  // Every edit is a new file: each check compiled it (no cached build answered).
  EXPECT_GT(st["compile"]["p50_s"].get<double>(), 0.0);
  EXPECT_GE(st["verdict"]["p50_s"].get<double>(),
            st["compile"]["p50_s"].get<double>() + st["trace"]["p50_s"].get<double>() - 1e-9);
}

TEST(CliLatency, OneFamilysCaseAtGivenSizes) {
  Out r = cli({"latency", "--backend", "emu", "--runs", "1", "--json", "--kernel", "histogram",
               "--set", "n=4096", "--set", "skew=50"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const Json j = Json::parse(r.out);
  ASSERT_EQ(j["cases"].size(), 1u);
  EXPECT_EQ(j["cases"][0]["kernel"], "histogram");
  EXPECT_EQ(j["cases"][0]["params"]["n"], 4096);
  EXPECT_EQ(j["cases"][0]["params"]["skew"], 50);
  EXPECT_TRUE(j["cases"][0]["stages"].contains("counters"));
  r = cli({"latency", "--backend", "emu", "--kernel", "nope"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("unknown kernel 'nope'"), std::string::npos) << r.err;
  r = cli({"latency", "--backend", "emu", "--set", "n=4096"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("--set needs --kernel"), std::string::npos) << r.err;
  r = cli({"latency", "--backend", "emu", "--editor", "/nonexistent/99-nope.md"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// ------------------------------------------------------------------------- bad input

struct Bad {
  std::vector<std::string> args;
  std::string message;  // a piece of the one line on stderr
};

TEST(CliBadInput, EveryMistakeGetsOneSpecificLineAndExitCode2) {
  const std::vector<std::string> m = {"metrics", "--backend", "emu"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = m;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const std::vector<Bad> cases = {
      {with({"--kernel", "nope", "--variant", "naive"}), "unknown kernel 'nope'"},
      {with({"--kernel", "transpose", "--variant", "nope"}), "has no variant 'nope'"},
      {with({"--kernel", "transpose", "--variant", "naive", "--set", "n1024"}),
       "bad --set 'n1024'"},
      {with({"--kernel", "transpose", "--variant", "naive", "--set", "n=abc"}), "not an integer"},
      {with({"--kernel", "transpose", "--variant", "naive", "--set", "colour=1"}),
       "unknown parameter 'colour'"},
      {with({"--kernel", "transpose", "--variant", "tiled", "--set", "tile=48"}), "tile=48"},
      {with({"--kernel", "transpose", "--variant", "tiled", "--set", "n=1000"}), "tile=32"},
      {with({"--kernel", "transpose", "--variant", "tiled", "--set", "block_rows=64"}),
       "block_rows=64"},
      {with({"--variant", "naive"}), "--kernel"},
      {{"metrics", "--kernel", "transpose", "--variant", "naive", "--backend", "gpu"},
       "unknown backend 'gpu'"},
      {{"bench", "--kernel", "transpose", "--backend", "emu", "--sweep", "tile"}, "--sweep"},
      {{"bench", "--kernel", "transpose", "--backend", "emu", "--sweep", "colour=1,2"},
       "no variant of transpose has a parameter 'colour'"},
      {{"bench", "--kernel", "transpose", "--backend", "emu", "--sweep", "pad=0,1", "--sweep",
        "pad=2"},
       "given twice"},
      {{"bench", "--kernel", "transpose", "--variant", "naive", "--all"}, "excludes"},
      {{"bench", "--kernel", "transpose", "--repeats", "0"}, "--repeats"},
      {{"trace", "--kernel", "transpose", "--variant", "naive", "--set", "n=64", "--backend",
        "emu", "--block", "4"},
       "outside the grid (4 blocks"},
      {{"export", "--kernel", "transpose", "--out", "x", "--format", "gif"},
       "unknown --format 'gif'"},
      // Output paths are refused before anything runs, not after a long sweep.
      {{"bench", "--kernel", "transpose", "--backend", "emu", "--csv", "/ws_no_such_dir/b.csv"},
       "--csv /ws_no_such_dir/b.csv: cannot write /ws_no_such_dir/b.csv: No such file or directory"},
      {{"bench", "--kernel", "transpose", "--backend", "emu", "--json", "/"},
       "--json /: / is a directory"},
      {{"export", "--kernel", "transpose", "--backend", "emu", "--out", "/tmp/"},
       "--out '/tmp/' has no file name"},
      {{"lesson", "--validate", "a.md"}, "built without lessons"},
      {{"gui"}, "built without the GUI"},
      {{"frobnicate"}, "frobnicate"},
  };
  for (const auto& c : cases) {
    const Out r = cli(c.args);
    std::string cmd;
    for (const auto& a : c.args) cmd += a + " ";
    EXPECT_EQ(r.code, kExitUsage) << cmd << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << cmd << "\nstderr: " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << cmd << "\nstderr: " << r.err;
    EXPECT_TRUE(r.out.empty()) << cmd;
  }
}

// No catalogue variant outgrows an H100's 227 KB per block (opted in), so the check is
// exercised with a smaller device: the configuration is refused before anything runs, by name.
TEST(CliBadInput, TooMuchSharedMemoryIsRefusedByName) {
  DeviceLimits small;
  small.max_shared_per_block_optin = 4096;
  const VariantInfo* tiled = find_variant("transpose", "tiled");
  ASSERT_NE(tiled, nullptr);
  std::vector<Config> cs;
  std::string err;
  // 32 x (32 + 2) floats = 4352 bytes.
  EXPECT_FALSE(make_configs({tiled}, {{"tile", 32}, {"pad", 2}}, {}, small, cs, err));
  EXPECT_NE(err.find("shared memory"), std::string::npos) << err;
  EXPECT_NE(err.find("pad=2"), std::string::npos) << err;
  EXPECT_TRUE(cs.empty());
  // A 16-float tile fits: 16 x 18 floats = 1152 bytes.
  EXPECT_TRUE(make_configs({tiled}, {{"tile", 16}, {"pad", 2}}, {}, small, cs, err)) << err;
  EXPECT_EQ(cs.size(), 1u);
}

TEST(CliBadInput, CudaRequestedWithoutAGpuSaysWhy) {
  std::string why;
  if (make_cuda_backend(why)) GTEST_SKIP() << "a CUDA device is present";
  for (const std::string cmd : {"metrics", "info"}) {
    std::vector<std::string> args = {cmd, "--backend", "cuda"};
    if (cmd == "metrics") args.insert(args.end(), {"--kernel", "transpose", "--variant", "naive"});
    const Out r = cli(args);
    EXPECT_EQ(r.code, kExitUsage) << cmd;
    EXPECT_NE(r.err.find("cuda backend is not available"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
  }
}

TEST(CliBadInput, TheBinaryExitsNonZeroWithOneLine) {
  const fs::path d = scratch("bin_bad");
  const Out r = binary("metrics --kernel nope --variant naive --backend emu", d);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("unknown kernel 'nope'"), std::string::npos) << r.err;
  const Out u = binary("--no-such-flag", d);
  EXPECT_EQ(u.code, kExitUsage);
  EXPECT_EQ(lines(u.err), 1u) << u.err;
  fs::remove_all(d);
}

// ------------------------------------------------------------------------------- info

TEST(CliInfo, EmulatorJson) {
  const Out r = cli({"info", "--backend", "emu", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j["backend"], "emu");
  EXPECT_EQ(j["measured"], false);
  EXPECT_FALSE(j["device"]["name"].get<std::string>().empty());
}

TEST(CliInfo, AutoSaysWhyCudaIsUnavailable) {
  std::string why;
  if (make_cuda_backend(why)) GTEST_SKIP() << "a CUDA device is present";
  const Out r = cli({"info"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("backend:"), std::string::npos);
  EXPECT_NE(r.out.find("unavailable: " + why), std::string::npos) << r.out;
}

// ------------------------------------------------------------------------------ trace

TEST(CliTrace, EventsOfTheChosenBlockAsJson) {
  const Out r = cli({"trace", "--kernel", "transpose", "--variant", "tiled", "--set", "n=64",
                     "--block", "3", "--backend", "emu"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j["block"], 3);
  ASSERT_EQ(j["launches"].size(), 1u);
  const auto& evs = j["launches"][0]["events"];
  ASSERT_FALSE(evs.empty());
  const std::regex hex("0x[0-9a-f]{8}");
  std::set<std::string> kinds;
  for (const auto& e : evs) {
    EXPECT_EQ(e["block"], 3);
    EXPECT_TRUE(std::regex_match(e["mask"].get<std::string>(), hex)) << e.dump();
    EventKind k;
    ASSERT_TRUE(event_kind_from_string(e["kind"].get<std::string>(), k)) << e.dump();
    kinds.insert(e["kind"]);
    EXPECT_TRUE(e.contains("line"));
    if (is_memory(k)) {
      EXPECT_EQ(e["bytes"], 4);
      ASSERT_EQ(e["offsets"].size(), 32u);
      const auto mask = std::stoul(e["mask"].get<std::string>(), nullptr, 16);
      for (int lane = 0; lane < 32; ++lane)
        EXPECT_EQ(e["offsets"][lane].is_null(), ((mask >> lane) & 1u) == 0) << e.dump();
    }
  }
  EXPECT_TRUE(kinds.count(std::string(to_string(EventKind::SharedLoad))));
  EXPECT_TRUE(kinds.count(std::string(to_string(EventKind::Barrier))));
}

// -------------------------------------------------------------------- bench, export

TEST(CliBench, AllVariantsWithFilesThatCarryDeviceDateAndParams) {
  const fs::path d = scratch("bench");
  const std::string csv = (d / "b.csv").string(), json = (d / "b.json").string();
  const Out r = cli({"bench", "--kernel", "transpose", "--all", "--set", "n=64", "--backend",
                     "emu", "--repeats", "3", "--csv", csv, "--json", json});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("modelled"), std::string::npos);
  EXPECT_NE(r.err.find("[1/"), std::string::npos);  // progress on stderr
  const Json j = Json::parse(slurp(json));
  EXPECT_EQ(j["rows"].size(), family_variants("transpose").size());
  EXPECT_TRUE(std::regex_match(j["date"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  EXPECT_TRUE(j["device"].contains("name"));
  EXPECT_TRUE(j["device"].contains("driver"));
  EXPECT_TRUE(j["device"].contains("mem_clock_mhz"));
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["params"]["n"], 64);
    EXPECT_EQ(row["status"], "ok");
    EXPECT_GT(row["throughput"].get<double>(), 0);
  }
  const std::string c = slurp(csv);
  EXPECT_EQ(c.rfind("date,device,driver,runtime,mem_clock_mhz", 0), 0u) << c;
  EXPECT_EQ(lines(c), 1 + j["rows"].size() + j["peers"].size());
  fs::remove_all(d);
}

TEST(CliBench, SweepsRunTheCartesianProduct) {
  const Out r = cli({"bench", "--kernel", "transpose", "--variant", "tiled", "--set", "n=64",
                     "--sweep", "pad=0,1", "--sweep", "block_rows=8,32", "--backend", "emu",
                     "--repeats", "2", "--json", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto start = r.out.find("{\n");
  ASSERT_NE(start, std::string::npos);
  const Json j = Json::parse(r.out.substr(start));
  ASSERT_EQ(j["rows"].size(), 4u);
  std::set<std::pair<long long, long long>> seen;
  for (const auto& row : j["rows"])
    seen.insert({row["params"]["pad"].get<long long>(), row["params"]["block_rows"].get<long long>()});
  EXPECT_EQ(seen.size(), 4u);
  // Every row verified, so each after the first has a speedup over the one before.
  for (std::size_t i = 1; i < j["rows"].size(); ++i) EXPECT_FALSE(j["rows"][i]["speedup"].is_null());
}

TEST(CliExport, WritesChartsAndRefusesToOverwrite) {
  const fs::path d = scratch("export");
  const std::string prefix = (d / "chart").string();
  const std::vector<std::string> args = {"export", "--kernel", "transpose", "--all", "--set",
                                         "n=64", "--backend", "emu", "--repeats", "2", "--out",
                                         prefix, "--format", "svg,csv"};
  const Out r = cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_TRUE(fs::exists(prefix + ".svg"));
  ASSERT_TRUE(fs::exists(prefix + ".csv"));
  EXPECT_FALSE(fs::exists(prefix + ".png"));
  const std::string device = make_emu_backend()->device().name;
  EXPECT_NE(slurp(prefix + ".svg").find(device), std::string::npos);
  EXPECT_NE(slurp(prefix + ".csv").find(device), std::string::npos);

  std::ofstream(prefix + ".csv") << "mine";
  const Out again = cli(args);
  EXPECT_EQ(again.code, kExitUsage);
  EXPECT_NE(again.err.find("already exists (not overwritten); pass --force"), std::string::npos) << again.err;
  EXPECT_EQ(slurp(prefix + ".csv"), "mine");

  std::vector<std::string> forced = args;
  forced.push_back("--force");
  const Out f = cli(forced);
  ASSERT_EQ(f.code, 0) << f.err;
  EXPECT_NE(slurp(prefix + ".csv"), "mine");
  fs::remove_all(d);
}

// ------------------------------------------------------------------------ lesson, gui

// A build without lessons (no md4c) refuses `record --lessons DIR` by name instead of
// writing a recording without the lessons' configurations (the GPU machine's build did).
TEST(CliHooks, RecordWithLessonsNeedsABuildThatReadsThem) {
  const fs::path d = scratch("record-lessons");
  std::ofstream(d / "01-x.md") << "# lesson\n";
  const Out r = cli({"record", "--lessons", d.string(), "--out", (d / "r.json").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("built without lessons"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d / "r.json"));
  fs::remove_all(d);
}

TEST(CliHooks, LessonCommandsCallTheLinkedEntryPoints) {
  const fs::path d = scratch("lesson");
  const std::string file = (d / "l.md").string();
  std::ofstream(file) << "# lesson\n";
  std::vector<std::string> validated;
  std::string checked;
  BackendKind kind = BackendKind::Cuda;
  Hooks h;
  h.lesson_validate = [&](const std::vector<std::string>& f, std::ostream& out) {
    validated = f;
    out << "ok\n";
    return 0;
  };
  h.lesson_check = [&](const std::string& f, Backend& b, std::ostream&) {
    checked = f;
    kind = b.kind();
    return 1;
  };
  EXPECT_EQ(cli({"lesson", "--validate", file, file}, h).code, 0);
  EXPECT_EQ(validated, (std::vector<std::string>{file, file}));
  EXPECT_EQ(cli({"lesson", "--check", file, "--backend", "emu"}, h).code, 1);
  EXPECT_EQ(checked, file);
  EXPECT_EQ(kind, BackendKind::Emu);
  // --validate hands every file to the validator, which reports each on its own line
  // (a folder scan where one file fails alone); --check needs one readable file.
  const Out missing = cli({"lesson", "--check", (d / "none.md").string()}, h);
  EXPECT_EQ(missing.code, kExitUsage);
  EXPECT_NE(missing.err.find("does not exist"), std::string::npos);
  const Out folder = cli({"lesson", "--check", d.string()}, h);
  EXPECT_EQ(folder.code, kExitUsage);
  EXPECT_NE(folder.err.find("is a directory; give a lesson's .md file"), std::string::npos)
      << folder.err;
  const Out neither = cli({"lesson"}, h);
  EXPECT_EQ(neither.code, kExitUsage);
  fs::remove_all(d);
}

TEST(CliHooks, GuiReceivesTheParsedOptions) {
  gui::GuiOptions got;
  int calls = 0;
  Hooks h;
  h.gui_run = [&](const gui::GuiOptions& o) {
    got = o;
    ++calls;
    return 0;
  };
  h.gui_display_available = [] { return true; };
  const Out r = cli({"gui", "--kernel", "transpose", "--variant", "tiled", "--set", "pad=1",
                     "--backend", "emu", "--presenter", "--size", "800x600", "--screenshot",
                     "x.png", "--view", "bank-map"},
                    h);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(calls, 1);
  EXPECT_EQ(got.family, "transpose");
  EXPECT_EQ(got.variant, "tiled");
  EXPECT_EQ(got.params, (Params{{"pad", 1}}));
  EXPECT_EQ(got.backend, "emu");
  EXPECT_TRUE(got.presenter);
  EXPECT_EQ(got.width, 800);
  EXPECT_EQ(got.height, 600);
  EXPECT_EQ(got.screenshot, "x.png");
  EXPECT_EQ(got.view, "bank-map");

  const Out bad = cli({"gui", "--kernel", "transpose", "--variant", "tiled", "--set", "pad=9"}, h);
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_NE(bad.err.find("pad=9"), std::string::npos) << bad.err;
  EXPECT_EQ(calls, 1);

  // No arguments and a display: the desktop app.
  EXPECT_EQ(cli({}, h).code, 0);
  EXPECT_EQ(calls, 2);
}

// `gui --lesson ID --step N`: the id as `lesson --list` prints it (a file path works too),
// the step counted from 1 against the lesson's `##` sections; bad ones are exit 2.
TEST(CliHooks, GuiOpensALessonByIdAtAStep) {
  gui::GuiOptions got;
  Hooks h;
  h.gui_run = [&](const gui::GuiOptions& o) {
    got = o;
    return 0;
  };
  h.lesson_steps = [](const std::string& f, std::string& why) {
    if (f.find("03-shared-banks") == std::string::npos) {
      why = "not the test's lesson";
      return -1;
    }
    return 6;
  };
  const Out r = cli({"gui", "--lesson", "03-shared-banks", "--step", "3"}, h);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(fs::path(got.lesson).filename(), "03-shared-banks.md");
  EXPECT_TRUE(fs::is_regular_file(got.lesson)) << got.lesson;
  EXPECT_EQ(got.step, 3);
  const std::string file = std::string(WS_SOURCE_DIR) + "/lessons/03-shared-banks.md";
  ASSERT_EQ(cli({"gui", "--lesson", file}, h).code, 0);
  EXPECT_EQ(got.lesson, file);
  EXPECT_EQ(got.step, 0) << "no --step: where the student left off";
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"gui", "--lesson", "99-nothing"}, "no lesson '99-nothing' (lesson --list prints the ids"},
           {{"gui", "--lesson", "03-shared-banks", "--step", "7"}, "--step 7 is outside lesson 03-shared-banks (steps 1..6)"},
           {{"gui", "--lesson", "03-shared-banks", "--step", "0"}, "--step 0 is outside"},
           {{"gui", "--lesson", "03-shared-banks", "--step", "two"}, "--step 'two' is not a step number"},
           {{"gui", "--step", "2"}, "--step needs --lesson"},
       }) {
    const Out bad = cli(args, h);
    EXPECT_EQ(bad.code, kExitUsage) << args.back();
    EXPECT_NE(bad.err.find(says), std::string::npos) << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << "one line: " << bad.err;
  }
}

// `export --lesson ID --step N`: the chart the GUI draws for the step, in every format.
TEST(CliHooks, ExportWritesALessonStepsChart) {
  const fs::path d = scratch("export_lesson");
  gui::GuiOptions got;
  Hooks h;
  h.lesson_steps = [](const std::string&, std::string&) { return 8; };
  h.gui_lesson_chart = [&](const gui::GuiOptions& o, viz::ChartSpec& c, std::string&) {
    got = o;
    c.title = "Variants of transpose";
    c.y_label = "GB/s";
    c.categories = {"copy", "naive"};
    viz::Series s;
    s.name = "throughput";
    s.kind = viz::SeriesKind::Bars;
    s.x = {0, 1};
    s.y = {1603, 682};
    c.series.push_back(s);
    return 0;
  };
  const std::string prefix = (d / "step3").string();
  const Out r = cli({"export", "--lesson", "04-transpose", "--step", "3", "--out", prefix, "--format", "csv,json"}, h);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(fs::path(got.lesson).filename(), "04-transpose.md");
  EXPECT_EQ(got.step, 3);
  EXPECT_EQ(got.width, 1280);
  ASSERT_TRUE(fs::exists(prefix + ".csv"));
  std::ifstream in(prefix + ".json");
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(json.find("\"category\":\"naive\""), std::string::npos) << json;
  EXPECT_NE(json.find("682"), std::string::npos) << json;
  EXPECT_NE(r.out.find("wrote " + prefix + ".json"), std::string::npos) << r.out;
  // Bad input: one line, exit 2, nothing run.
  got = {};
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"export", "--lesson", "nope", "--out", prefix + "x"}, "no lesson 'nope'"},
           {{"export", "--lesson", "04-transpose", "--step", "9", "--out", prefix + "x"}, "--step 9 is outside"},
           {{"export", "--out", prefix + "x"}, "export needs --kernel or --lesson"},
           {{"export", "--lesson", "04-transpose", "--kernel", "transpose", "--out", prefix + "x"},
            "export needs --kernel or --lesson"},
           {{"export", "--lesson", "04-transpose", "--set", "n=64", "--out", prefix + "x"}, "--set does not go with --lesson"},
           {{"export", "--lesson", "04-transpose", "--out", prefix + "x", "--format", "gif"}, "unknown --format 'gif'"},
       }) {
    const Out bad = cli(args, h);
    EXPECT_EQ(bad.code, kExitUsage) << bad.err;
    EXPECT_NE(bad.err.find(says), std::string::npos) << bad.err;
  }
  EXPECT_TRUE(got.lesson.empty()) << "nothing ran for bad input";
  fs::remove_all(d);
}

// ------------------------------------------------------------------------------- demo

TEST(CliDemo, WritesItsChartsAndLabelsModelledTimes) {
  const fs::path d = scratch("demo");
  DemoOptions o;
  o.dir = (d / "out").string();
  o.backend = "emu";
  o.emu_sets = {{"n", 64}};
  std::ostringstream out, err;
  ASSERT_EQ(run_demo(o, out, err), 0) << out.str() << err.str();
  EXPECT_TRUE(fs::exists(d / "out" / "transpose.svg"));
  EXPECT_TRUE(fs::exists(d / "out" / "transpose.csv"));
  // Every time says its source: recorded where the shipped recording holds the family's
  // timing size (the counts stay at the demo's own size), else modelled.
  const bool recorded = out.str().find("counts at n=64 \xc2\xb7 times at n=8192") != std::string::npos;
  EXPECT_NE(out.str().find(recorded ? "recorded" : "modelled"), std::string::npos) << out.str();
  if (recorded) EXPECT_EQ(out.str().find("mixed"), std::string::npos) << "one source, no mixed ratio";
  EXPECT_NE(out.str().find("bank conflicts"), std::string::npos);
  for (const auto* v : family_variants("transpose"))
    EXPECT_NE(out.str().find(v->name), std::string::npos) << v->name;
  fs::remove_all(d);
}

TEST(CliDemo, TheBinaryWithoutADisplayRunsTheHeadlessDemo) {
  const fs::path d = scratch("demo_bin");
  const Out r = binary("", d, "env -u DISPLAY -u WAYLAND_DISPLAY");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(fs::exists(d / "warpscope-demo" / "transpose.svg"));
  EXPECT_TRUE(fs::exists(d / "warpscope-demo" / "transpose.csv"));
  EXPECT_NE(r.out.find("warpscope-demo"), std::string::npos) << r.out;
  fs::remove_all(d);
}

// ---------------------------------------------------------------- puzzle

TEST(CliPuzzle, ListsTheShippedPuzzles) {
  const Out r = cli({"puzzle", "--list", "--dir", std::string(WS_SOURCE_DIR) + "/puzzles"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("01-strided-copy"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("job transpose/tiled"), std::string::npos) << r.out;
  EXPECT_GE(std::count(r.out.begin(), r.out.end(), '\n'), 10);
}

TEST(CliPuzzle, BadInputIsExitTwoWithOneLine) {
  EXPECT_EQ(cli({"puzzle"}).code, kExitUsage);
  EXPECT_EQ(cli({"puzzle", "--list", "--dir", "/nonexistent"}).code, kExitUsage);
  const Out missing = cli({"puzzle", "--check", "/nonexistent.md"});
  EXPECT_EQ(missing.code, kExitUsage);
  EXPECT_NE(missing.err.find("does not exist"), std::string::npos) << missing.err;
  const fs::path d = fs::path(WS_BINARY_DIR) / "cli-puzzle";
  fs::create_directories(d);
  std::ofstream(d / "01-bad.md") << "# Bad\n\n```puzzle\njob: transpose/none\n```\n";
  const Out bad = cli({"puzzle", "--check", (d / "01-bad.md").string()});
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_NE(bad.err.find("01-bad.md:4: job transpose/none is not a variant"), std::string::npos)
      << bad.err;
  const Out nokernel = cli({"puzzle", "--check", std::string(WS_SOURCE_DIR) + "/puzzles/01-strided-copy.md",
                            "--kernel", "/nonexistent.cuh"});
  EXPECT_EQ(nokernel.code, kExitUsage);
  EXPECT_NE(nokernel.err.find("/nonexistent.cuh does not exist"), std::string::npos) << nokernel.err;
  const Out limit = cli({"puzzle", "--check", std::string(WS_SOURCE_DIR) + "/puzzles/01-strided-copy.md",
                         "--time-limit", "0"});
  EXPECT_EQ(limit.code, kExitUsage);
  fs::remove_all(d);
}

// puzzle --grade (app/cli/cmd_puzzle_grade.cpp): its flags refused by name, one line.
TEST(CliPuzzle, GradeNeedsOutAndStandsAlone) {
  const std::string puz = std::string(WS_SOURCE_DIR) + "/puzzles/01-strided-copy.md";
  const std::string dir = std::string(WS_SOURCE_DIR) + "/tests/fixtures/grade";
  const Out noout = cli({"puzzle", "--grade", puz, dir});
  EXPECT_EQ(noout.code, kExitUsage);
  EXPECT_NE(noout.err.find("--grade needs --out results.csv"), std::string::npos) << noout.err;
  const Out both = cli({"puzzle", "--grade", puz, dir, "--out", "/tmp/never.csv", "--check", puz});
  EXPECT_EQ(both.code, kExitUsage);
  EXPECT_NE(both.err.find("--grade cannot be combined with --list or --check"), std::string::npos) << both.err;
  const Out stray = cli({"puzzle", "--check", puz, "--out", "/tmp/never.csv"});
  EXPECT_EQ(stray.code, kExitUsage);
  EXPECT_NE(stray.err.find("--out is for --grade"), std::string::npos) << stray.err;
  const Out nodir = cli({"puzzle", "--grade", puz, "/nonexistent-dir", "--out", "/tmp/never.csv"});
  EXPECT_EQ(nodir.code, kExitUsage);
  EXPECT_EQ(nodir.err, "warpscope: /nonexistent-dir is not a directory\n");
}

TEST(CliPuzzle, ACompileErrorIsExitOneWithFileAndLine) {
  ::setenv("XDG_CACHE_HOME", (std::string(WS_BINARY_DIR) + "/test-cache").c_str(), 1);
  const fs::path d = fs::path(WS_BINARY_DIR) / "cli-puzzle-k";
  fs::create_directories(d);
  std::ofstream(d / "k.cuh") << "struct Copy {\n  Global<const float> in;\n  Global<float> out;\n"
                                "  WS_DEVICE void operator()(Thread& t) const {\n    out(0) = in(0)\n  }\n};\n";
  const Out r = cli({"puzzle", "--check", std::string(WS_SOURCE_DIR) + "/puzzles/01-strided-copy.md",
                     "--kernel", (d / "k.cuh").string()});
  EXPECT_EQ(r.code, kExitFailed);
  // gcc puts a missing semicolon at the next token: the brace of line 6.
  EXPECT_NE(r.out.find("FAILED: " + (d / "k.cuh").string() + ":6: expected"), std::string::npos) << r.out;
  fs::remove_all(d);
}

}  // namespace
}  // namespace ws::cli

// ------------------------------------------------------------------------ issue 10

namespace ws::cli {
namespace {

// Every subcommand, each exit code the README states: 0 success, 1 a run failed or was
// WRONG, 2 bad input (and 130 when Ctrl-C stopped a run).
TEST(CliExitCodes, EverySubcommandAsTheReadmeStates) {
  const fs::path d = scratch("exitcodes");
  const std::string bad_lesson = (d / "bad.md").string();
  std::ofstream(bad_lesson) << "no front matter\n";
  const std::string exists = (d / "exists.csv").string();
  std::ofstream(exists) << "mine";
  Hooks h;
  h.lesson_validate = [](const std::vector<std::string>&, std::ostream&) { return 2; };
  h.lesson_check = [](const std::string&, Backend&, std::ostream&) { return 1; };
  h.gui_run = [](const gui::GuiOptions&) { return 0; };
  struct Case {
    std::vector<std::string> args;
    int code;
  };
  const std::vector<Case> cases = {
      {{"--version"}, 0},
      {{"frobnicate"}, 2},
      {{"info", "--backend", "emu"}, 0},
      {{"info", "--backend", "nonsense"}, 2},
      {{"list"}, 0},
      {{"list", "--bogus"}, 2},
      {{"metrics", "--kernel", "transpose", "--variant", "naive", "--set", "n=64", "--backend", "emu"}, 0},
      {{"metrics", "--kernel", "transpose", "--variant", "nope", "--backend", "emu"}, 2},
      // Finding 11: "too large to emulate" exited 1; finding 4: this one was accepted.
      {{"metrics", "--kernel", "divergence", "--variant", "odd_even", "--set", "n=33554432",
        "--set", "work=65536", "--backend", "emu"}, 2},
      {{"bench", "--kernel", "transpose", "--variant", "naive", "--set", "n=64", "--repeats", "1",
        "--backend", "emu"}, 0},
      {{"bench", "--kernel", "divergence", "--variant", "odd_even", "--set", "n=33554432",
        "--set", "work=65536", "--backend", "emu"}, 2},
      {{"bench", "--kernel", "transpose", "--set", "n=64", "--backend", "emu", "--csv", exists}, 2},
      {{"export", "--kernel", "transpose", "--set", "n=64", "--backend", "emu", "--out",
        (d / "missing" / "x").string()}, 2},
      {{"export", "--kernel", "transpose", "--out", "."}, 2},
      {{"trace", "--kernel", "transpose", "--variant", "naive", "--set", "n=64", "--backend", "emu"}, 0},
      {{"trace", "--kernel", "transpose", "--variant", "naive", "--set", "n=64", "--set", "n=128",
        "--backend", "emu"}, 2},
      {{"lesson", "--validate", bad_lesson}, 2},
      {{"lesson", "--check", bad_lesson, "--backend", "emu"}, 1},
      {{"lesson", "--check", "/dev/zero", "--backend", "emu"}, 2},
      {{"gui", "--kernel", "transpose"}, 0},
      {{"gui", "--kernel", "nope"}, 2},
  };
  for (const auto& c : cases) {
    std::string cmd;
    for (const auto& a : c.args) cmd += a + " ";
    const Out r = cli(c.args, h);
    EXPECT_EQ(r.code, c.code) << cmd << "\nstderr: " << r.err;
    // (lesson --validate prints its file:line diagnostics on stdout)
    if (c.code == 2 && cmd.rfind("lesson --validate", 0) != 0)
      EXPECT_EQ(lines(r.err), 1u) << cmd << "\nstderr: " << r.err;
  }
  EXPECT_EQ(slurp(exists), "mine");
  fs::remove_all(d);
}

// Finding 3: `gui --font /etc/passwd` aborted on an ImGui assertion, a truncated font
// crashed, a missing one was ignored with exit 0. Each is exit 2 with one line now,
// before any window opens.
TEST(CliGui, AFontThatIsNotAUsableFontIsExit2WithOneLine) {
  const fs::path d = scratch("fonts");
  const std::string text = (d / "passwd").string(), cut = (d / "cut.ttf").string();
  std::ofstream(text) << "root:x:0:0:root:/root:/bin/bash\n";
  {
    std::ifstream in(paths::default_font(), std::ios::binary);
    std::string font((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(font.size(), 4096u);
    std::ofstream(cut, std::ios::binary) << font.substr(0, font.size() / 2);
  }
  bool opened = false;
  Hooks h;
  h.gui_run = [&](const gui::GuiOptions&) {
    opened = true;
    return 0;
  };
  for (const auto& [font, says] : std::vector<std::pair<std::string, std::string>>{
           {text, "is not a TrueType or OpenType font"},
           {cut, "is truncated or damaged"},
           {(d / "missing.ttf").string(), "does not exist"},
           {d.string(), "is a directory"}}) {
    const Out r = cli({"gui", "--font", font}, h);
    EXPECT_EQ(r.code, kExitUsage) << font << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("font " + font + " " + says), std::string::npos) << r.err;
  }
  EXPECT_FALSE(opened) << "no window for a bad font";
  const Out ok = cli({"gui", "--font", paths::default_font()}, h);
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(opened);
  fs::remove_all(d);
}

// Finding 7: bench --csv/--json replaced existing files silently and had no --force.
TEST(CliBench, CsvAndJsonNeverReplaceWithoutForce) {
  const fs::path d = scratch("benchforce");
  const std::string csv = (d / "b.csv").string(), json = (d / "b.json").string();
  std::ofstream(csv) << "mine";
  std::ofstream(json) << "mine too";
  std::vector<std::string> args = {"bench", "--kernel", "transpose", "--variant", "naive",
                                   "--set", "n=64", "--repeats", "1", "--backend", "emu",
                                   "--csv", csv, "--json", json};
  const Out r = cli(args);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("already exists (not overwritten); pass --force"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(csv), "mine");
  EXPECT_EQ(slurp(json), "mine too");
  args.push_back("--force");
  const Out f = cli(args);
  EXPECT_EQ(f.code, 0) << f.err;
  EXPECT_NE(slurp(csv).find("transpose"), std::string::npos);
  fs::remove_all(d);
}

// Finding 12's command-line cases, one specific line each.
TEST(CliBadInput, Issue10Messages) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"bench", "--kernel", "transpose", "--repeats", "abc"}, "abc"},
      {{"metrics", "--kernel", "transpose", "--variant", "naive", "--set", "n=64", "--set", "n=128"},
       "--set n is given twice (64 and 128)"},
      {{"export", "--kernel", "transpose", "--out", "."}, "--out '.' has no file name"},
      {{"export", "--kernel", "transpose", "--out", "a/.."}, "has no file name"},
      {{"lesson", "--check", "/tmp/" + std::string(300, 'x') + ".md"}, "File name too long"},
  };
  Hooks h;
  h.lesson_validate = [](const std::vector<std::string>&, std::ostream&) { return 0; };
  h.lesson_check = [](const std::string&, Backend&, std::ostream&) { return 0; };
  for (const auto& c : cases) {
    const Out r = cli(c.args, h);
    std::string cmd;
    for (const auto& a : c.args) cmd += a + " ";
    EXPECT_EQ(r.code, kExitUsage) << cmd << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << cmd << "\nstderr: " << r.err;
    EXPECT_EQ(r.err.find("not in range"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << cmd << "\nstderr: " << r.err;
  }
  // --sweep takes the numbers --set takes.
  Sweep sw;
  std::string why;
  ASSERT_TRUE(parse_sweep("n=0x40,1<<7,256", sw, why)) << why;
  EXPECT_EQ(sw.values, (std::vector<long long>{64, 128, 256}));
}

// Ctrl-C (cli_control().cancel(), what the SIGINT handler calls) stops a long run within
// 100 ms and the command exits 130.
TEST(CliInterrupt, CancelStopsTheRunAndExits130) {
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cli_control().cancel();
  });
  const auto t0 = std::chrono::steady_clock::now();
  const Out r = cli({"metrics", "--kernel", "divergence", "--variant", "odd_even", "--set",
                     "n=1<<20", "--set", "work=1024", "--backend", "emu"});
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  stopper.join();
  EXPECT_EQ(r.code, kExitInterrupted) << r.err;
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
  EXPECT_LT(ms, 300 + 1000);  // (about 10 s without the cancel)
}

}  // namespace
}  // namespace ws::cli
