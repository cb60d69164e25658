#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "privacy/conversions.hpp"
#include "privacy/gaussian.hpp"

namespace secpe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// docs/method.md section 11 (test vectors); the 20-digit values were computed with mpmath.
TEST(PrivacyConversions, MuFromPrMatchesReference) {
  EXPECT_NEAR(mu_from_pr(1e-4, 2e-4), 0.178932686, 1e-9);
  EXPECT_NEAR(mu_from_pr(1e-4, 10e-4), 0.628784179, 1e-9);
  EXPECT_NEAR(mu_from_pr(1e-4, 50e-4), 1.143187182, 1e-9);
  EXPECT_NEAR(mu_from_pr(1e-4, 2e-4), 0.17893268624953544853, 1e-14);
  EXPECT_NEAR(mu_from_pr(1e-4, 10e-4), 0.62878417928786702285, 1e-14);
  EXPECT_NEAR(mu_from_pr(1e-4, 50e-4), 1.1431871819067798034, 1e-14);
}

TEST(PrivacyConversions, RFromMuInvertsMuFromPr) {
  EXPECT_NEAR(r_from_mu(1e-4, 1.0), 0.0032738172350275353537, 1e-16);
  for (double p : {1e-300, 1e-12, 1e-4, 0.01, 0.3}) {
    for (double ratio : {1.5, 2.0, 10.0, 50.0}) {
      const double r = std::min(ratio * p, 0.99);
      if (!(r > p)) continue;
      const double mu = mu_from_pr(p, r);
      EXPECT_GT(mu, 0.0);
      EXPECT_NEAR(r_from_mu(p, mu) / r, 1.0, 1e-12) << "p=" << p << " r=" << r;
    }
  }
}

TEST(PrivacyConversions, DeltaFromMuMatchesReference) {
  struct Case { double mu, eps, delta; };
  const Case cases[] = {
      {0.5, 0.0, 0.19741265136584744848},     {1.0, 1.0, 0.1269367375066439458},
      {1.0, 3.0, 0.0015371853694009548469},   {0.178932686, 0.6424, 0.000010006107541320832171},
      {2.0, 10.0, 9.9402028161181527684e-6},  {5.0, 40.0, 8.823257920004711109e-9},
      {0.1, 2.0, 3.7194507268047236455e-91},  // far below the underflow of e^eps Phi(b) products
  };
  for (const auto& c : cases) {
    EXPECT_NEAR(delta_from_mu(c.mu, c.eps) / c.delta, 1.0, 1e-11) << "mu=" << c.mu << " eps=" << c.eps;
  }
  // eps = 0: delta = 2 Phi(mu/2) - 1. Large eps: e^eps would overflow, delta is tiny but finite.
  EXPECT_NEAR(delta_from_mu(1.3, 0.0), 2.0 * normal_cdf(0.65) - 1.0, 1e-15);
  const double big = delta_from_mu(30.0, 800.0);
  EXPECT_TRUE(std::isfinite(big));
  EXPECT_GE(big, 0.0);
  EXPECT_LT(big, 1e-10);
  // Decreasing in eps, increasing in mu.
  EXPECT_GT(delta_from_mu(1.0, 1.0), delta_from_mu(1.0, 1.1));
  EXPECT_LT(delta_from_mu(1.0, 1.0), delta_from_mu(1.1, 1.0));
}

TEST(PrivacyConversions, EpsFromMuMatchesReference) {
  const double want_short[] = {0.6424, 2.5774, 5.1145};
  const double want_long[] = {0.64242751989354823637, 2.5774088681720601891, 5.1145148035420477159};
  const double ratios[] = {2.0, 10.0, 50.0};
  for (int i = 0; i < 3; ++i) {
    const double mu = mu_from_pr(1e-4, ratios[i] * 1e-4);
    const double eps = eps_from_mu(mu, 1e-5);
    EXPECT_NEAR(eps, want_short[i], 5e-5);
    EXPECT_NEAR(eps, want_long[i], 1e-12);
    EXPECT_LE(delta_from_mu(mu, eps), 1e-5);  // conservative side of the bracket
  }
  // The rounded mu values of section 8 give the same 4 digits.
  EXPECT_NEAR(eps_from_mu(0.178932686, 1e-5), 0.6424, 5e-5);
  EXPECT_NEAR(eps_from_mu(0.628784179, 1e-5), 2.5774, 5e-5);
  EXPECT_NEAR(eps_from_mu(1.143187182, 1e-5), 5.1145, 5e-5);
}

