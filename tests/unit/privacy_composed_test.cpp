// Composition of several mixture releases (privacy/blow_up.hpp): blow_up_upper_composed, its
// calibration and the screening bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "privacy/blow_up.hpp"
#include "privacy/conversions.hpp"
#include "privacy/gaussian.hpp"
#include "privacy/poisson_binomial.hpp"

namespace secpe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

void expect_tight_upper(double bound, double exact, double slack, const std::string& what) {
  EXPECT_GE(bound, exact * (1.0 - 1e-12)) << what;
  EXPECT_LE(bound, exact * (1.0 + slack)) << what << " relative slack " << bound / exact - 1.0;
}

double mean_count(const std::vector<double>& pi) {
  double m = 0.0;
  for (std::size_t c = 0; c < pi.size(); ++c) m += static_cast<double>(c) * pi[c];
  return m;
}

// A Poisson-binomial PMF of `holders` holders with rho drawn in [lo, hi).
std::vector<double> random_pmf(CounterRng& rng, int holders, double lo, double hi) {
  std::vector<double> rho(static_cast<std::size_t>(holders));
  for (double& x : rho) x = lo + (hi - lo) * rng.uniform();
  return poisson_binomial_pmf(rho);
}

// `count` releases with 20..120 holders each and mean steps that make the single-Gaussian
// (mean-count) mu of the whole composition equal to `mu`: every release contributes mu^2 / count.
// The releases as a memo's shared releases, each its own id.
std::vector<SharedRelease> shared(const std::vector<MixtureRelease>& releases) {
  std::vector<SharedRelease> out;
  for (std::size_t l = 0; l < releases.size(); ++l) out.push_back({.id = l, .release = &releases[l], .repetitions = releases[l].repetitions});
  return out;
}

std::vector<MixtureRelease> many_releases(int count, int T, double mu, std::uint64_t seed) {
  CounterRng rng(seed, Stream::kSimulation, 501);
  std::vector<MixtureRelease> out;
  for (int l = 0; l < count; ++l) {
    const int holders = 20 + static_cast<int>(rng.below(101));
    MixtureRelease r;
    r.pi = random_pmf(rng, holders, 0.005, 0.2);
    r.repetitions = T;
    r.mean_step = mu / std::sqrt(static_cast<double>(count) * T) / mean_count(r.pi);
    out.push_back(std::move(r));
  }
  return out;
}

TEST(Composed, SingleReleaseIsTheSingleReleaseBound) {
  const std::vector<std::vector<double>> pis = {
      {0.0, 1.0}, {0.5, 0.3, 0.2}, poisson_binomial_pmf(std::vector<double>(40, 0.05))};
  for (const auto& pi : pis) {
    for (int T : {1, 10, 100}) {
      for (double sigma : {1.0, 4.0}) {
        for (double alpha : {1e-2, 1e-5}) {
          const MixtureRelease one{pi, kCountsAndCentresScale / sigma, T};
          const double single = blow_up_upper(pi, kCountsAndCentresScale, sigma, T, alpha);
          const double composed = blow_up_upper_composed({&one, 1}, alpha);
          // The same code: equal up to the rounding of s / sigma in the mean step.
          EXPECT_NEAR(composed, single, 1e-9 * single) << "T=" << T << " sigma=" << sigma;
          if (T == 1)
            expect_tight_upper(composed, blow_up_mixture_one_shot(pi, kCountsAndCentresScale, sigma, alpha),
                               1e-5, "one shot");
        }
      }
    }
  }
}

TEST(Composed, PointMassReleasesAreSkipped) {
  const MixtureRelease a{{0.5, 0.3, 0.2}, 0.7, 10};
  const std::vector<MixtureRelease> with_empty = {{{1.0}, 3.0, 50}, a, {{1.0, 0.0}, 1.0, 7}};
  EXPECT_EQ(blow_up_upper_composed(with_empty, 1e-4), blow_up_upper_composed({&a, 1}, 1e-4));
  const std::vector<MixtureRelease> nothing = {{{1.0}, 3.0, 50}};
  EXPECT_EQ(blow_up_upper_composed(nothing, 1e-4), 1e-4);
  EXPECT_EQ(blow_up_upper_composed({}, 0.3), 0.3);
  EXPECT_EQ(blow_up_screen(nothing, 1e-4), 1e-4);
  EXPECT_EQ(calibrate_scale_composed(nothing, 1e-4, 1e-3), 0.0);
}

