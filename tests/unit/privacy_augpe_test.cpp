// The Aug-PE baseline's accounting: record-level GDP, and what each secret really gets.
#include <gtest/gtest.h>

#include <cmath>

#include "privacy/augpe_accounting.hpp"
#include "privacy/conversions.hpp"

namespace secpe {
namespace {

TEST(AugPEAccounting, SigmaFromTheStrictestBudgetAsRecordLevelGdp) {
  SecretBudgets budgets = uniform_budgets(3, 1e-4, 1e-3);
  budgets.r[1] = 5e-4;  // the strictest
  const auto c = calibrate_augpe(budgets, 1e-4, 1e-3, 0.0, 0.0, 4);
  EXPECT_DOUBLE_EQ(c.mu, mu_from_pr(1e-4, 5e-4));
  EXPECT_DOUBLE_EQ(c.sigma, std::sqrt(4.0) / c.mu);
  const auto e = calibrate_augpe(budgets, 1e-4, 1e-3, 2.0, 1e-6, 4);
  EXPECT_DOUBLE_EQ(e.mu, mu_from_eps_delta(2.0, 1e-6));
}

// A secret with one holder gets exactly the record-level mu; n holders in one label shift one bin
// by n votes (n times the mu); holders spread over labels add in quadrature. Several holders push
// a secret over a budget that one holder would meet: the report must say so.
TEST(AugPEAccounting, SecretsGetTheShiftOfTheirHoldersPerLabel) {
  const SecretBudgets budgets = uniform_budgets(4, 1e-4, 1e-3);
  const int t = 5;
  const auto c = calibrate_augpe(budgets, 1e-4, 1e-3, 0.0, 0.0, t);
  // Sums over labels of n_jl^2: one holder; three in one label; 2 + 1 in two labels; none.
  const auto costs = augpe_secret_costs({1, 9, 5, 0}, budgets, t, c.sigma);
  EXPECT_NEAR(costs[0].mu, c.mu, 1e-12);
  EXPECT_NEAR(costs[0].r, 1e-3, 1e-12);
  EXPECT_NEAR(costs[1].mu, 3 * c.mu, 1e-12);
  EXPECT_NEAR(costs[2].mu, std::sqrt(5.0) * c.mu, 1e-12);
  EXPECT_GT(costs[1].r, 1e-3);
  EXPECT_GT(costs[2].r, 1e-3);
  EXPECT_LT(costs[2].r, costs[1].r);
  EXPECT_EQ(costs[3].mu, 0.0);
  EXPECT_EQ(costs[3].r, 1e-4);
}

}  // namespace
}  // namespace secpe
