// Records the GPU trace fixtures (tests/fixtures/gpu_traces/): for every variant at its
// default parameters, the traced CUDA build's events of a few blocks, written in the
// format of tests/kernels/fixtures/trace_fixture.h. Also runs the emulator on the same
// blocks and prints whether the two agree, so one device run shows both.
//
//   record_traces OUT_DIR [family/variant ...]
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "kernels/backends/backend.h"
#include "kernels/backends/cuda/cuda_backend.h"
#include "tests/kernels/fixtures/trace_fixture.h"

using namespace ws;

namespace {

// A fixture larger than this keeps fewer blocks, then fewer warps (first and last of a
// block): the repository stays small, and one warp still covers every site it reaches.
constexpr std::size_t kMaxBytes = 100 * 1024;

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
    const RunResult g = cuda->run(v.family, v.name, done, opt);
    std::size_t events = 0;
    for (const auto& k : g.kept) events += k.events.size();
    if (!g.error.empty() || !g.problems.empty()) {
      std::cerr << v.family << "/" << v.name << ": GPU run failed: " << g.error
                << (g.problems.empty() ? "" : g.problems.front().message) << "\n";
      ++failed;
      continue;
    }
    // Fixtures from the run, smaller and smaller until one fits.
    const unsigned warps = plan.launches[0].block.count() > 0
                               ? unsigned((plan.launches[0].block.count() + 31) / 32)
                               : 1;
    struct Cut {
      std::vector<std::uint32_t> blocks;
      std::vector<std::uint16_t> warps;
    };
    std::vector<Cut> cuts = {{opt.keep_blocks, {}}, {{0}, {}}};
    if (warps > 2) cuts.push_back({{0}, {0, std::uint16_t(warps - 1)}});
    if (warps > 1) cuts.push_back({{0}, {0}});
    fixture::Fixture f;
    std::string text;
    for (const Cut& cut : cuts) {
      f = fixture::Fixture{};
      f.device = d.name + ", driver " + d.driver + ", runtime " + d.runtime;
      f.source_file = v.source_file;
      f.source_hash = fixture::file_hash(std::string(WS_SOURCE_DIR) + "/" + v.source_file);
      f.family = v.family;
      f.variant = v.name;
      f.params = g.params;
      f.blocks = cut.blocks;
      f.warps = cut.warps;
      for (std::size_t i = 0; i < g.kept.size(); ++i) {
        fixture::Launch l{plan.launches.at(i), {}};
        for (const WarpEvent& e : g.kept[i].events) {
          const bool block_in =
              std::find(cut.blocks.begin(), cut.blocks.end(), e.block) != cut.blocks.end();
          const bool warp_in = cut.warps.empty() ||
                               std::find(cut.warps.begin(), cut.warps.end(), e.warp) !=
                                   cut.warps.end();
          if (block_in && warp_in) l.events.push_back(e);
        }
        // Canonical order: the same trace is the same file, however the warps raced.
        l.events = canonical(std::move(l.events));
        f.launches.push_back(std::move(l));
      }
      text = fixture::write(f);
      if (text.size() <= kMaxBytes) break;
    }
    const auto path = out_dir / (file_name(v) + ".trace");
    std::ofstream(path) << text;
    ++written;
    opt.keep_blocks = f.blocks;

    // The emulator on the same blocks, for the log.
    // The file as read back (so the encoding is checked too) against the emulator.
    const RunResult e = emu->run(v.family, v.name, done, opt);
    fixture::Fixture back;
    std::istringstream in(text);
    std::string verdict = fixture::read(in, back);
    if (!verdict.empty()) {
      verdict = "the fixture does not read back: " + verdict;
    } else if (!e.error.empty()) {
      verdict = "emulator failed: " + e.error;
    } else if (e.kept.size() != back.launches.size()) {
      verdict = "different launch counts";
    } else {
      verdict = "equal";
      for (std::size_t i = 0; i < back.launches.size() && verdict == "equal"; ++i) {
        std::vector<WarpEvent> emulated;
        for (const WarpEvent& x : e.kept[i].events)
          if (f.warps.empty() || std::find(f.warps.begin(), f.warps.end(), x.warp) !=
                                     f.warps.end())
            emulated.push_back(x);
        const auto a = canonical(back.launches[i].events), b = canonical(emulated);
        if (!(a == b)) verdict = "DIFFERENT: " + first_difference(a, b);
      }
    }
    if (verdict != "equal") ++failed;
    if (!g.verified) ++failed;
    std::printf("%-28s %2zu blocks %2zu warps %7zu events %7zu bytes  GPU output %s  "
                "GPU vs emulator: %s\n",
                (v.family + "/" + v.name).c_str(), f.blocks.size(), f.warps.size(), events,
                text.size(),
                g.verified ? "verified" : ("WRONG (" + g.verify_message + ")").c_str(),
                verdict.c_str());
  }
  std::printf("%d fixtures written to %s, %d problems\n", written, out_dir.c_str(), failed);
  return failed ? 1 : 0;
}
