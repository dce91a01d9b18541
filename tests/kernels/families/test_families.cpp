// Families describe themselves (kernels/catalogue/catalogue.h FamilyInfo), and every value a
// variant's parameters allow runs: each allowed value of each parameter is launched on
// the emulator at the family's small sizes, its output verified, and the shared memory
// the kernel body carved held against the bytes its plan launched with.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "kernels/backends/backend.h"

using namespace ws;

namespace {

std::vector<std::string> variant_ids() {
  std::vector<std::string> out;
  for (const VariantInfo& v : catalogue()) out.push_back(v.family + "/" + v.name);
  return out;
}

// The family's small sizes, for the parameters this variant has.
Params small_for(const FamilyInfo& f, const VariantInfo& v) {
  Params p;
  for (const auto& [k, val] : f.small)
    if (find_param(v, k)) p[k] = val;
  return p;
}

bool is_size(const FamilyInfo& f, const std::string& name) {
  return std::find(f.size_params.begin(), f.size_params.end(), name) != f.size_params.end();
}

}  // namespace

TEST(Families, EachDeclaresItselfOnceAndOwnsItsVariants) {
  std::set<std::string> names;
  int demos = 0;
  for (const FamilyInfo& f : families()) {
    EXPECT_TRUE(names.insert(f.name).second) << "family " << f.name << " declared twice";
    EXPECT_TRUE(std::filesystem::exists(std::string(WS_SOURCE_DIR) + "/" + f.source_file))
        << f.name << ": " << f.source_file;
    EXPECT_FALSE(f.small.empty()) << f.name << " declares no small sizes";
    demos += f.demo;
  }
  EXPECT_EQ(demos, 1) << "exactly one family is the headless demo's";
  for (const VariantInfo& v : catalogue()) {
    const FamilyInfo* f = find_family(v.family);
    ASSERT_NE(f, nullptr) << v.family << "/" << v.name << " belongs to no declared family";
    EXPECT_EQ(v.source_file, f->source_file) << v.family << "/" << v.name;
  }
}

TEST(Families, DeclaredNamesAreParametersOfTheirVariants) {
  for (const FamilyInfo& f : families()) {
    std::set<std::string> params;
    for (const VariantInfo& v : catalogue())
      if (v.family == f.name)
        for (const ParamSpec& p : v.params) params.insert(p.name);
    auto known = [&](const std::string& n) { return params.count(n) == 1; };
    for (const auto& s : f.sweeps) {
      EXPECT_TRUE(known(s.x)) << f.name << " sweeps " << s.x;
      EXPECT_TRUE(s.series.empty() || known(s.series)) << f.name << " sweeps " << s.series;
    }
    for (const auto& s : f.size_params) EXPECT_TRUE(known(s)) << f.name << " size " << s;
    EXPECT_TRUE(f.compare_flip.empty() || known(f.compare_flip)) << f.name;
    for (const auto& [k, v] : f.small) EXPECT_TRUE(known(k)) << f.name << " small " << k;
    for (const auto& [k, v] : f.timing) EXPECT_TRUE(known(k)) << f.name << " timing " << k;
  }
}

// The timing sizes are valid parameters of every variant that has them (on an H100's
// limits): a GPU benchmark at them never stops at validation.
TEST(Families, TimingSizesValidate) {
  for (const VariantInfo& v : catalogue()) {
    const FamilyInfo* f = find_family(v.family);
    ASSERT_NE(f, nullptr);
    Params p, done;
    for (const auto& [k, val] : f->timing)
      if (find_param(v, k)) p[k] = val;
    EXPECT_EQ(validate(v, p, DeviceLimits{}, done), "") << v.family << "/" << v.name;
  }
}

TEST(Families, PeersForKeepsTheRunsUnit) {
  FamilyInfo f;
  f.peers = {Peer::MemcpyD2D, Peer::CublasSgemm, Peer::CubReduceSum};
  EXPECT_EQ(peers_for(f, false), (std::vector<Peer>{Peer::MemcpyD2D, Peer::CubReduceSum}));
  EXPECT_EQ(peers_for(f, true), (std::vector<Peer>{Peer::CublasSgemm}));
  f.peers.clear();
  EXPECT_TRUE(peers_for(f, false).empty());
}

