// Lloyd's iterations that redo only what changed (cluster/lloyd_assignment.hpp, and the sums of
// the rows that changed centre) change nothing: every assignment is the kernel's search, and
// k-means gives what it gives searching and summing every row every time, bit for bit.
#include <gtest/gtest.h>

#include "cluster/kmeans.hpp"
#include "cluster/lloyd_assignment.hpp"
#include "comms/communicator.hpp"
#include "compute/cpu/blas_kernel.hpp"
#include "compute/cpu/reference_kernel.hpp"
#include "core/rng.hpp"

namespace secpe {
namespace {

// n unit rows around `clusters` directions with `spread` noise: overlapping clusters when the
// noise is large, so rows keep changing centre for several iterations.
MatrixF overlapping_points(Eigen::Index n, int d, int clusters, double spread) {
  MatrixF x(n, d);
  for (Eigen::Index i = 0; i < n; ++i) {
    CounterRng rng(5, Stream::kCorpus, static_cast<std::uint64_t>(i));
    const int c = static_cast<int>(i % clusters);
    for (int j = 0; j < d; ++j) x(i, j) = static_cast<float>((j % clusters == c ? 1.0 : 0.0) + spread * rng.normal());
    x.row(i).normalize();
  }
  return x;
}

void expect_same(const KMeansResult& incremental, const KMeansResult& plain) {
  EXPECT_EQ(incremental.iterations, plain.iterations);
  EXPECT_EQ(incremental.empty_repairs, plain.empty_repairs);
  EXPECT_EQ(incremental.sizes, plain.sizes);
  EXPECT_EQ(incremental.assignment, plain.assignment);
  ASSERT_EQ(incremental.centres.rows(), plain.centres.rows());
  EXPECT_TRUE((incremental.centres.array() == plain.centres.array()).all()) << "centres differ";
}

TEST(LloydAssignment, IncrementalIsPlainKMeans) {
  const LocalCommunicator self;
  const MatrixF x = overlapping_points(3000, 48, 24, 0.35);
  const BlasKernel blas(BlasKernelOptions{.threads = 2});
  const ReferenceKernel reference;
  for (const NearestCentreKernel* kernel : {static_cast<const NearestCentreKernel*>(&blas), static_cast<const NearestCentreKernel*>(&reference)}) {
    for (KMeansInit init : {KMeansInit::kRandom, KMeansInit::kPlusPlus}) {
      KMeansOptions options{.k = 40, .max_iterations = 30, .tolerance = 0.0, .metric = Metric::kCosine, .seed = 3, .init = init, .threads = 2};
      const KMeansResult incremental = distributed_kmeans(self, x, *kernel, options);
      options.incremental = false;
      const KMeansResult plain = distributed_kmeans(self, x, *kernel, options);
      SCOPED_TRACE(kernel->name() + " " + kmeans_init_name(init));
      expect_same(incremental, plain);
      EXPECT_EQ(plain.pairs_scored, plain.pairs_assigned);
      EXPECT_LT(incremental.pairs_scored, plain.pairs_scored);  // the late iterations searched less
    }
  }
}

// Duplicate rows make random seeding pick equal centres: clusters fall empty and are repaired (the
// repaired centre moved: its new members found by the search against moved centres), and equal
// scores tie to the lower centre index across moved and unmoved centres.
TEST(LloydAssignment, EmptyClustersAsPlainKMeans) {
  const LocalCommunicator self;
  const MatrixF distinct = overlapping_points(12, 16, 4, 0.3);
  MatrixF x(240, 16);
  for (Eigen::Index i = 0; i < x.rows(); ++i) x.row(i) = distinct.row((i * 5) % 12);
  const ReferenceKernel kernel;
  KMeansOptions options{.k = 20, .max_iterations = 10, .tolerance = 0.0, .metric = Metric::kCosine, .seed = 1, .init = KMeansInit::kRandom};
  const KMeansResult incremental = distributed_kmeans(self, x, kernel, options);
  options.incremental = false;
  const KMeansResult plain = distributed_kmeans(self, x, kernel, options);
  EXPECT_GT(plain.empty_repairs, 0);
  expect_same(incremental, plain);
}

// A few centres moved at a time (as in late iterations), equal centres (ties), then every centre:
// each assignment equals the kernel's own search, score for score, and the few moves were searched
// for less than a full search.
TEST(LloydAssignment, EveryAssignmentIsTheSearch) {
  const MatrixF x = overlapping_points(2000, 32, 16, 0.4);
  MatrixF centres = overlapping_points(50, 32, 16, 0.6);
  const BlasKernel kernel(BlasKernelOptions{.threads = 1});
  const KeptRows kept(x);
  LloydAssignment assignment(kept, kernel, Metric::kCosine);
  std::vector<std::int32_t> nearest(2000), want(2000);
  std::vector<double> score(2000), want_score(2000);
  for (int step = 0; step < 12; ++step) {
    CounterRng rng(9, Stream::kCorpus, static_cast<std::uint64_t>(step));
    for (Eigen::Index c = 0; c < centres.rows(); ++c) {
      if (step != 8 && rng.below(10) != 0) continue;  // about one centre in ten moves, all at step 8
      const double move = step == 8 ? 0.5 : 0.2;
      for (Eigen::Index j = 0; j < centres.cols(); ++j) centres(c, j) += static_cast<float>(move * rng.normal());
      centres.row(c).normalize();
    }
    if (step == 5) centres.row(40) = centres.row(3);  // a moved centre equal to an unmoved lower one
    if (step == 6) centres.row(2) = centres.row(45);  // and to an unmoved higher one: it takes its rows
    assignment.assign(centres, nearest, score);
    kernel.search(x, centres, Metric::kCosine, want, want_score);
    ASSERT_EQ(nearest, want) << "step " << step;
    ASSERT_EQ(score, want_score) << "step " << step;
  }
  EXPECT_LT(assignment.pairs_scored(), 12 * 2000 * 50 / 2);
}

}  // namespace
}  // namespace secpe
