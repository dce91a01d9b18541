// Records the GPU trace fixtures (tests/fixtures/gpu_traces/): for every variant at its
// default parameters, the traced CUDA build's events of a few blocks, written in the
// format of tests/kernels/fixtures/trace_fixture.h. Also runs the emulator on the same
// blocks and prints whether the two agree, so one device run shows both.
//
//   record_traces OUT_DIR [family/variant ...]
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "kernels/backend.h"
#include "kernels/cuda_backend.h"
#include "tests/kernels/fixtures/trace_fixture.h"

using namespace ws;

namespace {

// More than this many events over the chosen blocks and only block 0 is kept: the
// fixtures stay small, and one block still covers every site.
constexpr std::size_t kMaxEvents = 6000;

std::string file_name(const VariantInfo& v) {
  std::string s = v.family + "_" + v.name;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: record_traces OUT_DIR [family/variant ...]\n";
    return 2;
  }
  const std::filesystem::path out_dir = argv[1];
  std::set<std::string> only(argv + 2, argv + argc);
  std::string why;
  auto cuda = ws::cuda::make_backend(why);
  if (!cuda) {
    std::cerr << "record_traces: no CUDA backend: " << why << "\n";
    return 1;
  }
  auto emu = make_emu_backend();
  std::filesystem::create_directories(out_dir);
  const DeviceInfo d = cuda->device();
  int failed = 0, written = 0;
  for (const VariantInfo& v : catalogue()) {
    if (!only.empty() && !only.count(v.family + "/" + v.name)) continue;
    Params done;
    const std::string err = validate(v, {}, d.limits, done);
    if (!err.empty()) {
      std::cerr << v.family << "/" << v.name << ": " << err << "\n";
      ++failed;
      continue;
    }
    const Plan plan = v.plan(done);
    const std::uint64_t n = plan.launches[0].grid.count();
    std::set<std::uint32_t> chosen = {0, std::uint32_t(n / 2), std::uint32_t(n - 1)};
    RunOptions opt;
    opt.totals = false;
    opt.keep_blocks.assign(chosen.begin(), chosen.end());
    RunResult g = cuda->run(v.family, v.name, done, opt);
    std::size_t events = 0;
    for (const auto& k : g.kept) events += k.events.size();
    if (g.error.empty() && events > kMaxEvents) {
      opt.keep_blocks = {0};
      g = cuda->run(v.family, v.name, done, opt);
    }
    if (!g.error.empty() || !g.problems.empty()) {
      std::cerr << v.family << "/" << v.name << ": GPU run failed: " << g.error
                << (g.problems.empty() ? "" : g.problems.front().message) << "\n";
      ++failed;
      continue;
    }
    fixture::Fixture f;
    f.device = d.name + ", driver " + d.driver + ", runtime " + d.runtime;
    f.source_file = v.source_file;
    f.source_hash = fixture::file_hash(std::string(WS_SOURCE_DIR) + "/" + v.source_file);
    f.family = v.family;
    f.variant = v.name;
    f.params = g.params;
    f.blocks = opt.keep_blocks;
    for (std::size_t i = 0; i < g.kept.size(); ++i)
      f.launches.push_back({plan.launches.at(i), g.kept[i].events});
    const auto path = out_dir / (file_name(v) + ".trace");
    std::ofstream(path) << fixture::write(f);
    ++written;

    // The emulator on the same blocks, for the log.
    const RunResult e = emu->run(v.family, v.name, done, opt);
    std::string verdict = "equal";
    if (!e.error.empty()) {
      verdict = "emulator failed: " + e.error;
    } else if (e.kept.size() != g.kept.size()) {
      verdict = "different launch counts";
    } else {
      for (std::size_t i = 0; i < g.kept.size() && verdict == "equal"; ++i) {
        const auto a = canonical(g.kept[i].events), b = canonical(e.kept[i].events);
        if (!(a == b)) verdict = "DIFFERENT: " + first_difference(a, b);
      }
    }
    if (verdict != "equal") ++failed;
    if (!g.verified) ++failed;
    std::printf("%-28s %2zu blocks %7zu events  GPU output %s  GPU vs emulator: %s\n",
                (v.family + "/" + v.name).c_str(), f.blocks.size(), events,
                g.verified ? "verified" : ("WRONG (" + g.verify_message + ")").c_str(),
                verdict.c_str());
  }
  std::printf("%d fixtures written to %s, %d problems\n", written, out_dir.c_str(), failed);
  return failed ? 1 : 0;
}
