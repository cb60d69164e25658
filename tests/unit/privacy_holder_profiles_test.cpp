// Holder profiles (privacy/holder_profiles.hpp): deduplication gives every secret exactly the
// numbers of its own computation, and dominance is sound: a dominated profile's exact bound never
// exceeds its dominator's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/rng.hpp"
#include "privacy/blow_up.hpp"
#include "privacy/calibration.hpp"
#include "privacy/conversions.hpp"
#include "privacy/holder_profiles.hpp"
#include "privacy/poisson_binomial.hpp"
#include "privacy/sampling_lp.hpp"
#include "privacy/secret_noise.hpp"

namespace secpe {
namespace {

ProfileRelease release_of(double step, std::vector<double> rho) {
  ProfileRelease r{step, poisson_binomial_pmf(rho), {}};
  for (const double x : rho)
    if (x > 0) r.rho.push_back(x);
  std::sort(r.rho.begin(), r.rho.end(), std::greater<>());
  return r;
}

std::vector<MixtureRelease> mixtures(const HolderProfile& h, int T) {
  std::vector<MixtureRelease> out;
  for (const ProfileRelease& r : h.releases) out.push_back({r.pmf, r.step, T});
  return out;
}

// A random profile of 1..max_releases releases with 1..4 holders each.
HolderProfile random_profile(CounterRng& rng, int max_releases) {
  HolderProfile h;
  const int k = 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(max_releases)));
  for (int l = 0; l < k; ++l) {
    std::vector<double> rho(1 + rng.below(4));
    for (double& x : rho) x = 0.02 + 0.6 * rng.uniform();
    h.releases.push_back(release_of(0.2 + 1.5 * rng.uniform(), rho));
  }
  h.p = 1e-4;
  h.r = 1e-3;
  return h;
}

// A profile that `big` dominates: some of its releases (in another order), each with a smaller
// step, fewer holders and smaller probabilities, and a smaller prior.
HolderProfile shrunk(CounterRng& rng, const HolderProfile& big) {
  HolderProfile h;
  std::vector<std::size_t> keep(big.releases.size());
  std::iota(keep.begin(), keep.end(), std::size_t{0});
  for (std::size_t i = keep.size(); i > 1; --i) std::swap(keep[i - 1], keep[rng.below(i)]);
  keep.resize(1 + rng.below(keep.size()));
  for (const std::size_t l : keep) {
    const ProfileRelease& b = big.releases[l];
    std::vector<double> rho(b.rho.begin(), b.rho.begin() + static_cast<std::ptrdiff_t>(1 + rng.below(b.rho.size())));
    for (double& x : rho) x *= rng.below(3) == 0 ? 1.0 : rng.uniform();
    h.releases.push_back(release_of(b.step * (rng.below(3) == 0 ? 1.0 : rng.uniform()), rho));
  }
  h.p = big.p * (rng.below(2) == 0 ? 1.0 : 0.5);
  h.r = big.r;
  return h;
}

TEST(HolderProfiles, DeduplicatesExactlyEqualProfiles) {
  const HolderProfile a{{release_of(0.5, {0.2, 0.1}), release_of(0.7, {0.3})}, 1e-4, 1e-3};
  HolderProfile b = a;
  b.releases[1].step = std::nextafter(0.7, 1.0);  // one ulp apart: another profile
  HolderProfile c = a;
  c.r = 2e-3;                                      // another budget: another profile
  const HolderProfiles profiles({a, b, a, c, b, a});
  ASSERT_EQ(profiles.size(), 3u);
  EXPECT_EQ(profiles.profile_of(0), profiles.profile_of(2));
  EXPECT_EQ(profiles.profile_of(0), profiles.profile_of(5));
  EXPECT_EQ(profiles.profile_of(1), profiles.profile_of(4));
  EXPECT_NE(profiles.profile_of(0), profiles.profile_of(1));
  EXPECT_NE(profiles.profile_of(0), profiles.profile_of(3));
  EXPECT_EQ(profiles.representative(profiles.profile_of(4)), 1u);
}

