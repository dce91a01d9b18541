// Tests of the trace records and sinks (sim/trace.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "sim/trace.h"

namespace {

using ws::EventKind;
using ws::WarpEvent;

WarpEvent ev(std::uint32_t block, std::uint16_t warp, std::uint16_t line, EventKind kind,
             std::uint32_t mask = 0xFFFFFFFFu, std::uint8_t array = 0) {
  WarpEvent e;
  e.block = block;
  e.warp = warp;
  e.line = line;
  e.kind = kind;
  e.array = array;
  e.mask = mask;
  if (ws::is_memory(kind)) {
    e.bytes = 4;
    for (int l = 0; l < 32; ++l)
      if (mask >> l & 1u) e.offset[l] = std::uint32_t(4 * l + 128 * line);
  }
  return e;
}

// Events compared as a multiset (byte-wise order), to check "is a permutation".
std::multiset<std::string> as_multiset(const std::vector<WarpEvent>& v) {
  std::multiset<std::string> s;
  for (const auto& e : v)
    s.insert(std::string(reinterpret_cast<const char*>(&e), sizeof(WarpEvent)));
  return s;
}

TEST(Trace, EventKindNamesRoundTrip) {
  std::set<std::string_view> seen;
  for (int i = 0; i < ws::kEventKindCount; ++i) {
    const auto k = EventKind(i);
    const auto name = to_string(k);
    EXPECT_FALSE(name.empty());
    EXPECT_NE(name, "unknown");
    EXPECT_TRUE(seen.insert(name).second) << "duplicate name " << name;
    EventKind back = EventKind::Vote;
    ASSERT_TRUE(ws::event_kind_from_string(name, back)) << name;
    EXPECT_EQ(back, k);
  }
}

TEST(Trace, EventKindFromStringRejectsUnknown) {
  EventKind k = EventKind::Barrier;
  EXPECT_FALSE(ws::event_kind_from_string("", k));
  EXPECT_FALSE(ws::event_kind_from_string("global_loads", k));
  EXPECT_FALSE(ws::event_kind_from_string("GLOBAL", k));
  EXPECT_EQ(k, EventKind::Barrier) << "a failed parse must leave the output alone";
  EXPECT_EQ(to_string(EventKind(200)), "unknown");
}

TEST(Trace, SpaceNames) {
  EXPECT_EQ(to_string(ws::Space::Global), "global");
  EXPECT_EQ(to_string(ws::Space::Shared), "shared");
  EXPECT_NE(to_string(ws::Space::Global), to_string(ws::Space::Shared));
}

TEST(KeepSink, KeepsListedBlocksInIssueOrder) {
  ws::KeepSink sink({3, 1});
  ws::LaunchInfo info;
  info.kernel = "k";
  sink.begin_launch(info);
  std::vector<WarpEvent> expected;
  for (std::uint32_t b = 0; b < 5; ++b)
    for (std::uint16_t w = 0; w < 2; ++w) {
      const auto e = ev(b, w, std::uint16_t(10 + b), EventKind::GlobalLoad);
      sink.on_event(e);
      if (b == 1 || b == 3) expected.push_back(e);
    }
  sink.end_launch();
  ASSERT_EQ(sink.launches().size(), 1u);
  EXPECT_EQ(sink.launches()[0].info.kernel, "k");
  EXPECT_EQ(sink.launches()[0].events, expected);
  EXPECT_FALSE(sink.truncated());
}

TEST(KeepSink, EmptyListKeepsAllAndLaunchesStaySeparate) {
  ws::KeepSink sink;
  ws::LaunchInfo a, b;
  a.kernel = "first";
  b.kernel = "second";
  sink.begin_launch(a);
  sink.on_event(ev(0, 0, 1, EventKind::Barrier));
  sink.on_event(ev(7, 0, 2, EventKind::Barrier));
  sink.end_launch();
  sink.begin_launch(b);
  sink.on_event(ev(2, 1, 3, EventKind::Branch));
  ASSERT_EQ(sink.launches().size(), 2u);
  EXPECT_EQ(sink.launches()[0].events.size(), 2u);
  EXPECT_EQ(sink.launches()[1].events.size(), 1u);
  EXPECT_EQ(sink.launches()[1].info.kernel, "second");
  EXPECT_EQ(sink.launches()[1].events[0].block, 2u);
}

TEST(KeepSink, TruncatesAtMaxEvents) {
  ws::KeepSink sink({}, 5);
  sink.begin_launch({});
  for (std::uint16_t i = 0; i < 8; ++i) sink.on_event(ev(0, 0, i, EventKind::GlobalStore));
  EXPECT_TRUE(sink.truncated());
  const auto& kept = sink.launches()[0].events;
  ASSERT_EQ(kept.size(), 5u);
  for (std::uint16_t i = 0; i < 5; ++i) EXPECT_EQ(kept[i].line, i) << "keeps the beginning";
}

TEST(KeepSink, NotTruncatedWhenFilteredEventsFit) {
  ws::KeepSink sink({1}, 2);
  sink.begin_launch({});
  for (std::uint32_t b = 0; b < 10; ++b) sink.on_event(ev(b % 3 == 1 ? 1 : 0, 0, 1, EventKind::Vote));
  // Blocks 1, 4, 7 map to block 1: three kept events exceed the cap of two.
  EXPECT_TRUE(sink.truncated());
  ws::KeepSink roomy({1}, 3);
  roomy.begin_launch({});
  for (std::uint32_t b = 0; b < 10; ++b) roomy.on_event(ev(b % 3 == 1 ? 1 : 0, 0, 1, EventKind::Vote));
  EXPECT_FALSE(roomy.truncated());
  EXPECT_EQ(roomy.launches()[0].events.size(), 3u);
}

TEST(KeepSink, OnArrayAppendsToCurrentLaunch) {
  ws::KeepSink sink;
  ws::LaunchInfo info;
  info.arrays.push_back({0, ws::Space::Global, "in", 4, 1024, 0});
  sink.begin_launch(info);
  ws::ArrayDesc tile{0, ws::Space::Shared, "tile", 4, 32 * 33, 0};
  sink.on_array(tile);
  tile.count = 32 * 32;
  sink.on_array(tile);  // announced again: updated, not duplicated
  const auto& arrays = sink.launches()[0].info.arrays;
  ASSERT_EQ(arrays.size(), 2u);
  EXPECT_EQ(arrays[0].name, "in");
  EXPECT_EQ(arrays[1].name, "tile");
  EXPECT_EQ(arrays[1].space, ws::Space::Shared);
  EXPECT_EQ(arrays[1].count, 32u * 32u);
}

TEST(KeepSink, EventsWithoutBeginLaunchAreKept) {
  ws::KeepSink sink;
  sink.on_event(ev(0, 0, 1, EventKind::Barrier));
  ASSERT_EQ(sink.launches().size(), 1u);
  EXPECT_EQ(sink.launches()[0].events.size(), 1u);
}

TEST(TeeSink, FansOutToKeepSinks) {
  ws::KeepSink a({0}), b({1});
  ws::TeeSink tee({&a, &b});
  tee.begin_launch({});
  tee.on_event(ev(0, 0, 1, EventKind::Barrier));
  tee.on_event(ev(1, 0, 1, EventKind::Barrier));
  tee.on_event(ev(1, 1, 1, EventKind::Barrier));
  EXPECT_EQ(a.launches()[0].events.size(), 1u);
  EXPECT_EQ(b.launches()[0].events.size(), 2u);
}

// Two backends' traces of one block: warps interleave differently and the two sides
// of a divergent branch (lines 20 and 30) come in opposite orders.
std::vector<WarpEvent> trace_gpu_order() {
  return {ev(0, 0, 10, EventKind::GlobalLoad), ev(0, 1, 10, EventKind::GlobalLoad),
          ev(0, 0, 20, EventKind::SharedStore, 0x0000FFFFu),
          ev(0, 0, 30, EventKind::SharedStore, 0xFFFF0000u),
          ev(0, 1, 40, EventKind::Barrier), ev(0, 0, 40, EventKind::Barrier),
          ev(1, 0, 10, EventKind::GlobalLoad)};
}
std::vector<WarpEvent> trace_emu_order() {
  return {ev(1, 0, 10, EventKind::GlobalLoad), ev(0, 0, 10, EventKind::GlobalLoad),
          ev(0, 0, 30, EventKind::SharedStore, 0xFFFF0000u),
          ev(0, 0, 20, EventKind::SharedStore, 0x0000FFFFu),
          ev(0, 0, 40, EventKind::Barrier), ev(0, 1, 10, EventKind::GlobalLoad),
          ev(0, 1, 40, EventKind::Barrier)};
}

TEST(Canonical, ReorderedTracesBecomeEqual) {
  const auto a = ws::canonical(trace_gpu_order());
  const auto b = ws::canonical(trace_emu_order());
  EXPECT_EQ(a, b);
  EXPECT_EQ(ws::first_difference(a, b), "");
  EXPECT_NE(trace_gpu_order(), trace_emu_order()) << "the inputs really differ in order";
}

TEST(Canonical, IsSortedPermutation) {
  std::mt19937 rng(7);
  std::vector<WarpEvent> v;
  for (int i = 0; i < 500; ++i) {
    auto e = ev(rng() % 3, std::uint16_t(rng() % 4), std::uint16_t(rng() % 5),
                EventKind(rng() % ws::kEventKindCount), std::uint32_t(rng()) | 1u,
                std::uint8_t(rng() % 2));
    e.ballot = std::uint32_t(i);  // tags issue order
    v.push_back(e);
  }
  const auto c = ws::canonical(v);
  EXPECT_EQ(as_multiset(c), as_multiset(v));
  for (std::size_t i = 1; i < c.size(); ++i) {
    const auto& p = c[i - 1];
    const auto& q = c[i];
    const auto kp = std::make_tuple(p.block, p.warp, p.line, p.array, int(p.kind));
    const auto kq = std::make_tuple(q.block, q.warp, q.line, q.array, int(q.kind));
    ASSERT_LE(kp, kq) << "not sorted at " << i;
    if (kp == kq) {
      ASSERT_LT(p.ballot, q.ballot) << "issue order lost at " << i;
    }
  }
}

TEST(Canonical, KeepsIssueOrderWithinASite) {
  // Two loads of one array on one line (sdata[tid] += sdata[tid + s]) share a site.
  auto first = ev(0, 0, 5, EventKind::SharedLoad);
  auto second = ev(0, 0, 5, EventKind::SharedLoad);
  second.offset[0] = 999;
  const auto c = ws::canonical({ev(0, 0, 9, EventKind::Barrier), first, second});
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], first);
  EXPECT_EQ(c[1], second);
  const auto swapped = ws::canonical({second, first});
  EXPECT_NE(ws::first_difference({first, second}, swapped), "");
}

