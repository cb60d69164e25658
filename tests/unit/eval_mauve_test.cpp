// MAUVE's divergence frontier against hand-computed cases, and the quantised score's extremes.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/rng.hpp"
#include "eval/mauve.hpp"

namespace secpe {
namespace {

// One mixture weight w = 1/2 and the closing points (0, 1), (1, 0): for a frontier point (x, y)
// the trapezoids give (x + y) / 2, in either axis order.
TEST(MauveTest, FrontierAreaMatchesHandComputedCases) {
  const std::vector<double> half = {0.5};
  // Disjoint: R = (1/2, 1/2), KL(Q || R) = KL(P || R) = log 2, so x = y = 2^-5 and MAUVE 1/32.
  EXPECT_NEAR(mauve_of_histograms(std::vector<double>{1, 0}, std::vector<double>{0, 1}, half), 1.0 / 32, 1e-15);
  // P = (1/2, 1/2), Q = (1, 0): R = (3/4, 1/4); KL(Q || R) = log(4/3), KL(P || R) = log(4/3) / 2,
  // so x = (3/4)^5, y = (3/4)^2.5.
  EXPECT_NEAR(mauve_of_histograms(std::vector<double>{0.5, 0.5}, std::vector<double>{1, 0}, half),
              (std::pow(0.75, 5) + std::pow(0.75, 2.5)) / 2, 1e-15);
  // Equal histograms: every frontier point is (1, 1), the area 1.
  EXPECT_NEAR(mauve_of_histograms(std::vector<double>{0.2, 0.3, 0.5}, std::vector<double>{0.2, 0.3, 0.5}, mauve_weights()), 1.0, 1e-12);
}

TEST(MauveTest, ReferenceWeightsSpanTheOpenInterval) {
  const std::vector<double> w = mauve_weights();
  ASSERT_EQ(w.size(), 25u);
  EXPECT_DOUBLE_EQ(w.front(), 1e-6);
  EXPECT_DOUBLE_EQ(w.back(), 1 - 1e-6);
}

// Two samples of one distribution score near 1; samples of two distant clouds near 0.
TEST(MauveTest, ScoresSameAndDistantSamples) {
  CounterRng rng(3, Stream::kSimulation);
  auto cloud = [&](Eigen::Index n, float offset) {
    MatrixF m(n, 8);
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index d = 0; d < 8; ++d) m(i, d) = static_cast<float>(rng.normal()) + (d == 0 ? offset : 0.0f);
    return m;
  };
  const MatrixF a = cloud(500, 0), b = cloud(500, 0), far = cloud(500, 20);
  const MauveScore same = mauve(a, b, {.clusters = 10, .max_iterations = 50, .seed = 1, .kernel = "reference", .threads = 1});
  const MauveScore apart = mauve(a, far, {.clusters = 10, .max_iterations = 50, .seed = 1, .kernel = "reference", .threads = 1});
  EXPECT_EQ(same.clusters, 10);
  EXPECT_GT(same.mauve, 0.9);
  EXPECT_LT(apart.mauve, 0.05);
  EXPECT_EQ(mauve(a, b, {}).clusters, 50);  // one cluster per ten records of the smaller side
}

}  // namespace
}  // namespace secpe
