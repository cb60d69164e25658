// The Chernoff window's two log-MGF kernels (privacy/log_mgf.hpp) agree: Horner's rule, which the
// grid ladder uses, against the log-space reference, on discrete losses like the accountant's
// (masses spanning hundreds of orders of magnitude, atoms without mass) and at the ladder's rungs.
#include "privacy/log_mgf.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace secpe {
namespace {

double reference(const std::vector<double>& w, double centre, double lambda) {
  std::vector<double> log_w;
  for (const double x : w) log_w.push_back(x > 0.0 ? std::log(x) : -std::numeric_limits<double>::infinity());
  return atoms_log_mgf_reference(log_w, centre, lambda);
}

// Random sub-probability masses: a bump of log masses falling off quadratically to 1e-300 at the
// ends, some atoms without mass.
std::vector<double> random_loss(std::mt19937_64& rng, std::size_t n) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double peak = u(rng) * static_cast<double>(n - 1);
  std::vector<double> w(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double d = (static_cast<double>(i) - peak) / static_cast<double>(n);
    w[i] = u(rng) < 0.05 ? 0.0 : std::exp(-690.0 * d * d - 3.0 * u(rng)) / static_cast<double>(n);
  }
  return w;
}

TEST(LogMgf, HornersRuleAgreesWithTheReferenceAtTheRungs) {
  std::mt19937_64 rng(11);
  for (const std::size_t n : {1u, 2u, 7u, 300u, 4096u}) {
    for (int trial = 0; trial < 8; ++trial) {
      std::vector<double> w = random_loss(rng, n);
      w[n / 2] = std::max(w[n / 2], 1e-3);  // some mass
      double mean = 0.0, mass = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        mean += w[i] * static_cast<double>(i);
        mass += w[i];
      }
      mean /= mass;
      for (int k = -60; k <= 20; k += 3) {
        for (const double sign : {1.0, -1.0}) {
          const double lambda = sign * std::exp2(0.25 * k);
          const double want = reference(w, mean, lambda);
          // Both are sums of positive terms: a few ulp per atom, relative to the log's scale.
          EXPECT_NEAR(atoms_log_mgf(w, mean, lambda), want, 64.0 * static_cast<double>(n) * 1.2e-16 * std::max(1.0, std::abs(want)))
              << "n " << n << " lambda " << lambda;
        }
      }
    }
  }
}

TEST(LogMgf, SumsTooSmallForHornersRuleGoToTheReference) {
  // All mass far below the top atom's unit: e^{-lambda (n - 1)} underflows every term but the top's,
  // which is 1e-310 (subnormal). The reference's shift keeps them.
  std::vector<double> w(2000, 0.0);
  w[0] = 0.5;
  w[1999] = 1e-310;
  const double lambda = 2.0, mean = 0.0;
  const double want = reference(w, mean, lambda);
  EXPECT_TRUE(std::isfinite(want));
  EXPECT_EQ(atoms_log_mgf(w, mean, lambda), want);
  EXPECT_NEAR(atoms_log_mgf(w, mean, -lambda), reference(w, mean, -lambda), 1e-15);
}

}  // namespace
}  // namespace secpe
