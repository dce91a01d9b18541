// The SASS parser and its checks, on checked-in nvdisasm text (no GPU, no nvdisasm), and
// the recorded assets/sass against the sources they were recorded from.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "kernels/backends/backend.h"
#include "kernels/hardware/compiled.h"
#include "kernels/hardware/sass.h"

using namespace ws;
using namespace ws::sass;
namespace fs = std::filesystem;

namespace {

std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

Listing sample() {
  Listing l;
  std::string err;
  EXPECT_TRUE(parse(read(std::string(WS_SOURCE_DIR) + "/tests/fixtures/sass/nvdisasm_sample.txt"), l, err)) << err;
  return l;
}

}  // namespace

TEST(Sass, ParsesFunctionsInstructionsAndLocations) {
  const Listing l = sample();
  ASSERT_EQ(l.functions.size(), 2u);
  const Function& f = l.functions[0];
  EXPECT_EQ(f.instance, "TransposeTiled<32, 8>");
  EXPECT_EQ(l.functions[1].instance, "Copy");
  ASSERT_EQ(f.code.size(), 12u);
  EXPECT_EQ(f.code[1].opcode, "LDG.E");
  EXPECT_EQ(f.code[1].operands, "R5, desc[UR8][R6.64]");
  EXPECT_EQ(f.code[1].offset, 0x10u);
  // The chain of the access: innermost (the handle in simt_cuda.h) first.
  ASSERT_EQ(f.code[1].where.size(), 3u);
  EXPECT_EQ(f.code[1].where[0].file, "/root/w/kernels/dialect/simt_cuda.h");
  EXPECT_EQ(f.code[1].where[1].line, 85);
  // A location printed once holds for the instructions after it.
  EXPECT_EQ(f.code[2].where.size(), 3u);
  EXPECT_EQ(f.code[7].predicate, "@P0");
  EXPECT_EQ(f.code[7].opcode, "STG.E");
  EXPECT_EQ(f.code[7].text(), "@P0 STG.E desc[UR8][R6.64], R17");
  EXPECT_EQ(l.functions[1].code[0].predicate, "@!P1");
}

TEST(Sass, ClassifiesMemoryInstructionsAndWidths) {
  const Listing l = sample();
  const Function& f = l.functions[0];
  EXPECT_EQ(f.code[1].mem(), MemKind::GlobalLoad);
  EXPECT_EQ(f.code[1].width_bits(), 32u);
  EXPECT_EQ(f.code[3].mem(), MemKind::SharedStore);
  EXPECT_EQ(f.code[4].mem(), MemKind::Barrier);
  EXPECT_EQ(f.code[5].mem(), MemKind::SharedLoad);
  EXPECT_EQ(f.code[5].width_bits(), 128u);
  EXPECT_EQ(f.code[7].mem(), MemKind::GlobalStore);
  EXPECT_EQ(f.code[6].mem(), MemKind::None);  // IMAD
  EXPECT_EQ(f.spill_stores(), 1);
  EXPECT_EQ(f.spill_loads(), 1);
  const Function& g = l.functions[1];
  EXPECT_EQ(g.code[0].width_bits(), 64u);
  EXPECT_EQ(g.code[1].width_bits(), 8u);
  EXPECT_EQ(to_string(MemKind::SharedLoad), "shared load");
}

TEST(Sass, GroupsByTheFamilyHeadersLine) {
  const Listing l = sample();
  const Function& f = l.functions[0];
  const auto lines = by_line(f, "kernels/families/transpose.cuh");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines.at(85).size(), 3u);  // two LDG and the STS
  EXPECT_EQ(lines.at(87).size(), 1u);  // BAR
  EXPECT_EQ(lines.at(91).size(), 7u);
  // The prologue (simt_cuda.h only) belongs to no line of the family header.
  for (const auto& [l, ins] : lines)
    for (const Instruction* i : ins) EXPECT_NE(i->offset, 0u);
}

