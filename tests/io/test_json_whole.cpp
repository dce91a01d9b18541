// io::whole: a whole number in range comes back; anything else is a clear error, never the
// undefined cast nlohmann's get<int>() makes of 1e300 (found by fuzz_progress).
#include "io/json_whole.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstddef>

namespace ws::io {
namespace {

using nlohmann::json;

TEST(JsonWhole, ReturnsAWholeNumberInRange) {
  EXPECT_EQ(whole<int>(json(7), "v"), 7);
  EXPECT_EQ(whole<int>(json(-3), "v"), -3);
  EXPECT_EQ(whole<int>(json(INT_MAX), "v"), INT_MAX);
  EXPECT_EQ(whole<std::size_t>(json(std::uint64_t(1) << 40), "v"), std::size_t(1) << 40);
  EXPECT_EQ(whole<long long>(json(LLONG_MIN), "v"), LLONG_MIN);
}

TEST(JsonWhole, RefusesFloatsOutOfRangeAndNonNumbers) {
  for (const json& bad : {json(1.444e110), json(2.5), json(1.0), json("7"), json(nullptr),
                          json(true), json::array(), json(std::int64_t(INT_MAX) + 1)})
    EXPECT_THROW(whole<int>(bad, "version"), std::runtime_error) << bad.dump();
  EXPECT_THROW(whole<std::size_t>(json(-1), "current_step"), std::runtime_error);
  EXPECT_THROW(whole<unsigned char>(json(256), "v"), std::runtime_error);
}

TEST(JsonWhole, TheMessageNamesTheFieldAndTheValue) {
  try {
    whole<int>(json::parse("1e300"), "current_step");
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "current_step is not a whole number in range (1e+300)");
  }
}

TEST(JsonWhole, WholeOrFallsBackOnlyWhenTheKeyIsAbsent) {
  const json o = {{"a", 4}, {"b", 0.5}};
  EXPECT_EQ(whole_or<int>(o, "a", 9), 4);
  EXPECT_EQ(whole_or<int>(o, "missing", 9), 9);
  EXPECT_EQ(whole_or<int>(json(3), "a", 9), 9);
  EXPECT_THROW(whole_or<int>(o, "b", 9), std::runtime_error);
}

}  // namespace
}  // namespace ws::io
