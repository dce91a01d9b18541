// The selection and results models (app/model/results.h).
#include "app/model/results.h"

#include <algorithm>

#include "sim/event_at.h"

namespace ws::gui {

const KeptLaunch* Loaded::kept() const {
  if (!run || run->kept.empty()) return nullptr;
  return &run->kept[std::min(sel.launch, run->kept.size() - 1)];
}

const std::vector<WarpEvent>& Loaded::events() const {
  static const std::vector<WarpEvent> none;
  const KeptLaunch* k = kept();
  return k ? k->events : none;
}

const ArrayDesc* Loaded::array_of(const WarpEvent& e) const {
  const KeptLaunch* k = kept();
  if (!k) return nullptr;
  for (const ArrayDesc& a : k->info.arrays)
    if (a.id == e.array) return &a;
  return nullptr;
}

std::size_t ResultsModel::compare_pos() const {
  if (cmp.order.empty()) return 0;
  return std::min(stepper.pos, cmp.order.size() - 1);
}

std::size_t ResultsModel::interesting_pos(View v) const {
  return sim::interesting_pos(main.events(), main.order, viz::focus_of(v));
}

}  // namespace ws::gui
