#pragma once
// The event a lesson step is about, named in its lab (`at: first-conflict`, `at: line 98`,
// `at: store`): the stepper opens there, with the source panel on its line. Plain C++.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/trace.h"

namespace ws::sim {

// "" when `at` is one of: first-conflict, line N, load, store, shared-load, shared-store,
// shared-atomic, global-load, global-store, global-atomic, branch, divergent-branch,
// barrier, mma, bulk-store; else why not, one line.
std::string check_at(const std::string& at);
// The first event of `order` (indices into `events`, the stepper's walk of one warp) that
// `at` names: a shared access with more wavefronts than ideal or a global one with more
// sectors than ideal (first-conflict), an event on line N, a load, store or atomic of that space,
// a marked branch (divergent: its ballot splits its mask), a barrier, an mma.sync.
// @post on a value v: v < order.size() and events[order[v]] has the property `at` names;
//       nullopt when no event has it (or `at` is malformed).
std::optional<std::size_t> find_at(const std::string& at, const std::vector<WarpEvent>& events,
                                   const std::vector<std::size_t>& order);

}  // namespace ws::sim
