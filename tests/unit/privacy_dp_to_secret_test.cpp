// (eps, delta)-DP -> (p, r)-secret protection: r_from_eps_delta.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "privacy/conversions.hpp"

namespace secpe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(DpToSecret, KnownValues) {
  // eps = delta = 0: no leakage, r = p.
  EXPECT_NEAR(r_from_eps_delta(1e-4, 0.0, 0.0), 1e-4, 1e-20);
  EXPECT_NEAR(r_from_eps_delta(1e-300, 0.0, 0.0), 1e-300, 1e-315);
  // Small p: the e^eps p + delta branch.
  EXPECT_NEAR(r_from_eps_delta(1e-4, 1.0, 1e-5), std::exp(1.0) * 1e-4 + 1e-5, 1e-18);
  // Large p: the complement branch 1 - e^{-eps} (1 - delta - p).
  EXPECT_NEAR(r_from_eps_delta(0.9, 1.0, 0.0), 1.0 - std::exp(-1.0) * 0.1, 1e-15);
  EXPECT_NEAR(r_from_eps_delta(0.5, 0.5, 0.01), std::min(std::exp(0.5) * 0.5 + 0.01,
                                                         1.0 - std::exp(-0.5) * 0.49), 1e-15);
  // Capped at 1, and no overflow for huge eps.
  EXPECT_EQ(r_from_eps_delta(0.3, 5.0, 0.0), 1.0 - std::exp(-5.0) * 0.7);
  EXPECT_EQ(r_from_eps_delta(1e-4, 800.0, 1e-5), 1.0);
  EXPECT_EQ(r_from_eps_delta(0.5, 1.0, 0.6), 1.0);
}

TEST(DpToSecret, MonotoneAndAboveTheGdpBlowUp) {
  // mu-GDP is (eps, delta(eps))-DP for every eps, and its blow-up is the envelope of theirs.
  for (double mu : {0.178932686, 0.628784179, 1.143187182, 3.0}) {
    for (double p : {1e-4, 1e-2, 0.3}) {
      const double exact = r_from_mu(p, mu);
      double best = 1.0;
      for (double eps = 0.0; eps <= 12.0; eps += 0.001) {
        const double delta = delta_from_mu(mu, eps);
        if (!(delta > 0.0 && delta < 1.0)) continue;
        const double r = r_from_eps_delta(p, eps, delta);
        EXPECT_GE(r, exact * (1.0 - 1e-12)) << "mu=" << mu << " p=" << p << " eps=" << eps;
        best = std::min(best, r);
      }
      EXPECT_LE(best, exact * (1.0 + 1e-3)) << "mu=" << mu << " p=" << p;
    }
  }
  EXPECT_LT(r_from_eps_delta(1e-4, 1.0, 1e-6), r_from_eps_delta(1e-4, 1.1, 1e-6));
  EXPECT_LT(r_from_eps_delta(1e-4, 1.0, 1e-6), r_from_eps_delta(1e-4, 1.0, 2e-6));
  EXPECT_LT(r_from_eps_delta(1e-4, 1.0, 1e-6), r_from_eps_delta(2e-4, 1.0, 1e-6));
}

TEST(DpToSecret, RejectsBadInput) {
  EXPECT_THROW(r_from_eps_delta(0.0, 1.0, 1e-5), InputError);
  EXPECT_THROW(r_from_eps_delta(1.0, 1.0, 1e-5), InputError);
  EXPECT_THROW(r_from_eps_delta(kNaN, 1.0, 1e-5), InputError);
  EXPECT_THROW(r_from_eps_delta(1e-4, -0.1, 1e-5), InputError);
  EXPECT_THROW(r_from_eps_delta(1e-4, kInf, 1e-5), InputError);
  EXPECT_THROW(r_from_eps_delta(1e-4, kNaN, 1e-5), InputError);
  EXPECT_THROW(r_from_eps_delta(1e-4, 1.0, -1e-5), InputError);
  EXPECT_THROW(r_from_eps_delta(1e-4, 1.0, 1.0), InputError);
  EXPECT_THROW(r_from_eps_delta(1e-4, 1.0, kNaN), InputError);
}

}  // namespace
}  // namespace secpe
