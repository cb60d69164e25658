// --calibration public-profile (privacy/public_profile.hpp): sigma from public caps alone, and a
// bound that holds for every secret the caps allow, however its holders are spread over labels.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "privacy/blow_up.hpp"
#include "privacy/conversions.hpp"
#include "privacy/poisson_binomial.hpp"
#include "privacy/public_profile.hpp"
#include "privacy/secret_noise.hpp"

namespace secpe {
namespace {

// One holder sampled every time: a Gaussian shift sqrt(2) / sigma per iteration, so the profile's
// sigma is the closed form sqrt(2 T) / eta.
TEST(PublicProfile, OneHolderAlwaysSampledIsTheGaussianClosedForm) {
  const SecretBudgets budgets = uniform_budgets(3, 1e-4, 1e-3);
  const PublicProfileNoise noise = calibrate_public_profile(budgets, 5, {.max_holders = 1, .sampling_rate = 1.0});
  const double closed = std::sqrt(2.0 * 5) / mu_from_pr(1e-4, 1e-3);
  EXPECT_NEAR(noise.sigma, closed, closed * 1e-4);
  ASSERT_EQ(noise.achieved_r.size(), 3u);
  for (const double r : noise.achieved_r) EXPECT_LE(r, 1e-3);
  EXPECT_EQ(noise.achieved_r[0], noise.achieved_r[2]);  // one budget, one profile: one bound
}

// The claim behind the profile: any secret within the caps (at most H holders over all labels,
// each sampled with at most q), released per label at the profile's sigma, gets no more than the
// profile's bound, composed per label as the exact accountant does.
TEST(PublicProfile, BoundsEverySpreadOfHoldersWithinTheCaps) {
  const SecretBudgets budgets = uniform_budgets(1, 1e-4, 1e-3);
  const PublicProfile profile{.max_holders = 6, .sampling_rate = 0.3};
  const PublicProfileNoise noise = calibrate_public_profile(budgets, 4, profile);
  const double step = kCountsAndCentresScale / noise.sigma;
  const std::vector<std::vector<std::vector<double>>> spreads = {
      {{0.3, 0.3, 0.3, 0.3, 0.3, 0.3}},                  // the worst profile itself, in one label
      {{0.3, 0.3, 0.3}, {0.3, 0.3, 0.3}},                // over two labels
      {{0.3}, {0.3}, {0.3}, {0.3}, {0.3}, {0.3}},        // one holder in each of six labels
      {{0.1, 0.2, 0.3}, {0.05}},                         // fewer holders, lower rates
  };
  for (const auto& labels : spreads) {
    std::vector<MixtureRelease> releases;
    for (const auto& rho : labels) releases.push_back({poisson_binomial_pmf(rho), step, 4});
    EXPECT_LE(blow_up_upper_composed(releases, 1e-4), noise.achieved_r[0] * (1 + 1e-4));
  }
  EXPECT_LE(noise.achieved_r[0], 1e-3);
  // Sampling helps: a lower rate needs less noise.
  EXPECT_LT(calibrate_public_profile(budgets, 4, {.max_holders = 6, .sampling_rate = 0.05}).sigma, noise.sigma);
}

TEST(PublicProfile, RefusesBadCaps) {
  const SecretBudgets budgets = uniform_budgets(1, 1e-4, 1e-3);
  EXPECT_THROW(calibrate_public_profile(budgets, 5, {.max_holders = 0, .sampling_rate = 1.0}), InputError);
  EXPECT_THROW(calibrate_public_profile(budgets, 5, {.max_holders = 2, .sampling_rate = 0.0}), InputError);
  EXPECT_THROW(calibrate_public_profile(budgets, 5, {.max_holders = 2, .sampling_rate = 1.5}), InputError);
  EXPECT_THROW(calibrate_public_profile(budgets, 0, {.max_holders = 2, .sampling_rate = 1.0}), InputError);
}

// Issue 25: a label without private records published sigma 0. It now gets the largest sigma of
// the others (or, with no private record anywhere, a positive sigma of its own).
TEST(SecretNoiseModel, LabelsWithoutPrivateRecordsGetTheLargestSigma) {
  SecretMatrix held;
  held.num_secrets = 2;
  held.indptr = {0, 1, 2, 3};
  held.indices = {0, 1, 1};
  SecretMatrix none;
  none.num_secrets = 2;
  none.indptr = {0};
  const SecretBudgets budgets = uniform_budgets(2, 1e-4, 1e-3);
  const SecretNoiseModel model({held, none, held}, budgets, 5, 10.0, CalibrationMode::kPaper);
  const SecretNoisePlan plan = model.plan(1.0, {1e-3, 1e-3});
  ASSERT_EQ(plan.labels.size(), 3u);
  EXPECT_GT(plan.labels[0].sigma, 0.0);
  EXPECT_EQ(plan.labels[1].sigma, std::max(plan.labels[0].sigma, plan.labels[2].sigma));
  EXPECT_FALSE(plan.labels[1].has_private);
  EXPECT_EQ(plan.labels[0].private_records, 3);
  const SecretNoiseModel empty({none, none}, budgets, 5, 10.0, CalibrationMode::kExact);
  const SecretNoisePlan none_plan = empty.plan(1e-6, {1e-4, 1e-4});
  EXPECT_GT(none_plan.labels[0].sigma, 1.0);
  EXPECT_EQ(none_plan.labels[0].sigma, none_plan.labels[1].sigma);
}

}  // namespace
}  // namespace secpe
