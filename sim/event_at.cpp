// Which event a lesson step is about (sim/event_at.h).
#include "sim/event_at.h"

#include <algorithm>
#include <cctype>

#include "sim/analysis.h"
#include "sim/model.h"

namespace ws::sim {

namespace {
const char* const kAtForms[] = {"first-conflict", "load",          "store",
                                "shared-load",    "shared-store",  "shared-atomic",
                                "global-load",    "global-store",  "global-atomic",
                                "branch",         "divergent-branch", "barrier",
                                "mma",            "bulk-store"};
}  // namespace

std::string check_at(const std::string& at) {
  for (const char* f : kAtForms)
    if (at == f) return "";
  if (at.rfind("line ", 0) == 0) {
    const std::string n = at.substr(5);
    if (!n.empty() && n.size() < 6 && std::all_of(n.begin(), n.end(), ::isdigit)) return "";
  }
  return "at: '" + at +
         "' is not an event (first-conflict, line N, load, store, shared-load, shared-store, "
         "shared-atomic, global-load, global-store, global-atomic, branch, divergent-branch, "
         "barrier, mma or bulk-store)";
}

std::optional<std::size_t> find_at(const std::string& at, const std::vector<WarpEvent>& events,
                                   const std::vector<std::size_t>& order) {
  if (!check_at(at).empty()) return std::nullopt;
  const bool by_line = at.rfind("line ", 0) == 0;
  const int line = by_line ? std::stoi(at.substr(5)) : 0;
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    if (order[pos] >= events.size()) continue;
    const WarpEvent& e = events[order[pos]];
    bool hit = false;
    if (by_line) hit = e.line == line;
    else if (at == "first-conflict") {
      hit = e.kind != EventKind::SharedAtomic && is_conflict(e);
    } else if (at == "load") hit = is_load(e.kind);
    else if (at == "store") hit = is_store(e.kind);
    else if (at == "shared-load") hit = e.kind == EventKind::SharedLoad;
    else if (at == "shared-store") hit = e.kind == EventKind::SharedStore;
    else if (at == "shared-atomic") hit = e.kind == EventKind::SharedAtomic;
    else if (at == "global-load") hit = e.kind == EventKind::GlobalLoad;
    else if (at == "global-store") hit = e.kind == EventKind::GlobalStore;
    else if (at == "global-atomic") hit = e.kind == EventKind::GlobalAtomic;
    else if (at == "branch") hit = e.kind == EventKind::Branch;
    else if (at == "divergent-branch") hit = e.kind == EventKind::Branch && diverged(e);
    else if (at == "barrier") hit = e.kind == EventKind::Barrier;
    else if (at == "mma") hit = e.kind == EventKind::Mma;
    else if (at == "bulk-store") hit = e.kind == EventKind::BulkStore;
    if (hit) return pos;
  }
  return std::nullopt;
}

}  // namespace ws::sim
