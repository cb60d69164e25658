// k-NN balls and coverage (the halves of precision and recall) against hand-made answers and
// brute force, with both kernels.
#include <gtest/gtest.h>

#include "compute/impl/exact_score.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "eval/knn_coverage.hpp"

namespace secpe {
namespace {

MatrixF points_on_a_line(const std::vector<float>& xs) {
  MatrixF m = MatrixF::Zero(static_cast<Eigen::Index>(xs.size()), 2);
  for (std::size_t i = 0; i < xs.size(); ++i) m(static_cast<Eigen::Index>(i), 0) = xs[i];
  return m;
}

class KnnKernels : public testing::TestWithParam<std::string> {};

TEST_P(KnnKernels, BallsAndCoverageOnALine) {
  const auto kernel = make_kernel(GetParam());
  const MatrixF real = points_on_a_line({0, 1, 2, 10});
  // k = 1: squared distance to the nearest other point; k = 2: to the second nearest.
  EXPECT_EQ(knn_ball_radii(real, 0, 4, 1, *kernel), (std::vector<double>{1, 1, 1, 64}));
  EXPECT_EQ(knn_ball_radii(real, 0, 4, 2, *kernel), (std::vector<double>{4, 1, 4, 81}));
  EXPECT_EQ(knn_ball_radii(real, 1, 3, 1, *kernel), (std::vector<double>{1, 1}));  // a shard of the rows
  const std::vector<double> radii = {1, 1, 1, 64};
  // 0.5: in the ball of 0; 5: in the wide ball of 10 (25 <= 64); 20: in none (100 > 64);
  // 3: on the boundary of the ball of 2 (1 <= 1: inside).
  const MatrixF queries = points_on_a_line({0.5, 5, 20, 3});
  EXPECT_EQ(count_in_balls(queries, 0, 4, real, radii, *kernel), 3);
  EXPECT_EQ(count_in_balls(queries, 2, 3, real, radii, *kernel), 0);
  EXPECT_EQ(count_in_balls(queries, 1, 2, real, radii, *kernel), 1);
}

TEST_P(KnnKernels, DuplicatesAreNeighboursAtDistanceZero) {
  const auto kernel = make_kernel(GetParam());
  const MatrixF p = points_on_a_line({3, 3, 3, 7});
  EXPECT_EQ(knn_ball_radii(p, 0, 4, 2, *kernel), (std::vector<double>{0, 0, 0, 16}));
  // A set against itself: every point is in its own ball, even a ball of radius 0.
  EXPECT_EQ(count_in_balls(p, 0, 4, p, knn_ball_radii(p, 0, 4, 2, *kernel), *kernel), 4);
  EXPECT_THROW(knn_ball_radii(p, 0, 4, 4, *kernel), InputError);  // k must be below the point count
}

TEST_P(KnnKernels, CoverageMatchesBruteForce) {
  const auto kernel = make_kernel(GetParam());
  constexpr Eigen::Index d = 16;
  auto random_points = [&](std::uint64_t seed, Eigen::Index n) {
    MatrixF m(n, d);
    for (Eigen::Index i = 0; i < n; ++i) {
      CounterRng rng(seed, Stream::kSimulation, static_cast<std::uint64_t>(i));
      // Coarse values, so that exact ties and boundary cases occur.
      for (Eigen::Index j = 0; j < d; ++j) m(i, j) = static_cast<float>(std::round(rng.normal() * 2.0) / 4.0);
    }
    return m;
  };
  const MatrixF a = random_points(1, 300), b = random_points(2, 257);
  for (int k : {1, 3, 7}) {
    const std::vector<double> radii = knn_ball_radii(a, 0, a.rows(), k, *kernel);
    std::int64_t brute = 0;
    for (Eigen::Index i = 0; i < b.rows(); ++i) {
      for (Eigen::Index j = 0; j < a.rows(); ++j) {
        if (exact::squared_l2(b.row(i).data(), a.row(j).data(), d) <= radii[static_cast<std::size_t>(j)]) {
          ++brute;
          break;
        }
      }
    }
    EXPECT_EQ(count_in_balls(b, 0, b.rows(), a, radii, *kernel), brute) << k;
    // Shards add up to the whole.
    EXPECT_EQ(count_in_balls(b, 0, 100, a, radii, *kernel) + count_in_balls(b, 100, b.rows(), a, radii, *kernel), brute);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, KnnKernels, testing::Values("reference", "blas"));

}  // namespace
}  // namespace secpe