TEST(Composed, TwoGaussiansMatchClosedForm) {
  // Point masses: release l is N(a_l, 1) vs N(0, 1) repeated T_l times; the composition is the
  // Gaussian with mu = sqrt(T1 a^2 + T2 b^2).
  struct Case {
    double a, b;
    int T1, T2;
  };
  for (const Case& k : {Case{0.3, 0.05, 3, 100}, Case{0.1, 0.1, 10, 10}, Case{1.0, 0.02, 1, 1000},
                        Case{0.2, 0.15, 50, 7}}) {
    // Count 2 with half the step, so that the PMF is not just {0, 1}.
    const std::vector<MixtureRelease> rel = {{{0.0, 1.0}, k.a, k.T1}, {{0.0, 0.0, 1.0}, 0.5 * k.b, k.T2}};
    const double mu = std::sqrt(k.T1 * k.a * k.a + k.T2 * k.b * k.b);
    for (double alpha : {1e-2, 1e-4, 1e-6}) {
      const double exact = normal_sf(-normal_quantile(alpha) - mu);
      const BlowUpBound b = blow_up_bound_composed(rel, alpha);
      expect_tight_upper(b.value, exact, 1e-4, "two Gaussians");
      // The screening bound is exact for point masses.
      EXPECT_NEAR(blow_up_screen(rel, alpha), exact, 1e-11 * exact);
    }
  }
}

// The grid ladder (the composition across runs' coarse pass) rounds the grid down to a power of
// 2^(1/8) and the cut's tail mass down to a power of 2: a bound as rigorous as the full-precision
// one and as tight as the same slack target without the ladder (within 1e-4), also where releases
// of one count PMF at several steps (runs at other noise) compose as groups.
TEST(Composed, TheGridLadderIsAsRigorousAndAsTight) {
  for (std::uint64_t seed : {1, 2, 3, 4}) {
    for (int T : {5, 55}) {
      std::vector<MixtureRelease> rel = many_releases(7, T, seed == 4 ? 0.5 : 0.8, seed);
      for (std::size_t l = 0; seed == 4 && l < 7; ++l)  // three runs, each at 10 % more noise than the one before
        for (const double more : {1.1, 1.21}) rel.push_back({rel[l].pi, rel[l].mean_step / more, rel[l].repetitions});
      for (double alpha : {1e-2, 1e-4}) {
        const double full = blow_up_upper_composed(rel, alpha);
        const BlowUpBound plain = blow_up_bound_composed(rel, alpha, {.slack_target = 1e-2});
        const BlowUpBound ladder = blow_up_bound_composed(rel, alpha, {.slack_target = 1e-2, .grid_ladder = true});
        const std::string what = "seed " + std::to_string(seed) + ", T " + std::to_string(T) + ", alpha " + std::to_string(alpha);
        EXPECT_GE(ladder.value, full * (1.0 - 1e-9)) << what;
        EXPECT_LE(ladder.value, plain.value * (1.0 + 1e-4)) << what;
        EXPECT_LE(ladder.grid, plain.grid) << what;
        ReleaseMemo memo;  // shared releases, found by id: the same grid and the same bits, on the ladder or not
        EXPECT_EQ(composed_grid(shared(rel), alpha, {.slack_target = 1e-2, .grid_ladder = true}, memo), ladder.grid) << what;
        EXPECT_EQ(blow_up_bound_shared(shared(rel), alpha, {.slack_target = 1e-2, .grid_ladder = true}, memo).value, ladder.value) << what;
        EXPECT_EQ(composed_grid(shared(rel), alpha, {.slack_target = 1e-2}, memo), plain.grid) << what;
        EXPECT_EQ(blow_up_bound_shared(shared(rel), alpha, {.slack_target = 1e-2}, memo).value, plain.value) << what;
        const double rungs = 8.0 * std::log2(ladder.grid);
        EXPECT_EQ(rungs, std::round(rungs)) << what << ": grid " << ladder.grid << " is not on the ladder";
      }
    }
  }
  // Point masses keep their closed form.
  const std::vector<MixtureRelease> gaussians = {{{0.0, 1.0}, 0.3, 3}, {{0.0, 0.0, 1.0}, 0.025, 100}};
  const double exact = normal_sf(-normal_quantile(1e-4) - std::sqrt(3 * 0.09 + 100 * 0.0025));
  expect_tight_upper(blow_up_upper_composed(gaussians, 1e-4, {.slack_target = 1e-2, .grid_ladder = true}), exact, 1e-2, "ladder");
}

