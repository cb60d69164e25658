#include <gtest/gtest.h>

#include "evolve/selection.hpp"

namespace secpe {
namespace {

TEST(RankSelect, HighestVotesThenTieKeyThenIndex) {
  const std::vector<double> votes{0, 5, 0, 5, 0, 2};
  const std::vector<double> key{0.3, 0.9, 0.1, 0.2, 0.1, 0.0};
  EXPECT_EQ(rank_select(votes, key, 6), (std::vector<std::size_t>{3, 1, 5, 2, 4, 0}));
  EXPECT_EQ(rank_select(votes, key, 2), (std::vector<std::size_t>{3, 1}));
  EXPECT_EQ(rank_select(votes, key, 10).size(), 6u);
}

}  // namespace
}  // namespace secpe
