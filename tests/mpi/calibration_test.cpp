// The calibration stage gives the same plan, bit for bit, for any number of ranks and accountant
// threads: the secrets are split over ranks x threads workers and combined by exact reductions.
#include <gtest/gtest.h>

#include "bench/synth_embeddings.hpp"
#include "dist/mpi_communicator.hpp"
#include "evolve/noise_calibration.hpp"

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
                          CalibrationMode mode, int threads) {
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
                                       .threads = threads});
}

TEST(Calibration, SamePlanForAnyRanksAndThreads) {
  const MpiCommunicator world;
  const LocalCommunicator self;
  const DatasetContents data = synth_embeddings({.records = 20000, .dim = 1, .labels = "4", .secrets = 24, .seed = 3, .threads = 1});
  const SecretBudgets budgets = uniform_budgets(24, 1e-3, 1e-2);
  for (const auto mode : {CalibrationMode::kExact, CalibrationMode::kPaper}) {
    const SecretNoisePlan single = calibrate(self, data, budgets, mode, 1);
    for (const int threads : {1, 3}) {
      const SecretNoisePlan plan = calibrate(world, data, budgets, mode, threads);
      EXPECT_EQ(plan.lambda, single.lambda) << threads << " threads";
      EXPECT_EQ(plan.achieved_r, single.achieved_r) << threads << " threads";
      ASSERT_EQ(plan.labels.size(), single.labels.size());
      for (std::size_t l = 0; l < plan.labels.size(); ++l) EXPECT_EQ(plan.labels[l].sigma, single.labels[l].sigma);
    }
  }
}

}  // namespace
}  // namespace secpe
