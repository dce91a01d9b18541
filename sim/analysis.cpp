// Trace analysis shared by the views (see sim/analysis.h).
#include "sim/analysis.h"

#include <cstdio>

#include <algorithm>
#include <optional>

namespace ws::sim {

std::vector<std::size_t> warp_events(const std::vector<WarpEvent>& events, std::uint32_t block,
                                     std::uint16_t warp) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].block == block && events[i].warp == warp) out.push_back(i);
  return out;
}

namespace {
// The sectors a global access costs: a bulk store's are the copy engine's pieces (which
// can exceed the sectors its rows hold), any other access's the distinct sectors it touches.
// @post == bulk_store_sectors(e) for a BulkStore, else g.sectors.
unsigned cost_sectors(const WarpEvent& e, const GlobalAccess& g, const DeviceModel& m) {
  return e.kind == EventKind::BulkStore ? unsigned(bulk_store_sectors(e, m.access())) : g.sectors;
}
}  // namespace

bool is_conflict(const WarpEvent& e, const DeviceModel& m) {
  if (e.mask == 0) return false;
  if (is_shared(e.kind)) return analyze_shared(e, m).conflicts > 0;
  if (is_global(e.kind)) {
    const GlobalAccess g = analyze_global(e, m);
    return cost_sectors(e, g, m) > g.ideal_sectors;
  }
  return false;
}

std::string LineSummary::note() const {
  std::string n;
  if (shared) n += max_degree > 1 ? std::to_string(max_degree) + "-way bank conflict" : "no bank conflict";
  if (global) {
    if (!n.empty()) n += ", ";
    n += bulk ? "the copy engine writes " + std::to_string(max_sectors) + " sectors a warp (ideal " +
                    std::to_string(ideal) + ")"
              : std::to_string(max_sectors) + " sectors/request (ideal " + std::to_string(ideal) + ")";
  }
  if (branches) {
    if (!n.empty()) n += ", ";
    n += divergent ? "diverges " + std::to_string(divergent) + " of " + std::to_string(branches) + " times"
                   : "uniform branch";
  }
  if (n.empty()) return n;
  return n + (events > 1 ? " (x" + std::to_string(events) + ")" : "");
}

std::map<int, LineSummary> summarize_lines(const std::vector<WarpEvent>& events,
                                           const std::vector<std::size_t>& order,
                                           const DeviceModel& m) {
  std::map<int, LineSummary> sums;
  for (std::size_t i : order) {
    if (i >= events.size()) continue;
    const WarpEvent& e = events[i];
    LineSummary& s = sums[e.line];
    ++s.events;
    if (is_shared(e.kind)) {
      s.shared = true;
      s.max_degree = std::max(s.max_degree, analyze_shared(e, m).max_degree);
    } else if (is_global(e.kind)) {
      s.global = true;
      s.bulk = s.bulk || e.kind == EventKind::BulkStore;
      const GlobalAccess g = analyze_global(e, m);
      if (const unsigned cost = cost_sectors(e, g, m); cost > s.max_sectors) {
        s.max_sectors = cost;
        s.ideal = g.ideal_sectors;
      }
    } else if (e.kind == EventKind::Branch) {
      ++s.branches;
      if (diverged(e)) ++s.divergent;
    }
  }
  return sums;
}

std::string_view to_string(Focus f) {
  switch (f) {
    case Focus::None: return "none";
    case Focus::Shared: return "shared";
    case Focus::Global: return "global";
    case Focus::Branch: return "branch";
    case Focus::Conflict: return "conflict";
  }
  return "unknown";
}

std::size_t interesting_pos(const std::vector<WarpEvent>& ev, const std::vector<std::size_t>& ord,
                            Focus f, const DeviceModel& m) {
  auto first = [&](auto pred) -> std::optional<std::size_t> {
    for (std::size_t p = 0; p < ord.size(); ++p)
      if (ord[p] < ev.size() && pred(ev[ord[p]])) return p;
    return std::nullopt;
  };
  std::optional<std::size_t> p;
  switch (f) {
    case Focus::Shared:
      p = first([&](const WarpEvent& e) { return is_shared(e.kind) && analyze_shared(e, m).conflicts > 0; });
      if (!p) p = first([](const WarpEvent& e) { return e.kind == EventKind::SharedLoad; });
      if (!p) p = first([](const WarpEvent& e) { return is_shared(e.kind); });
      break;
    case Focus::Global:
      p = first([&](const WarpEvent& e) {
        if (!is_global(e.kind)) return false;
        const GlobalAccess g = analyze_global(e, m);
        return cost_sectors(e, g, m) > g.ideal_sectors;
      });
      if (!p) p = first([](const WarpEvent& e) { return is_global(e.kind) && is_store(e.kind); });
      if (!p) p = first([](const WarpEvent& e) { return is_global(e.kind); });
      break;
    case Focus::Branch:
      p = first([](const WarpEvent& e) { return diverged(e); });
      if (!p) p = first([](const WarpEvent& e) { return e.mask != 0xFFFFFFFFu; });
      break;
    case Focus::Conflict:
      p = first([&](const WarpEvent& e) { return is_conflict(e, m); });
      break;
    case Focus::None:
      break;
  }
  return p.value_or(0);
}

std::string line_counters_text(const Totals& t) {
  auto num = [](double v) {
    char b[32];
    if (v >= 1e9) std::snprintf(b, sizeof b, "%.3gG", v / 1e9);
    else if (v >= 1e6) std::snprintf(b, sizeof b, "%.3gM", v / 1e6);
    else if (v >= 1e4) std::snprintf(b, sizeof b, "%.3gk", v / 1e3);
    else std::snprintf(b, sizeof b, "%.0f", v);
    return std::string(b);
  };
  std::string s;
  auto add = [&](const std::string& x) { s += (s.empty() ? "" : "  ") + x; };
  const std::uint64_t greq = t.global_ld_requests + t.global_st_requests + t.global_red_requests;
  const std::uint64_t sreq = t.shared_ld_requests + t.shared_st_requests;
  if (greq) {
    add(num(double(greq)) + " req");
    add(num(double(t.global_ld_sectors + t.global_st_sectors + t.global_red_sectors)) +
        " sectors (ideal " + num(double(t.global_ld_ideal_sectors + t.global_st_ideal_sectors)) + ")");
  }
  if (t.global_bulk_st_copies) {
    add(num(double(t.global_bulk_st_copies)) + " bulk copies");
    add(num(double(t.global_bulk_st_sectors)) + " sectors written (" +
        num(double(t.global_bulk_st_dram_sectors)) + " hold the rows)");
  }
  if (sreq) {
    if (!greq) add(num(double(sreq)) + " req");
    const std::uint64_t wf = t.shared_ld_wavefronts + t.shared_st_wavefronts;
    const std::uint64_t ideal = t.shared_ld_ideal + t.shared_st_ideal;
    add(num(double(wf)) + " wavefronts (ideal " + num(double(ideal)) + ")");
    add(num(double(wf - ideal)) + " conflicts");
  }
  if (t.branches) add(num(double(t.divergent_branches)) + " of " + num(double(t.branches)) + " divergent");
  if (s.empty()) return s;
  char eff[32];
  std::snprintf(eff, sizeof eff, "SIMD %.0f%%", 100.0 * t.simd_efficiency());
  add(eff);
  return s;
}

std::map<int, std::string> line_counters(const SiteList& sites) {
  std::map<int, std::string> out;
  for (const auto& [line, t] : by_line(sites)) {
    std::string c = line_counters_text(t);
    if (!c.empty()) out[line] = std::move(c);
  }
  return out;
}

}  // namespace ws::sim
