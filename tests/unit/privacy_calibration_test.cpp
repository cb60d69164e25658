#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "privacy/calibration.hpp"
#include "privacy/conversions.hpp"

namespace secpe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(PrivacyCalibration, UniformShareWeightIsExactOnSingleSecretInstances) {
  // Every record holds one secret: the LP decomposes per secret, optimum w = min(1, eta_j / n_j),
  // and the capacity is met with equality whenever n_j > eta_j.
  const std::vector<double> eta = {0.6287, 1.1432, 5.0, 0.1789};
  const std::vector<std::int64_t> holders = {10, 1, 3, 1000};
  for (std::int32_t j = 0; j < 4; ++j) {
    const double w = uniform_share_weight({j}, eta, holders);
    EXPECT_DOUBLE_EQ(w, std::min(1.0, eta[j] / static_cast<double>(holders[j])));
    const double total = w * static_cast<double>(holders[j]);
    EXPECT_LE(total, eta[j] * (1 + 1e-15));
    if (static_cast<double>(holders[j]) > eta[j]) EXPECT_NEAR(total, eta[j], 1e-12);  // tight: optimal
    else EXPECT_EQ(w, 1.0);                                       // box-bound: optimal
  }
  // No privacy (eta = +inf) gives weight 1; a record without secrets has no constraint.
  EXPECT_EQ(uniform_share_weight({0}, {std::numeric_limits<double>::infinity()}, {5}), 1.0);
  EXPECT_EQ(uniform_share_weight({}, eta, holders), 1.0);
}

TEST(PrivacyCalibration, UniformShareWeightIsFeasibleOnMultiSecretInstances) {
  CounterRng rng(7, Stream::kSimulation);
  const int num_secrets = 12, num_records = 400;
  std::vector<double> eta(num_secrets);
  for (auto& e : eta) e = 0.05 + 3.0 * rng.uniform();
  std::vector<std::vector<std::int32_t>> records(num_records);
  std::vector<std::int64_t> holders(num_secrets, 0);
  for (auto& rec : records) {
    const int k = 1 + static_cast<int>(rng.uniform() * 3.0);
    for (int t = 0; t < k; ++t) {
      const auto j = static_cast<std::int32_t>(rng.uniform() * num_secrets);
      if (std::find(rec.begin(), rec.end(), j) == rec.end()) rec.push_back(j);
    }
    for (auto j : rec) ++holders[static_cast<std::size_t>(j)];
  }
  std::vector<double> load(num_secrets, 0.0);
  for (const auto& rec : records) {
    const double w = uniform_share_weight(rec, eta, holders);
    EXPECT_GT(w, 0.0);
    EXPECT_LE(w, 1.0);
    for (auto j : rec) load[static_cast<std::size_t>(j)] += w;
  }
  for (int j = 0; j < num_secrets; ++j) EXPECT_LE(load[j], eta[j] * (1 + 1e-12)) << "secret " << j;
}

TEST(PrivacyCalibration, UniformShareWeightRejectsBadInput) {
  const std::vector<double> eta = {1.0, 2.0};
  const std::vector<std::int64_t> holders = {3, 0};
  EXPECT_THROW(uniform_share_weight({1}, eta, holders), InputError);  // holds a secret with 0 holders
  EXPECT_THROW(uniform_share_weight({2}, eta, {3, 4}), InputError);   // index out of range
  EXPECT_THROW(uniform_share_weight({-1}, eta, {3, 4}), InputError);
  EXPECT_THROW(uniform_share_weight({0}, {0.0, 1.0}, {3, 4}), InputError);
  EXPECT_THROW(uniform_share_weight({0}, {-1.0, 1.0}, {3, 4}), InputError);
  EXPECT_THROW(uniform_share_weight({0}, {kNaN, 1.0}, {3, 4}), InputError);
  EXPECT_THROW(uniform_share_weight({0}, {1.0}, {3, 4}), InputError);  // size mismatch
  EXPECT_NO_THROW(uniform_share_weight({0}, eta, holders));           // secret 1 unused: fine
}

