#pragma once
// Trace analysis the views share, with no GUI: which events one warp issued, what the
// trace did on each source line, and the first event a view should open on. The app's
// state (app/gui/app_state.*) calls these and only formats what they find.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/model.h"
#include "sim/trace.h"

namespace ws::sim {

// The events of (block, warp) in issue order, as indices into `events`.
// @post every index i has events[i].block == block && events[i].warp == warp, ascending.
std::vector<std::size_t> warp_events(const std::vector<WarpEvent>& events, std::uint32_t block,
                                     std::uint16_t warp);

// A conflict: a shared access needing more wavefronts than ideal, or a global access
// touching (a bulk store: writing, bulk_store_sectors) more sectors than ideal (the
// model's numbers).
// @post false when e.mask == 0 or e is not a memory access.
bool is_conflict(const WarpEvent& e, const DeviceModel& m = {});

// What the listed events did on one source line.
struct LineSummary {
  unsigned events = 0;
  bool shared = false, global = false;
  bool bulk = false;                   // its global accesses are bulk stores (the copy engine's)
  unsigned max_degree = 0;             // worst bank conflict degree of a shared access
  unsigned max_sectors = 0, ideal = 0;  // worst global access: its sectors (cost_sectors) and ideal
  unsigned branches = 0, divergent = 0;
  bool conflict() const { return max_degree > 1 || max_sectors > ideal; }
  // "32-way bank conflict", "5 sectors/request (ideal 4)", "the copy engine writes 288
  // sectors a warp (ideal 256)", "diverges 2 of 8 times", with
  // " (xN)" when the line ran N > 1 times; "" when the line did nothing worth a note.
  std::string note() const;
};
// @post the keys are exactly the lines of events[order[...]]; per line, events counts them.
std::map<int, LineSummary> summarize_lines(const std::vector<WarpEvent>& events,
                                           const std::vector<std::size_t>& order,
                                           const DeviceModel& m = {});

// Which event a view opens on.
enum class Focus {
  None,      // the first
  Shared,    // a shared conflict, else the first shared load, else any shared access
  Global,    // a global access with extra sectors, else the first store, else any global
  Branch,    // a divergent branch, else the first partial mask
  Conflict,  // the first conflict of either kind
};
std::string_view to_string(Focus f);
// @post a position into `order` (0 when nothing matches or order is empty).
std::size_t interesting_pos(const std::vector<WarpEvent>& events,
                            const std::vector<std::size_t>& order, Focus f,
                            const DeviceModel& m = {});

// A line's whole-grid counters in a few words, for the source view's margin: "262k req
// 1.05M sectors (ideal 1.05M)  8.39M wavefronts (ideal 262k)  8.13M conflicts  SIMD 100%".
// @post "" iff t has no global or shared request, no bulk copy and no branch; else it ends "SIMD n%".
std::string line_counters_text(const Totals& t);
// line_counters_text of every source line of `sites` (by_line) that has something to say.
// @post the keys are lines of `sites`; no value is "".
std::map<int, std::string> line_counters(const SiteList& sites);

}  // namespace ws::sim
