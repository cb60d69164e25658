#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.hpp"

namespace secpe {
namespace {

TEST(Philox, MatchesRandom123KnownAnswer) {
  // Known-answer test from Random123's kat_vectors: philox4x32_10, counter and key all zero.
  const auto out = philox4x32({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(out[0], 0x6627e8d5u);
  EXPECT_EQ(out[1], 0xe169c58du);
  EXPECT_EQ(out[2], 0xbc57ac4cu);
  EXPECT_EQ(out[3], 0x9b00dbd8u);
}

TEST(CounterRng, SameKeySameStreamDifferentKeyDifferentStream) {
  CounterRng a(42, Stream::kNoise, 1, 2, 3), b(42, Stream::kNoise, 1, 2, 3), c(42, Stream::kNoise, 1, 2, 4);
  for (int i = 0; i < 100; ++i) {
    const auto va = a.next_u64();
    EXPECT_EQ(va, b.next_u64());
    EXPECT_NE(va, c.next_u64());
  }
}

TEST(CounterRng, NormalHasUnitMoments) {
  CounterRng rng(1, Stream::kNoise);
  double sum = 0, sum2 = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double x = rng.normal();
    sum += x;
    sum2 += x * x;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(sum2 / n, 1.0, 0.01);
}

TEST(CounterRng, BelowIsInRangeAndUniformish) {
  CounterRng rng(3, Stream::kCorpus);
  std::vector<int> counts(7, 0);
  for (int i = 0; i < 70000; ++i) {
    const auto v = rng.below(7);
    ASSERT_LT(v, 7u);
    ++counts[v];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
}

}  // namespace
}  // namespace secpe
