#pragma once
// Shared-memory race detection for one block at a time, as the emulator issues it.
// Two accesses to one 4-byte word race when at least one writes, they come from
// different threads, and nothing orders them: no __syncthreads between them (the
// barrier phase, `epoch`), and for two lanes of one warp, no __syncwarp that named both
// after the first one. Per word the detector keeps the last write and the last two
// distinct readers since it (a shadow word), which finds every write-read, read-write
// and write-write pair that a later access completes, at a fixed cost per access.
// Atomics never race and are not passed in. No CUDA, no GUI here.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ws::sim {

// One race: the access that found it and the earlier, unordered access to the same word.
struct Race {
  std::uint32_t word = 0;           // 4-byte word of the block's shared memory
  std::uint16_t tid = 0, line = 0;  // the later access (linear thread id in the block)
  bool write = false;
  std::uint16_t prev_tid = 0, prev_line = 0;
  bool prev_write = false;
  bool same_instruction = false;    // both in one warp instruction (two lanes, one store)
};

class RaceDetector {
 public:
  static constexpr unsigned kMaxThreads = 1024;

  // A launch of blocks with `shared_bytes` of shared memory and `warps` warps each.
  // Forgets everything, the sites already reported included.
  void start_launch(std::uint32_t shared_bytes, unsigned warps);
  // A new block: no access is remembered, every warp's __syncwarp count restarts. The
  // sites already reported stay reported (one report per pair of sites per launch).
  void start_block();
  // Forgets the pairs of sites already reported (a parallel run's worker starts a chunk
  // of blocks as if the launch began there; the chunks' reports are filtered in order).
  void forget_reports() { reported_.clear(); }
  // Every live thread of the block passed a __syncthreads.
  void barrier() { ++epoch_; }
  // The lanes `lanes` of warp `warp` passed one __syncwarp together.
  void syncwarp(unsigned warp, std::uint32_t lanes);
  // The next shared load or store instruction of the block begins; its lanes' words
  // follow through access().
  void begin_instruction() { ++instr_; }

  // Thread `tid` reads or writes shared word `word` at source line `line`.
  // @post returns the races of this access with remembered accesses (the last write
  // first, then one reader if it writes), leaving out any pair of lines (line, prev_line)
  // reported before in this launch; so two accesses that are ordered never race.
  std::vector<Race> access(unsigned tid, std::uint32_t word, bool write, std::uint16_t line);
  // The same, appending the races to `out`: inline, since the emulator calls it for every
  // lane of every shared access and almost none races.
  [[gnu::always_inline]] void access(unsigned tid, std::uint32_t word, bool write,
                                     std::uint16_t line, std::vector<Race>& out) {
    WordShadow& s = shadow_[word];
    const Acc now{std::uint16_t(tid), line, epoch_, sync_seq_[tid / 32], instr_};
    if (s.w.tid != kNoThread && !ordered(s.w, tid)) found(s.w, true, tid, write, line, word, out);
    if (write) {
      if (s.r0.tid != kNoThread && !ordered(s.r0, tid))
        found(s.r0, false, tid, true, line, word, out);
      else if (s.r1.tid != kNoThread && !ordered(s.r1, tid))
        found(s.r1, false, tid, true, line, word, out);
      // Readers before this write are ordered before it (or just reported): forget them.
      s.w = now;
      s.r0 = Acc{};
      s.r1 = Acc{};
    } else {
      if (s.r0.tid != tid) s.r1 = s.r0;
      s.r0 = now;
    }
  }

 private:
  static constexpr std::uint16_t kNoThread = 0xFFFF;
  struct Acc {
    std::uint16_t tid = kNoThread;
    std::uint16_t line = 0;
    std::uint32_t epoch = 0;  // barrier phase of the block
    std::uint32_t wseq = 0;   // the warp's __syncwarp count at the time
    std::uint32_t instr = 0;  // shared instruction number in the block
  };
  struct WordShadow {
    Acc w, r0, r1;
  };

  bool ordered(const Acc& a, unsigned tid) const {
    if (a.epoch != epoch_ || a.tid == tid) return true;
    const unsigned wa = a.tid / 32u;
    if (wa != tid / 32u) return false;
    return pair_sync_[std::size_t(wa) * 1024 + (a.tid % 32u) * 32 + tid % 32u] > a.wseq;
  }
  void found(const Acc& prev, bool prev_write, unsigned tid, bool write, std::uint16_t line,
             std::uint32_t word, std::vector<Race>& out);

  std::uint32_t epoch_ = 0;
  std::uint32_t instr_ = 0;
  std::vector<WordShadow> shadow_;
  std::vector<std::uint32_t> sync_seq_;   // [warp]: __syncwarp events so far
  std::vector<std::uint8_t> pair_dirty_;  // [warp]: pair_sync_ has entries to clear
  std::vector<std::uint32_t> pair_sync_;  // [warp][lane a][lane b]: last common __syncwarp
  std::vector<std::pair<std::uint16_t, std::uint16_t>> reported_;
};

// The emulator's one-sentence message for a race: `word_name` names the word
// ("'tile' word 3"), `block` the linear block.
// @post names the word, the block, both threads and, unless in one instruction, both lines.
std::string describe(const Race& r, std::string_view word_name, std::uint32_t block);

}  // namespace ws::sim
