#include <gtest/gtest.h>

#include "evolve/selection.hpp"
#include "text/ngrams.hpp"

namespace secpe {
namespace {

TEST(RankOrder, HighestVotesThenTieKeyThenIndex) {
  const std::vector<double> votes{0, 5, 0, 5, 0, 2};
  const std::vector<double> key{0.3, 0.9, 0.1, 0.2, 0.1, 0.0};
  EXPECT_EQ(rank_order(votes, key), (std::vector<std::size_t>{3, 1, 5, 2, 4, 0}));
}

TEST(SelectDistinct, SkipsNearCopiesOfKeptTextsInEitherDirection) {
  const std::vector<std::string> texts{
      "the pizza was hot and the crust was thin and crisp",               // 0
      "the pizza was hot and the crust was thin and soggy today",         // 1: most 5-grams of 0
      "we waited an hour for a table and nobody said sorry",              // 2
      "the pizza was hot and the crust",                                  // 3: all its 5-grams are in 0
      "great nails and a friendly owner who remembers every customer",    // 4
  };
  const std::vector<std::size_t> order{0, 1, 3, 2, 4};
  EXPECT_EQ(select_distinct(order, texts, 3, {}), (std::vector<std::size_t>{0, 2, 4}));
  // Fewer distinct texts than places: the best skipped ones fill the set, in rank order.
  EXPECT_EQ(select_distinct(order, texts, 4, {}), (std::vector<std::size_t>{0, 2, 4, 1}));
  // share 1: only texts all of whose 5-grams are in a kept text (or the reverse) are skipped.
  EXPECT_EQ(select_distinct(order, texts, 3, {.n = 5, .share = 1.0}), (std::vector<std::size_t>{0, 1, 2}));
}

TEST(NearDuplicateFilter, ShortTextsAreOneNgram) {
  NearDuplicateFilter filter({});
  EXPECT_TRUE(filter.try_add(word_keys("very good")));
  EXPECT_FALSE(filter.try_add(word_keys("Very good!")));
  EXPECT_TRUE(filter.try_add(word_keys("very bad")));
  EXPECT_EQ(filter.size(), 2u);
}

}  // namespace
}  // namespace secpe
