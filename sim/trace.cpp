#include "sim/trace.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <tuple>

namespace ws {

namespace {

// Indexed by the enum's stable numeric value.
constexpr std::array<std::string_view, kEventKindCount> kKindNames = {
    "global_load", "global_store", "global_atomic", "shared_load", "shared_store",
    "shared_atomic", "branch",     "barrier",       "warp_sync",   "shuffle",
    "vote",        "work",          "async_load",  "async_store", "mma",
    "bulk_store",
};

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

std::string array_name(std::uint8_t a) { return a == kNoArray ? "-" : std::to_string(a); }

std::string describe(std::size_t index, const WarpEvent& e) {
  return "event " + std::to_string(index) + " (block " + std::to_string(e.block) + ", warp " +
         std::to_string(e.warp) + ", line " + std::to_string(e.line) + ", array " +
         array_name(e.array) + ", " + std::string(to_string(e.kind)) + ")";
}

auto sort_key(const WarpEvent& e) {
  return std::make_tuple(e.block, e.warp, e.line, e.array, std::uint8_t(e.kind));
}

}  // namespace

std::string_view to_string(EventKind k) {
  const auto i = std::size_t(k);
  return i < kKindNames.size() ? kKindNames[i] : std::string_view("unknown");
}

bool event_kind_from_string(std::string_view s, EventKind& out) {
  for (std::size_t i = 0; i < kKindNames.size(); ++i) {
    if (kKindNames[i] == s) {
      out = EventKind(i);
      return true;
    }
  }
  return false;
}

std::string_view to_string(Space s) {
  switch (s) {
    case Space::Global: return "global";
    case Space::Shared: return "shared";
  }
  return "unknown";
}

void KeepSink::begin_launch(const LaunchInfo& l) {
  // Sorted once per launch so that the per-event filter is a binary search.
  std::sort(blocks_.begin(), blocks_.end());
  launches_.push_back(KeptLaunch{l, {}});
}

void KeepSink::on_array(const ArrayDesc& a) {
  if (launches_.empty()) begin_launch(LaunchInfo{});
  auto& arrays = launches_.back().info.arrays;
  // An array the launch already described is updated, not listed twice.
  for (auto& have : arrays) {
    if (have.id == a.id && have.space == a.space && a.id != kNoArray) {
      have = a;
      return;
    }
  }
  arrays.push_back(a);
}

void KeepSink::on_event(const WarpEvent& e) {
  if (launches_.empty()) begin_launch(LaunchInfo{});
  if (!blocks_.empty() && !std::binary_search(blocks_.begin(), blocks_.end(), e.block)) return;
  // The cap is per launch: each launch of a multi-launch kernel keeps its beginning.
  auto& events = launches_.back().events;
  if (events.size() >= max_events_) {
    truncated_ = true;
    return;
  }
  events.push_back(e);
}

std::vector<WarpEvent> canonical(std::vector<WarpEvent> events) {
  std::stable_sort(events.begin(), events.end(), [](const WarpEvent& a, const WarpEvent& b) {
    return sort_key(a) < sort_key(b);
  });
  return events;
}

std::string first_difference(const std::vector<WarpEvent>& a, const std::vector<WarpEvent>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const WarpEvent& x = a[i];
    const WarpEvent& y = b[i];
    if (x == y) continue;
    const std::string head = describe(i, x) + ": ";
    auto num = [&](const char* field, unsigned long long u, unsigned long long v) {
      return head + field + " " + std::to_string(u) + " vs " + std::to_string(v);
    };
    if (x.block != y.block) return num("block", x.block, y.block);
    if (x.warp != y.warp) return num("warp", x.warp, y.warp);
    if (x.line != y.line) return num("line", x.line, y.line);
    if (x.array != y.array)
      return head + "array " + array_name(x.array) + " vs " + array_name(y.array);
    if (x.kind != y.kind)
      return head + "kind " + std::string(to_string(x.kind)) + " vs " +
             std::string(to_string(y.kind));
    if (x.mask != y.mask) return head + "mask " + hex32(x.mask) + " vs " + hex32(y.mask);
    if (x.ballot != y.ballot)
      return head + "ballot " + hex32(x.ballot) + " vs " + hex32(y.ballot);
    if (x.bytes != y.bytes) return num("bytes", x.bytes, y.bytes);
    for (int l = 0; l < 32; ++l)
      if (x.offset[l] != y.offset[l])
        return head + "lane " + std::to_string(l) + " offset " + std::to_string(x.offset[l]) +
               " vs " + std::to_string(y.offset[l]);
    return num("flags", x.flags, y.flags);
  }
  if (a.size() == b.size()) return "";
  const bool a_longer = a.size() > b.size();
  const WarpEvent& extra = a_longer ? a[n] : b[n];
  return describe(n, extra) + ": missing from the " + (a_longer ? "second" : "first") +
         " trace (" + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " events)";
}

}  // namespace ws