// Larger shares left out (the cut to +infinity, the FFT's window) keep the bound rigorous and add
// about their share of alpha: on the grid ladder, as the composition's coarse pass uses them, and off it.
TEST(Composed, LargerSharesLeftOutStayRigorous) {
  for (std::uint64_t seed : {1, 2}) {
    const std::vector<MixtureRelease> rel = many_releases(7, 20, 0.8, seed);
    for (double alpha : {1e-2, 1e-4}) {
      const double full = blow_up_upper_composed(rel, alpha);
      for (const bool ladder : {false, true}) {
        for (const double cut : {1e-4, 1e-2}) {
          const double window = cut / 100;
          const AccountantOptions opt{.slack_target = 1e-2, .cut_share = cut, .window_share = window, .grid_ladder = ladder};
          const BlowUpBound b = blow_up_bound_composed(rel, alpha, opt);
          const std::string what = "seed " + std::to_string(seed) + ", alpha " + std::to_string(alpha) + ", cut " + std::to_string(cut);
          EXPECT_GE(b.value, full * (1.0 - 1e-9)) << what;
          EXPECT_LE(b.value, full * (1.0 + 1e-2 + cut + 3 * window)) << what;
        }
      }
    }
  }
}

// Step 1 at less precision (the cuts found to a coarser tolerance, the loss's spread from fewer
// points, as the composition's coarse pass finds them) keeps the bound rigorous and about as tight:
// the cuts stay on the safe side, and the spread only chooses the grid. A memo given bounds at
// several precisions keeps each precision's releases apart (the same bits as a memo of its own).
TEST(Composed, CoarserStepOneStaysRigorous) {
  for (std::uint64_t seed : {1, 2}) {
    const std::vector<MixtureRelease> rel = many_releases(7, 20, 0.8, seed);
    for (double alpha : {1e-2, 1e-4}) {
      const double full = blow_up_upper_composed(rel, alpha);
      for (const bool ladder : {false, true}) {
        const AccountantOptions fine{.slack_target = 1e-2, .grid_ladder = ladder};
        const double at_fine = blow_up_upper_composed(rel, alpha, fine);
        ReleaseMemo memo;
        EXPECT_EQ(blow_up_bound_shared(shared(rel), alpha, fine, memo).value, at_fine);
        for (const double tolerance : {1e-4, 1e-2, 0.5}) {
          for (const int points : {8, 64}) {
            const AccountantOptions opt{.slack_target = 1e-2, .cut_tolerance = tolerance, .spread_points = points, .grid_ladder = ladder};
            const double b = blow_up_upper_composed(rel, alpha, opt);
            const std::string what = "seed " + std::to_string(seed) + ", alpha " + std::to_string(alpha) + ", tolerance " +
                                     std::to_string(tolerance) + ", points " + std::to_string(points);
            EXPECT_GE(b, full * (1.0 - 1e-9)) << what;
            EXPECT_LE(b, at_fine * (1.0 + 1e-2)) << what;
            EXPECT_EQ(blow_up_bound_shared(shared(rel), alpha, opt, memo).value, b) << what;
            EXPECT_EQ(blow_up_upper_composed(rel, alpha, opt, &memo), b) << what;
          }
        }
        EXPECT_EQ(blow_up_bound_shared(shared(rel), alpha, fine, memo).value, at_fine);
        EXPECT_EQ(blow_up_upper_composed(rel, alpha, fine, &memo), at_fine);
      }
    }
  }
}

TEST(Composed, OrderDoesNotMatter) {
  const std::vector<MixtureRelease> rel = {{{0.5, 0.3, 0.2}, 0.4, 10},
                                           {poisson_binomial_pmf(std::vector<double>(30, 0.05)), 0.1, 20},
                                           {{0.9, 0.1}, 0.8, 10}};
  const std::vector<MixtureRelease> rev(rel.rbegin(), rel.rend());
  const double a = blow_up_upper_composed(rel, 1e-4), b = blow_up_upper_composed(rev, 1e-4);
  EXPECT_NEAR(a, b, 1e-12 + 1e-9 * a);
}