TEST(PrivacyConversions, EpsFromMuEdgeCases) {
  // delta(0) = 2 Phi(mu/2) - 1 already below the target: eps = 0.
  EXPECT_EQ(eps_from_mu(0.01, 0.5), 0.0);
  // Very small delta and large mu still bracket and round-trip.
  for (double mu : {0.05, 1.0, 10.0, 100.0}) {
    for (double delta : {1e-300, 1e-12, 1e-5, 0.1}) {
      const double eps = eps_from_mu(mu, delta);
      ASSERT_TRUE(std::isfinite(eps));
      if (eps > 0.0) {
        EXPECT_LE(delta_from_mu(mu, eps), delta);
        EXPECT_GT(delta_from_mu(mu, eps * (1.0 - 1e-10)), delta) << "mu=" << mu << " delta=" << delta;
      }
    }
  }
}

TEST(PrivacyConversions, MuFromEpsDeltaMatchesYelpSigmas) {
  const double n = 1939290.0;
  const double delta = 1.0 / (n * std::log(n));
  EXPECT_NEAR(delta, 3.5617e-8, 1e-12);
  struct Case { double eps, mu, sigma10, sigma20; };
  const Case cases[] = {
      {1.0, 0.20528278257924324075, 15.4045, 21.7852},
      {2.0, 0.39337258397638489251, 8.0389, 11.3687},
      {4.0, 0.74493019080095067002, 4.2451, 6.0034},
  };
  for (const auto& c : cases) {
    const double mu = mu_from_eps_delta(c.eps, delta);
    EXPECT_NEAR(mu, c.mu, 1e-12) << "eps=" << c.eps;
    EXPECT_NEAR(std::sqrt(10.0) / mu, c.sigma10, 5e-5) << "eps=" << c.eps;
    EXPECT_NEAR(std::sqrt(20.0) / mu, c.sigma20, 5e-5) << "eps=" << c.eps;
    EXPECT_LE(delta_from_mu(mu, c.eps), delta);
  }
}

TEST(PrivacyConversions, MuFromEpsDeltaRoundTrips) {
  EXPECT_NEAR(mu_from_eps_delta(0.0, 0.01), 0.025066939016138526322, 1e-13);
  EXPECT_NEAR(mu_from_eps_delta(1.0, 1e-10), 0.17042226932725366622, 1e-13);
  for (double mu : {0.01, 0.2, 1.0, 3.0, 8.0}) {
    for (double delta : {1e-12, 1e-5, 0.01}) {
      const double eps = eps_from_mu(mu, delta);
      if (eps == 0.0) continue;
      EXPECT_NEAR(mu_from_eps_delta(eps, delta), mu, 1e-9 * mu) << "mu=" << mu << " delta=" << delta;
    }
  }
}

template <typename F>
void expect_input_error_naming(F&& f, const std::string& quantity) {
  try {
    f();
    ADD_FAILURE() << "no InputError; expected one naming " << quantity;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(quantity), std::string::npos) << e.what();
  }
}

TEST(PrivacyConversions, BadInputsThrowInputError) {
  for (double p : {0.0, 1.0, -1.0, kNaN}) {
    expect_input_error_naming([&] { mu_from_pr(p, 0.5); }, "p");
    expect_input_error_naming([&] { r_from_mu(p, 1.0); }, "p");
  }
  for (double r : {1e-4, 5e-5, 1.0, kNaN}) expect_input_error_naming([&] { mu_from_pr(1e-4, r); }, "r");
  for (double mu : {0.0, -1.0, kNaN, kInf}) {
    expect_input_error_naming([&] { r_from_mu(1e-4, mu); }, "mu");
    expect_input_error_naming([&] { delta_from_mu(mu, 1.0); }, "mu");
    expect_input_error_naming([&] { eps_from_mu(mu, 1e-5); }, "mu");
  }
  for (double eps : {-0.1, kNaN, kInf}) {
    expect_input_error_naming([&] { delta_from_mu(1.0, eps); }, "eps");
    expect_input_error_naming([&] { mu_from_eps_delta(eps, 1e-5); }, "eps");
  }
  for (double delta : {0.0, 1.0, -1e-5, 2.0, kNaN}) {
    expect_input_error_naming([&] { eps_from_mu(1.0, delta); }, "delta");
    expect_input_error_naming([&] { mu_from_eps_delta(1.0, delta); }, "delta");
  }
}

}  // namespace
}  // namespace secpe
