// Shared-memory race detection (see sim/race.h).
#include "sim/race.h"

#include <algorithm>

namespace ws::sim {

void RaceDetector::start_launch(std::uint32_t shared_bytes, unsigned warps) {
  shadow_.assign((std::size_t(shared_bytes) + 3) / 4, WordShadow{});
  sync_seq_.assign(warps, 0);
  pair_dirty_.assign(warps, 0);
  pair_sync_.assign(std::size_t(warps) * 32 * 32, 0);
  reported_.clear();
  epoch_ = 0;
  instr_ = 0;
}

void RaceDetector::start_block() {
  epoch_ = 0;
  instr_ = 0;
  std::fill(shadow_.begin(), shadow_.end(), WordShadow{});
  for (std::size_t w = 0; w < sync_seq_.size(); ++w) {
    // Only warps that synced touched their pair table: clearing 4 KiB per warp per block
    // would cost more than the blocks without __syncwarp run.
    if (pair_dirty_[w]) {
      std::fill_n(pair_sync_.begin() + std::ptrdiff_t(w) * 1024, 1024, 0u);
      pair_dirty_[w] = 0;
    }
    sync_seq_[w] = 0;
  }
}

void RaceDetector::syncwarp(unsigned warp, std::uint32_t lanes) {
  const std::uint32_t seq = ++sync_seq_[warp];
  pair_dirty_[warp] = 1;
  std::uint32_t* P = &pair_sync_[std::size_t(warp) * 1024];
  for (std::uint32_t a = lanes; a; a &= a - 1)
    for (std::uint32_t b = lanes; b; b &= b - 1)
      P[__builtin_ctz(a) * 32 + __builtin_ctz(b)] = seq;
}

void RaceDetector::found(const Acc& prev, bool prev_write, unsigned tid, bool write,
                         std::uint16_t line, std::uint32_t word, std::vector<Race>& out) {
  for (const auto& r : reported_)
    if (r.first == line && r.second == prev.line) return;  // one report per pair of sites
  reported_.emplace_back(line, prev.line);
  Race r;
  r.word = word;
  r.tid = std::uint16_t(tid);
  r.line = line;
  r.write = write;
  r.prev_tid = prev.tid;
  r.prev_line = prev.line;
  r.prev_write = prev_write;
  r.same_instruction = prev.instr == instr_;
  out.push_back(r);
}

std::vector<Race> RaceDetector::access(unsigned tid, std::uint32_t word, bool write,
                                       std::uint16_t line) {
  std::vector<Race> out;
  access(tid, word, write, line, out);
  return out;
}

std::string describe(const Race& r, std::string_view word_name, std::uint32_t block) {
  std::string msg = "race on shared array " + std::string(word_name) + " in block " +
                    std::to_string(block) + ": thread " + std::to_string(r.tid) +
                    (r.write ? " writes it" : " reads it") + " on line " + std::to_string(r.line);
  if (r.same_instruction && r.write && r.prev_write)
    msg += " in the same instruction as thread " + std::to_string(r.prev_tid);
  else
    msg += " after thread " + std::to_string(r.prev_tid) + (r.prev_write ? " wrote" : " read") +
           " it on line " + std::to_string(r.prev_line) + ", with no __syncthreads" +
           (r.prev_tid / 32 == r.tid / 32 ? " or __syncwarp" : "") + " between";
  return msg;
}

}  // namespace ws::sim
