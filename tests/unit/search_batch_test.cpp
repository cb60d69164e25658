// Batches of searches (NearestCentreKernel::search_batch, kept rows) and the votes of several
// labels at once (secpe_votes_batch, augpe_votes_batch) on the CPU kernels: each task's results
// and errors are those of its search alone, each label's votes those of its own call. The CUDA
// kernel's batches are checked against these in tests/unit/cuda_kernel_test.cpp.
#include <gtest/gtest.h>

#include "compute/cpu/blas_kernel.hpp"
#include "compute/cpu/reference_kernel.hpp"
#include "core/error.hpp"
#include "evolve/votes.hpp"
#include "kernel_test_util.hpp"

namespace secpe {
namespace {

using test::kMetrics;
using test::random_matrix;

struct Result {
  std::vector<std::int32_t> nearest, centre_nearest;
  std::vector<double> score, centre_score;
};

TEST(SearchBatch, EveryTaskAsItsOwnSearch) {
  const BlasKernel blas(BlasKernelOptions{.threads = 2});
  const MatrixF x1 = random_matrix(50, 9, 1), x2 = random_matrix(30, 9, 2), empty(0, 9);
  const MatrixF c1 = random_matrix(12, 9, 3), c2 = random_matrix(40, 9, 4);
  for (const NearestCentreKernel* kernel : {static_cast<const NearestCentreKernel*>(&blas), static_cast<const NearestCentreKernel*>(nullptr)}) {
    const ReferenceKernel reference;
    const NearestCentreKernel& k = kernel ? *kernel : reference;
    for (const Metric m : kMetrics) {
      const auto kept = k.keep(x1);
      const KeptRows view2(x2), view_empty(empty);
      Result a{std::vector<std::int32_t>(50), {}, std::vector<double>(50), {}};
      Result b{std::vector<std::int32_t>(90), {}, std::vector<double>(90), {}};
      Result c{std::vector<std::int32_t>(30), std::vector<std::int32_t>(40), std::vector<double>(30), std::vector<double>(40)};
      const std::vector<SearchTask> tasks{
          {.x = kept.get(), .centres = &c1, .k = 1, .nearest = a.nearest, .score = a.score},
          {.x = &view2, .centres = &c2, .k = 3, .nearest = b.nearest, .score = b.score},
          {.x = &view2, .centres = &c2, .k = 1, .nearest = c.nearest, .score = c.score, .centre_nearest = c.centre_nearest, .centre_score = c.centre_score},
          {.x = &view_empty, .centres = &c1, .k = 1, .nearest = {}, .score = {}}};
      k.search_batch(tasks, m);
      Result want_a = a, want_b = b, want_c = c;
      reference.search(x1, c1, m, want_a.nearest, want_a.score);
      reference.search_k(x2, c2, m, 3, want_b.nearest, want_b.score);
      reference.search_mutual(x2, c2, m, want_c.nearest, want_c.score, want_c.centre_nearest, want_c.centre_score);
      for (const auto& [got, want] : {std::pair{&a, &want_a}, std::pair{&b, &want_b}, std::pair{&c, &want_c}}) {
        EXPECT_EQ(got->nearest, want->nearest) << metric_name(m);
        EXPECT_EQ(got->score, want->score);
        EXPECT_EQ(got->centre_nearest, want->centre_nearest);
        EXPECT_EQ(got->centre_score, want->centre_score);
      }
    }
  }
}

TEST(SearchBatch, TheFirstFailingTasksErrorIsThrown) {
  const BlasKernel blas(BlasKernelOptions{.threads = 1});
  MatrixF x = random_matrix(5, 4, 5), bad = random_matrix(5, 4, 6);
  bad(2, 1) = std::numeric_limits<float>::quiet_NaN();
  const MatrixF c = random_matrix(3, 4, 7), wide = random_matrix(3, 5, 8);
  const KeptRows vx(x), vbad(bad);
  std::vector<std::int32_t> n(5);
  std::vector<double> s(5);
  const std::vector<SearchTask> tasks{{.x = &vbad, .centres = &c, .k = 1, .nearest = n, .score = s},
                                      {.x = &vx, .centres = &wide, .k = 1, .nearest = n, .score = s}};
  try {
    blas.search_batch(tasks, Metric::kL2);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "row 2 has a NaN or infinite value");
  }
}

TEST(SearchBatch, VotesOfSeveralLabelsAsTheirOwnCalls) {
  const LocalCommunicator self;
  const BlasKernel kernel(BlasKernelOptions{.threads = 2});
  NoiseKey key;
  key.bytes.fill(9);
  std::vector<NoisyClusters> noisy;
  std::vector<MatrixF> candidates, voters;
  for (int l = 0; l < 3; ++l) {
    noisy.push_back({random_matrix(7 + l, 6, 10 + l), std::vector<double>(static_cast<std::size_t>(7 + l), 2.5 + l)});
    candidates.push_back(random_matrix(20 + 5 * l, 6, 20 + l));
    voters.push_back(random_matrix(100 + 10 * l, 6, 30 + l));
  }
  candidates.push_back(MatrixF(0, 6));  // a label without candidates
  noisy.push_back({random_matrix(3, 6, 40), {1.0, 2.0, 3.0}});
  voters.push_back(random_matrix(4, 6, 41));
  for (const int per_centre : {1, 3}) {
    std::vector<SecpeVoteJob> jobs;
    for (std::size_t l = 0; l < noisy.size(); ++l) jobs.push_back({&self, &noisy[l], &candidates[l]});
    const std::vector<VoteResult> batch = secpe_votes_batch(jobs, kernel, Metric::kCosine, per_centre);
    for (std::size_t l = 0; l < noisy.size(); ++l) {
      const VoteResult one = secpe_votes(self, noisy[l], candidates[l], kernel, Metric::kCosine, per_centre);
      EXPECT_EQ(batch[l].votes, one.votes) << "label " << l;
      EXPECT_EQ(batch[l].tie_key, one.tie_key);
    }
  }
  std::vector<std::unique_ptr<KeptRows>> kept;
  std::vector<AugpeVoteJob> jobs;
  for (std::size_t l = 0; l < voters.size(); ++l) {
    kept.push_back(kernel.keep(voters[l]));
    jobs.push_back({&self, kept.back().get(), &candidates[l], l});
  }
  const std::vector<VoteResult> batch = augpe_votes_batch(jobs, kernel, Metric::kCosine, 2.0, 0.5, key, 4);
  for (std::size_t l = 0; l < voters.size(); ++l) {
    const VoteResult one = augpe_votes(self, voters[l], candidates[l], kernel, Metric::kCosine, 2.0, 0.5, key, l, 4);
    EXPECT_EQ(batch[l].votes, one.votes) << "label " << l;
  }
}

}  // namespace
}  // namespace secpe
