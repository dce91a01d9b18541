// The SIMT emulator's blocks on several cores: workers emulate chunks of blocks
// (BlockRunner, emulator.cpp) and hand them to the run's sink in block order, so the sink
// sees what one core's run would give; and the entry point that picks one core or several.
#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "sim/emulator.h"
#include "sim/emulator_blocks.h"

namespace ws::sim {

// [SECTION] Blocks on several cores
// Workers emulate chunks of consecutive blocks, each into a buffer of its own; the
// buffers pass to the run's sink in block order (whichever worker finishes the chunk
// that is next hands it over), with the problems filtered as one serial run files them:
// a race's pair of lines once per launch, at most max_problems, nothing after the first
// abort. So the sink sees the very calls, in the very order, of the serial run.
namespace {

struct Chunk {
  std::size_t lo = 0, hi = 0;  // positions in the run's block list
  std::vector<WarpEvent> events;
  std::vector<std::pair<std::size_t, ArrayDesc>> arrays;  // announced before events[first]
  EmuResult result;
  std::exception_ptr error;  // the emulation threw (a sink never runs on a worker's own)
  bool done = false;
};

// Records what a worker's BlockRunner streams, into the chunk it runs.
class ChunkSink final : public TraceSink {
 public:
  Chunk* into = nullptr;
  void on_array(const ArrayDesc& a) override { into->arrays.emplace_back(into->events.size(), a); }
  void on_event(const WarpEvent& e) override { into->events.push_back(e); }
};

class ParallelRun {
 public:
  ParallelRun(const EmuLaunch& l, TraceSink& s, const EmuOptions& o, unsigned threads,
              std::vector<std::uint32_t> list, std::uint64_t nblocks)
      : launch_(l), sink_(s), opt_(o), threads_(threads), list_(std::move(list)) {
    // Chunks small enough to balance the cores and keep the buffers in cache, at least
    // one block each.
    const std::uint64_t per = std::clamp<std::uint64_t>(nblocks / (std::uint64_t(threads) * 32), 1, 8);
    for (std::uint64_t lo = 0; lo < nblocks; lo += per)
      chunks_.push_back(std::make_unique<Chunk>(Chunk{std::size_t(lo), std::size_t(std::min(nblocks, lo + per))}));
    ahead_ = std::size_t(threads) * 4;
  }

  void run(EmuResult& out) {
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < threads_; ++t)
      ts.emplace_back([this] {
        try {
          worker();
        } catch (...) {  // a worker's own failure (no memory for its fibers): the run's
          std::lock_guard lk(mu_);
          if (!sink_error_) sink_error_ = std::current_exception();
          stop_ = true;
          cv_.notify_all();
        }
      });
    for (auto& t : ts) t.join();
    if (sink_error_) std::rethrow_exception(sink_error_);
    out = merged_;
  }

 private:
  void worker() {
    ChunkSink cs;
    BlockRunner emu(launch_, cs, opt_);
    if (!emu.prepare()) return;  // validated by the caller: cannot happen
    std::size_t last = 0;  // events of this worker's last chunk: the next one's room
    for (;;) {
      std::size_t c;
      {
        std::unique_lock lk(mu_);
        // Not too far ahead of the hand-over, so that buffers stay few.
        cv_.wait(lk, [&] { return stop_ || next_claim_ >= chunks_.size() || next_claim_ < next_give_ + ahead_; });
        if (stop_ || next_claim_ >= chunks_.size()) break;
        c = next_claim_++;
      }
      Chunk& ch = *chunks_[c];
      cs.into = &ch;
      ch.events.reserve(last + last / 8);  // chunks of one launch are alike: no regrowth
      try {
        emu.run_chunk(list_, ch.lo, ch.hi);
        ch.result = emu.result();
        last = ch.events.size();
      } catch (...) {
        ch.error = std::current_exception();
      }
      std::unique_lock lk(mu_);
      ch.done = true;
      if (giving_) continue;  // the worker handing over will take this one too
      giving_ = true;
      while (!stop_ && next_give_ < chunks_.size() && chunks_[next_give_]->done) {
        Chunk& g = *chunks_[next_give_];
        lk.unlock();
        const bool last = give(g);  // the sink runs outside the lock, one worker at a time
        g = Chunk{};                // its buffers are freed
        lk.lock();
        ++next_give_;
        if (last) stop_ = true;
      }
      giving_ = false;
      cv_.notify_all();
    }
  }

