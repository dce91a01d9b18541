#include "sim/progress.h"

#include <algorithm>
#include <cmath>

namespace ws {

PhasedProgress::PhasedProgress() : PhasedProgress(std::vector<Phase>{{"run", 1}}) {}

PhasedProgress::PhasedProgress(std::vector<Phase> phases) : phases_(std::move(phases)) {
  for (Phase& p : phases_)
    if (!(p.weight > 0) || !std::isfinite(p.weight)) p.weight = 0;
  for (const Phase& p : phases_) total_weight_ += p.weight;
  if (!(total_weight_ > 0)) {  // nothing to weigh by: every phase counts alike
    for (Phase& p : phases_) p.weight = 1;
    total_weight_ = double(phases_.size());
  }
  share_.assign(phases_.size(), 0.0);
}

void PhasedProgress::set(std::size_t i, double f) {
  if (i >= share_.size() || std::isnan(f)) return;
  share_[i] = std::max(share_[i], std::clamp(f, 0.0, 1.0));
}

double PhasedProgress::share(std::size_t i) const { return i < share_.size() ? share_[i] : 0.0; }

double PhasedProgress::fraction() const {
  if (!(total_weight_ > 0)) return 0;
  double done = 0;
  bool all = true;
  for (std::size_t i = 0; i < phases_.size(); ++i) {
    done += phases_[i].weight * share_[i];
    all = all && (phases_[i].weight == 0 || share_[i] >= 1);
  }
  // Rounding must neither show 100 % early nor fall short of it at the end.
  return all ? 1.0 : std::min(done / total_weight_, std::nextafter(1.0, 0.0));
}

double PhasedProgress::eta_s(double elapsed_s) const {
  const double f = fraction();
  if (f >= 1) return 0;
  if (!(f > 0) || !(elapsed_s > 0)) return -1;
  return elapsed_s * (1 - f) / f;
}

}  // namespace ws
