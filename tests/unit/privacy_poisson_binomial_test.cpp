#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "privacy/poisson_binomial.hpp"

namespace secpe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Brute force over all 2^n outcomes.
std::vector<double> enumerate(const std::vector<double>& rho) {
  const std::size_t n = rho.size();
  std::vector<double> pmf(n + 1, 0.0);
  for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
    double prob = 1.0;
    int count = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (mask & (1u << i)) {
        prob *= rho[i];
        ++count;
      } else {
        prob *= 1.0 - rho[i];
      }
    }
    pmf[static_cast<std::size_t>(count)] += prob;
  }
  return pmf;
}

TEST(PoissonBinomial, MatchesEnumeration) {
  CounterRng rng(7, Stream::kSimulation, 900);
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> rho(12);
    for (double& r : rho) r = rng.uniform();
    const auto exact = enumerate(rho);
    const auto pmf = poisson_binomial_pmf(rho, 0.0);
    ASSERT_EQ(pmf.size(), exact.size());
    for (std::size_t c = 0; c < pmf.size(); ++c) EXPECT_NEAR(pmf[c], exact[c], 1e-15 + 1e-13 * exact[c]);
  }
}

TEST(PoissonBinomial, BinomialSpecialCase) {
  const int n = 60;
  const double q = 0.3;
  const auto pmf = poisson_binomial_pmf(std::vector<double>(n, q), 0.0);
  ASSERT_EQ(pmf.size(), static_cast<std::size_t>(n + 1));
  for (int c = 0; c <= n; ++c) {
    const double log_binom = std::lgamma(n + 1.0) - std::lgamma(c + 1.0) - std::lgamma(n - c + 1.0);
    const double expect = std::exp(log_binom + c * std::log(q) + (n - c) * std::log1p(-q));
    EXPECT_NEAR(pmf[static_cast<std::size_t>(c)], expect, 1e-12 * expect + 1e-300) << "c=" << c;
  }
}

TEST(PoissonBinomial, CertainAndImpossibleHolders) {
  EXPECT_EQ(poisson_binomial_pmf({}), std::vector<double>{1.0});
  EXPECT_EQ(poisson_binomial_pmf({0.0, 0.0}), std::vector<double>{1.0});
  EXPECT_EQ(poisson_binomial_pmf({1.0, 1.0}), (std::vector<double>{0.0, 0.0, 1.0}));
  const auto pmf = poisson_binomial_pmf({1.0, 0.0, 0.25});
  ASSERT_EQ(pmf.size(), 3u);
  EXPECT_EQ(pmf[0], 0.0);
  EXPECT_DOUBLE_EQ(pmf[1], 0.75);
  EXPECT_DOUBLE_EQ(pmf[2], 0.25);
}

TEST(PoissonBinomial, TailRuleIsPessimisticAndSmall) {
  // 5,000 holders at rho = 0.01 (mean 50): the trimmed PMF is stochastically larger than the
  // exact one (its CDF is never above) and differs by at most the tolerance.
  const std::vector<double> rho(5000, 0.01);
  const auto exact = poisson_binomial_pmf(rho, 0.0);
  const auto trimmed = poisson_binomial_pmf(rho);
  ASSERT_LE(exact.size(), 5001u);  // underflowed top entries are dropped
  ASSERT_LE(trimmed.size(), 5001u);
  double sum = 0.0, mean = 0.0, var = 0.0, F_exact = 0.0, F_trim = 0.0, max_gap = 0.0;
  std::size_t nonzero = 0;
  for (std::size_t c = 0; c < 5001u; ++c) {
    const double t = c < trimmed.size() ? trimmed[c] : 0.0;
    const double e = c < exact.size() ? exact[c] : 0.0;
    if (t > 0.0) ++nonzero;
    sum += t;
    mean += static_cast<double>(c) * e;
    var += static_cast<double>(c * c) * e;
    F_exact += e;
    F_trim += t;
    EXPECT_LE(F_trim, F_exact + 1e-13) << "c=" << c;  // never moved down
    max_gap = std::max(max_gap, F_exact - F_trim);
  }
  EXPECT_NEAR(sum, 1.0, 1e-13);
  EXPECT_LE(max_gap, kPoissonBinomialTailTolerance + 1e-13);
  EXPECT_NEAR(mean, 50.0, 1e-9);
  EXPECT_NEAR(var - mean * mean, 5000 * 0.01 * 0.99, 1e-7);
  EXPECT_LT(nonzero, 200u);  // O(support), not O(n)
  // The cut upper tail is parked at the largest possible count.
  if (trimmed.size() == 5001u) EXPECT_LE(trimmed[5000], kPoissonBinomialTailTolerance);
}

TEST(PoissonBinomial, ManyHoldersIsFast) {
  // 200,000 holders: must stay O(n * support).
  std::vector<double> rho(200000);
  for (std::size_t i = 0; i < rho.size(); ++i) rho[i] = 0.0005 + 0.001 * static_cast<double>(i % 7) / 7.0;
  const auto pmf = poisson_binomial_pmf(rho);
  double sum = 0.0, mean = 0.0, expect_mean = 0.0;
  for (std::size_t c = 0; c < pmf.size(); ++c) {
    sum += pmf[c];
    mean += static_cast<double>(c) * pmf[c];  // the parked tail adds <= 1e-15 * n
  }
  for (double r : rho) expect_mean += r;
  EXPECT_NEAR(sum, 1.0, 1e-10);  // a few ulp per holder
  EXPECT_NEAR(mean, expect_mean, 1e-6 * expect_mean);
}

TEST(PoissonBinomial, RejectsBadInput) {
  EXPECT_THROW(poisson_binomial_pmf({0.5, 1.5}), InputError);
  EXPECT_THROW(poisson_binomial_pmf({-0.1}), InputError);
  EXPECT_THROW(poisson_binomial_pmf({kNaN}), InputError);
  EXPECT_THROW(poisson_binomial_pmf({0.5}, -1e-15), InputError);
  EXPECT_THROW(poisson_binomial_pmf({0.5}, 1.0), InputError);
  EXPECT_THROW(poisson_binomial_pmf({0.5}, kNaN), InputError);
}

}  // namespace
}  // namespace secpe
