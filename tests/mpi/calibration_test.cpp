// The calibration stage gives the same plan, bit for bit, for any number of ranks and accountant
// threads: the secrets' profiles are split over ranks x threads workers and combined by exact
// reductions, in both regimes of evolve/secret_certification.hpp.
#include <gtest/gtest.h>

#include <algorithm>

#include "bench/synth_embeddings.hpp"
#include "comms/mpi_communicator.hpp"
#include "evolve/noise_calibration.hpp"
#include "privacy/gaussian.hpp"

namespace secpe {
namespace {

SecretMatrix rows_of(const SecretMatrix& all, std::uint64_t begin, std::uint64_t end) {
  SecretMatrix out;
  out.num_secrets = all.num_secrets;
  out.indptr.assign(all.indptr.begin() + static_cast<std::ptrdiff_t>(begin), all.indptr.begin() + static_cast<std::ptrdiff_t>(end + 1));
  const std::int64_t first = out.indptr.front();
  for (auto& p : out.indptr) p -= first;
  out.indices.assign(all.indices.begin() + first, all.indices.begin() + first + out.indptr.back());
  return out;
}

SecretNoisePlan calibrate(const Communicator& comm, const DatasetContents& data, const SecretBudgets& budgets,
                          CalibrationMode mode, int threads, PublicProfile profile = {}, const CertificationOptions& certification = {}) {
  const auto [b, e] = comm.shard(data.label_ids.size());
  const SecretMatrix secrets = rows_of(data.secrets, b, e);
  const std::vector<std::int32_t> labels(data.label_ids.begin() + static_cast<std::ptrdiff_t>(b),
                                         data.label_ids.begin() + static_cast<std::ptrdiff_t>(e));
  return calibrate_secret_noise(comm, {.local_secrets = secrets,
                                       .local_labels = labels,
                                       .num_labels = data.labels.size(),
                                       .budgets = budgets,
                                       .iterations = 5,
                                       .batch = 200.0,
                                       .mode = mode,
                                       .profile = profile,
                                       .threads = threads,
                                       .certification = certification});
}

// (p, r) = (1e-3, 1e-2) for even secrets; odd ones get p = 1e-6 and the r of the same Gaussian
// eta. The exposure order (a single-Gaussian estimate) ranks them alike, but the exact accountant
// needs more noise for the smaller p, so the exact calibration's probes fail some secrets and
// lambda rises over several rounds.
SecretBudgets misleading_budgets(std::size_t secrets) {
  SecretBudgets budgets = uniform_budgets(secrets, 1e-3, 1e-2);
  const double eta = normal_quantile(1 - 1e-3) - normal_quantile(1 - 1e-2);
  for (std::size_t j = 1; j < secrets; j += 2) {
    budgets.p[j] = 1e-6;
    budgets.r[j] = normal_sf(normal_quantile(1 - 1e-6) - eta);
  }
  return budgets;
}

TEST(Calibration, SamePlanForAnyRanksAndThreads) {
  const MpiCommunicator world;
  const LocalCommunicator self;
  const DatasetContents data = synth_embeddings({.records = 20000, .dim = 1, .labels = "4", .secrets = 24, .seed = 3, .threads = 1});
  const SecretBudgets budgets = misleading_budgets(24);
  for (const auto mode : {CalibrationMode::kExact, CalibrationMode::kPaper}) {
    const SecretNoisePlan single = calibrate(self, data, budgets, mode, 1);
    for (const int threads : {1, 3}) {
      const SecretNoisePlan plan = calibrate(world, data, budgets, mode, threads);
      EXPECT_EQ(plan.lambda, single.lambda) << threads << " threads";
      EXPECT_EQ(plan.achieved_r, single.achieved_r) << threads << " threads";
      ASSERT_EQ(plan.labels.size(), single.labels.size());
      for (std::size_t l = 0; l < plan.labels.size(); ++l) {
        EXPECT_EQ(plan.labels[l].sigma, single.labels[l].sigma);
        EXPECT_EQ(plan.labels[l].lp_path, single.labels[l].lp_path);
        EXPECT_EQ(plan.labels[l].batch_used, single.labels[l].batch_used);
      }
      // Each label's LP is solved on one rank and its weights exchanged: this rank's records get
      // the sampling probabilities they get on one rank alone.
      const auto [b, e] = world.shard(data.label_ids.size());
      EXPECT_EQ(plan.rho, std::vector<double>(single.rho.begin() + static_cast<std::ptrdiff_t>(b), single.rho.begin() + static_cast<std::ptrdiff_t>(e)));
    }
  }
}

// The public profile: one sigma for every label from the caps alone, the same at any rank count;
// every private record sampled with min(q, B / its label's private records), and no more than q.
TEST(Calibration, PublicProfileGivesEveryLabelOneSigmaFromTheCaps) {
  const MpiCommunicator world;
  const LocalCommunicator self;
  const DatasetContents data = synth_embeddings({.records = 20000, .dim = 1, .labels = "4", .secrets = 24, .seed = 3, .threads = 1});
  const SecretBudgets budgets = misleading_budgets(24);
  const PublicProfile profile{.max_holders = 400, .sampling_rate = 0.02};
  const SecretNoisePlan single = calibrate(self, data, budgets, CalibrationMode::kPublicProfile, 1, profile);
  const SecretNoisePlan plan = calibrate(world, data, budgets, CalibrationMode::kPublicProfile, 2, profile);
  const PublicProfileNoise expected = calibrate_public_profile(budgets, 5, profile);
  EXPECT_EQ(plan.achieved_r, expected.achieved_r);
  ASSERT_EQ(plan.labels.size(), single.labels.size());
  for (std::size_t l = 0; l < plan.labels.size(); ++l) {
    EXPECT_EQ(plan.labels[l].sigma, expected.sigma);
    EXPECT_EQ(plan.labels[l].batch_used, single.labels[l].batch_used);
    EXPECT_LE(plan.labels[l].batch_used, 200.0 * (1 + 1e-12));
  }
  for (const double rho : plan.rho) EXPECT_LE(rho, 0.02);
  EXPECT_GT(*std::max_element(plan.rho.begin(), plan.rho.end()), 0.0);
}

// Exact mode searches the roots of few secrets, yet its lambda is the largest root of all (to the
// root search's tolerance), and each secret's reported bound is a certificate: within r, and no
// lower than the accountant's bound at that lambda (a bound at a smaller lambda, where the secret
// passed, is larger, up to the accountant's 1e-5 discretisation slack) and not much higher: a
// bound from well below the final lambda is evaluated again.
// The secret sets of each label, in record order, as the calibration stage gathers them.
std::vector<SecretMatrix> label_rows_of(const DatasetContents& data) {
  std::vector<SecretMatrix> label_rows(data.labels.size());
  for (auto& rows : label_rows) {
    rows.num_secrets = data.secrets.num_secrets;
    rows.indptr = {0};
  }
  for (std::size_t i = 0; i < data.label_ids.size(); ++i) {
    if (!data.secrets.is_private(i)) continue;
    auto& rows = label_rows[static_cast<std::size_t>(data.label_ids[i])];
    const auto s = data.secrets.secrets_of(i);
    rows.indices.insert(rows.indices.end(), s.begin(), s.end());
    rows.indptr.push_back(static_cast<std::int64_t>(rows.indices.size()));
  }
  return label_rows;
}

// Beyond CertificationOptions::exact_profiles the bulk of the secrets is certified by dominance or
// on the accountant's coarse grid (forced here with exact_profiles = 0, on secrets planted as the
// demo corpus plants them). The plan is still the same for any ranks and threads, dominators
// included; every reported bound certifies its secret and bounds the secret's own full-precision
// bound (up to that one's discretisation slack); and lambda is the exact regime's, to the root
// searches' tolerance.
TEST(Calibration, BulkPlanIsTheSameForAnyRanksAndThreadsAndCertifies) {
  const MpiCommunicator world;
  const LocalCommunicator self;
  // Small labels (their batch lowered, the likeliest holder sampled every iteration) and records
  // holding 1-3 secrets: many profiles are dominated.
  const DatasetContents data = synth_embeddings(
      {.records = 6000, .dim = 1, .labels = "20", .secrets = 300, .private_fraction = 0.25, .holders = "demo", .seed = 4, .threads = 1});
  const SecretBudgets budgets = uniform_budgets(300, 1e-4, 1e-3);
  const CertificationOptions bulk{.exact_profiles = 0};
  const SecretNoisePlan single = calibrate(self, data, budgets, CalibrationMode::kExact, 1, {}, bulk);
  ASSERT_EQ(single.bound_source.size(), 300u);
  const auto count = [&](BoundSource s) { return std::count(single.bound_source.begin(), single.bound_source.end(), s); };
  EXPECT_GT(count(BoundSource::kDominated), 0);
  EXPECT_GT(count(BoundSource::kCoarseAccountant), 0);
  for (const int threads : {1, 3}) {
    const SecretNoisePlan plan = calibrate(world, data, budgets, CalibrationMode::kExact, threads, {}, bulk);
    EXPECT_EQ(plan.lambda, single.lambda) << threads << " threads";
    EXPECT_EQ(plan.achieved_r, single.achieved_r) << threads << " threads";
    EXPECT_EQ(plan.bound_source, single.bound_source) << threads << " threads";
    EXPECT_EQ(plan.dominated_by, single.dominated_by) << threads << " threads";
  }
  const SecretNoiseModel model(label_rows_of(data), budgets, 5, 200.0, CalibrationMode::kExact);
  for (std::size_t j = 0; j < model.num_secrets(); ++j) {
    EXPECT_LE(single.achieved_r[j], budgets.r[j]) << "secret " << j;
    if (j % 4 == 0 || single.bound_source[j] == BoundSource::kDominated)  // the full-precision bounds take time
      EXPECT_LE(model.achieved_r(j, single.lambda), single.achieved_r[j] * (1 + 1e-4)) << "secret " << j;
    if (single.bound_source[j] == BoundSource::kDominated) {
      const auto by = static_cast<std::size_t>(single.dominated_by[j]);
      EXPECT_EQ(single.achieved_r[j], single.achieved_r[by]) << "secret " << j;
    }
  }
  if (world.rank() == 0) {
    const SecretNoisePlan exact = calibrate(self, data, budgets, CalibrationMode::kExact, 2);
    EXPECT_TRUE(exact.bound_source.empty());
    EXPECT_NEAR(single.lambda, exact.lambda, 1e-5 * exact.lambda);
  }
}

TEST(Calibration, ExactLambdaIsTheLargestRootAndEveryBoundCertifies) {
  const LocalCommunicator self;
  const DatasetContents data = synth_embeddings({.records = 20000, .dim = 1, .labels = "4", .secrets = 24, .seed = 3, .threads = 1});
  const SecretBudgets budgets = misleading_budgets(24);
  const SecretNoisePlan plan = calibrate(self, data, budgets, CalibrationMode::kExact, 2);
  const SecretNoiseModel model(label_rows_of(data), budgets, 5, 200.0, CalibrationMode::kExact);
  double largest_root = 0.0;
  for (std::size_t j = 0; j < model.num_secrets(); ++j) {
    largest_root = std::max(largest_root, model.lambda_of(j));
    EXPECT_LE(plan.achieved_r[j], budgets.r[j]) << "secret " << j;
    const double at_lambda = model.achieved_r(j, plan.lambda);
    EXPECT_GE(plan.achieved_r[j], at_lambda * (1 - 1e-4)) << "secret " << j;
    EXPECT_LE(plan.achieved_r[j], at_lambda * (1 + 1e-2)) << "secret " << j;
  }
  // A secret whose root lies within the search's 1e-6 above lambda may pass at lambda unsearched.
  EXPECT_LE(plan.lambda, largest_root);
  EXPECT_GE(plan.lambda, largest_root * (1 - 1e-6));
}

}  // namespace
}  // namespace secpe
