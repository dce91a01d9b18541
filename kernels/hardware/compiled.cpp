#include "kernels/hardware/compiled.h"

#include <map>
#include <mutex>

#include "kernels/backends/backend.h"
#include "kernels/hardware/recording.h"
#include "kernels/hardware/sass.h"

namespace ws {

namespace {

// LDG instructions of one kernel instance of the family's recorded SASS, and of them the
// predicated ones; -1 when the SASS is missing or stale (then no derivation holds).
struct Loads {
  int all = -1, predicated = 0;
};

Loads recorded_loads(const std::string& family, const std::string& instance) {
  const FamilyInfo* fam = find_family(family);
  if (!fam) return {};
  // Read once per process (the metrics panel asks every frame); the GUI's worker asks from
  // its own thread.
  static std::mutex mu;
  static std::map<std::string, Loads> cache;
  std::lock_guard<std::mutex> lock(mu);
  const std::string key = family + "/" + instance;
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  Loads& n = cache[key];
  std::vector<std::string> roots;
  for (const auto& r : source_roots()) roots.push_back(r.string());
  const sass::Loaded l = sass::load_family(family, fam->source_file, roots);
  if (!l.error.empty() || l.stale) return n;
  const sass::Function* f = l.listing.find_instance(instance);
  if (!f) return n;
  n.all = 0;
  for (const sass::Instruction& i : f->code)
    if (i.opcode.rfind("LDG", 0) == 0) {
      ++n.all;
      n.predicated += i.predicate.empty() ? 0 : 1;
    }
  return n;
}

// scan/serial (docs/HARDWARE.md 9c). The source's loop `for k <= tid: sum += in(base + k)`
// compiles (nvcc 13.0, sm_90) to 8 LDG: thread 0's single iteration peeled (one predicated
// LDG), a body of 4 LDG while k + 3 <= tid, then a step of 2 and a step of 1 for the rest.
// In the body every active lane stands at the same k: one word, one request, one sector,
// as the model counts each iteration. The remainder steps run for lanes whose trip count
// tid + 1 leaves 2 or 3 (the 2-step) or 1 or 3 (the 1-step) over a multiple of 4, each at
// its own k = 4 x floor((tid + 1) / 4): 8 different words of the warp's 128-byte line, so
// each of those 3 LDG is one request over 4 sectors. The peeled LDG is a request only in
// the warp that holds thread 0.
CompiledSurplus scan_serial(const Params& p) {
  const Loads l = recorded_loads("scan", "ScanSerial");
  if (l.all != 8 || l.predicated != 1) return {};
  const double warps = double(p.at("n")) / 32.0, blocks = double(p.at("n") / p.at("block"));
  CompiledSurplus s;
  s.extra["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] = 3 * warps + blocks;
  s.extra["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] = 12 * warps + blocks;
  s.why = "The compiler unrolled the serial loop by 4 (the recorded SASS: 8 LDG for its one "
          "load, thread 0's iteration peeled, then steps of 2 and 1 for the rest). In those "
          "steps the lanes stand at different k, so each is one request over 4 sectors: 3 "
          "requests and 12 sectors more a warp, and the peeled load one of each a block.";
  return s;
}

}  // namespace

CompiledSurplus compiled_surplus(const std::string& family, const std::string& variant,
                                 const Params& completed) {
  if (family == "scan" && variant == "serial" && completed.count("n") && completed.count("block"))
    return scan_serial(completed);
  return {};
}

}  // namespace ws
