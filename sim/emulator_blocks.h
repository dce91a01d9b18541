#pragma once
// Internal to the emulator: one launch's blocks emulated on the calling thread (the
// emulator of emulator.cpp), the unit each worker of the several-cores driver
// (emulator_parallel.cpp) runs. Not part of sim/emulator.h's interface.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/emulator.h"

namespace ws::sim {

// The dialect numbers shared arrays from here (kernels/dialect/simt.h kFirstSharedId); sim/ may
// not include kernels/, so the value is repeated and a test holds the two together.
constexpr std::uint8_t kFirstSharedArray = 0x80;

class BlockRunner {
 public:
  BlockRunner(const EmuLaunch& launch, TraceSink& sink, const EmuOptions& opt);
  ~BlockRunner();
  // Validates the launch and lays out its shared memory; false: it cannot run (result()).
  bool prepare();
  // Every block (or opt.only_blocks), in order, streamed to the sink.
  EmuResult run();
  // Blocks list[lo, hi) (grid ids 0.. when list is empty); result() is this chunk's.
  void run_chunk(const std::vector<std::uint32_t>& list, std::size_t lo, std::size_t hi);
  const EmuResult& result() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ws::sim