TEST(Sass, MarksFusedLoadsAndMissingAccesses) {
  const Listing l = sample();
  const Function& f = l.functions[0];
  const auto lines = by_line(f, "kernels/families/transpose.cuh");
  std::map<int, std::vector<ModelAccess>> model;
  model[85] = {{MemKind::GlobalLoad, 4}, {MemKind::SharedStore, 4}};
  model[91] = {{MemKind::SharedLoad, 4}, {MemKind::GlobalStore, 4}};
  model[95] = {{MemKind::SharedStore, 4}};  // no instruction on this line: merged
  const auto d = differences(lines, model);
  EXPECT_FALSE(d.count(85)) << d.at(85);
  ASSERT_TRUE(d.count(91));
  EXPECT_NE(d.at(91).find("LDS.128 moves 16 bytes per lane"), std::string::npos) << d.at(91);
  EXPECT_NE(d.at(91).find("fused 4 accesses"), std::string::npos) << d.at(91);
  ASSERT_TRUE(d.count(95));
  EXPECT_NE(d.at(95).find("has no STS here"), std::string::npos) << d.at(95);
  EXPECT_FALSE(d.count(87));  // a barrier is no access
}

TEST(Sass, ModelAccessesComeFromTheTrace) {
  WarpEvent a;
  a.line = 10;
  a.kind = EventKind::SharedLoad;
  a.bytes = 16;
  WarpEvent b = a;
  b.kind = EventKind::Barrier;
  const auto m = model_accesses({a, a, b});
  ASSERT_EQ(m.size(), 1u);
  ASSERT_EQ(m.at(10).size(), 1u);
  EXPECT_EQ(m.at(10)[0].kind, MemKind::SharedLoad);
  EXPECT_EQ(m.at(10)[0].bytes, 16u);
}

TEST(Sass, InstanceNamesMatchTheEmulatorsLaunches) {
  EXPECT_EQ(instance_of("void ws::fast::ws_entry<ws::fast::TransposeTiled<32, 8> >(ws::fast::TransposeTiled<32, 8>)"),
            "TransposeTiled<32, 8>");
  EXPECT_EQ(instance_of("probe_kernel()"), "");
  const auto names = kernel_instances("transpose", "tiled", {{"n", 1024}, {"tile", 16}, {"block_rows", 4}, {"pad", 0}});
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0], "TransposeTiled<16, 4>");
  EXPECT_EQ(kernel_instances("transpose", "copy", {{"n", 64}, {"tile", 32}, {"block_rows", 8}}),
            std::vector<std::string>{"TransposeCopy"});
  EXPECT_TRUE(kernel_instances("transpose", "nope", {}).empty());
}

TEST(Sass, ParseRejectsAnInstructionOutsideAFunction) {
  Listing l;
  std::string err;
  EXPECT_FALSE(parse("        /*0000*/ MOV R1, R2 ;\n", l, err));
  EXPECT_NE(err.find("line 1"), std::string::npos) << err;
  EXPECT_TRUE(parse("", l, err));
  EXPECT_TRUE(l.functions.empty());
}

