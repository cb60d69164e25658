#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.hpp"
#include "privacy/gaussian.hpp"

#include <algorithm>

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
  CounterRng a(42, Stream::kSimulation, 1, 2, 3), b(42, Stream::kSimulation, 1, 2, 3), c(42, Stream::kSimulation, 1, 2, 4);
  for (int i = 0; i < 100; ++i) {
    const auto va = a.next_u64();
    EXPECT_EQ(va, b.next_u64());
    EXPECT_NE(va, c.next_u64());
  }
}

TEST(CounterRng, NormalHasUnitMoments) {
  CounterRng rng(1, Stream::kSimulation);
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

// The noise is the privacy guarantee: the sampler must be exactly N(0, 1), tails included.
TEST(CounterRng, NormalMatchesPhiEverywhereIncludingTheTails) {
  const int n = 4000000;
  std::vector<double> x(n);
  for (int b = 0; b < 40; ++b) {  // many streams, as the noise uses
    CounterRng rng(5, Stream::kSimulation, 7, static_cast<std::uint64_t>(b));
    for (int i = 0; i < n / 40; ++i) x[static_cast<std::size_t>(b * (n / 40) + i)] = rng.normal();
  }
  std::sort(x.begin(), x.end());
  double ks = 0.0;
  for (int i = 0; i < n; ++i) {
    const double cdf = normal_cdf(x[static_cast<std::size_t>(i)]);
    ks = std::max({ks, std::fabs(cdf - double(i) / n), std::fabs(cdf - double(i + 1) / n)});
  }
  EXPECT_LT(ks, 1.63 / std::sqrt(double(n)));  // Kolmogorov-Smirnov at the 1% level
  // Tail frequencies beyond the ziggurat's base (3.4426) and beyond 4, both sides.
  auto above = [&](double t) { return double(x.end() - std::upper_bound(x.begin(), x.end(), t)); };
  auto below = [&](double t) { return double(std::lower_bound(x.begin(), x.end(), t) - x.begin()); };
  for (double t : {3.0, 3.442619855899, 4.0}) {
    const double expected = n * normal_sf(t), tol = 4.0 * std::sqrt(expected);
    EXPECT_NEAR(above(t), expected, tol) << t;
    EXPECT_NEAR(below(-t), expected, tol) << -t;
  }
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
