// Which event a lesson step names (sim/event_at.h).
#include <gtest/gtest.h>

#include "sim/event_at.h"

namespace {

using ws::EventKind;
using ws::WarpEvent;

WarpEvent ev(EventKind k, std::uint16_t line, std::uint32_t stride_bytes = 4) {
  WarpEvent e;
  e.kind = k;
  e.line = line;
  e.mask = 0xFFFFFFFFu;
  e.bytes = ws::is_memory(k) ? 4 : 0;
  e.array = ws::is_memory(k) ? 0 : ws::kNoArray;
  for (int l = 0; l < 32; ++l) e.offset[l] = ws::is_memory(k) ? std::uint32_t(l) * stride_bytes : 0;
  return e;
}

TEST(EventAt, FormsAreCheckedWithAReason) {
  for (const char* ok : {"first-conflict", "line 98", "store", "load", "shared-store",
                         "global-load", "divergent-branch", "barrier", "branch",
                         "shared-atomic", "global-atomic", "mma", "bulk-store"})
    EXPECT_EQ(ws::sim::check_at(ok), "") << ok;
  EXPECT_NE(ws::sim::check_at("line"), "");
  EXPECT_NE(ws::sim::check_at("line x"), "");
  EXPECT_NE(ws::sim::check_at("conflict"), "");
  EXPECT_NE(ws::sim::check_at("conflict").find("first-conflict"), std::string::npos);
}

TEST(EventAt, FindsTheFirstEventWithTheProperty) {
  std::vector<WarpEvent> e = {
      ev(EventKind::GlobalLoad, 10),                   // coalesced
      ev(EventKind::SharedStore, 11),                  // conflict-free
      ev(EventKind::Barrier, 12),
      ev(EventKind::SharedLoad, 13, 128),              // one bank, 32 words: 32-way
      ev(EventKind::GlobalStore, 14, 4096),            // 32 sectors
  };
  WarpEvent br = ev(EventKind::Branch, 15);
  br.ballot = 0x55555555u;
  e.push_back(br);
  e.push_back(ev(EventKind::GlobalAtomic, 16));
  e.push_back(ev(EventKind::SharedAtomic, 17));
  const std::vector<std::size_t> order = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(ws::sim::find_at("first-conflict", e, order), 3u);
  EXPECT_EQ(ws::sim::find_at("line 14", e, order), 4u);
  EXPECT_EQ(ws::sim::find_at("store", e, order), 1u);
  EXPECT_EQ(ws::sim::find_at("global-store", e, order), 4u);
  EXPECT_EQ(ws::sim::find_at("barrier", e, order), 2u);
  EXPECT_EQ(ws::sim::find_at("divergent-branch", e, order), 5u);
  EXPECT_EQ(ws::sim::find_at("global-atomic", e, order), 6u);
  EXPECT_EQ(ws::sim::find_at("shared-atomic", e, order), 7u);
  EXPECT_FALSE(ws::sim::find_at("mma", e, order));
  e.push_back(ev(EventKind::Mma, 18));
  EXPECT_EQ(ws::sim::find_at("mma", e, {0, 1, 2, 3, 4, 5, 6, 7, 8}), 8u);
  EXPECT_FALSE(ws::sim::find_at("bulk-store", e, {0, 1, 2, 3, 4, 5, 6, 7, 8}));
  e.push_back(ev(EventKind::BulkStore, 19));
  EXPECT_EQ(ws::sim::find_at("bulk-store", e, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), 9u);
  EXPECT_EQ(ws::sim::find_at("store", e, {9}), 0u);  // a bulk store is a store
  EXPECT_FALSE(ws::sim::find_at("line 99", e, order));
  EXPECT_FALSE(ws::sim::find_at("nonsense", e, order));
  // Positions are in the stepper's order, not the trace's.
  EXPECT_EQ(ws::sim::find_at("first-conflict", e, {4, 3}), 0u);
  EXPECT_FALSE(ws::sim::find_at("first-conflict", e, {0, 1, 2}));
}

}  // namespace
