// FID against closed forms, and the fixed-point moment sums behind the fits.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>

#include "core/rng.hpp"
#include "eval/gaussian_fit.hpp"

namespace secpe {
namespace {

Eigen::Matrix2d rotation(double angle) {
  Eigen::Matrix2d r;
  r << std::cos(angle), -std::sin(angle), std::sin(angle), std::cos(angle);
  return r;
}

GaussianFit gaussian(Eigen::VectorXd mean, Eigen::MatrixXd covariance) { return {std::move(mean), std::move(covariance)}; }

// A random symmetric positive definite matrix (public test stream).
Eigen::MatrixXd random_spd(int d, std::uint64_t seed) {
  CounterRng rng(seed, Stream::kSimulation);
  Eigen::MatrixXd a(d, d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) a(i, j) = rng.normal();
  return a * a.transpose() + 0.1 * Eigen::MatrixXd::Identity(d, d);
}

TEST(Fid, IdenticalFitsGiveZero) {
  const GaussianFit g = gaussian(Eigen::VectorXd::LinSpaced(6, -1, 1), random_spd(6, 1));
  EXPECT_NEAR(frechet_distance(g, g), 0.0, 1e-10);
  EXPECT_GE(frechet_distance(g, g), 0.0);  // round-off never makes it negative
}

TEST(Fid, OneDimensionalClosedForm) {
  // N(0, 1) and N(1, 4): (0 - 1)^2 + 1 + 4 - 2 sqrt(1 * 4) = 2.
  const GaussianFit a = gaussian(Eigen::VectorXd::Constant(1, 0.0), Eigen::MatrixXd::Constant(1, 1, 1.0));
  const GaussianFit b = gaussian(Eigen::VectorXd::Constant(1, 1.0), Eigen::MatrixXd::Constant(1, 1, 4.0));
  EXPECT_NEAR(frechet_distance(a, b), 2.0, 1e-12);
}

TEST(Fid, CovariancesSharingEigenvectors) {
  // S1 = R diag(1, 4) R^T, S2 = R diag(9, 16) R^T: tr sqrt(S1 S2) = 3 + 8, so
  // FID = |m1 - m2|^2 + (1 + 4) + (9 + 16) - 2 * 11 = 25 + 8 with |m1 - m2| = 5.
  const Eigen::Matrix2d r = rotation(0.7);
  const GaussianFit a = gaussian(Eigen::Vector2d(0, 0), r * Eigen::Vector2d(1, 4).asDiagonal() * r.transpose());
  const GaussianFit b = gaussian(Eigen::Vector2d(3, 4), r * Eigen::Vector2d(9, 16).asDiagonal() * r.transpose());
  EXPECT_NEAR(frechet_distance(a, b), 33.0, 1e-10);
}

TEST(Fid, NonCommutingCovariancesMatchTheEigenvaluesOfTheProduct) {
  // tr((S1 S2)^(1/2)) is the sum of the square roots of the (real, positive) eigenvalues of S1 S2:
  // an independent route through a general (non-symmetric) eigensolver.
  for (int d : {2, 5, 12}) {
    const Eigen::MatrixXd s1 = random_spd(d, 10 + d), s2 = random_spd(d, 20 + d);
    const Eigen::VectorXd m1 = Eigen::VectorXd::Constant(d, 0.5), m2 = Eigen::VectorXd::LinSpaced(d, 0, 1);
    const Eigen::EigenSolver<Eigen::MatrixXd> product(s1 * s2);
    double trace_root = 0.0;
    for (int i = 0; i < d; ++i) trace_root += std::sqrt(product.eigenvalues()(i).real());
    const double expected = (m1 - m2).squaredNorm() + s1.trace() + s2.trace() - 2.0 * trace_root;
    const double fid = frechet_distance(gaussian(m1, s1), gaussian(m2, s2));
    EXPECT_NEAR(fid, expected, 1e-9 * (1.0 + expected)) << d;
    EXPECT_NEAR(frechet_distance(gaussian(m2, s2), gaussian(m1, s1)), fid, 1e-9 * (1.0 + fid)) << d;
  }
}

TEST(Fid, SingularCovarianceIsFine) {
  // All mass on one axis: S1 = diag(4, 0), S2 = diag(1, 1): 4 + 2 - 2 (2 + 0) = 2.
  const GaussianFit a = gaussian(Eigen::Vector2d(0, 0), Eigen::Vector2d(4, 0).asDiagonal().toDenseMatrix());
  const GaussianFit b = gaussian(Eigen::Vector2d(0, 0), Eigen::Matrix2d::Identity());
  EXPECT_NEAR(frechet_distance(a, b), 2.0, 1e-12);
}

TEST(MomentSums, FitIsTheSampleMeanAndUnbiasedCovariance) {
  MatrixF x(4, 2);
  x << 1, 0, 0, 1, -1, 0, 0, -0.5;
  MomentSums sums(2);
  sums.add(x);
  const GaussianFit g = sums.fit();
  EXPECT_EQ(sums.count(), 4);
  EXPECT_NEAR(g.mean(0), 0.0, 1e-9);
  EXPECT_NEAR(g.mean(1), 0.125, 1e-9);
  // var(x) = (1 + 0 + 1 + 0) / 3; var(y) = (1 + 0.25 - 4 * 0.125^2) / 3; cov = sum(x y) / 3 - 0 = 0.
  EXPECT_NEAR(g.covariance(0, 0), 2.0 / 3.0, 1e-9);
  EXPECT_NEAR(g.covariance(1, 1), (1.25 - 4 * 0.015625) / 3.0, 1e-9);
  EXPECT_NEAR(g.covariance(0, 1), 0.0, 1e-9);
  EXPECT_EQ(g.covariance(0, 1), g.covariance(1, 0));
}

TEST(MomentSums, ChunksAddUpInAnyOrder) {
  MatrixF x(30, 3);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    CounterRng rng(5, Stream::kSimulation, static_cast<std::uint64_t>(i));
    for (Eigen::Index j = 0; j < 3; ++j) x(i, j) = static_cast<float>(rng.uniform() - 0.5);
  }
  MomentSums forward(3), backward(3);
  for (Eigen::Index c = 0; c < 3; ++c) forward.add(x.middleRows(10 * c, 10));
  for (Eigen::Index c = 3; c-- > 0;) backward.add(x.middleRows(10 * c, 10));
  const GaussianFit f = forward.fit(), b = backward.fit();
  EXPECT_EQ(f.mean, b.mean);
  EXPECT_EQ(f.covariance, b.covariance);
}

}  // namespace
}  // namespace secpe
