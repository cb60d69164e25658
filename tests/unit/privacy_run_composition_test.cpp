// Composition across runs (privacy/run_composition.hpp): K runs compose as the accountant composes
// releases within one run, so K Gaussian runs give the closed form at mu sqrt(K), a run alone gives
// its own bound bit for bit, and the plan for K equal runs composes back to the total.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "privacy/blow_up.hpp"
#include "privacy/conversions.hpp"
#include "privacy/poisson_binomial.hpp"
#include "privacy/run_composition.hpp"
#include "privacy/secret_noise.hpp"

namespace secpe {
namespace {

TEST(RunComposition, GaussianRunsComposeToTheClosedFormAtMuTimesSqrtK) {
  const double p = 1e-4, mu = 0.63;
  for (const int k : {1, 2, 3, 10}) {
    const std::vector<RunSpend> runs(static_cast<std::size_t>(k), gaussian_spend(std::vector<double>{mu}));
    const double bound = composed_bounds(runs, std::vector<double>{p}, 1)[0];
    const double exact = r_from_mu(p, mu * std::sqrt(double(k)));
    EXPECT_GE(bound, exact * (1 - 1e-9)) << k;     // an upper bound
    EXPECT_LE(bound, exact * (1 + 1e-4)) << k;     // and a tight one
  }
}

TEST(RunComposition, ThreeRunsAtTenTimesThePriorGiveAboutFortyThree) {
  // The example in the Gaussian view: three runs at r/p 10 reach r/p of about 43.
  const double p = 1e-4;
  const std::vector<RunSpend> runs(3, gaussian_spend(std::vector<double>{mu_from_pr(p, 10 * p)}));
  EXPECT_NEAR(composed_bounds(runs, std::vector<double>{p}, 2)[0] / p, 43.0, 1.0);
}

TEST(RunComposition, ARunAloneGetsItsOwnBoundBitForBit) {
  const double p = 1e-3;
  const std::vector<MixtureRelease> list{{poisson_binomial_pmf({0.3, 0.1, 0.05}), 0.8, 5}, {poisson_binomial_pmf({0.2}), 0.5, 5}};
  const RunSpend spend{.releases = list, .lists = {{0, 1}}, .profile_of = {0, -1, 0}};
  const std::vector<double> bounds = composed_bounds(std::vector<RunSpend>{spend}, std::vector<double>{p, p, 2 * p}, 2);
  EXPECT_EQ(bounds[0], blow_up_upper_composed(list, p));
  EXPECT_EQ(bounds[1], p);  // nothing released about it: the prior
  EXPECT_EQ(bounds[2], blow_up_upper_composed(list, 2 * p));
}

TEST(RunComposition, ACalibratedRunsSpendComposesAloneToItsOwnAchievedR) {
  // Three labels, secrets held by one to three records across them (some profiles shared).
  constexpr int kSecrets = 9, kLabels = 3;
  std::vector<SecretMatrix> rows(kLabels);
  for (auto& r : rows) {
    r.num_secrets = kSecrets;
    r.indptr = {0};
  }
  for (int j = 0; j < kSecrets; ++j) {
    for (int h = 0; h <= j % 3; ++h) {
      auto& r = rows[static_cast<std::size_t>((j + h) % kLabels)];
      r.indices.push_back(j);
      r.indptr.push_back(static_cast<std::int64_t>(r.indices.size()));
    }
  }
  const SecretBudgets budgets = uniform_budgets(kSecrets, 1e-4, 1e-3);
  const SecretNoiseModel model(rows, budgets, 5, 2.0, CalibrationMode::kExact, 1);
  const double lambda = 1.3;
  const RunSpend spend = model.spend(lambda);
  const std::vector<double> alone = composed_bounds(std::vector<RunSpend>{spend}, budgets.p, 2);
  const std::vector<double> twice = composed_bounds(std::vector<RunSpend>{spend, spend}, budgets.p, 2);
  for (std::size_t j = 0; j < kSecrets; ++j) {
    EXPECT_EQ(alone[j], model.achieved_r(j, lambda)) << j;  // the very lists the accountant bounded
    EXPECT_GT(twice[j], alone[j]) << j;
  }
  // The coarse grid first, full precision near the worst: every bound still above the full-precision
  // one and within the coarse grid's slack of it.
  const ComposedBounds fast = compose_runs(std::vector<RunSpend>{spend, spend}, budgets.p,
                                           {.threads = 2, .exact_share = kExactShareOfWorst, .exact_above = {}, .part = 0, .parts = 1, .gather = {}});
  for (std::size_t j = 0; j < kSecrets; ++j) {
    EXPECT_GE(fast.r[j], twice[j] * (1 - 1e-12)) << j;
    EXPECT_LE(fast.r[j], twice[j] * (1 + kCoarseGrid.slack_target)) << j;
    if (!fast.coarse[j]) EXPECT_EQ(fast.r[j], twice[j]) << j;
  }
}

TEST(RunComposition, ReportsTheProgressOfEachPass) {
  // 200 distinct lists over 2 runs: the coarse pass, then the full-precision one near the worst.
  SpendBuilder builder;
  for (int l = 0; l < 200; ++l) builder.add_list(std::vector<MixtureRelease>{{poisson_binomial_pmf({0.02 + 0.001 * l}), 0.5, 5}});
  for (int j = 0; j < 200; ++j) builder.spend().profile_of.push_back(j);
  const std::vector<RunSpend> runs(2, builder.spend());
  std::vector<std::tuple<std::string, std::size_t, std::size_t>> calls;
  const ComposedBounds bounds = compose_runs(runs, std::vector<double>(200, 1e-4),
                                             {.threads = 2,
                                              .exact_share = kExactShareOfWorst,
                                              .exact_above = {},
                                              .part = 0,
                                              .parts = 1,
                                              .gather = {},
                                              .progress = [&](const char* pass, std::size_t done, std::size_t size) {
                                                calls.emplace_back(pass, done, size);
                                              }});
  const auto refined = static_cast<std::size_t>(std::count(bounds.coarse.begin(), bounds.coarse.end(), false));
  ASSERT_GT(refined, 0u);
  ASSERT_GE(calls.size(), 3u);
  EXPECT_EQ(calls.back(), std::make_tuple(std::string("full precision"), refined, refined));
  std::size_t coarse_calls = 0, last = 0;
  for (const auto& [pass, done, size] : calls) {
    if (pass != "coarse grid") break;
    EXPECT_EQ(size, 200u);
    EXPECT_GE(done, last);  // never back
    last = done;
    ++coarse_calls;
  }
  EXPECT_GE(coarse_calls, 10u);  // along the way, not only at the end
  EXPECT_EQ(last, 200u);         // and the pass's last call says it is done
}

TEST(RunComposition, ListsKeepEachDistinctReleaseOnce) {
  SpendBuilder builder;
  const MixtureRelease a{{0.25, 0.75}, 0.1 + 0.2, 5}, b{{0.25, 0.75}, 0.3, 5}, c{{0.25, 0.75}, 0.3, 4};
  EXPECT_EQ(builder.add_list(std::vector<MixtureRelease>{a, b}), 0);
  EXPECT_EQ(builder.add_list(std::vector<MixtureRelease>{b, c, a}), 1);
  EXPECT_EQ(builder.add_list(std::vector<MixtureRelease>{}), 2);
  const RunSpend& spend = builder.spend();
  ASSERT_EQ(spend.releases.size(), 3u);  // a and b differ in a bit of the step, b and c in repetitions
  EXPECT_EQ(spend.lists, (std::vector<std::vector<std::int32_t>>{{0, 1}, {1, 2, 0}, {}}));
  EXPECT_EQ(spend.releases[0].mean_step, 0.1 + 0.2);
  EXPECT_EQ(spend.releases[2].repetitions, 4);
}

TEST(RunComposition, EachCoarseBoundIsItsCombinationsOwnOnAnyNumberOfThreads) {
  // Three runs at other noise (a label's releases form a group on the grid ladder), lists of other
  // sizes and budgets (other grids and tail masses): the coarse pass bounds them in order of grid,
  // threads share memos, and each bound must still be the bits of its combination bounded alone.
  SpendBuilder builder;
  for (int l = 0; l < 40; ++l) {
    std::vector<MixtureRelease> list{{poisson_binomial_pmf({0.02 + 0.004 * l, 0.05}), 0.3 + 0.02 * l, 5}};
    if (l % 3 == 0) list.push_back({poisson_binomial_pmf({0.1}), 0.4, 5});
    builder.add_list(list);
    builder.spend().profile_of.push_back(l);
  }
  std::vector<RunSpend> runs(3, builder.spend());
  for (std::size_t k = 1; k < runs.size(); ++k)
    for (MixtureRelease& r : runs[k].releases) r.mean_step /= 1.0 + 0.1 * static_cast<double>(k);
  std::vector<double> p;
  for (int j = 0; j < 40; ++j) p.push_back(1e-4 * std::exp2(j % 11));
  const auto composed = [&](int threads) {
    return compose_runs(runs, p, {.threads = threads, .exact_share = kExactShareOfWorst, .exact_above = {}, .part = 0, .parts = 1, .gather = {}, .progress = {}});
  };
  const ComposedBounds one = composed(1), two = composed(2);
  EXPECT_EQ(one.r, two.r);
  EXPECT_EQ(one.coarse, two.coarse);
  std::set<double> grids;
  for (std::size_t j = 0; j < p.size(); ++j) {
    std::vector<MixtureRelease> releases;
    std::vector<SharedRelease> by_id;
    for (const RunSpend& run : runs) {
      for (const std::int32_t i : run.lists[j]) {
        releases.push_back(run.releases[static_cast<std::size_t>(i)]);
        by_id.push_back({.id = by_id.size(), .release = &run.releases[static_cast<std::size_t>(i)], .repetitions = releases.back().repetitions});
      }
    }
    ReleaseMemo memo;
    grids.insert(composed_grid(by_id, p[j], kCoarseGrid, memo));
    if (one.coarse[j]) EXPECT_EQ(one.r[j], blow_up_upper_composed(releases, p[j], kCoarseGrid)) << j;
  }
  EXPECT_GE(grids.size(), 3u);  // the order by grid is not the order of the lists
}

TEST(RunComposition, SecondRunAddsAndTheControlAddsNothing) {
  const double p = 1e-4;
  const RunSpend mixture{.releases = {{poisson_binomial_pmf({0.4, 0.4}), 0.7, 5}}, .lists = {{0}}, .profile_of = {0}};
  const RunSpend control{};
  const std::vector<double> alone = composed_bounds(std::vector<RunSpend>{mixture}, std::vector<double>{p}, 1);
  const std::vector<double> with_control = composed_bounds(std::vector<RunSpend>{control, mixture}, std::vector<double>{p}, 1);
  const std::vector<double> twice = composed_bounds(std::vector<RunSpend>{mixture, mixture}, std::vector<double>{p}, 1);
  EXPECT_EQ(with_control[0], alone[0]);
  EXPECT_GT(twice[0], alone[0] * 1.5);
}

TEST(RunComposition, ThePlanForKEqualRunsComposesBackToTheTotal) {
  const double p = 1e-4, total = 30 * p;
  for (const int k : {1, 3, 8}) {
    const double each = equal_run_r(p, total, k);
    EXPECT_LT(each, total);
    EXPECT_NEAR(r_from_mu(p, std::sqrt(double(k)) * mu_from_pr(p, each)), total, 1e-9 * total) << k;
  }
  EXPECT_THROW(equal_run_r(p, p / 2, 3), InputError);
  EXPECT_THROW(equal_run_r(p, total, 0), InputError);
}

TEST(RunComposition, ARunOfAnotherDatasetIsRefused) {
  const RunSpend spend = gaussian_spend(std::vector<double>{0.5, 0.5});
  EXPECT_THROW(composed_bounds(std::vector<RunSpend>{spend}, std::vector<double>{1e-4}, 1), InputError);
}

}  // namespace
}  // namespace secpe
