// Tests of the trace analysis the views share (sim/analysis.h) and the one divergence
// predicate (sim/trace.h diverged): no window needed.
#include <gtest/gtest.h>

#include "sim/analysis.h"

using namespace ws;

namespace {

WarpEvent event(std::uint16_t line, EventKind kind, std::uint32_t mask = 0xFFFFFFFFu,
                std::uint16_t warp = 0) {
  WarpEvent e;
  e.line = line;
  e.kind = kind;
  e.mask = mask;
  e.warp = warp;
  e.bytes = 4;
  return e;
}

// 32 lanes reading 4-byte words `stride` words apart: stride 32 is a 32-way conflict on
// shared memory, 32 sectors on global memory.
WarpEvent access(std::uint16_t line, EventKind kind, unsigned stride) {
  WarpEvent e = event(line, kind);
  for (unsigned l = 0; l < 32; ++l) e.offset[l] = l * stride * 4;
  return e;
}

WarpEvent branch(std::uint16_t line, std::uint32_t ballot, std::uint32_t mask = 0xFFFFFFFFu) {
  WarpEvent e = event(line, EventKind::Branch, mask);
  e.ballot = ballot;
  return e;
}

}  // namespace

TEST(Diverged, OnlyABranchSplitBetweenItsActiveLanes) {
  EXPECT_TRUE(diverged(branch(1, 0x0000FFFFu)));
  EXPECT_FALSE(diverged(branch(1, 0xFFFFFFFFu)));
  EXPECT_FALSE(diverged(branch(1, 0)));
  // Lanes outside the mask do not count: all active lanes agree.
  EXPECT_FALSE(diverged(branch(1, 0xFFFF0000u, 0xFFFF0000u)));
  EXPECT_TRUE(diverged(branch(1, 0x00FF0000u, 0xFFFF0000u)));
  WarpEvent v = branch(1, 0x0000FFFFu);
  v.kind = EventKind::Vote;
  EXPECT_FALSE(diverged(v)) << "a vote's ballot is not a branch";
}

TEST(Analysis, WarpEventsAndConflicts) {
  std::vector<WarpEvent> ev = {access(10, EventKind::GlobalLoad, 1), event(11, EventKind::Barrier, 0xFFFFFFFFu, 1),
                               access(12, EventKind::SharedLoad, 32)};
  EXPECT_EQ(sim::warp_events(ev, 0, 0), (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(sim::warp_events(ev, 0, 1), (std::vector<std::size_t>{1}));
  EXPECT_FALSE(sim::is_conflict(ev[0]));
  EXPECT_TRUE(sim::is_conflict(ev[2]));
  EXPECT_TRUE(sim::is_conflict(access(1, EventKind::GlobalStore, 32)));
  WarpEvent off = access(1, EventKind::SharedLoad, 32);
  off.mask = 0;
  EXPECT_FALSE(sim::is_conflict(off));
}

TEST(Analysis, LinesSummarizeWhatTheWarpDidThere) {
  std::vector<WarpEvent> ev = {access(10, EventKind::SharedLoad, 32), access(10, EventKind::SharedLoad, 1),
                               access(20, EventKind::GlobalStore, 32), branch(30, 0x1),
                               branch(30, 0xFFFFFFFFu), event(40, EventKind::Barrier)};
  const std::vector<std::size_t> order = {0, 1, 2, 3, 4, 5};
  const auto sums = sim::summarize_lines(ev, order);
  ASSERT_EQ(sums.size(), 4u);
  EXPECT_EQ(sums.at(10).events, 2u);
  EXPECT_EQ(sums.at(10).max_degree, 32u);
  EXPECT_TRUE(sums.at(10).conflict());
  EXPECT_EQ(sums.at(10).note(), "32-way bank conflict (x2)");
  EXPECT_EQ(sums.at(20).note(), "32 sectors/request (ideal 4)");
  EXPECT_EQ(sums.at(30).note(), "diverges 1 of 2 times (x2)");
  EXPECT_FALSE(sums.at(30).conflict());
  EXPECT_EQ(sums.at(40).note(), "") << "a barrier needs no note";
}

TEST(Analysis, InterestingPosFindsWhatEachFocusLooksFor) {
  std::vector<WarpEvent> ev = {event(1, EventKind::Barrier), access(2, EventKind::GlobalLoad, 1),
                               access(3, EventKind::SharedLoad, 1), access(4, EventKind::GlobalStore, 32),
                               branch(5, 0x3), access(6, EventKind::SharedLoad, 32)};
  std::vector<std::size_t> order = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ(sim::interesting_pos(ev, order, sim::Focus::Shared), 5u);
  EXPECT_EQ(sim::interesting_pos(ev, order, sim::Focus::Global), 3u);
  EXPECT_EQ(sim::interesting_pos(ev, order, sim::Focus::Branch), 4u);
  EXPECT_EQ(sim::interesting_pos(ev, order, sim::Focus::Conflict), 3u);
  EXPECT_EQ(sim::interesting_pos(ev, order, sim::Focus::None), 0u);
  // Without a conflict the shared focus falls back to the first shared load.
  ev[5] = access(6, EventKind::SharedStore, 1);
  EXPECT_EQ(sim::interesting_pos(ev, order, sim::Focus::Shared), 2u);
  EXPECT_EQ(sim::interesting_pos(ev, {}, sim::Focus::Shared), 0u);
  EXPECT_EQ(sim::to_string(sim::Focus::Branch), "branch");
}

// @post of line_counters_text: "" without requests or branches, else it ends "SIMD n%".
TEST(Analysis, LineCountersInAFewWords) {
  EXPECT_EQ(sim::line_counters_text(sim::Totals{}), "");
  sim::Totals g;
  g.add(access(10, EventKind::GlobalLoad, 1));  // 32 lanes, 4 B apart: 4 sectors
  EXPECT_EQ(sim::line_counters_text(g), "1 req  4 sectors (ideal 4)  SIMD 100%");
  sim::Totals s;
  s.add(access(11, EventKind::SharedLoad, 32));  // one bank, 32 words: 32 wavefronts
  EXPECT_EQ(sim::line_counters_text(s), "1 req  32 wavefronts (ideal 1)  31 conflicts  SIMD 100%");
  sim::Totals b;
  b.add(branch(12, 0x0000FFFFu));
  const std::string t = sim::line_counters_text(b);
  EXPECT_EQ(t.rfind("1 of 1 divergent", 0), 0u) << t;
  EXPECT_NE(t.find("SIMD"), std::string::npos) << t;
}

// @post of line_counters: one entry per line with something to say, none empty.
TEST(Analysis, LineCountersPerSourceLine) {
  sim::SiteSink sink;
  sink.on_event(access(20, EventKind::GlobalLoad, 1));
  sink.on_event(access(20, EventKind::GlobalStore, 1));
  sink.on_event(access(21, EventKind::SharedLoad, 2));
  const std::map<int, std::string> m = sim::line_counters(sink.sites());
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m.at(20).rfind("2 req  8 sectors", 0), 0u) << m.at(20);
  EXPECT_EQ(m.at(21).rfind("1 req  2 wavefronts", 0), 0u) << m.at(21);
  EXPECT_TRUE(sim::line_counters({}).empty());
}