TEST(PrivacyCalibration, ScaleToBatchKeepsRequestedBatchWhenFeasible) {
  const auto s = scale_to_batch(5000.0, 0.5, 1000.0);
  EXPECT_FALSE(s.lowered);
  EXPECT_DOUBLE_EQ(s.batch, 1000.0);
  EXPECT_DOUBLE_EQ(s.scale, 0.2);
  EXPECT_LE(s.scale * 0.5, 1.0);
}

TEST(PrivacyCalibration, ScaleToBatchLowersBatch) {
  // sum w = 300, max w = 1: at most 300 expected samples with rho_i <= 1.
  const auto s = scale_to_batch(300.0, 1.0, 1000.0);
  EXPECT_TRUE(s.lowered);
  EXPECT_DOUBLE_EQ(s.batch, 300.0);
  EXPECT_DOUBLE_EQ(s.scale, 1.0);
  // Awkward values: the largest probability never exceeds 1.
  for (double wmax : {0.1, 0.3, 0.7, 1.0 / 3.0, 0.123456789, 1e-7}) {
    for (double sum : {1.0, 7.77, 1234.5}) {
      if (wmax > sum) continue;
      const auto t = scale_to_batch(sum, wmax, 1e30);
      EXPECT_TRUE(t.lowered);
      EXPECT_LE(t.scale * wmax, 1.0);
      EXPECT_NEAR(t.scale * wmax, 1.0, 1e-15);
      EXPECT_NEAR(t.batch, sum / wmax, 1e-12 * sum / wmax);
    }
  }
  // Exactly at the limit: not lowered.
  const auto e = scale_to_batch(300.0, 1.0, 300.0);
  EXPECT_FALSE(e.lowered);
  EXPECT_LE(e.scale, 1.0);
}

TEST(PrivacyCalibration, ScaleToBatchRejectsBadInput) {
  EXPECT_THROW(scale_to_batch(100.0, 1.0, 0.0), InputError);
  EXPECT_THROW(scale_to_batch(100.0, 1.0, -5.0), InputError);
  EXPECT_THROW(scale_to_batch(100.0, 1.0, kNaN), InputError);
  EXPECT_THROW(scale_to_batch(0.0, 0.0, 10.0), InputError);
  EXPECT_THROW(scale_to_batch(100.0, 0.0, 10.0), InputError);
  EXPECT_THROW(scale_to_batch(1.0, 2.0, 10.0), InputError);  // max above sum
  EXPECT_THROW(scale_to_batch(kNaN, 1.0, 10.0), InputError);
}

TEST(PrivacyCalibration, PaperSigma) {
  EXPECT_DOUBLE_EQ(paper_sigma(2.0, 0.5, 4), 8.0);  // sqrt(4) * 2 / 0.5
  EXPECT_DOUBLE_EQ(paper_sigma(0.0, 0.5, 4), 0.0);
  EXPECT_NEAR(paper_sigma(1.0, mu_from_pr(1e-4, 10e-4), 5), std::sqrt(5.0) / 0.62878417928786702285, 1e-12);
  EXPECT_THROW(paper_sigma(1.0, 0.5, 0), InputError);
  EXPECT_THROW(paper_sigma(1.0, 0.0, 5), InputError);
  EXPECT_THROW(paper_sigma(1.0, -1.0, 5), InputError);
  EXPECT_THROW(paper_sigma(1.0, kNaN, 5), InputError);
  EXPECT_THROW(paper_sigma(-1.0, 0.5, 5), InputError);
}

TEST(PrivacyCalibration, GdpSigmaMatchesAugPeYelp) {
  const double n = 1939290.0;
  const double delta = 1.0 / (n * std::log(n));
  const double eps[] = {1.0, 2.0, 4.0};
  const double want10[] = {15.4045, 8.0389, 4.2451};
  const double want20[] = {21.7852, 11.3687, 6.0034};
  for (int i = 0; i < 3; ++i) {
    const double mu = mu_from_eps_delta(eps[i], delta);
    EXPECT_NEAR(gdp_sigma(mu, 10), want10[i], 5e-5);
    EXPECT_NEAR(gdp_sigma(mu, 20), want20[i], 5e-5);
  }
  EXPECT_THROW(gdp_sigma(1.0, 0), InputError);
  EXPECT_THROW(gdp_sigma(0.0, 10), InputError);
  EXPECT_THROW(gdp_sigma(kNaN, 10), InputError);
}

}  // namespace
}  // namespace secpe