// The model's per-secret figures are, bit for bit, those of each secret computed alone: the
// reference below is the calibration without profiles (every label's PMF of every secret, the
// releases in label order, point masses at 0 included).
TEST(HolderProfiles, ModelGivesEachSecretItsOwnNumbersBitForBit) {
  constexpr int kSecrets = 24, kLabels = 3, T = 5;
  CounterRng rng(11, Stream::kSimulation, 1);
  std::vector<SecretMatrix> rows(kLabels);
  for (auto& r : rows) {
    r.num_secrets = kSecrets;
    r.indptr = {0};
  }
  // Many secrets with one holder in one label (shared profiles), a few with several.
  for (int j = 0; j < kSecrets; ++j) {
    const int holders = j < 16 ? 1 : 2 + static_cast<int>(rng.below(4));
    for (int h = 0; h < holders; ++h) {
      auto& r = rows[(j + h) % kLabels];
      r.indices.push_back(j);
      if (rng.below(4) == 0) r.indices.push_back((j + 7) % kSecrets);
      std::sort(r.indices.begin() + r.indptr.back(), r.indices.end());
      r.indptr.push_back(static_cast<std::int64_t>(r.indices.size()));
    }
  }
  const SecretBudgets budgets = uniform_budgets(kSecrets, 1e-4, 1e-3);
  const SecretNoiseModel model(rows, budgets, T, 4.0, CalibrationMode::kExact, 2);
  EXPECT_LT(model.profiles().size(), static_cast<std::size_t>(kSecrets));

  // Reference: per label the LP, rho, sigma_paper and every secret's PMF.
  std::vector<double> holding(kSecrets, 0.0);
  for (const auto& r : rows) {
    std::vector<char> here(kSecrets, 0);
    for (auto j : r.indices) here[static_cast<std::size_t>(j)] = 1;
    for (int j = 0; j < kSecrets; ++j) holding[j] += here[j];
  }
  const double eta = mu_from_pr(1e-4, 1e-3);
  std::vector<double> sigma_paper(kLabels, 0.0);
  std::vector<std::vector<std::vector<double>>> pmf(kLabels, std::vector<std::vector<double>>(kSecrets));
  for (int l = 0; l < kLabels; ++l) {
    std::vector<double> eta_label(kSecrets);
    for (int j = 0; j < kSecrets; ++j) eta_label[j] = eta / std::sqrt(std::max(1.0, holding[j]));
    const auto lp = solve_sampling_lp(rows[l], eta_label);
    const double wmax = *std::max_element(lp.weights.begin(), lp.weights.end());
    const double wsum = std::max(std::accumulate(lp.weights.begin(), lp.weights.end(), 0.0), wmax);
    const BatchScaling scaling = scale_to_batch(wsum, wmax, 4.0);
    std::vector<std::vector<double>> rho_of(kSecrets);
    std::vector<double> expected(kSecrets, 0.0);
    for (std::size_t i = 0; i < rows[l].rows(); ++i) {
      const double rho = std::min(1.0, scaling.scale * lp.weights[i]);
      for (auto j : rows[l].secrets_of(i)) {
        rho_of[static_cast<std::size_t>(j)].push_back(rho);
        expected[static_cast<std::size_t>(j)] += rho;
      }
    }
    for (int j = 0; j < kSecrets; ++j) {
      if (rho_of[j].empty()) continue;
      sigma_paper[l] = std::max(sigma_paper[l], paper_sigma(expected[j], eta_label[j], T));
      pmf[l][j] = poisson_binomial_pmf(rho_of[j]);
    }
  }
  for (int j = 0; j < kSecrets; ++j) {
    auto releases = [&](double lambda) {
      std::vector<MixtureRelease> out;
      for (int l = 0; l < kLabels; ++l)
        if (!pmf[l][j].empty() && sigma_paper[l] > 0) out.push_back({pmf[l][j], kCountsAndCentresScale / sigma_paper[l] / lambda, T});
      return out;
    };
    const double root = calibrate_scale_composed(releases(1.0), 1e-4, 1e-3);
    EXPECT_EQ(model.lambda_of(static_cast<std::size_t>(j)), root) << "secret " << j;
    for (const double lambda : {0.7, root > 0 ? root : 1.0})
      EXPECT_EQ(model.achieved_r(static_cast<std::size_t>(j), lambda), blow_up_upper_composed(releases(lambda), 1e-4))
          << "secret " << j << " lambda " << lambda;
  }
}

