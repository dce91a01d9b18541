#pragma once
// The compiler's SASS of the fast build, beside the source. `nvdisasm -c -gi` output (with
// line information, the fast build is compiled with -lineinfo) is recorded on the GPU
// machine by scripts/device_run.sh (stage sass_record) into assets/sass/<family>.sass,
// keyed by a hash of the kernel source and the compiler version, so the app shows it with
// no GPU and no nvdisasm. Parsing, per-line grouping and the checks against the model's
// assumptions are plain C++: CI tests them on checked-in text.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/trace.h"

namespace ws::sass {

struct Location {
  std::string file;  // as recorded (repository-relative in assets/sass)
  int line = 0;
};

// What a SASS instruction does to memory, by its opcode.
enum class MemKind {
  None, GlobalLoad, GlobalStore, GlobalAtomic, SharedLoad, SharedStore, SharedAtomic,
  LocalLoad, LocalStore, Barrier,
};
std::string_view to_string(MemKind k);

struct Instruction {
  std::uint32_t offset = 0;     // byte offset in the function
  std::string predicate;        // "@P0", "@!P1", "" when unpredicated
  std::string opcode;           // "LDS.128", "STG.E"
  std::string operands;         // "R4, [R2+0x10]"
  std::vector<Location> where;  // source location, innermost first, then where inlined
  MemKind mem() const;
  // Bits each lane moves for a memory instruction: 32 unless the opcode says .64, .128,
  // .U8/.S8 (8), .U16/.S16 (16); 0 for other instructions.
  unsigned width_bits() const;
  std::string text() const;     // "@P0 LDS.128 R4, [R2+0x10]"
};

struct Function {
  std::string mangled;    // _ZN2ws4fast8ws_entryINS0_14TransposeTiledILi32ELi8EEEEEvT_
  std::string demangled;  // void ws::fast::ws_entry<ws::fast::TransposeTiled<32, 8> >(...)
  std::string instance;   // TransposeTiled<32, 8>: the kernel struct, as kernel_instances() names it
  int registers = -1, stack = -1, local = -1, shared = -1;  // cuobjdump -res-usage; -1 unknown
  std::vector<Instruction> code;
  int spill_stores() const;  // STL instructions: registers spilled to local memory
  int spill_loads() const;   // LDL instructions
};

struct Listing {
  std::string family, source_hash, compiler, arch;  // from the recorded header line
  std::vector<Function> functions;
  const Function* find_instance(const std::string& instance) const;
};

// Parses nvdisasm's text (-c, with -g or -gi line information): function markers
// (`.text.NAME:` or `//--- .text.NAME ---`), `//## File "F", line N [inlined at "G", line M]`
// lines, instruction lines `/*0040*/ @P0 LDS.128 R4, [R2+0x10] ;`, and warpscope's own
// comment lines (`//## warpscope family=... source_hash=... compiler=... arch=...` and
// `//## resources REG:26 STACK:0 SHARED:0 LOCAL:0` after a function marker).
// @post every instruction belongs to the function whose marker precedes it; an
//       instruction's `where` is the location block printed last before it (innermost
//       first); returns false with `err` naming the line when an instruction precedes
//       every function marker, a line is longer than 1024 characters, or a count or line
//       number does not fit an int.
bool parse(std::string_view text, Listing& out, std::string& err);

// The line shapes parse() reads, by hand (the test holds them against the regexes
// `^\s*/\*([0-9a-fA-F]+)\*/\s*(.*)$`, `//##\s*File\s+"([^"]+)",\s*line\s+(\d+)`,
// `^\s*\.text\.([A-Za-z0-9_$.]+):\s*$` and `^\s*//-+\s*\.text\.([A-Za-z0-9_$.]+)\s*-*\s*$`).
namespace match {
// @post true iff the line matches the regex above; the outputs are its groups then.
bool instruction(const std::string& line, std::string& hex, std::string& rest);
bool file_line(const std::string& line, std::string& file, std::string& number);
bool label(const std::string& line, std::string& name);
bool marker(const std::string& line, std::string& name);
}  // namespace match

std::string demangle(const std::string& mangled);
// "TransposeTiled<32, 8>" from "void ws::fast::ws_entry<ws::fast::TransposeTiled<32, 8> >(...)";
// "" when the name is not a ws_entry instantiation.
std::string instance_of(const std::string& demangled);

// The instructions of `f` by the line of `file` they came from: the first location of an
// instruction's chain whose file ends with `file` (the family header, through the inlined
// handles of kernels/dialect/simt_cuda.h). Instructions from no line of `file` are left out.
// @post every instruction listed has a location in `file` at that line.
std::map<int, std::vector<const Instruction*>> by_line(const Function& f, const std::string& file);

// The accesses the model sees on a line: kind and bytes per lane, from kept trace events.
struct ModelAccess {
  MemKind kind = MemKind::None;
  unsigned bytes = 0;
};
std::map<int, std::vector<ModelAccess>> model_accesses(const std::vector<WarpEvent>& events);

// Where a line's SASS is not what the model assumes (one instruction of the source's
// width per access): a memory instruction wider than the model's access (fused loads),
// a kind of access the model sees on the line with no such instruction there (merged
// into another line's instruction, or removed), a predicated store (two branches' stores
// may have become one).
// @post one entry per line of `sass` or `model` that differs, with one sentence.
std::map<int, std::string> differences(const std::map<int, std::vector<const Instruction*>>& sass,
                                       const std::map<int, std::vector<ModelAccess>>& model);

// The global loads a warp of `f` keeps in flight at once. A warp issues in order and stops
// at the first instruction that needs a register a pending load writes, so the loads the
// compiler places before that point (a loop body's independent loads, an unrolled
// loop's) are in flight together: Little's law then sets the DRAM rate a streaming loop
// reaches. A run of LDG ends at an instruction that reads or overwrites a register one of
// them loads, or at control flow (a branch, barrier, convergence wait or exit).
struct LoadBatch {
  unsigned loads = 0;       // LDG instructions in the run
  unsigned lane_bytes = 0;  // bytes they load per lane
};
// @post loads == the most LDG instructions in one such run of f (0 when f has none);
//       lane_bytes == the sum of width_bits() / 8 over that run (the widest when runs tie).
LoadBatch widest_load_batch(const Function& f);

// FNV-1a 64 of a byte string, and the key of a family's recorded SASS: the hash of the
// family header, kernels/dialect/simt.h and kernels/dialect/simt_cuda.h, concatenated, as hex.
std::uint64_t fnv1a(std::string_view s);
std::string source_hash(const std::string& family_header_text, const std::string& simt_h,
                        const std::string& simt_cuda_h);

// Reads `rel` from the first root that has it. "" with err set when none does.
std::string read_from_roots(const std::string& rel, const std::vector<std::string>& roots,
                            std::string& err);

// assets/sass/<family>.sass from the first root that has it, parsed; `stale` says the
// source it was recorded from differs from the source found under the same roots.
struct Loaded {
  Listing listing;
  std::string error;  // why there is none ("" when loaded)
  bool stale = false;
  std::string current_hash;
};
Loaded load_family(const std::string& family, const std::string& source_file,
                   const std::vector<std::string>& roots);

}  // namespace ws::sass