// Monte Carlo estimate of B(alpha) for three different mixtures, composed 2, 3 and 1 times, with
// the Neyman-Pearson test of the composed pair (reject when the summed loss exceeds a threshold
// whose Q-probability is alpha), as in privacy_accountant_test.cpp.
TEST(Composed, ThreeMixturesAgreeWithMonteCarlo) {
  const std::vector<MixtureRelease> rel = {
      {{0.5, 0.3, 0.2}, 0.8, 2}, {{0.2, 0.0, 0.5, 0.3}, 0.35, 3}, {{0.7, 0.1, 0.1, 0.1}, 1.1, 1}};
  const double alpha = 0.05;
  const std::size_t n = 400000;
  auto loss = [](const MixtureRelease& r, double z) {
    double s = 0.0;
    for (std::size_t c = 0; c < r.pi.size(); ++c) {
      const double m = r.mean_step * static_cast<double>(c);
      s += r.pi[c] * std::exp(m * z - 0.5 * m * m);
    }
    return std::log(s);
  };
  CounterRng q_rng(2025, Stream::kSimulation, 78, 1);
  std::vector<double> q_loss(n);
  for (auto& s : q_loss) {
    s = 0.0;
    for (const auto& r : rel)
      for (int t = 0; t < r.repetitions; ++t) s += loss(r, q_rng.normal());
  }
  std::sort(q_loss.begin(), q_loss.end());
  const double spread = 5.0 * std::sqrt(static_cast<double>(n) * alpha * (1.0 - alpha));
  const double k = static_cast<double>(n) * (1.0 - alpha);
  const double thr_lo = q_loss[static_cast<std::size_t>(k - spread)];
  const double thr_hi = q_loss[static_cast<std::size_t>(k + spread)];

  CounterRng p_rng(2025, Stream::kSimulation, 78, 2);
  std::size_t above_lo = 0, above_hi = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double s = 0.0;
    for (const auto& r : rel) {
      for (int t = 0; t < r.repetitions; ++t) {
        double u = p_rng.uniform();
        std::size_t c = 0;
        while (c + 1 < r.pi.size() && u >= r.pi[c]) u -= r.pi[c++];
        s += loss(r, r.mean_step * static_cast<double>(c) + p_rng.normal());
      }
    }
    above_lo += s > thr_lo;
    above_hi += s > thr_hi;
  }
  const double nd = static_cast<double>(n);
  const double se = std::sqrt(0.25 / nd);
  const double ci_lo = static_cast<double>(above_hi) / nd - 5.0 * se;
  const double ci_hi = static_cast<double>(above_lo) / nd + 5.0 * se;
  const double bound = blow_up_upper_composed(rel, alpha);
  std::printf("[          ] Monte Carlo B(0.05) in [%.5f, %.5f], bound %.6f\n", ci_lo, ci_hi, bound);
  EXPECT_GE(bound, ci_lo);
  EXPECT_LE(bound, ci_hi + 1e-4);
  EXPECT_LT(ci_hi - ci_lo, 0.02);
  // The composition leaks more than any of its parts.
  for (const auto& r : rel) EXPECT_GT(bound, blow_up_upper_composed({&r, 1}, alpha));
  EXPECT_GE(blow_up_screen(rel, alpha), bound * (1.0 - 1e-5));
}

std::vector<MixtureRelease> scaled(const std::vector<MixtureRelease>& rel, double lambda) {
  std::vector<MixtureRelease> out = rel;
  for (auto& r : out) r.mean_step /= lambda;
  return out;
}

TEST(Composed, MonotoneInNoiseMultiplier) {
  const auto rel = many_releases(6, 10, 1.0, 11);
  double prev = 1.0;
  for (double lambda : {0.25, 0.5, 1.0, 2.0, 4.0, 8.0}) {
    const double b = blow_up_upper_composed(scaled(rel, lambda), 1e-4);
    EXPECT_LT(b, prev) << "lambda=" << lambda;
    prev = b;
  }
  // Adding a release (or repeating one more often) can only increase B.
  auto more = rel;
  more.push_back({{0.9, 0.1}, 0.2, 5});
  EXPECT_GT(blow_up_upper_composed(more, 1e-4), blow_up_upper_composed(rel, 1e-4));
  more = rel;
  more[0].repetitions = 20;
  EXPECT_GT(blow_up_upper_composed(more, 1e-4), blow_up_upper_composed(rel, 1e-4));
}

