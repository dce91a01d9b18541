#pragma once
// One progress bar for a whole command or window job, across its phases (emulate, count,
// time, peers, one per configuration...). Each phase is weighted by the work it is
// expected to take; a phase's share done never goes down, so the bar never moves
// backwards, whatever order the phases run in. The time left comes only from the work
// done so far (elapsed / fraction), never from a guess made before the work started.
// No clock here: the caller passes the elapsed time (sim/run_control.h keeps it), so
// tests can drive it. No CUDA, no GUI.
#include <cstddef>
#include <string>
#include <vector>

namespace ws {

struct Phase {
  std::string name;   // "transpose/tiled n=8192", "peers"
  double weight = 1;  // the work it is expected to take, in a unit all phases share
};

class PhasedProgress {
 public:
  // No phases: one phase of weight 1 (a single run).
  PhasedProgress();
  // Phases of weight <= 0 (or not a number) count as weight 0; when every weight is 0,
  // every phase counts alike.
  explicit PhasedProgress(std::vector<Phase> phases);

  // Sets the share of phase i done; a smaller share than before is ignored, and an index
  // past the phases does nothing.
  // @post share(i) == max(share(i) before, clamp(f, 0, 1)); fraction() >= fraction() before
  void set(std::size_t i, double f);
  void finish(std::size_t i) { set(i, 1); }
  double share(std::size_t i) const;

  // The weighted share of all work done.
  // @post in [0, 1]; never less than any earlier value; 1 iff every phase of weight > 0
  //       (every phase, when all weigh 0) is finished
  double fraction() const;
  // Seconds left at the rate so far.
  // @post -1 when fraction() == 0 or !(elapsed_s > 0) (nothing done to go on); 0 when
  //       fraction() == 1; else elapsed_s * (1 - fraction()) / fraction()
  double eta_s(double elapsed_s) const;

  std::size_t size() const { return phases_.size(); }
  const Phase& phase(std::size_t i) const { return phases_.at(i); }

 private:
  std::vector<Phase> phases_;
  std::vector<double> share_;
  double total_weight_ = 0;
};

}  // namespace ws
