#pragma once
// The global arrays of a run that emulates only some blocks of a grid (trace --block, the
// GUI's block stage): address space reserved for every array, whose pages are made the
// first time a kept block touches them (inputs from their InputGen, outputs poisoned), so
// a one-block trace of a 2 GB array costs what that block reads, not 2 GB (issue 10).
// Not thread-safe: the emulator runs such a launch on one thread.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/catalogue/catalogue.h"
#include "sim/emulator.h"

namespace ws {

class LazyArrays final : public sim::LazyMemory {
 public:
  static constexpr std::size_t kChunk = 64 * 1024;  // bytes made at a time
  // Reserves (does not commit) every array of the plan; throws std::bad_alloc when the
  // address space cannot be had.
  LazyArrays(const Plan& plan, std::uint64_t seed);
  ~LazyArrays() override;
  LazyArrays(const LazyArrays&) = delete;
  LazyArrays& operator=(const LazyArrays&) = delete;

  std::byte* data(std::size_t array) const { return arrays_.at(array).base; }
  // Makes the chunks of [addr, addr + bytes) that lie in an array and were not made yet.
  // @post every byte of those chunks holds what the eager path puts there: word i of an
  //       input == input_word(gen, seed, array, i); an output's bytes are 0xFF.
  void touch(const void* addr, std::size_t bytes) override;
  // Bytes made so far (whole chunks): what the run's arrays cost in memory.
  std::size_t bytes_made() const { return made_; }

 private:
  struct Array {
    std::byte* base = nullptr;
    std::size_t size = 0, mapped = 0;
    std::uint32_t index = 0;
    const ArraySpec* spec = nullptr;
    std::vector<bool> made;  // per chunk
  };
  void make(Array& a, std::size_t chunk);
  std::vector<ArraySpec> specs_;
  std::vector<Array> arrays_;
  std::uint64_t seed_;
  std::size_t made_ = 0;
};

}  // namespace ws