  // Hands one chunk to the sink as the serial run would have; true when the run stops.
  bool give(Chunk& g) {
    try {
      if (g.error) std::rethrow_exception(g.error);
      std::size_t a = 0;
      for (std::size_t i = 0; i <= g.events.size(); ++i) {
        for (; a < g.arrays.size() && g.arrays[a].first == i; ++a) {
          const std::size_t k = std::size_t(g.arrays[a].second.id - kFirstSharedArray);
          if (k >= announced_) {
            sink_.on_array(g.arrays[a].second);
            announced_ = k + 1;
          }
        }
        if (i < g.events.size()) sink_.on_event(g.events[i]);
      }
    } catch (...) {
      std::lock_guard lk(mu_);  // a failing worker may record its own at the same time
      if (!sink_error_) sink_error_ = std::current_exception();
      return true;
    }
    const EmuResult& r = g.result;
    merged_.events += r.events;
    merged_.threads_run += r.threads_run;
    merged_.steps += r.steps;
    merged_.cancelled = merged_.cancelled || r.cancelled;
    bool aborted = false;
    for (const Problem& p : r.problems) {
      if (p.kind != ProblemKind::Race) {
        merged_.problems.push_back(p);  // the chunk's abort, always its last problem
        aborted = true;
        continue;
      }
      const std::pair<std::uint16_t, std::uint16_t> pair{p.line, p.other_line};
      if (std::find(reported_.begin(), reported_.end(), pair) != reported_.end()) continue;
      reported_.push_back(pair);
      if (merged_.problems.size() < opt_.max_problems) merged_.problems.push_back(p);
    }
    return aborted;
  }

  const EmuLaunch& launch_;
  TraceSink& sink_;
  const EmuOptions& opt_;
  unsigned threads_;
  std::vector<std::uint32_t> list_;
  std::vector<std::unique_ptr<Chunk>> chunks_;
  std::size_t ahead_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t next_claim_ = 0, next_give_ = 0;
  bool giving_ = false, stop_ = false;

  // Touched only by the worker handing over (giving_).
  std::size_t announced_ = 0;
  std::vector<std::pair<std::uint16_t, std::uint16_t>> reported_;
  EmuResult merged_;
  std::exception_ptr sink_error_;  // under mu_: the first failure, rethrown by run()
};

}  // namespace

unsigned emu_threads() {
  for (const char* name : {"WARPSCOPE_EMU_THREADS", "WS_EMU_THREADS"})
    if (const char* env = std::getenv(name)) {
      char* end = nullptr;
      const long v = std::strtol(env, &end, 10);
      if (end != env && *end == '\0' && v >= 1 && v <= 256) return unsigned(v);
    }
  return std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
}

EmuResult run(const EmuLaunch& launch, TraceSink& sink, const EmuOptions& opt) {
  std::vector<std::uint32_t> list = opt.only_blocks;
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
  const std::uint64_t nblocks = list.empty() ? launch.info.grid.count() : list.size();
  // Made-on-touch memory is filled by one thread; no more threads than blocks.
  const unsigned threads = unsigned(std::min<std::uint64_t>(opt.threads, nblocks));
  if (threads <= 1 || opt.lazy) {
    BlockRunner emu(launch, sink, opt);
    return emu.run();
  }
  EmuResult res;
  {
    BlockRunner check(launch, sink, opt);  // validation only: the problems of a launch that cannot run
    sink.begin_launch(launch.info);
    if (!check.prepare()) {
      sink.end_launch();
      res = check.result();
      res.ok = res.problems.empty();
      return res;
    }
  }
  ParallelRun pr(launch, sink, opt, threads, std::move(list), nblocks);
  pr.run(res);
  sink.end_launch();
  res.blocks_run = nblocks;
  res.ok = res.problems.empty();
  return res;
}

}  // namespace ws::sim
