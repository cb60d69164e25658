#include <gtest/gtest.h>

#include <random>

#include "evolve/release_estimate.hpp"

namespace secpe {
namespace {

struct Fixture {
  MatrixF public_centres = MatrixF::Zero(40, 64);
  std::vector<std::int64_t> public_sizes = std::vector<std::int64_t>(40, 5);
  NoisyClusters release{MatrixF::Zero(40, 64), std::vector<double>(40, 0.0)};
  double sigma;
  ReleaseShrinkage shrinkage;
  // A release with noise sigma (R = 1) whose private part shifts each centre by `shift` along one axis.
  Fixture(double noise, double shift, std::uint32_t seed) : sigma(noise) {
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> normal;
    for (Eigen::Index c = 0; c < 40; ++c) {
      public_centres(c, c % 64) = 1.0f;
      const double noise_scale = 2.0 / 5.0 * sigma;
      for (Eigen::Index j = 0; j < 64; ++j) {
        release.centres(c, j) = public_centres(c, j) + static_cast<float>((j == (c + 1) % 64 ? shift : 0.0) + noise_scale * normal(gen));
      }
      release.sizes[c] = 5.0 + double(c % 4) + sigma * normal(gen);
    }
  }
  NoisyClusters estimate() { return shrink_release(LocalCommunicator(), release, public_centres, public_sizes, sigma, 1.0, &shrinkage); }
};

TEST(ShrinkRelease, WithoutNoiseTheReleaseIsKept) {
  Fixture f(0.0, 0.5, 1);
  const NoisyClusters est = f.estimate();
  const ReleaseShrinkage& s = f.shrinkage;
  EXPECT_EQ(est.centres, f.release.centres);
  EXPECT_EQ(est.sizes, f.release.sizes);
  EXPECT_EQ(s.size_weight, 1.0);
}

TEST(ShrinkRelease, ANoiseOnlyReleaseFallsBackToItsPublicParts) {
  // sigma = 15 with about five public records per cluster: the dev set's case.
  Fixture f(15.0, 0.0, 2);
  const NoisyClusters est = f.estimate();
  const ReleaseShrinkage& s = f.shrinkage;
  EXPECT_EQ(s.centre_signal, 0.0);
  EXPECT_EQ(s.size_weight, 0.0);
  EXPECT_TRUE(est.centres.isApprox(f.public_centres));
  for (std::size_t c = 1; c < est.sizes.size(); ++c) EXPECT_EQ(est.sizes[c], est.sizes[0]);  // every residual shrunk to the mean
}

TEST(ShrinkRelease, AStrongSignalIsMostlyKept) {
  Fixture f(0.05, 0.8, 3);
  const NoisyClusters est = f.estimate();
  const ReleaseShrinkage& s = f.shrinkage;
  EXPECT_GT(s.size_weight, 0.9);
  EXPECT_GT(s.centre_signal, 0.0);
  const double kept = (est.centres - f.public_centres).norm() / (f.release.centres - f.public_centres).norm();
  EXPECT_GT(kept, 0.9);
}

}  // namespace
}  // namespace secpe
