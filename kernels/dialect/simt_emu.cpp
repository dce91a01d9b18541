// The emulator-mode dialect's parts compiled once, here, instead of in every kernel that
// includes kernels/dialect/simt_emu.h: a launch's work and the failures' messages. A
// student's shared object (kernels/user/user_build.h) calls them in the executable that
// loads it (-rdynamic); the catalogue's launches pull this object into the link.
#define WS_MODE_EMU
#include "kernels/dialect/simt.h"

#include <string>

namespace ws {
inline namespace emu {

void fail_out_of_bounds(sim::Lane& lane, EventKind k, std::uint16_t line, bool shared, std::uint8_t array,
                        std::int64_t i, std::uint64_t count) {
  // "array #N" is the trace's array id: callers that know the names substitute them.
  lane.fail(sim::ProblemKind::OutOfBounds, line,
            std::string("out-of-bounds ") + (is_load(k) ? "read" : is_store(k) ? "write" : "atomic") +
                " of " + (shared ? "shared" : "global") + " array #" + std::to_string(array) + " at index " +
                std::to_string(i) + " (it has " + std::to_string(count) + " elements)");
  __builtin_unreachable();  // fail() unwinds the lane
}

void fail_pointer(sim::Lane& lane, int line, std::int64_t byte, std::size_t size, bool shared, std::uint8_t array,
                  bool null) {
  if (null) lane.fail(sim::ProblemKind::OutOfBounds, std::uint16_t(line), "access through a null pointer");
  lane.fail(sim::ProblemKind::OutOfBounds, std::uint16_t(line),
            "misaligned access: byte " + std::to_string(byte) + " of " + (shared ? "shared" : "global") +
                " array #" + std::to_string(array) + " is not a multiple of " + std::to_string(size) + " bytes");
  __builtin_unreachable();
}

void Launcher::launch_body(const LaunchCfg& cfg, const char* type_name, void (*body)(const void*),
                           const void* kernel) {
  if (names_) {
    names_->push_back(type_name);
    return;
  }
  if (!result_.ok || !error_.empty()) return;
  opt_.progress_stage = "emulating " + cfg.kernel;
  sim::EmuLaunch l;
  l.info = LaunchInfo{cfg.kernel, source_file_, cfg.grid, cfg.block, cfg.shared_bytes, arrays_};
  l.thread_body = [body, kernel] { body(kernel); };
  // Kept blocks are per launch, as in the traced CUDA build: a launch keeps those of the
  // blocks that its grid has (a second pass of one block keeps block 0 only), and a
  // launch that has none of them is not emulated.
  sim::EmuOptions o = opt_;
  if (!opt_.only_blocks.empty()) {
    o.only_blocks.clear();
    for (std::uint32_t b : opt_.only_blocks)
      if (b < cfg.grid.count()) o.only_blocks.push_back(b);
    if (o.only_blocks.empty()) return;
  }
  sim::EmuResult r = sim::run(l, sink_, o);
  result_.ok = result_.ok && r.ok;
  result_.events += r.events;
  result_.threads_run += r.threads_run;
  result_.steps += r.steps;
  result_.cancelled = result_.cancelled || r.cancelled;
  result_.problems.insert(result_.problems.end(), r.problems.begin(), r.problems.end());
}

}  // namespace emu
}  // namespace ws
