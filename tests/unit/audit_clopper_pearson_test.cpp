// One-sided Clopper-Pearson bounds (audit/clopper_pearson.hpp): SciPy's beta quantiles, the
// closed forms at k = 0 and k = n, and the defining binomial tail property.
#include <gtest/gtest.h>

#include <cmath>

#include "audit/clopper_pearson.hpp"
#include "core/error.hpp"

namespace secpe {
namespace {

// P(Bin(n, q) <= k) by direct summation in long double (independent of the beta functions).
long double binomial_cdf(std::int64_t k, std::int64_t n, double q) {
  long double sum = 0.0L;
  for (std::int64_t j = 0; j <= k; ++j) {
    const long double log_term = std::lgamma(static_cast<long double>(n + 1)) - std::lgamma(static_cast<long double>(j + 1)) -
                                 std::lgamma(static_cast<long double>(n - j + 1)) + j * std::log(static_cast<long double>(q)) +
                                 (n - j) * std::log1p(-static_cast<long double>(q));
    sum += std::exp(log_term);
  }
  return sum;
}

TEST(ClopperPearson, MatchesScipy) {
  // k, n, gamma, lower = beta.ppf(gamma, k, n-k+1), upper = beta.isf(gamma, k+1, n-k)
  // (SciPy 1.10.1, Debian python3-scipy).
  struct Case { std::int64_t k, n; double gamma, lower, upper; };
  const Case cases[] = {
      {0, 10, 0.05, 0.0, 0.2588655508930523},
      {1, 10, 0.05, 0.005116196891823702, 0.39416330243650477},
      {5, 10, 0.025, 0.18708602844739855, 0.8129139715526015},
      {10, 10, 0.05, 0.7411344491069477, 1.0},
      {3, 1000, 0.001, 0.0001907059817085266, 0.012996697147763749},
      {50, 50000, 0.0019, 0.0006395238524743975, 0.0014824077845290245},
      {25000, 50000, 0.0001, 0.4916746448749664, 0.5083253551250335},
      {7, 20, 0.3, 0.27533898185217703, 0.43412859154927896},
      {1, 1, 0.5, 0.5, 1.0},
      {2, 100000, 1e-06, 1.4148877259261817e-08, 0.0001912752994057705},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.k << " of " << c.n << ", gamma " << c.gamma);
    EXPECT_NEAR(clopper_pearson_lower(c.k, c.n, c.gamma), c.lower, 1e-12 * c.lower);
    EXPECT_NEAR(clopper_pearson_upper(c.k, c.n, c.gamma), c.upper, 1e-12 * c.upper);
  }
}

TEST(ClopperPearson, ClosedFormsAtTheEnds) {
  for (const std::int64_t n : {1, 7, 1000, 250000}) {
    for (const double g : {0.5, 0.05, 1e-4}) {
      EXPECT_EQ(clopper_pearson_lower(0, n, g), 0.0);
      EXPECT_EQ(clopper_pearson_upper(n, n, g), 1.0);
      // P(no success) = (1 - q)^n = gamma and P(all successes) = q^n = gamma.
      const double upper0 = -std::expm1(std::log(g) / double(n));
      EXPECT_NEAR(clopper_pearson_upper(0, n, g), upper0, 1e-12 * upper0);
      EXPECT_NEAR(clopper_pearson_lower(n, n, g), std::exp(std::log(g) / double(n)), 1e-12);
    }
  }
}

TEST(ClopperPearson, BinomialTailsAtTheBoundsEqualGamma) {
  for (const auto& [k, n] : {std::pair<std::int64_t, std::int64_t>{3, 40}, {17, 200}, {120, 5000}, {2, 30000}}) {
    for (const double g : {0.2, 0.01, 1e-5}) {
      // upper: P(X <= k) = gamma; lower: P(X >= k) = gamma.
      EXPECT_NEAR(static_cast<double>(binomial_cdf(k, n, clopper_pearson_upper(k, n, g))), g, 1e-9 * g);
      EXPECT_NEAR(static_cast<double>(1.0L - binomial_cdf(k - 1, n, clopper_pearson_lower(k, n, g))), g, 1e-7 * g);
    }
  }
}

TEST(ClopperPearson, OrderedAndMonotone) {
  double previous_lower = 0.0, previous_upper = 0.0;
  for (std::int64_t k = 0; k <= 50; ++k) {
    const double lo = clopper_pearson_lower(k, 50, 0.01), hi = clopper_pearson_upper(k, 50, 0.01);
    EXPECT_LT(lo, double(k) / 50 + 1e-15);
    EXPECT_GT(hi, double(k) / 50 - 1e-15);
    EXPECT_GE(lo, previous_lower);
    EXPECT_GE(hi, previous_upper);
    previous_lower = lo;
    previous_upper = hi;
  }
  // A smaller error level widens the bounds.
  EXPECT_LT(clopper_pearson_lower(30, 100, 1e-4), clopper_pearson_lower(30, 100, 0.05));
  EXPECT_GT(clopper_pearson_upper(30, 100, 1e-4), clopper_pearson_upper(30, 100, 0.05));
}

TEST(ClopperPearson, RejectsBadInput) {
  EXPECT_THROW(clopper_pearson_lower(1, 0, 0.05), InputError);
  EXPECT_THROW(clopper_pearson_lower(-1, 10, 0.05), InputError);
  EXPECT_THROW(clopper_pearson_upper(11, 10, 0.05), InputError);
  EXPECT_THROW(clopper_pearson_upper(1, 10, 0.0), InputError);
  EXPECT_THROW(clopper_pearson_upper(1, 10, 1.0), InputError);
  EXPECT_THROW(clopper_pearson_lower(1, 10, std::nan("")), InputError);
}

}  // namespace
}  // namespace secpe
