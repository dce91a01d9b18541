// The one theme (viz/theme.h): both sets complete, the presenter's really high contrast,
// and the views' colour functions reading it. No window needed.
#include <gtest/gtest.h>

#include <cmath>

#include "viz/theme.h"

using namespace ws::viz;

namespace {

double luminance(std::uint32_t c) {
  return 0.299 * double(c >> 24) + 0.587 * double((c >> 16) & 0xFF) +
         0.114 * double((c >> 8) & 0xFF);
}

// Every colour drawn with (the ImGui style slots may be 0: "keep the dark default").
constexpr std::uint32_t Theme::*kDrawn[] = {
    &Theme::window_bg, &Theme::good, &Theme::bad, &Theme::wrong, &Theme::stale,
    &Theme::measured_time, &Theme::modelled_time, &Theme::notice, &Theme::key, &Theme::timer,
    &Theme::badge, &Theme::export_done, &Theme::export_failed, &Theme::lesson_text,
    &Theme::lesson_emphasis, &Theme::lesson_strong, &Theme::lesson_code, &Theme::lesson_heading,
    &Theme::lesson_dim, &Theme::lesson_good, &Theme::lesson_bad, &Theme::lesson_box,
    &Theme::lane_on, &Theme::lane_off, &Theme::ballot_true, &Theme::ballot_false, &Theme::text,
    &Theme::dim_text, &Theme::highlight, &Theme::heat_none, &Theme::heat_one,
    &Theme::sass_row_bg, &Theme::current_line_bg, &Theme::current_line_text,
    &Theme::sass_global, &Theme::sass_shared, &Theme::sass_local, &Theme::sass_barrier,
    &Theme::sass_diff, &Theme::counters, &Theme::note, &Theme::modelled, &Theme::run_error,
    &Theme::problem, &Theme::hardware_note, &Theme::verified, &Theme::equal, &Theme::noise,
    &Theme::differs, &Theme::hardware_only, &Theme::editor_error, &Theme::editor_ok,
    &Theme::editor_dim, &Theme::gutter_mark, &Theme::error_line, &Theme::error_number,
    &Theme::line_number};

}  // namespace

TEST(Theme, BothSetsGiveEveryDrawnColour) {
  for (const ViewStyle& s : {ViewStyle{}, ViewStyle::presenter()}) {
    const Theme& t = theme(s);
    for (std::size_t i = 0; i < std::size(kDrawn); ++i)
      EXPECT_NE(t.*kDrawn[i], 0u) << "field " << i << (s.high_contrast ? " (presenter)" : "");
  }
}

TEST(Theme, PresenterIsHighContrast) {
  const Theme& n = theme(ViewStyle{});
  const Theme& p = theme(ViewStyle::presenter());
  EXPECT_NE(&n, &p);
  EXPECT_EQ(p.window_bg, rgba(0, 0, 0));
  EXPECT_EQ(p.window_text, rgba(255, 255, 255));
  EXPECT_EQ(n.window_text, 0u) << "the normal window keeps ImGui's dark text";
  EXPECT_GT(luminance(p.text) - luminance(p.window_bg), luminance(n.text) - luminance(n.window_bg));
  EXPECT_GE(luminance(p.dim_text), luminance(n.dim_text));
  EXPECT_EQ(p.chart.background, ChartTheme::high_contrast().background);
  EXPECT_EQ(n.chart.background, ChartTheme::dark().background);
  EXPECT_NE(ChartTheme::light().background, n.chart.background) << "exports are light";
}

TEST(Theme, ViewColourFunctionsReadTheTheme) {
  for (const ViewStyle& s : {ViewStyle{}, ViewStyle::presenter()}) {
    const Theme& t = theme(s);
    EXPECT_EQ(lane_on_colour(s), t.lane_on);
    EXPECT_EQ(lane_off_colour(s), t.lane_off);
    EXPECT_EQ(ballot_true_colour(s), t.ballot_true);
    EXPECT_EQ(ballot_false_colour(s), t.ballot_false);
    EXPECT_EQ(text_colour(s), t.text);
    EXPECT_EQ(dim_text_colour(s), t.dim_text);
    EXPECT_EQ(highlight_colour(s), t.highlight);
  }
  EXPECT_EQ(heat_colour(0), theme({}).heat_none);
  EXPECT_EQ(heat_colour(1), theme({}).heat_one);
}

TEST(Theme, PaletteCyclesEightColours) {
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(palette(i), palette(i + 8));
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(palette(i), palette(j));
  }
}