TEST(Composed, ScreenIsAnUpperBound) {
  CounterRng rng(77, Stream::kSimulation, 502);
  int close = 0;
  double worst = 1.0;
  for (int trial = 0; trial < 40; ++trial) {
    // 1 to 8 releases whose single-Gaussian (mean count) mu is 0.05 to 2 in total, shared at
    // random; 1 to 120 holders, 1 to 100 repetitions; alpha from 1e-2 to 1e-6.
    const int count = 1 + static_cast<int>(rng.below(8));
    const double mu = 0.05 + 1.95 * rng.uniform();
    std::vector<MixtureRelease> rel;
    std::vector<double> share(static_cast<std::size_t>(count));
    double share_sum = 0.0;
    for (double& x : share) share_sum += (x = 0.1 + rng.uniform());
    for (int l = 0; l < count; ++l) {
      MixtureRelease r;
      r.pi = random_pmf(rng, 1 + static_cast<int>(rng.below(120)), 0.001, 0.005 + 0.3 * rng.uniform());
      r.repetitions = 1 + static_cast<int>(rng.below(100));
      const double m = std::max(mean_count(r.pi), 1e-3);
      r.mean_step = mu * std::sqrt(share[static_cast<std::size_t>(l)] / share_sum / r.repetitions) / m;
      rel.push_back(std::move(r));
    }
    const double alpha = std::pow(10.0, -2.0 - 4.0 * rng.uniform());
    const double exact = blow_up_upper_composed(rel, alpha);
    const double screen = blow_up_screen(rel, alpha);
    // Both bound the exact B; the exact bound exceeds it by at most its slack.
    EXPECT_GE(screen, exact * (1.0 - 2e-5)) << "trial " << trial;
    EXPECT_LE(screen, 1.0);
    if (screen <= 3.0 * exact) ++close;
    worst = std::max(worst, screen / exact);
  }
  std::printf("[          ] screen within 3x of the exact bound in %d of 40 cases, worst ratio %.2f\n", close, worst);
  EXPECT_GE(close, 15);  // and the screen is not vacuous
}

TEST(Composed, CalibrationIsTight) {
  const double p = 1e-4, r = 1e-3;
  for (int T : {1, 10}) {
    const auto rel = many_releases(5, T, 1.0, 12 + static_cast<std::uint64_t>(T));
    const double lambda = calibrate_scale_composed(rel, p, r);
    ASSERT_GT(lambda, 0.0);
    EXPECT_LE(blow_up_upper_composed(scaled(rel, lambda), p), r);
    EXPECT_GT(blow_up_upper_composed(scaled(rel, lambda * (1.0 - 1e-4)), p), r);
    // The single-Gaussian (mean count) guess under-protects: the mixtures' tails need more noise.
    EXPECT_GT(lambda, 1.0 / mu_from_pr(p, r));
    std::printf("[          ] 5 releases, T = %d: lambda = %.6f (mean-count guess %.6f)\n", T, lambda,
                1.0 / mu_from_pr(p, r));
  }
  // A single release calibrates like calibrate_sigma_exact: sigma = lambda * sigma_base.
  const auto pi = poisson_binomial_pmf(std::vector<double>(5, 0.1));
  const MixtureRelease one{pi, kCountsAndCentresScale, 10};
  const double sigma = calibrate_sigma_exact(pi, kCountsAndCentresScale, 10, p, r);
  EXPECT_NEAR(calibrate_scale_composed({&one, 1}, p, r), sigma, 1e-5 * sigma);
}

TEST(Composed, CalibrationShortcut) {
  // Revealed counts: B = 1 - P0 (1 - p) with P0 = prod pi0^reps.
  const std::vector<MixtureRelease> rare = {{{0.99999, 0.00001}, 1.0, 10}, {{0.99998, 0.00002}, 1.0, 5}};
  EXPECT_EQ(calibrate_scale_composed(rare, 1e-4, 1e-3), 0.0);  // 1 - P0 = 2e-4
  // The single-release calibration takes the repetitions into account too: one iteration alone
  // could reveal the count (1 - pi0 (1 - p) = 5e-4), three cannot (1.3e-3).
  const double sigma = calibrate_sigma_exact({0.9996, 0.0004}, 1.0, 3, 1e-4, 1e-3);
  EXPECT_GT(sigma, 0.0);
  EXPECT_LE(achieved_r_exact({0.9996, 0.0004}, 1.0, sigma, 3, 1e-4), 1e-3);
  EXPECT_EQ(calibrate_sigma_exact({0.9996, 0.0004}, 1.0, 1, 1e-4, 1e-3), 0.0);
}