// A family with the copy among its peers declares the copy's size, and the declaration
// agrees with every GB/s variant's plan (half its logical bytes) at its small and timing
// sizes, within 5 % (a reduction that leaves one partial sum per block writes a little
// more than one sum); peer_params sizes the copy from it for a caller without a plan.
TEST(Families, CopySizeIsDeclaredAndAgreesWithThePlans) {
  for (const FamilyInfo& f : families()) {
    const bool copies = std::count(f.peers.begin(), f.peers.end(), Peer::MemcpyD2D) > 0;
    EXPECT_EQ(bool(f.copy_bytes), copies) << f.name;
    if (!copies) continue;
    int checked = 0;
    for (const VariantInfo& v : catalogue()) {
      if (v.family != f.name) continue;
      for (const Params* sizes : {&f.small, &f.timing}) {
        SCOPED_TRACE(v.family + "/" + v.name + " at " + to_string(*sizes));
        Params p, done;
        for (const auto& [k, val] : *sizes)
          if (find_param(v, k)) p[k] = val;
        ASSERT_EQ(validate(v, p, DeviceLimits{}, done), "");
        const Plan plan = v.plan(done);
        if (plan.gflops()) continue;  // the copy is a GB/s run's peer only
        // The weighted histogram reads a weight per value too: its copy peer, declared once
        // for the family, moves the values alone (a rate beside a rate, so still comparable).
        if (v.family == "histogram" && v.name == "shared_weighted") continue;
        const double half = plan.logical_bytes / 2;
        EXPECT_NEAR(f.copy_bytes(done), half, 0.05 * half);
        EXPECT_EQ(peer_params(Peer::MemcpyD2D, f, done),
                  (Params{{"bytes", static_cast<long long>(f.copy_bytes(done))}}));
        EXPECT_EQ(peer_params(Peer::CubReduceSum, f, done), done);
        ++checked;
      }
    }
    EXPECT_GT(checked, 0) << f.name;
  }
  FamilyInfo none;  // no declaration: the parameters pass through
  EXPECT_EQ(peer_params(Peer::MemcpyD2D, none, {{"n", 4}}), (Params{{"n", 4}}));
}

TEST(Families, DefaultSweepPrefersTheFamilysPairThenTheRule) {
  VariantInfo v;
  v.params = {{"n", 1024, 32, 4096, {}, ""},
              {"tile", 32, 0, 0, {8, 16, 32}, ""},
              {"block_rows", 8, 1, 32, {}, ""},
              {"pad", 0, 0, 2, {}, ""}};
  FamilyInfo f;
  f.size_params = {"n"};
  f.sweeps = {{"tile", "pad"}};
  SweepAxes a = default_sweep(f, v);
  EXPECT_EQ(a.x, "tile");
  EXPECT_EQ(a.series, "pad");
  // Without the pair: the first knob that is not a size, one line per listed value.
  v.params.pop_back();
  a = default_sweep(f, v);
  EXPECT_EQ(a.x, "block_rows");
  EXPECT_EQ(a.series, "tile");
  // Sizes are x only when nothing else is there.
  v.params = {{"n", 1024, 32, 4096, {}, ""}};
  a = default_sweep(f, v);
  EXPECT_EQ(a.x, "n");
  EXPECT_EQ(a.series, "");
  v.params.clear();
  a = default_sweep(f, v);
  EXPECT_EQ(a.x, "");
}

namespace {
// The runs of a variant's first sweep in the window: a listed parameter's choices, a range's
// values (at most 9: AppState::sweep_values), one line per value of the series.
std::size_t sweep_points(const FamilyInfo& f, const VariantInfo& v) {
  auto values = [&](const std::string& name) -> std::size_t {
    const ParamSpec* p = name.empty() ? nullptr : find_param(v, name);
    if (!p) return 1;
    if (!p->choices.empty()) return p->choices.size();
    return std::size_t(std::min<long long>(9, p->max - p->min + 1));
  };
  const SweepAxes a = default_sweep(f, v);
  return values(a.x) * values(a.series);
}
}  // namespace

// A count, not a timing (issue 26): what a window's first sweep at a family's timing size
// copies back to the host to check its outputs (every array, for each run of a variant with
// no GPU reference). The histogram at 2^26 values copied its 256 MB input back and counted it
// on the CPU for each of 64 runs (skew x bins): 16 GB, 16.6 s to a full window on the H100.
TEST(Families, AWindowsSweepChecksItsRunsWhereTheyLie) {
  // 6 GB: above it the copy and the CPU check alone take seconds. Under it, still over issue
  // 26's 3 s and next for a GPU reference: 9 runs of 512 MB-1 GB (reduce two_pass and atomic
  // at 2^28, async_copy, scan and stencil at 2^26).
  constexpr std::uint64_t kMaxHostCheckBytes = 6ull << 30;
  int checked = 0;
  for (const FamilyInfo& f : families())
    for (const VariantInfo& v : catalogue()) {
      if (v.family != f.name) continue;
      Params p;
      if (!validate(v, f.timing, DeviceLimits{}, p).empty()) continue;  // not timed there
      const Plan plan = v.plan(p);
      std::uint64_t bytes = 0;
      if (plan.ref.kind == RefKind::None)
        for (const ArraySpec& a : plan.arrays) bytes += a.count * a.elem_bytes;
      const std::uint64_t total = bytes * sweep_points(f, v);
      EXPECT_LE(total, kMaxHostCheckBytes) << f.name << "/" << v.name << " at " << to_string(p) << ": "
                                           << sweep_points(f, v) << " runs copy " << (total >> 20)
                                           << " MB back to be checked";
      ++checked;
    }
  EXPECT_GT(checked, 10);
}