TEST(FirstDifference, NamesTheField) {
  const auto base = ws::canonical(trace_gpu_order());
  auto check = [&](auto change, const std::string& needle) {
    auto other = base;
    change(other);
    const std::string d = ws::first_difference(base, other);
    EXPECT_NE(d.find(needle), std::string::npos) << "'" << d << "' lacks '" << needle << "'";
    return d;
  };
  // Canonical order puts block 0, warp 0 first: lines 10, 20, 30, 40.
  ASSERT_EQ(base[1].line, 20);
  const std::string d =
      check([](auto& v) { v[1].mask = 0x0000FFFEu; }, "mask 0x0000ffff vs 0x0000fffe");
  EXPECT_NE(d.find("event 1"), std::string::npos) << d;
  EXPECT_NE(d.find("block 0"), std::string::npos) << d;
  EXPECT_NE(d.find("warp 0"), std::string::npos) << d;
  EXPECT_NE(d.find("line 20"), std::string::npos) << d;
  EXPECT_NE(d.find("shared_store"), std::string::npos) << d;
  check([](auto& v) { v[1].offset[5] = 4; },
        "lane 5 offset " + std::to_string(base[1].offset[5]) + " vs 4");
  check([](auto& v) { v[3].ballot = 3; }, "ballot 0x00000000 vs 0x00000003");
  check([](auto& v) { v[1].bytes = 8; }, "bytes 4 vs 8");
  check([](auto& v) { v[0].line = 11; }, "line 10 vs 11");
  check([](auto& v) { v[0].kind = EventKind::GlobalStore; }, "kind global_load vs global_store");
  check([](auto& v) { v.pop_back(); }, "missing from the second trace");
  const std::string only_later = check([](auto& v) { v[5].mask = 1; }, "event 5");
  EXPECT_EQ(only_later.find("event 1"), std::string::npos);
}

TEST(FirstDifference, MissingFromFirst) {
  const auto base = ws::canonical(trace_gpu_order());
  auto shorter = base;
  shorter.erase(shorter.begin() + 1);
  const auto d = ws::first_difference(base, shorter);
  EXPECT_NE(d.find("event 1"), std::string::npos) << d;
  auto fewer = base;
  fewer.pop_back();
  const auto e = ws::first_difference(fewer, base);
  EXPECT_NE(e.find("missing from the first trace"), std::string::npos) << e;
  EXPECT_NE(e.find("event " + std::to_string(fewer.size())), std::string::npos) << e;
  EXPECT_EQ(ws::first_difference({}, {}), "");
}

}  // namespace