TEST(Composed, FiftyReleasesAreFast) {
  for (int T : {5, 100}) {
    const auto rel = many_releases(50, T, 0.8, 13);
    BlowUpBound b;
    const int reps = 3;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) b = blow_up_bound_composed(rel, 1e-4);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps;
    const auto s0 = std::chrono::steady_clock::now();
    const double screen = blow_up_screen(rel, 1e-4);
    const double screen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
    std::printf("[          ] 50 releases, T = %d: B(1e-4) <= %.6e in %.4f s (atoms %lld, fft %lld); "
                "screen %.6e in %.6f s\n",
                T, b.value, seconds, static_cast<long long>(b.atoms), static_cast<long long>(b.fft_size),
                screen, screen_s);
    RecordProperty("seconds_T" + std::to_string(T), std::to_string(seconds));
    EXPECT_LT(seconds, T == 5 ? 1.0 : 3.0);  // generous for loaded CI machines
    EXPECT_GE(screen, b.value * (1.0 - 2e-5));
    EXPECT_LE(screen, 2.0 * b.value);  // many repetitions: the screen is close
  }
}

TEST(Composed, RejectsBadInput) {
  const MixtureRelease ok{{0.5, 0.5}, 1.0, 3};
  auto with = [&](auto change) {
    std::vector<MixtureRelease> rel = {ok, ok};
    change(rel[1]);
    return rel;
  };
  const std::vector<std::vector<MixtureRelease>> bad = {
      with([](MixtureRelease& r) { r.pi = {}; }),
      with([](MixtureRelease& r) { r.pi = {0.5, 0.4}; }),
      with([](MixtureRelease& r) { r.pi = {1.5, -0.5}; }),
      with([](MixtureRelease& r) { r.pi = {0.5, kNaN}; }),
      with([](MixtureRelease& r) { r.mean_step = 0.0; }),
      with([](MixtureRelease& r) { r.mean_step = -1.0; }),
      with([](MixtureRelease& r) { r.mean_step = kNaN; }),
      with([](MixtureRelease& r) { r.mean_step = kInf; }),
      with([](MixtureRelease& r) { r.repetitions = 0; }),
      with([](MixtureRelease& r) { r.repetitions = 100001; }),
  };
  for (const auto& rel : bad) {
    EXPECT_THROW(blow_up_upper_composed(rel, 1e-4), InputError);
    EXPECT_THROW(blow_up_screen(rel, 1e-4), InputError);
    EXPECT_THROW(calibrate_scale_composed(rel, 1e-4, 1e-3), InputError);
    ReleaseMemo memo;  // a shared release is checked until it passes: met again, it is rejected again
    for (int again = 0; again < 2; ++again) {
      EXPECT_THROW(composed_grid(shared(rel), 1e-4, {}, memo), InputError);
      EXPECT_THROW(blow_up_bound_shared(shared(rel), 1e-4, {}, memo), InputError);
    }
  }
  const std::vector<MixtureRelease> good = {ok};
  for (double alpha : {0.0, 1.0, kNaN}) {
    EXPECT_THROW(blow_up_upper_composed(good, alpha), InputError);
    EXPECT_THROW(blow_up_screen(good, alpha), InputError);
    ReleaseMemo memo;
    EXPECT_THROW(composed_grid(shared(good), alpha, {}, memo), InputError);
    EXPECT_THROW(blow_up_bound_shared(shared(good), alpha, {}, memo), InputError);
  }
  EXPECT_THROW(calibrate_scale_composed(good, 1e-4, 1e-4), InputError);
  EXPECT_THROW(calibrate_scale_composed(good, 1e-4, 1.0), InputError);
  EXPECT_THROW(calibrate_scale_composed(good, 0.0, 1e-3), InputError);
  // Too many repetitions in total for the FFT.
  AccountantOptions small;
  small.max_fft_size = 1024;
  const std::vector<MixtureRelease> many(3, MixtureRelease{{0.5, 0.5}, 1.0, 100});
  EXPECT_THROW(blow_up_upper_composed(many, 1e-4, small), InputError);
  EXPECT_NO_THROW(blow_up_upper_composed(many, 1e-4));
}

}  // namespace
}  // namespace secpe