TEST(HolderProfiles, DominanceFindsTheMapAndRejectsWhatIsNotDominated) {
  const HolderProfile big{{release_of(1.0, {0.5, 0.2}), release_of(0.5, {0.9})}, 1e-4, 1e-3};
  // Releases swapped and smaller: dominated (the map crosses the order).
  const HolderProfile small{{release_of(0.5, {0.8}), release_of(0.9, {0.4})}, 1e-4, 1e-3};
  EXPECT_TRUE(dominated_by(small, big));
  EXPECT_FALSE(dominated_by(big, small));
  // A greedy map would send {1.0, 0.3} to the first release and fail on the second: Kuhn finds it.
  const HolderProfile crossing{{release_of(0.4, {0.1}), release_of(1.0, {0.3})}, 1e-4, 1e-3};
  EXPECT_TRUE(dominated_by(crossing, big));
  // One larger probability, a larger step, more holders, a larger prior: not dominated.
  EXPECT_FALSE(dominated_by(HolderProfile{{release_of(0.5, {0.95})}, 1e-4, 1e-3}, big));
  EXPECT_FALSE(dominated_by(HolderProfile{{release_of(1.1, {0.1})}, 1e-4, 1e-3}, big));
  EXPECT_FALSE(dominated_by(HolderProfile{{release_of(0.5, {0.1, 0.1, 0.1})}, 1e-4, 1e-3}, big));
  EXPECT_FALSE(dominated_by(HolderProfile{{release_of(0.5, {0.1})}, 2e-4, 1e-3}, big));
  // Two releases cannot share one.
  EXPECT_FALSE(dominated_by(HolderProfile{{release_of(0.5, {0.8}), release_of(0.5, {0.8}), release_of(0.5, {0.8})}, 1e-4, 1e-3}, big));
}

// The claim behind dominance, at T = 1 and one release, against the closed form (no
// discretisation): a dominated mixture's B(p_small) never exceeds the dominator's B(p_big).
TEST(HolderProfiles, DominatedOneShotMixturesHaveSmallerBlowUpExactly) {
  CounterRng rng(5, Stream::kSimulation, 2);
  for (int trial = 0; trial < 400; ++trial) {
    const HolderProfile big = random_profile(rng, 1);
    const HolderProfile small = shrunk(rng, big);
    ASSERT_TRUE(dominated_by(small, big)) << trial;
    const double sigma = 0.3 + 3.0 * rng.uniform();
    const double b_small = blow_up_mixture_one_shot(small.releases[0].pmf, small.releases[0].step, sigma, small.p);
    const double b_big = blow_up_mixture_one_shot(big.releases[0].pmf, big.releases[0].step, sigma, big.p);
    EXPECT_LE(b_small, b_big * (1 + 1e-12)) << trial;
  }
}

// The same for compositions of several releases over T iterations, against the accountant (each
// bound is the true B plus at most its discretisation slack, about 1e-5 relative).
TEST(HolderProfiles, DominatedProfilesHaveSmallerAccountantBounds) {
  CounterRng rng(6, Stream::kSimulation, 3);
  for (int trial = 0; trial < 120; ++trial) {
    const HolderProfile big = random_profile(rng, 4);
    const HolderProfile small = shrunk(rng, big);
    ASSERT_TRUE(dominated_by(small, big)) << trial;
    const int T = 1 + static_cast<int>(rng.below(8));
    const double scale = 0.5 + 2.0 * rng.uniform();  // lambda
    auto at = [&](const HolderProfile& h) {
      auto rel = mixtures(h, T);
      for (auto& r : rel) r.mean_step /= scale;
      return blow_up_upper_composed(rel, h.p);
    };
    EXPECT_LE(at(small), at(big) * (1 + 1e-4)) << trial;
  }
}

TEST(HolderProfiles, IndexReturnsTheTightestFreshDominatorThatCertifies) {
  const HolderProfile small{{release_of(0.5, {0.3})}, 1e-4, 1e-3};
  const HolderProfile loose{{release_of(0.5, {0.9}), release_of(1.0, {0.5})}, 1e-4, 1e-3};
  const HolderProfile tight{{release_of(0.5, {0.4})}, 1e-4, 1e-3};
  const HolderProfile other{{release_of(0.6, {0.9})}, 1e-4, 1e-3};  // another step: not a candidate
  const HolderProfiles profiles({small, loose, tight, other});
  DominanceIndex index(profiles);
  EXPECT_EQ(index.best_dominator(0, 1.0), -1);
  const auto e_loose = index.add(1, 8e-4, 1.0);
  index.add(3, 1e-4, 1.0);
  EXPECT_EQ(index.best_dominator(0, 1.0), static_cast<std::int64_t>(e_loose));
  const auto e_stale = index.add(2, 2e-4, 0.5);  // tighter, but at a smaller noise multiplier
  EXPECT_EQ(index.best_dominator(0, 0.9), static_cast<std::int64_t>(e_loose));
  EXPECT_EQ(index.best_dominator(0, 0.5), static_cast<std::int64_t>(e_stale));
  const auto e_over = index.add(2, 1.5e-3, 1.0);  // over small's r: certifies nothing
  EXPECT_NE(index.best_dominator(0, 1.0), static_cast<std::int64_t>(e_over));
  EXPECT_EQ(index.entry_profile(e_loose), 1u);
  EXPECT_EQ(index.entry_bound(e_stale), 2e-4);
}

}  // namespace
}  // namespace secpe