TEST(Families, ChoicesDispatchExactlyTheListedValues) {
  using C = Choices<4, 8, 16>;
  EXPECT_EQ(C::list(), (std::vector<long long>{4, 8, 16}));
  long long got = 0;
  EXPECT_TRUE(C::dispatch(8, [&]<long long V>() { got = V; }));
  EXPECT_EQ(got, 8);
  got = -1;
  EXPECT_FALSE(C::dispatch(12, [&]<long long V>() { got = V; }));
  EXPECT_EQ(got, -1) << "no instance runs for a value that is not listed";
  static_assert(C::allows(16) && !C::allows(32));
}

class EveryValue : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryValue, RunsOnTheEmulatorAndCarvesThePlannedSharedMemory) {
  const std::string id = GetParam();
  const auto slash = id.find('/');
  const VariantInfo* v = find_variant(id.substr(0, slash), id.substr(slash + 1));
  ASSERT_NE(v, nullptr);
  const FamilyInfo* f = find_family(v->family);
  ASSERT_NE(f, nullptr);
  auto emu = make_emu_backend();
  int ran = 0;
  for (const ParamSpec& ps : v->params) {
    // Every listed value; for a range its ends and default, but the top of a problem
    // size's range is what a GPU is for.
    std::vector<long long> values = ps.choices;
    if (values.empty()) {
      values = {ps.min, ps.def};
      if (!is_size(*f, ps.name)) values.push_back(ps.max);
    }
    for (long long val : values) {
      Params p = small_for(*f, *v);
      p[ps.name] = val;
      Params done;
      std::string why = validate(*v, p, DeviceLimits{}, done);
      // A listed value may need another parameter at the bottom of its range (a tile of 8
      // takes at most 8 block rows) or at twice it (a 128 x 256 block tile, n = 256): try
      // each in turn.
      for (const ParamSpec& other : v->params) {
        if (other.name == ps.name || !other.choices.empty()) continue;
        for (long long at : {other.min, 2 * other.min}) {
          if (why.empty() || ps.choices.empty() || at > other.max) break;
          Params q = p;
          q[other.name] = at;
          if (validate(*v, q, DeviceLimits{}, done).empty()) p = q, why.clear();
        }
      }
      const std::string what = id + " " + to_string(p);
      if (!why.empty()) {
        // A range's value may be refused (a block beyond the device's limit, a size the
        // small problem does not divide); a listed value must run.
        EXPECT_TRUE(ps.choices.empty()) << what << ": " << why;
        continue;
      }
      RunOptions opt;
      opt.totals = true;
      opt.keep_blocks = {0};
      const RunResult r = emu->run(v->family, v->name, p, opt);
      ASSERT_EQ(r.error, "") << what;
      EXPECT_TRUE(r.problems.empty()) << what << ": " << r.problems.front().message;
      EXPECT_TRUE(r.verified) << what << ": " << r.verify_message;
      ++ran;
      // The shared memory the body carved ends exactly where the plan's launch does, but
      // for what the launch only holds (held_shared_bytes, beyond every carved array).
      ASSERT_EQ(r.kept.size(), r.plan.launches.size()) << what;
      for (std::size_t i = 0; i < r.kept.size(); ++i) {
        std::uint64_t end = 0;
        for (const ArrayDesc& a : r.kept[i].info.arrays)
          if (a.space == Space::Shared)
            end = std::max<std::uint64_t>(end, a.base_offset + a.count * a.elem_bytes);
        EXPECT_EQ(end + r.plan.launches[i].held_shared_bytes, r.plan.launches[i].shared_bytes)
            << what << " launch " << i;
      }
    }
  }
  EXPECT_GT(ran, 0) << id << " ran at no value";
}

INSTANTIATE_TEST_SUITE_P(Catalogue, EveryValue, ::testing::ValuesIn(variant_ids()),
                         [](const auto& info) {
                           std::string s = info.param;
                           std::replace(s.begin(), s.end(), '/', '_');
                           return s;
                         });
