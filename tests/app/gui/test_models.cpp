// The app's results model (app/gui/app_state.h ResultsModel) without a window: where the
// views open on the main run's warp, and the comparison side kept in step.
#include <gtest/gtest.h>

#include <memory>

#include "app/gui/app_state.h"
#include "sim/analysis.h"

using namespace ws;
using namespace ws::gui;

namespace {

WarpEvent shared_load(std::uint16_t line, unsigned stride_words, std::uint16_t warp = 0) {
  WarpEvent e;
  e.line = line;
  e.kind = EventKind::SharedLoad;
  e.mask = 0xFFFFFFFFu;
  e.warp = warp;
  e.bytes = 4;
  for (unsigned l = 0; l < 32; ++l) e.offset[l] = l * stride_words * 4;
  return e;
}

std::shared_ptr<const RunResult> run_of(std::vector<WarpEvent> events) {
  auto r = std::make_shared<RunResult>();
  KeptLaunch k;
  k.events = std::move(events);
  r->kept.push_back(std::move(k));
  return r;
}

}  // namespace

TEST(ResultsModel, ViewsOpenOnTheirEventOfTheMainWarp) {
  ResultsModel m;
  // Warp 1's conflict comes first in the trace; warp 0's is its third event.
  m.main.run = run_of({shared_load(9, 32, 1), shared_load(10, 1), shared_load(11, 1),
                       shared_load(12, 32)});
  m.main.order = sim::warp_events(m.main.events(), 0, 0);
  ASSERT_EQ(m.main.order.size(), 3u);
  EXPECT_EQ(m.interesting_pos(View::BankMap), 2u) << "the 32-way conflict on line 12";
  EXPECT_EQ(m.interesting_pos(View::BankMap),
            sim::interesting_pos(m.main.events(), m.main.order, viz::focus_of(View::BankMap)));
  ResultsModel empty;
  EXPECT_EQ(empty.interesting_pos(View::BankMap), 0u);
}

// @post of compare_pos: < cmp.order.size() when cmp has events, else 0.
TEST(ResultsModel, ComparisonSideStaysInStep) {
  ResultsModel m;
  EXPECT_EQ(m.compare_pos(), 0u);
  m.cmp.run = run_of({shared_load(10, 1), shared_load(11, 2)});
  m.cmp.order = sim::warp_events(m.cmp.events(), 0, 0);
  m.stepper.pos = 1;
  EXPECT_EQ(m.compare_pos(), 1u);
  m.stepper.pos = 7;
  EXPECT_EQ(m.compare_pos(), 1u) << "past its end: its last event";
}
