// `secpe privacy calibrate`'s maths (privacy/calculator.hpp) against the accountant's own functions
// and closed forms.
#include "privacy/calculator.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "core/error.hpp"
#include "privacy/blow_up.hpp"
#include "privacy/conversions.hpp"
#include "privacy/gaussian.hpp"
#include "privacy/poisson_binomial.hpp"

namespace secpe {
namespace {

constexpr double kSqrt2 = std::numbers::sqrt2;

TEST(Calculator, OneReleaseIsTheExactCalibration) {
  const std::vector<double> rho{0.2, 0.2, 0.5, 0.05};
  const CalculatorOptions o{.iterations = 10, .p = 1e-4, .r = 1e-3, .scale = kSqrt2, .sigma = 2.0};
  const auto c = calculate_sigma({{.rho = rho}}, o);
  const auto pmf = poisson_binomial_pmf(rho);
  EXPECT_NEAR(c.sigma_certified, calibrate_sigma_exact(pmf, kSqrt2, 10, 1e-4, 1e-3), 1e-9 * c.sigma_certified);
  EXPECT_LE(c.bound_at_certified, 1e-3);
  EXPECT_GT(c.bound_at_certified, 1e-3 * (1 - 1e-4));  // the smallest such sigma
  EXPECT_NEAR(c.holders, 4.0, 0);
  EXPECT_NEAR(c.mean_count, 0.95, 1e-15);
  // The paper's sigma: sqrt(T) Delta / eta, no sqrt(2): it under-protects.
  EXPECT_NEAR(c.sigma_paper, std::sqrt(10.0) * 0.95 / mu_from_pr(1e-4, 1e-3), 1e-12);
  EXPECT_GT(c.r_at_paper, 1e-3);
  EXPECT_NEAR(c.r_at_sigma, achieved_r_exact(pmf, kSqrt2, 2.0, 10, 1e-4), 1e-15);
}

TEST(Calculator, FixedCountsAreTheGaussianClosedForm) {
  // N holders at rho = 1: a deterministic count N, a Gaussian mechanism: sigma = sqrt(T) s N / eta.
  for (double scale : {1.0, kSqrt2}) {
    const CalculatorOptions o{.iterations = 5, .p = 1e-4, .r = 2e-4, .scale = scale};
    const auto c = calculate_sigma({{.rho = std::vector<double>(3, 1.0)}}, o);
    const double exact = std::sqrt(5.0) * scale * 3.0 / mu_from_pr(1e-4, 2e-4);
    EXPECT_NEAR(c.sigma_certified, exact, 2e-5 * exact) << scale;
    EXPECT_GE(c.sigma_certified, exact * (1 - 1e-9)) << "a certified sigma is never below the truth";
    // The paper's formula is exact here for one statistic.
    EXPECT_NEAR(c.sigma_paper, std::sqrt(5.0) * 3.0 / mu_from_pr(1e-4, 2e-4), 1e-12);
  }
}

TEST(Calculator, SeveralReleasesCompose) {
  // Two labels, the second with twice the noise: the calibration of both releases together.
  const std::vector<double> a{0.3, 0.3}, b{0.6};
  const CalculatorOptions o{.iterations = 4, .p = 1e-4, .r = 1e-3, .scale = kSqrt2};
  const auto c = calculate_sigma({{.rho = a}, {.rho = b, .noise_factor = 2.0}}, o);
  const std::vector<MixtureRelease> rel{{poisson_binomial_pmf(a), kSqrt2, 4}, {poisson_binomial_pmf(b), kSqrt2 / 2.0, 4}};
  EXPECT_NEAR(c.sigma_certified, calibrate_scale_composed(rel, 1e-4, 1e-3), 1e-9 * c.sigma_certified);
  const auto alone = calculate_sigma({{.rho = a}}, o);
  EXPECT_GT(c.sigma_certified, alone.sigma_certified);
  EXPECT_NEAR(c.sigma_paper, std::sqrt(4.0 * (0.6 * 0.6 + 0.3 * 0.3)) / mu_from_pr(1e-4, 1e-3), 1e-12);
}

TEST(Calculator, NeverSampledNeedsNoNoise) {
  const auto c = calculate_sigma({{.rho = {0.0, 0.0}}}, {.iterations = 3, .p = 1e-4, .r = 1e-3});
  EXPECT_EQ(c.sigma_certified, 0.0);
  EXPECT_EQ(c.bound_at_certified, 1e-4);
  EXPECT_EQ(c.sigma_paper, 0.0);
}

TEST(Calculator, RejectsBadInput) {
  const CalculatorOptions ok{.iterations = 3, .p = 1e-4, .r = 1e-3};
  EXPECT_THROW(calculate_sigma({}, ok), InputError);
  EXPECT_THROW(calculate_sigma({{.rho = {}}}, ok), InputError);
  EXPECT_THROW(calculate_sigma({{.rho = {1.5}}}, ok), InputError);
  EXPECT_THROW(calculate_sigma({{.rho = {std::nan("")}}}, ok), InputError);
  EXPECT_THROW(calculate_sigma({{.rho = {0.5}, .noise_factor = 0.0}}, ok), InputError);
  EXPECT_THROW(calculate_sigma({{.rho = {0.5}}}, {.iterations = 0, .p = 1e-4, .r = 1e-3}), InputError);
  EXPECT_THROW(calculate_sigma({{.rho = {0.5}}}, {.iterations = 3, .p = 1e-4, .r = 1e-4}), InputError);
  EXPECT_THROW(calculate_sigma({{.rho = {0.5}}}, {.iterations = 3, .p = 0.0, .r = 1e-3}), InputError);
  EXPECT_THROW(calculate_sigma({{.rho = {0.5}}}, {.iterations = 3, .p = 1e-4, .r = 1e-3, .scale = 0.0}), InputError);
  EXPECT_THROW(calculate_sigma({{.rho = {0.5}}}, {.iterations = 3, .p = 1e-4, .r = 1e-3, .sigma = -1.0}), InputError);
}

}  // namespace
}  // namespace secpe