TEST(Sass, HashIsFnv1a64) {
  EXPECT_EQ(fnv1a(""), 14695981039346656037ull);
  EXPECT_EQ(fnv1a("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(source_hash("a", "", ""), "af63dc4c8601ec8c");
}

// The recorded SASS of every family that has one is current: recorded from the sources as
// they are now (and, where this build knows nvcc, by the same compiler); a stale family
// names each of its kernels: re-record with scripts/device_run.sh sass_record (or, when
// only lines moved, scripts/sass_record.py --remap). Kernels with no recording yet (a
// family or variant added since the last GPU run) are listed, not failed: the app says
// "no recorded SASS" for them.
TEST(Sass, RecordedSassIsCurrent) {
  const std::vector<std::string> roots = {WS_SOURCE_DIR};
  std::vector<std::string> stale, missing;
  int checked = 0;
  for (const VariantInfo& v : catalogue()) {
    const Loaded l = load_family(v.family, v.source_file, roots);
    Params done;
    ASSERT_EQ(validate(v, {}, DeviceLimits{}, done), "");
    for (const std::string& inst : kernel_instances(v.family, v.name, done)) {
      const Function* f = l.error.empty() ? l.listing.find_instance(inst) : nullptr;
      if (!f) {
        missing.push_back(v.family + "/" + v.name + ": " + inst);
        continue;
      }
      ++checked;
      if (l.stale) stale.push_back(v.family + "/" + v.name + ": " + inst);
#if defined(WS_NVCC_VERSION)
      if (l.listing.compiler != WS_NVCC_VERSION)
        stale.push_back(v.family + "/" + v.name + ": " + inst + " (recorded with nvcc " +
                        l.listing.compiler + ", this build has " + WS_NVCC_VERSION + ")");
#endif
      EXPECT_GT(f->registers, 0) << inst;
      EXPECT_FALSE(by_line(*f, v.source_file).empty()) << inst << ": no line information";
    }
  }
  std::string s;
  for (const auto& x : stale) s += "\n  " + x;
  EXPECT_TRUE(stale.empty()) << "recorded SASS is stale for:" << s;
  EXPECT_GE(checked, 26) << "the 26 variants recorded on the H100 must stay recorded";
  s.clear();
  for (const auto& x : missing) s += "\n  " + x;
  if (!missing.empty()) std::printf("not recorded yet (no GPU run since they were added):%s\n", s.c_str());
}

namespace {

Function function_of(const std::string& body) {
  Listing l;
  std::string err;
  EXPECT_TRUE(parse("//--------------------- .text.k --------------------------\n" + body, l, err)) << err;
  return l.functions.empty() ? Function{} : l.functions[0];
}

const Function* recorded(const std::string& family, const std::string& instance) {
  static std::map<std::string, Loaded> cache;
  auto it = cache.find(family);
  if (it == cache.end())
    it = cache.emplace(family, load_family(family, "kernels/" + family + ".cuh", {WS_SOURCE_DIR})).first;
  return it->second.listing.find_instance(instance);
}

}  // namespace

TEST(Sass, LoadBatchEndsAtTheFirstUseOfALoadedRegister) {
  // Two independent loads, then the add that needs both: two in flight.
  const Function two = function_of(
      "/*0000*/ LDG.E R5, desc[UR6][R4.64] ;\n"
      "/*0010*/ LDG.E R6, desc[UR6][R6.64] ;\n"
      "/*0020*/ IMAD R2, R11, 0x200, R2 ;\n"
      "/*0030*/ IADD3 R10, R6, R5, R10 ;\n"
      "/*0040*/ LDG.E.128 R4, desc[UR6][R8.64] ;\n"
      "/*0050*/ IADD3 R10, R4, R10, RZ ;\n");
  EXPECT_EQ(widest_load_batch(two).loads, 2u);
  EXPECT_EQ(widest_load_batch(two).lane_bytes, 8u);
  // A load whose address is the last load's value waits for it (a pointer chase).
  const Function chase = function_of(
      "/*0000*/ LDG.E.64 R2, desc[UR6][R4.64] ;\n"
      "/*0010*/ LDG.E R7, desc[UR6][R2.64] ;\n");
  EXPECT_EQ(widest_load_batch(chase).loads, 1u);
  EXPECT_EQ(widest_load_batch(chase).lane_bytes, 8u);
  // Overwriting a pending register waits too, and a branch ends the run; the wider of
  // two equal runs is kept.
  const Function waw = function_of(
      "/*0000*/ LDG.E R5, desc[UR6][R2.64] ;\n"
      "/*0010*/ MOV R5, RZ ;\n"
      "/*0020*/ LDG.E.128 R8, desc[UR6][R2.64] ;\n"
      "/*0030*/ @!P0 BRA `(.L_x_1) ;\n"
      "/*0040*/ LDG.E R12, desc[UR6][R2.64] ;\n");
  EXPECT_EQ(widest_load_batch(waw).loads, 1u);
  EXPECT_EQ(widest_load_batch(waw).lane_bytes, 16u);
  // Uniform registers and RZ are not the warp's registers.
  const Function uniform = function_of(
      "/*0000*/ LDG.E R4, desc[UR4][R2.64] ;\n"
      "/*0010*/ ULDC UR4, c[0x0][0x0] ;\n"
      "/*0020*/ LDG.E R5, desc[UR4][R2.64+0x4] ;\n"
      "/*0030*/ ISETP.NE.AND P0, PT, RZ, UR4, PT ;\n");
  EXPECT_EQ(widest_load_batch(uniform).loads, 2u);
  EXPECT_EQ(widest_load_batch(function_of("/*0000*/ STG.E desc[UR4][R2.64], R5 ;\n")).loads, 0u);
}

// On the fast build's recorded SASS: what the model takes as each kernel's loads in flight.
TEST(Sass, LoadBatchesOfTheRecordedKernels) {
  struct Case {
    const char* family;
    const char* instance;
    unsigned loads, lane_bytes;
  };
  // The grid-stride loop of step 7 is not unrolled: its two loads, then the add. Step 9
  // reads one int4; the tiled transpose's four rows are unrolled ahead of the stores.
  for (const Case& c : {Case{"reduce", "ReduceMultipleElements<256u>", 2, 8},
                        Case{"reduce", "ReduceVectorLoad", 1, 16},
                        Case{"reduce", "ReduceSequential", 1, 4},
                        Case{"reduce", "ReduceFirstAdd", 2, 8},
                        Case{"transpose", "TransposeTiled<32, 8>", 4, 16}}) {
    const Function* f = recorded(c.family, c.instance);
    ASSERT_NE(f, nullptr) << c.instance;
    const LoadBatch b = widest_load_batch(*f);
    EXPECT_EQ(b.loads, c.loads) << c.instance;
    EXPECT_EQ(b.lane_bytes, c.lane_bytes) << c.instance;
  }
}

// Step 1 of the reduction states the work of its `%` (kModuloWork): the instructions the
// fast build issues on that line beyond the one compare every step's condition has.
TEST(Sass, ModuloWorkIsWhatTheRecordedSassIssuesOnItsLine) {
  std::istringstream src(read(std::string(WS_SOURCE_DIR) + "/kernels/families/reduce.cuh"));
  std::string text;
  int line = 0, at = 0;
  unsigned declared = 0;
  while (std::getline(src, text)) {
    ++line;
    if (text.find("t.branch(tid % (2 * s) == 0)") != std::string::npos) at = line;
    if (auto p = text.find("kModuloWork = "); p != std::string::npos)
      declared = unsigned(std::stoul(text.substr(p + 14)));
  }
  ASSERT_GT(at, 0);
  ASSERT_GT(declared, 0u);
  const Function* f = recorded("reduce", "ReduceInterleavedModulo");
  ASSERT_NE(f, nullptr);
  const auto lines = by_line(*f, "kernels/families/reduce.cuh");
  ASSERT_TRUE(lines.count(at)) << "no SASS on line " << at;
  EXPECT_EQ(lines.at(at).size(), declared + 1) << "re-count kModuloWork from the SASS of line " << at;
}

// The model counts every global atomic of the dialect as a reduction (sim/access.h): the
// dialect's atomic_add returns nothing, and sm_90 compiles such an atomic to REDG. The
// recorded SASS of the whole catalogue holds the compiler to that: no ATOMG anywhere, a
// REDG for each histogram and for the atomic reduction, ATOMS for the shared histogram.
TEST(Sass, EveryGlobalAtomicOfTheCatalogueIsAReduction) {
  int reds = 0, atoms_shared = 0;
  for (const char* family : {"access", "transpose", "reduce", "matmul", "divergence", "histogram", "instr"}) {
    const Loaded l = load_family(family, std::string("kernels/") + family + ".cuh", {WS_SOURCE_DIR});
    ASSERT_TRUE(l.error.empty()) << family << ": " << l.error;
    for (const Function& f : l.listing.functions)
      for (const Instruction& i : f.code) {
        EXPECT_NE(i.opcode.rfind("ATOMG", 0), 0u) << f.instance << ": " << i.text();
        EXPECT_NE(i.opcode.rfind("ATOM.", 0), 0u) << f.instance << ": " << i.text();
        reds += i.opcode.rfind("REDG", 0) == 0;
        atoms_shared += i.opcode.rfind("ATOMS", 0) == 0;
      }
  }
  for (const char* inst : {"HistGlobalAtomic", "HistSharedAtomic", "ReduceAtomic"}) {
    const std::string family = std::string(inst).rfind("Hist", 0) == 0 ? "histogram" : "reduce";
    const Function* f = recorded(family, inst);
    ASSERT_NE(f, nullptr) << inst;
    EXPECT_TRUE(std::any_of(f->code.begin(), f->code.end(),
                            [](const Instruction& i) { return i.opcode.rfind("REDG", 0) == 0; }))
        << inst << " has no REDG";
  }
  EXPECT_GE(reds, 3);
  EXPECT_GE(atoms_shared, 1);
}

// The hand-written line matchers agree with the regexes they replaced (kept here as the
// specification) on every line of every recorded listing and on edge cases.
TEST(Sass, LineMatchersAgreeWithTheirRegexes) {
  static const std::regex ins_re(R"(^\s*/\*([0-9a-fA-F]+)\*/\s*(.*)$)");
  static const std::regex label_re(R"(^\s*\.text\.([A-Za-z0-9_$.]+):\s*$)");
  static const std::regex marker_re(R"(^\s*//-+\s*\.text\.([A-Za-z0-9_$.]+)\s*-*\s*$)");
  static const std::regex file_re(R"re(//##\s*File\s+"([^"]+)",\s*line\s+(\d+))re");
  std::vector<std::string> lines = {
      "", "   /*0040*/ @P0 LDS.128 R4, [R2+0x10] ;", "/*zz*/ MOV", "/**/ MOV", "/*0a0*/",
      "/*0a0*/ X\r", "/*0a0*/   \r", "  .text._Z3fooPi:", ".text.:", ".text.a: x",
      "//--------------------- .text._Z3foo --------------------------", "//- .text.a -- x",
      "//.text.a", "        //## File \"/a/b.cuh\", line 42", "//## File \"a\",line 7",
      "//##File \"a\", line 7", "//## File\"a\", line 7", "//## File \"\", line 7",
      "x //## File \"a\", line 7 inlined at //## File \"b\", line 9", "//## File \"a\", line x"};
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(std::string(WS_SOURCE_DIR) + "/assets/sass")) {
    std::istringstream in(read(e.path().string()));
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    ++files;
  }
  EXPECT_GE(files, 10u);
  std::size_t seen = 0;
  for (const std::string& l : lines) {
    SCOPED_TRACE(l);
    std::smatch m;
    std::string a, b;
    bool want = std::regex_match(l, m, ins_re);
    ASSERT_EQ(ws::sass::match::instruction(l, a, b), want);
    if (want) EXPECT_EQ(a + "|" + b, m[1].str() + "|" + m[2].str());
    want = std::regex_search(l, m, file_re);
    ASSERT_EQ(ws::sass::match::file_line(l, a, b), want);
    if (want) EXPECT_EQ(a + "|" + b, m[1].str() + "|" + m[2].str());
    want = std::regex_match(l, m, label_re);
    ASSERT_EQ(ws::sass::match::label(l, a), want);
    if (want) EXPECT_EQ(a, m[1].str());
    want = std::regex_match(l, m, marker_re);
    ASSERT_EQ(ws::sass::match::marker(l, a), want);
    if (want) EXPECT_EQ(a, m[1].str());
    ++seen;
  }
  EXPECT_GT(seen, 10000u);
}

// docs/HARDWARE.md 9c: scan/serial's recorded SASS unrolls its loop (8 LDG: a peeled first
// iteration, a body of 4, steps of 2 and 1). The emulator's counts plus what that adds are
// what the H100 counted at the defaults (9a: 301,312 requests, 319,744 sectors), derived
// from the SASS, not from those figures; any other kernel gets no surplus.
TEST(Sass, SerialScanIsTheModelPlusItsCompiledLoop) {
  auto emu = make_emu_backend();
  const RunResult r = emu->run("scan", "serial", {{"n", 65536}, {"block", 256}}, {});
  ASSERT_TRUE(r.ok()) << r.error;
  const std::string req = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
  const std::string sec = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
  const auto model = r.totals.ncu();
  EXPECT_EQ(model.at(req), 294912);
  EXPECT_EQ(model.at(sec), 294912);
  const CompiledSurplus s = compiled_surplus("scan", "serial", r.params);
  ASSERT_EQ(s.extra.size(), 2u) << "assets/sass/scan.sass stale or of another shape";
  EXPECT_EQ(model.at(req) + s.extra.at(req), 301312);
  EXPECT_EQ(model.at(sec) + s.extra.at(sec), 319744);
  EXPECT_NE(s.why.find("unrolled"), std::string::npos);
  // 2^20 ints in blocks of 1,024: 32,768 warps, 1,024 blocks.
  const CompiledSurplus big = compiled_surplus("scan", "serial", {{"n", 1 << 20}, {"block", 1024}});
  EXPECT_EQ(big.extra.at(req), 3 * 32768 + 1024);
  EXPECT_EQ(big.extra.at(sec), 12 * 32768 + 1024);
  EXPECT_TRUE(compiled_surplus("scan", "hillis_steele", r.params).extra.empty());
  EXPECT_TRUE(compiled_surplus("transpose", "naive", {{"n", 1024}}).extra.empty());
}
