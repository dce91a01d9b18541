// The catalogue's description: registry order, parameter validation and its messages,
// parameter parsing, and each variant's own verification.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "kernels/backends/backend.h"
#include "kernels/catalogue/catalogue.h"
#include "tests/kernels/reference_output.h"

namespace ws {
namespace {

std::string validate_msg(const std::string& family, const std::string& variant,
                         const Params& given, const DeviceLimits& lim = {}) {
  const VariantInfo* v = find_variant(family, variant);
  EXPECT_NE(v, nullptr) << family << "/" << variant;
  if (!v) return "missing";
  Params out;
  return validate(*v, given, lim, out);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(Catalogue, FamiliesInTeachingOrder) {
  std::vector<std::string> order;
  for (const auto& v : catalogue())
    if (order.empty() || order.back() != v.family) order.push_back(v.family);
  EXPECT_EQ(order, (std::vector<std::string>{"access", "transpose", "reduce", "matmul", "tensor",
                                             "async_copy", "divergence", "instr", "histogram", "scan",
                                             "stencil", "partial_histogram"}));
}

TEST(Catalogue, ListsTheVariantsOfTheIssue) {
  for (auto [f, v] : std::vector<std::pair<std::string, std::string>>{
           {"access", "offset"},
           {"access", "stride"},
           {"transpose", "copy"},
           {"transpose", "tiled_copy"},
           {"transpose", "naive"},
           {"transpose", "tiled"},
           {"transpose", "diagonal"},
           {"reduce", "interleaved_modulo"},
           {"reduce", "interleaved_strided"},
           {"reduce", "sequential"},
           {"reduce", "first_add"},
           {"reduce", "unroll_last_warp"},
           {"reduce", "complete_unroll"},
           {"reduce", "multiple_elements"},
           {"reduce", "warp_shuffle"},
           {"reduce", "vector_load"},
           {"matmul", "naive"},
           {"matmul", "tiled"},
           {"matmul", "reg_1d"},
           {"matmul", "reg_2d"},
           {"matmul", "vectorized"},
           {"matmul", "warptiled"},
           {"divergence", "odd_even"},
           {"divergence", "less_than"},
           {"divergence", "warp_aligned"},
           {"divergence", "boundary"}})
    EXPECT_NE(find_variant(f, v), nullptr) << f << "/" << v;
  EXPECT_EQ(find_variant("transpose", "nope"), nullptr);
  EXPECT_EQ(find_variant("nope", "tiled"), nullptr);
}

// Every variant is complete: names unique, its entry struct exists in its source file,
// its defaults validate, and it says why it differs from the one before.
TEST(Catalogue, EveryVariantIsComplete) {
  std::set<std::string> seen;
  for (const auto& v : catalogue()) {
    SCOPED_TRACE(v.family + "/" + v.name);
    EXPECT_TRUE(seen.insert(v.family + "/" + v.name).second);
    EXPECT_FALSE(v.title.empty());
    EXPECT_GT(v.why.size(), 20u);
    const std::string src = read_file(std::string(WS_SOURCE_DIR) + "/" + v.source_file);
    ASSERT_FALSE(src.empty()) << v.source_file;
    EXPECT_NE(src.find("struct " + v.entry), std::string::npos) << v.entry;
    EXPECT_TRUE(v.plan && v.verify);
    // Every input array says how it is made from the seed.
    Params p;
    ASSERT_EQ(validate(v, {}, DeviceLimits{}, p), "");
    for (const ArraySpec& a : v.plan(p).arrays) EXPECT_EQ(a.output, a.gen.fill == Fill::None) << a.name;
    Params out;
    EXPECT_EQ(validate(v, {}, DeviceLimits{}, out), "");
    EXPECT_EQ(out.size(), v.params.size());
    for (const auto& p : v.params) {
      EXPECT_EQ(out.at(p.name), p.def);
      EXPECT_FALSE(p.help.empty());
    }
  }
}

// The GPU benchmarks' sizes are inside the ranges.
TEST(Catalogue, BenchmarkSizesValidate) {
  EXPECT_EQ(validate_msg("transpose", "tiled", {{"n", 8192}}), "");
  EXPECT_EQ(validate_msg("reduce", "vector_load", {{"n", 1 << 28}}), "");
  EXPECT_EQ(validate_msg("reduce", "interleaved_modulo", {{"n", 1 << 28}}), "");
  EXPECT_EQ(validate_msg("matmul", "warptiled", {{"n", 4096}}), "");
  EXPECT_EQ(validate_msg("matmul", "tiled", {{"n", 4096}, {"tile", 32}}), "");
  EXPECT_EQ(validate_msg("access", "stride", {{"n", 1 << 26}, {"stride", 8}}), "");
}

TEST(Validate, UnknownParameterIsNamed) {
  EXPECT_EQ(validate_msg("transpose", "tiled", {{"tiles", 32}}),
            "unknown parameter 'tiles' for transpose/tiled (it takes n, tile, block_rows, pad)");
}

TEST(Validate, ValueOutsideRange) {
  EXPECT_EQ(validate_msg("transpose", "tiled", {{"n", 16}}),
            "n=16 is outside the range 32..16384");
  EXPECT_EQ(validate_msg("transpose", "tiled", {{"pad", 3}}), "pad=3 is outside the range 0..2");
}

TEST(Validate, ValueNotAChoice) {
  EXPECT_EQ(validate_msg("transpose", "tiled", {{"tile", 64}}), "tile=64 is not one of 8, 16, 32");
  EXPECT_EQ(validate_msg("reduce", "sequential", {{"block", 100}}),
            "block=100 is not one of 64, 128, 256, 512, 1024");
  EXPECT_EQ(validate_msg("access", "offset", {{"elem", 2}}), "elem=2 is not one of 4, 8, 16");
}

TEST(Validate, TileMustDivideN) {
  EXPECT_EQ(validate_msg("transpose", "tiled", {{"n", 1000}, {"tile", 32}}),
            "n=1000 is not a multiple of tile=32 (the tile must divide n)");
  EXPECT_EQ(validate_msg("matmul", "tiled", {{"n", 100}, {"tile", 32}}),
            "n=100 is not a multiple of tile=32 (the tile must divide n)");
  EXPECT_EQ(validate_msg("matmul", "warptiled", {{"n", 192}}),
            "n=192 is not a multiple of the block tile=128 (the block tile must divide n)");
  EXPECT_EQ(validate_msg("reduce", "first_add", {{"n", 1536}, {"block", 1024}}),
            "n=1536 is not a multiple of 2 x block = 2048 (each thread adds two elements at a "
            "time)");
  EXPECT_EQ(validate_msg("access", "offset", {{"n", 1000}, {"block", 256}}),
            "n=1000 is not a multiple of block=256");
  // The boundary demo exists for exactly this case.
  EXPECT_EQ(validate_msg("divergence", "boundary", {{"n", 100}, {"tile", 16}}), "");
}

TEST(Validate, ImpossibleBlockShape) {
  EXPECT_EQ(validate_msg("transpose", "tiled", {{"tile", 32}, {"block_rows", 5}}),
            "block_rows=5 does not divide tile=32 (each thread moves tile/block_rows elements)");
  EXPECT_EQ(validate_msg("transpose", "naive", {{"tile", 8}, {"block_rows", 16}}),
            "block_rows=16 does not divide tile=8 (each thread moves tile/block_rows elements)");
}

TEST(Validate, TooManyThreadsPerBlock) {
  EXPECT_EQ(validate_msg("access", "offset", {{"n", 4096}, {"block", 2048}}),
            "block 2048 threads exceeds the device's 1024 per block");
  DeviceLimits small;
  small.max_threads_per_block = 512;
  EXPECT_EQ(validate_msg("transpose", "naive", {{"tile", 32}, {"block_rows", 32}}, small),
            "block 32x32 = 1024 threads exceeds the device's 512 per block");
  EXPECT_EQ(validate_msg("matmul", "tiled", {{"tile", 32}}, small),
            "block 32x32 = 1024 threads exceeds the device's 512 per block");
  EXPECT_EQ(validate_msg("transpose", "naive", {{"tile", 16}, {"block_rows", 16}}, small), "");
}

TEST(Validate, BlockAndGridDimensions) {
  DeviceLimits lim;
  lim.max_block = {1024, 16, 64};
  EXPECT_EQ(validate_msg("transpose", "naive", {{"tile", 32}, {"block_rows", 32}}, lim),
            "block 32x32: 32 threads in y exceeds the device's 16");
  lim = DeviceLimits{};
  lim.max_grid = {2147483647u, 8, 8};
  EXPECT_EQ(validate_msg("transpose", "tiled", {{"n", 1024}}, lim),
            "grid 32x32: 32 blocks in y exceeds the device's 8");
}

TEST(Validate, TooMuchSharedMemory) {
  DeviceLimits small;
  small.max_shared_per_block_optin = 4 * 1024;
  EXPECT_EQ(validate_msg("matmul", "tiled", {{"tile", 32}}, small),
            "shared memory 8 KB exceeds the 4 KB per block available");
  EXPECT_EQ(validate_msg("matmul", "tiled", {{"tile", 16}}, small), "");

  // A variant asking for more than 48 KB runs (the launchers opt in); past the opt-in
  // limit, 227 KB on the H100, the message names both sizes.
  VariantInfo big;
  big.family = "test";
  big.name = "big";
  big.params = {{"kb", 66, 1, 1000, {}, "shared KB"}};
  big.plan = [](const Params& p) {
    Plan pl;
    LaunchCfg c;
    c.kernel = "big";
    c.grid = {1, 1, 1};
    c.block = {32, 1, 1};
    c.shared_bytes = std::uint32_t(p.at("kb") * 1024);
    pl.launches = {c};
    return pl;
  };
  Params out;
  EXPECT_EQ(validate(big, {}, DeviceLimits{}, out), "");
  EXPECT_EQ(validate(big, {{"kb", 228}}, DeviceLimits{}, out),
            "shared memory 228 KB exceeds the 227 KB per block available");
  EXPECT_EQ(validate(big, {{"kb", 227}}, DeviceLimits{}, out), "");
}

// @post of validate: "" iff runnable, and `out` is completed with defaults.
TEST(Validate, CompletesParameters) {
  const VariantInfo* v = find_variant("transpose", "tiled");
  ASSERT_NE(v, nullptr);
  Params out;
  ASSERT_EQ(validate(*v, {{"pad", 1}}, DeviceLimits{}, out), "");
  EXPECT_EQ(out, (Params{{"n", 1024}, {"tile", 32}, {"block_rows", 8}, {"pad", 1}}));
}

TEST(ParseParam, AcceptsIntegersHexAndShifts) {
  Params p;
  EXPECT_EQ(parse_param("n=1024", p), "");
  EXPECT_EQ(p.at("n"), 1024);
  EXPECT_EQ(parse_param("n=1<<28", p), "");
  EXPECT_EQ(p.at("n"), 1ll << 28);
  EXPECT_EQ(parse_param("block_rows=0x10", p), "");
  EXPECT_EQ(p.at("block_rows"), 16);
  EXPECT_EQ(parse_param("pad=-1", p), "");
  EXPECT_EQ(p.at("pad"), -1);
  // Zero-padded values are decimal, not octal.
  EXPECT_EQ(parse_param("tile=010", p), "");
  EXPECT_EQ(p.at("tile"), 10);
  EXPECT_EQ(parse_param("tile=08", p), "");
  EXPECT_EQ(p.at("tile"), 8);
  EXPECT_EQ(parse_param("n=-0x10", p), "");
  EXPECT_EQ(p.at("n"), -16);
}

TEST(ParseParam, RejectsMalformedInput) {
  Params p;
  EXPECT_EQ(parse_param("n", p), "'n' is not of the form name=value (e.g. tile=32)");
  EXPECT_EQ(parse_param("=4", p), "'=4' has no parameter name before '='");
  EXPECT_EQ(parse_param("n=", p), "parameter n has no value after '='");
  EXPECT_EQ(parse_param("n=abc", p),
            "parameter n=abc is not an integer (e.g. 1024, 0x400, 1<<10)");
  EXPECT_EQ(parse_param("n=12x", p),
            "parameter n=12x is not an integer (e.g. 1024, 0x400, 1<<10)");
  EXPECT_EQ(parse_param("n=1<<70", p), "parameter n=1<<70 does not fit in 64 bits");
  EXPECT_EQ(parse_param("n=-1<<4", p),
            "parameter n=-1<<4: only a non-negative number can be shifted");
  EXPECT_EQ(parse_param("n=99999999999999999999", p),
            "parameter n=99999999999999999999 does not fit in 64 bits");
  EXPECT_EQ(parse_param("n=0x", p), "parameter n=0x is not an integer (e.g. 1024, 0x400, 1<<10)");
  EXPECT_EQ(parse_param("n=--4", p),
            "parameter n=--4 is not an integer (e.g. 1024, 0x400, 1<<10)");
  EXPECT_EQ(parse_param("n= 4", p), "parameter n= 4 is not an integer (e.g. 1024, 0x400, 1<<10)");
  EXPECT_EQ(parse_param("ti-le=4", p),
            "parameter name 'ti-le' may only contain letters, digits and '_'");
  EXPECT_TRUE(p.empty());
}

TEST(ParamsToString, SpaceSeparatedPairs) {
  EXPECT_EQ(to_string(Params{{"n", 1024}, {"tile", 32}}), "n=1024 tile=32");
  EXPECT_EQ(to_string(Params{}), "");
}

TEST(HostArrays, AllocatesEveryArrayOfThePlan) {
  Plan p;
  p.arrays = {{"in", 4, 10, false}, {"out", 16, 3, true}};
  HostArrays h = HostArrays::allocate(p);
  ASSERT_EQ(h.data.size(), 2u);
  EXPECT_EQ(h.data[0].size(), 40u);
  EXPECT_EQ(h.data[1].size(), 48u);
  EXPECT_EQ(h.as<float>(0).size(), 10u);
}

// Verification can fail: a poisoned output (what the backend leaves before a kernel
// writes it) is rejected by every variant's CPU reference, with a message.
TEST(Verify, EveryVariantRejectsAnUnwrittenOutput) {
  for (const auto& v : catalogue()) {
    SCOPED_TRACE(v.family + "/" + v.name);
    Params p;
    ASSERT_EQ(validate(v, {}, DeviceLimits{}, p), "");
    if (v.family == "reduce") p["n"] = 1 << 14;
    if (v.family == "matmul") p["n"] = 128;
    const Plan plan = v.plan(p);
    HostArrays h = HostArrays::allocate(plan);
    fill_inputs(h, plan, 7);
    for (std::size_t i = 0; i < plan.arrays.size(); ++i)
      if (plan.arrays[i].output) std::memset(h.data[i].data(), 0xFF, h.data[i].size());
    EXPECT_NE(v.verify(h, p), "");
  }
}

// Inputs depend on the seed only.
TEST(Init, DeterministicPerSeed) {
  for (const auto& v : catalogue()) {
    SCOPED_TRACE(v.family + "/" + v.name);
    Params p;
    ASSERT_EQ(validate(v, {}, DeviceLimits{}, p), "");
    if (v.family == "reduce") p["n"] = 1 << 14;
    if (v.family == "matmul") p["n"] = 128;
    const Plan plan = v.plan(p);
    HostArrays a = HostArrays::allocate(plan), b = HostArrays::allocate(plan),
               c = HostArrays::allocate(plan);
    fill_inputs(a, plan, 3);
    fill_inputs(b, plan, 3);
    fill_inputs(c, plan, 4);
    EXPECT_EQ(a.data[0], b.data[0]);
    EXPECT_NE(a.data[0], c.data[0]);
  }
}

// The CPU form of each variant's reference agrees with its verify(): both accept the
// output the reference's rule gives, both reject it with one element changed, and
// check_reference names that element.
TEST(Reference, AgreesWithVerifyOnRightAndWrongOutputs) {
  for (const auto& v : catalogue()) {
    SCOPED_TRACE(v.family + "/" + v.name);
    Params p;
    ASSERT_EQ(validate(v, {}, DeviceLimits{}, p), "");
    if (v.family == "reduce") p["n"] = 1 << 14;
    if (v.family == "matmul" || v.family == "tensor") p["n"] = 128;
    if (v.family == "async_copy") p["n"] = 1 << 16;
    if (v.family == "transpose") p["n"] = 256;
    if (v.family == "access") p["n"] = 1 << 14;
    const Plan plan = v.plan(p);
    if (plan.ref.kind == RefKind::None) continue;
    HostArrays h = HostArrays::allocate(plan);
    fill_inputs(h, plan, 5);
    // The right output: computed by the reference itself from the inputs.
    const std::size_t out = plan.ref.out;
    ws::test::write_reference_output(h, plan.ref);
    EXPECT_EQ(v.verify(h, p), "");
    CheckResult c = check_reference(plan.ref, h);
    EXPECT_EQ(c.mismatches, 0u);
    EXPECT_EQ(c.message("out"), "");
    // One element wrong, in the middle.
    auto words = h.as<std::uint32_t>(out);
    const std::size_t bad = words.size() / 2;
    words[bad] ^= 0x40000000u;
    EXPECT_NE(v.verify(h, p), "");
    c = check_reference(plan.ref, h);
    EXPECT_EQ(c.mismatches, 1u);
    const std::uint32_t eb = plan.ref.kind == RefKind::Gather ? plan.ref.elem : 4;
    EXPECT_EQ(c.first, std::int64_t(bad * 4 / eb));
    EXPECT_NE(c.message("out"), "");
  }
}

TEST(BackendNames, EnumsHaveNames) {
  EXPECT_EQ(to_string(BackendKind::Emu), "emu");
  EXPECT_EQ(to_string(BackendKind::Cuda), "cuda");
  EXPECT_EQ(to_string(Peer::MemcpyD2D), "cudaMemcpy device-to-device");
  EXPECT_EQ(to_string(Peer::CubReduceSum), "CUB DeviceReduce::Sum");
  EXPECT_EQ(to_string(Peer::CublasSgemm), "cuBLAS Sgemm");
}

}  // namespace
}  // namespace ws

namespace ws {
namespace {

// "ratio library" holds each family to its own library routine of the run's unit.
TEST(Catalogue, LibraryPeerIsTheFamilysOwn) {
  EXPECT_EQ(library_peer("tensor", true), Peer::CublasGemmEx);
  EXPECT_EQ(library_peer("matmul", true), Peer::CublasSgemm);
  EXPECT_EQ(library_peer("reduce", false), Peer::CubReduceSum);
  EXPECT_EQ(library_peer("nope", false), Peer::CubReduceSum);
  for (const FamilyInfo& f : families())
    for (bool g : {false, true}) EXPECT_EQ(peer_gflops(library_peer(f.name, g)), g) << f.name;
}

}  // namespace
}  // namespace ws
