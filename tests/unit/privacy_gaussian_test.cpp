#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "privacy/gaussian.hpp"

namespace secpe {
namespace {

// Reference values computed with mpmath at 50 digits.
TEST(PrivacyGaussian, CdfAndSfKnownValues) {
  struct Case { double x, cdf, sf; };
  const Case cases[] = {
      {-20.0, 2.7536241186062336951e-89, 1.0},
      {-8.0, 6.2209605742717841235e-16, 0.9999999999999993779},
      {-1.0, 0.15865525393145705141, 0.84134474606854294859},
      {0.0, 0.5, 0.5},
      {1.5, 0.933192798731141934, 0.066807201268858066004},
      {8.0, 0.9999999999999993779, 6.2209605742717841235e-16},
      {20.0, 1.0, 2.7536241186062336951e-89},
      {5.3, 0.99999994209865960035, 5.7901340399645941162e-8},
      {-3.1, 0.0009676032132183566, 0.9990323967867816434},
      {30.5, 1.0, 1.3029379131780763509e-204},
  };
  for (const auto& c : cases) {
    EXPECT_NEAR(normal_cdf(c.x), c.cdf, 4e-16 * c.cdf) << "x=" << c.x;
    EXPECT_NEAR(normal_sf(c.x), c.sf, 4e-16 * c.sf) << "x=" << c.x;
  }
  // Deep tails keep relative accuracy down to subnormal results.
  EXPECT_NEAR(normal_sf(38.0), 2.8854283600687843084e-316, 1e-6 * 2.8854283600687843084e-316);
  EXPECT_NEAR(normal_cdf(-38.0), 2.8854283600687843084e-316, 1e-6 * 2.8854283600687843084e-316);
}

TEST(PrivacyGaussian, LogCdfHasNoUnderflow) {
  EXPECT_NEAR(normal_logcdf(-40.0), -804.60844201375378817, 1e-13 * 804.6);
  EXPECT_NEAR(normal_logcdf(-38.0), -726.5572160188201301, 1e-13 * 726.6);
  EXPECT_NEAR(normal_logcdf(-20.0), -203.91715537109726394, 1e-13 * 203.9);
  EXPECT_NEAR(normal_logcdf(-8.0), -35.013437159914549896, 1e-13 * 35.0);
  EXPECT_NEAR(normal_logcdf(-1.0), -1.8410216450092635058, 1e-15);
  EXPECT_NEAR(normal_logcdf(1.5), -0.069143455612233982993, 1e-16);
  EXPECT_NEAR(normal_logcdf(8.0), -6.2209605742717860585e-16, 1e-28);
  // Continuity across the switch to the asymptotic expansion at -30.
  EXPECT_NEAR(normal_logcdf(std::nextafter(-30.0, 0.0)), normal_logcdf(-30.0), 1e-12);
  EXPECT_TRUE(std::isfinite(normal_logcdf(-1e10)));
}

TEST(PrivacyGaussian, QuantileKnownValues) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-15);
  EXPECT_NEAR(normal_quantile(0.025), -1.959963984540054, 1e-15);
  EXPECT_NEAR(normal_quantile(1e-10), -6.361340902404056, 1e-14);
  EXPECT_EQ(normal_quantile(0.5), 0.0);
  struct Case { double p, q; };
  const Case cases[] = {
      {1e-300, -37.047096299361199237}, {1e-100, -21.273453560965324295}, {1e-20, -9.2623400897984075737},
      {1e-16, -8.2220822161304356127},  {1e-4, -3.7190164854556805644},   {0.02, -2.0537489106318230529},
      {0.3, -0.52440051270804078404},
      {0.9999, 3.7190164854557083867},  // for the double 0.9999, whose 1 - p is 9.99999999999889866e-5
      {1.0 - 1e-16, 8.2095361516013868556},  // the double nearest 1 - 1e-16 is 1 - 2^-53
  };
  for (const auto& c : cases) EXPECT_NEAR(normal_quantile(c.p), c.q, 4e-16 * std::fabs(c.q)) << "p=" << c.p;
}

TEST(PrivacyGaussian, QuantileRoundTripsOverWholeRange) {
  // Lower half, relative accuracy in p: log-spaced from 1e-300 to 0.5.
  for (double lg = -300.0; lg <= std::log10(0.5); lg += 0.37) {
    const double p = std::pow(10.0, lg);
    const double x = normal_quantile(p);
    EXPECT_NEAR(normal_cdf(x) / p, 1.0, 1e-12) << "p=" << p;
  }
  // Upper half, relative accuracy in 1 - p, up to 1 - 2^-53 (the largest double below 1).
  for (double lg = -16.0; lg <= std::log10(0.5); lg += 0.11) {
    const double p = 1.0 - std::pow(10.0, lg);
    const double tail = 1.0 - p;  // exact
    const double x = normal_quantile(p);
    EXPECT_NEAR(normal_sf(x) / tail, 1.0, 1e-12) << "p=" << p;
  }
  const double top = std::nextafter(1.0, 0.0);
  EXPECT_NEAR(normal_sf(normal_quantile(top)) / (1.0 - top), 1.0, 1e-12);
  // Symmetry: Phi^{-1}(1 - p) = -Phi^{-1}(p) wherever 1 - p is exact.
  for (double p : {0.5, 0.6, 0.9, 0.975, 0.999, 1.0 - 1e-9, top}) {
    EXPECT_NEAR(normal_quantile(p), -normal_quantile(1.0 - p), 1e-15 * std::fabs(normal_quantile(p))) << p;
  }
  // Monotone across the branch points of AS 241 (|q| = 0.425, r = 5).
  double prev = -std::numeric_limits<double>::infinity();
  for (double p : {1e-12, 1.388e-11, 1.389e-11, 1e-10, 0.074, 0.075, 0.076, 0.5, 0.924, 0.925, 0.926}) {
    const double x = normal_quantile(p);
    EXPECT_GT(x, prev) << p;
    prev = x;
  }
}

TEST(PrivacyGaussian, QuantileRejectsOutOfRange) {
  for (double p : {0.0, 1.0, -0.1, 1.5, std::numeric_limits<double>::quiet_NaN(),
                   std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW(normal_quantile(p), InputError) << p;
  }
  EXPECT_NO_THROW(normal_quantile(std::numeric_limits<double>::denorm_min()));
}

}  // namespace
}  // namespace secpe
