// The one table of views (viz/views.h): names, flags and what each view opens on. Plain
// C++, no window: the lesson format reads the same table.
#include <gtest/gtest.h>

#include <set>

#include "viz/views.h"

using namespace ws::viz;

TEST(ViewTable, NamesAreUniqueAndRoundTrip) {
  std::set<std::string_view> names, titles;
  for (const ViewInfo& v : kViews) {
    EXPECT_TRUE(names.insert(v.name).second) << v.name;
    EXPECT_TRUE(titles.insert(v.title).second) << v.title;
    View back = View::Window;
    ASSERT_TRUE(view_from_string(v.name, back)) << v.name;
    EXPECT_EQ(back, v.id);
    EXPECT_EQ(to_string(v.id), v.name);
    EXPECT_EQ(view_info(v.id).id, v.id);
  }
  View out = View::Lesson;
  EXPECT_FALSE(view_from_string("bank map", out));
  EXPECT_EQ(out, View::Lesson) << "a refused name leaves out alone";
}

TEST(ViewTable, ListsForMessagesAndLessons) {
  EXPECT_EQ(view_names(),
            "window, bank-map, sector-map, divergence, charts, metrics, stepper, roofline, occupancy, "
            "fragments, compare, lesson, editor, start");
  EXPECT_EQ(view_names(kInLab),
            "bank-map, sector-map, divergence, charts, metrics, stepper, roofline, occupancy, "
            "fragments");
  EXPECT_EQ(view_names(kInNumbers), "roofline, occupancy");
  EXPECT_EQ(view_names(kNeedsLesson), "lesson");
  EXPECT_EQ(view_names(kNeedsPuzzle), "editor");
}

TEST(ViewTable, EachMapFitsOneKindOfEventAndFocusesOnIt) {
  EXPECT_EQ(view_names(kFitsShared | kWithSource), "bank-map");
  EXPECT_EQ(view_names(kFitsGlobal | kWithSource), "sector-map");
  EXPECT_EQ(view_names(kFitsBranch | kWithSource), "divergence");
  EXPECT_EQ(view_names(kFitsMma), "fragments");
  EXPECT_EQ(focus_of(View::BankMap), ws::sim::Focus::Shared);
  EXPECT_EQ(focus_of(View::Compare), ws::sim::Focus::Shared);
  EXPECT_EQ(focus_of(View::SectorMap), ws::sim::Focus::Global);
  EXPECT_EQ(focus_of(View::Divergence), ws::sim::Focus::Branch);
  EXPECT_EQ(focus_of(View::Stepper), ws::sim::Focus::Conflict);
  EXPECT_EQ(focus_of(View::Window), ws::sim::Focus::Conflict);
  EXPECT_EQ(focus_of(View::Metrics), ws::sim::Focus::None);
  EXPECT_EQ(focus_of(View::Roofline), ws::sim::Focus::None);
  EXPECT_EQ(focus_of(View::Fragments), ws::sim::Focus::Conflict);
}
