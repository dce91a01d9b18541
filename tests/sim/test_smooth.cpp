// async_copy's arithmetic (sim/smooth.h): the neighbour each output float is smoothed with.
#include "sim/smooth.h"

#include <gtest/gtest.h>

namespace ws::sim {
namespace {

// Every float of three tiles of 4 float4s: the same lane of the next float4 in its tile,
// the last float4 wrapping to the tile's first, never leaving the tile.
TEST(Smooth, TheNeighbourIsTheNextFloat4sLaneInTheTile) {
  const std::uint64_t tile = 4;
  for (std::uint64_t e = 0; e < 3 * 4 * tile; ++e) {
    const std::uint64_t nb = smooth_neighbour(e, tile);
    const std::uint64_t first = e - e % (4 * tile);
    EXPECT_GE(nb, first) << e;
    EXPECT_LT(nb, first + 4 * tile) << e;
    EXPECT_EQ(nb % 4, e % 4) << e;
    const std::uint64_t j = e / 4 % tile;
    EXPECT_EQ(nb / 4 % tile, (j + 1) % tile) << e;
  }
  EXPECT_EQ(smooth_neighbour(13, 4), 1u);  // float4 3, lane 1 -> float4 0, lane 1
  EXPECT_EQ(smooth_neighbour(17, 4), 21u);
}

TEST(Smooth, RoundsAreFusedMultiplyAdds) {
  EXPECT_EQ(smooth(1.f, 2.f, 0), 1.f);
  EXPECT_EQ(smooth(1.f, 2.f, 1), 1.f);          // 1/2 + 2/4
  EXPECT_EQ(smooth(4.f, 0.f, 2), 1.f);
}

}  // namespace
}  // namespace ws::sim
