// The BLAS kernel against the reference kernel: same index, bit-identical score, same errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "compute/cpu/blas_kernel.hpp"
#include "compute/cpu/reference_kernel.hpp"
#include "compute/nearest.hpp"
#include "compute/verify.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "blas_test_util.hpp"

namespace secpe {
namespace {

using test::blas_kernels;
using test::expect_agree;
using test::kMetrics;
using test::random_matrix;

TEST(ComputeKernel, MakeKernelKnowsBlas) {
  EXPECT_EQ(make_kernel("blas")->name(), "blas");
  EXPECT_EQ(make_kernel("reference")->name(), "reference");
  EXPECT_THROW(make_kernel("magic"), InputError);
  EXPECT_GE(BlasKernel().threads(), 1);
}

TEST(ComputeKernel, RandomShapesAgreeBitForBit) {
  struct Shape {
    Eigen::Index m, n, d;
  };
  for (const Shape& s : {Shape{1, 1, 1}, Shape{50, 13, 1}, Shape{37, 1, 5}, Shape{101, 77, 3}, Shape{70, 45, 768},
                         Shape{3, 200, 17}, Shape{129, 64, 32}}) {
    SCOPED_TRACE(testing::Message() << s.m << "x" << s.n << "x" << s.d);
    expect_agree(random_matrix(s.m, s.d, 10 + s.m), random_matrix(s.n, s.d, 20 + s.n));
  }
}

TEST(ComputeKernel, DataWithAnOffsetAgrees) {
  // Large norms relative to the distances: the error bound admits many candidates.
  expect_agree(random_matrix(40, 16, 1, 100.0f, 101.0f), random_matrix(60, 16, 2, 100.0f, 101.0f));
  // Tiny and huge magnitudes.
  expect_agree(random_matrix(20, 8, 3, -1e-30f, 1e-30f), random_matrix(30, 8, 4, -1e-30f, 1e-30f));
  expect_agree(random_matrix(20, 8, 5, -1e18f, 1e18f), random_matrix(30, 8, 6, -1e18f, 1e18f));
  expect_agree(random_matrix(20, 8, 5, -1e30f, 1e30f), random_matrix(30, 8, 6, -1e30f, 1e30f));  // float overflow
}

TEST(ComputeKernel, DuplicateCentresGoToTheLowestIndex) {
  MatrixF c = random_matrix(40, 24, 7);
  for (int k = 0; k < 40; k += 3) c.row(k + 1 < 40 ? k + 1 : k) = c.row(k);  // pairs of equal centres
  c.row(39) = c.row(0);
  MatrixF x = random_matrix(60, 24, 8);
  x.topRows(20) = c.topRows(20);  // rows equal to centres: distance exactly 0 for L2
  expect_agree(x, c);
  expect_agree(x, c, 3);
  // Every centre identical: always centre 0 (or 0, 1, 2 for k = 3).
  const MatrixF same = c.row(5).replicate(9, 1);
  expect_agree(x, same);
  expect_agree(x, same, 3);
  BlasKernel kernel(BlasKernelOptions{.threads = 2, .row_block = 8, .centre_block = 4});
  std::vector<std::int32_t> idx(60 * 3);
  std::vector<double> score(60 * 3);
  kernel.search_k(x, same, Metric::kL2, 3, idx, score);
  for (std::size_t i = 0; i < 60; ++i) {
    EXPECT_EQ(idx[3 * i], 0);
    EXPECT_EQ(idx[3 * i + 1], 1);
    EXPECT_EQ(idx[3 * i + 2], 2);
  }
}

TEST(ComputeKernel, NearTiesInTheLastBitAgree) {
  // Centres that differ from a base centre in the last bit of one or more coordinates: the float
  // GEMM cannot tell them apart, the double rescoring can.
  const Eigen::Index d = 768;
  const MatrixF base = random_matrix(4, d, 11);
  MatrixF c(4 * 12, d);
  for (Eigen::Index b = 0; b < 4; ++b) {
    for (Eigen::Index v = 0; v < 12; ++v) {
      Eigen::Index row = b * 12 + v;
      c.row(row) = base.row(b);
      for (Eigen::Index j = 0; j < v; ++j) {
        float& f = c(row, (j * 61 + v) % d);
        f = std::nextafter(f, (v % 2) ? 2.0f : -2.0f);
      }
    }
  }
  // Queries: the bases themselves, and the bases nudged by one bit the other way.
  MatrixF x(12, d);
  for (Eigen::Index i = 0; i < 12; ++i) {
    x.row(i) = base.row(i % 4);
    if (i >= 4) {
      for (Eigen::Index j = 0; j < d; j += (i + 1)) x(i, j) = std::nextafter(x(i, j), i % 2 ? 2.0f : -2.0f);
    }
  }
  expect_agree(x, c);
  expect_agree(x, c, 5);
}

TEST(ComputeKernel, TopKAgrees) {
  const MatrixF x = random_matrix(45, 20, 31), c = random_matrix(70, 20, 32);
  for (int k : {1, 2, 7, 70}) expect_agree(x, c, k);
  // search_k with k = 1 is search; scores ascend.
  BlasKernel kernel(BlasKernelOptions{.threads = 2, .row_block = 10, .centre_block = 9});
  std::vector<std::int32_t> i1(45), ik(45 * 4);
  std::vector<double> s1(45), sk(45 * 4);
  kernel.search(x, c, Metric::kL2, i1, s1);
  kernel.search_k(x, c, Metric::kL2, 4, ik, sk);
  for (std::size_t i = 0; i < 45; ++i) {
    EXPECT_EQ(i1[i], ik[4 * i]);
    EXPECT_EQ(s1[i], sk[4 * i]);
    for (int j = 1; j < 4; ++j) EXPECT_LE(sk[4 * i + j - 1], sk[4 * i + j]);
  }
  std::vector<std::int32_t> idx(45 * 71);
  std::vector<double> score(45 * 71);
  EXPECT_THROW(kernel.search_k(x, c, Metric::kL2, 71, idx, score), InputError);
  EXPECT_THROW(kernel.search_k(x, c, Metric::kL2, 0, idx, score), InputError);
  EXPECT_THROW(ReferenceKernel().search_k(x, c, Metric::kL2, 71, idx, score), InputError);
}

TEST(ComputeKernel, ZeroVectors) {
  MatrixF x = random_matrix(10, 6, 41), c = random_matrix(8, 6, 42);
  x.row(3).setZero();
  c.row(2).setZero();
  for (const BlasKernel& kernel : blas_kernels()) {
    for (Metric m : {Metric::kL2, Metric::kInnerProduct}) {
      std::string report;
      EXPECT_TRUE(verify_against_reference(kernel, x, c, m, &report)) << report;
    }
    std::vector<std::int32_t> idx(10);
    std::vector<double> score(10);
    try {
      kernel.search(x, c, Metric::kCosine, idx, score);
      ADD_FAILURE() << "cosine with a zero centre must fail";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("centre 2"), std::string::npos) << e.what();
    }
    c.row(2).setOnes();
    try {
      kernel.search(x, c, Metric::kCosine, idx, score);
      ADD_FAILURE() << "cosine with a zero row must fail";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("row 3"), std::string::npos) << e.what();
    }
    c.row(2).setZero();
  }
  // All-zero data under L2 and IP: every score is 0, every row picks centre 0.
  expect_agree(MatrixF::Zero(5, 4), MatrixF::Zero(3, 4));
}

TEST(ComputeKernel, NonFiniteValuesAreErrorsNamingTheRow) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (const BlasKernel& kernel : blas_kernels()) {
    for (Metric m : kMetrics) {
      for (float bad : {nan, inf, -inf}) {
        MatrixF x = random_matrix(9, 4, 51), c = random_matrix(5, 4, 52);
        x(6, 2) = bad;
        std::vector<std::int32_t> idx(9);
        std::vector<double> score(9);
        try {
          kernel.search(x, c, m, idx, score);
          ADD_FAILURE() << "a non-finite row must fail";
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("row 6"), std::string::npos) << e.what();
        }
        x(6, 2) = 0.5f;
        c(4, 0) = bad;
        try {
          kernel.search(x, c, m, idx, score);
          ADD_FAILURE() << "a non-finite centre must fail";
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("centre 4"), std::string::npos) << e.what();
        }
        std::string report;
        EXPECT_TRUE(verify_against_reference(kernel, x, c, m, &report)) << report;  // same error
        EXPECT_NE(report.find("both reject"), std::string::npos) << report;
      }
    }
  }
}

TEST(ComputeKernel, ShapeErrorsAndEmptyInput) {
  std::vector<std::int32_t> idx(4, -7);
  std::vector<double> score(4, -7.0);
  for (const BlasKernel& kernel : blas_kernels()) {
    EXPECT_THROW(kernel.search(MatrixF::Ones(2, 3), MatrixF::Ones(2, 4), Metric::kL2, idx, score), InputError);
    EXPECT_THROW(kernel.search(MatrixF::Ones(2, 3), MatrixF(0, 3), Metric::kL2, idx, score), InputError);
    EXPECT_THROW(kernel.search_k(MatrixF::Ones(2, 3), MatrixF::Ones(2, 4), Metric::kL2, 1, idx, score), InputError);
    // Empty X: nothing to do, no error, outputs untouched.
    kernel.search(MatrixF(0, 3), MatrixF::Ones(2, 3), Metric::kCosine, idx, score);
    kernel.search_k(MatrixF(0, 3), MatrixF::Ones(2, 3), Metric::kCosine, 2, idx, score);
    EXPECT_EQ(idx[0], -7);
    std::string report;
    EXPECT_TRUE(verify_against_reference(kernel, MatrixF(0, 8), random_matrix(3, 8, 1), Metric::kL2, &report))
        << report;
  }
}

TEST(ComputeKernel, VerifyReportsADisagreement) {
  // A kernel that is off by one centre on purpose.
  class Wrong final : public NearestCentreKernel {
   public:
    std::string name() const override { return "wrong"; }
    void search(const MatrixF& x, const MatrixF& c, Metric m, std::span<std::int32_t> nearest,
                std::span<double> score) const override {
      ReferenceKernel().search(x, c, m, nearest, score);
      nearest[0] = (nearest[0] + 1) % static_cast<std::int32_t>(c.rows());
    }
  };
  std::string report;
  EXPECT_FALSE(verify_against_reference(Wrong(), random_matrix(3, 4, 1), random_matrix(5, 4, 2), Metric::kL2,
                                        &report));
  EXPECT_NE(report.find("row 0"), std::string::npos) << report;
}

TEST(ComputeKernel, ThreadCountFromEnvironment) {
  const test::ScopedEnv env("SECPE_THREADS");
  env.set("3");
  EXPECT_EQ(default_threads(), 3);
  EXPECT_EQ(BlasKernel().threads(), 3);
  EXPECT_EQ(BlasKernel(BlasKernelOptions{.threads = 1}).threads(), 1);  // explicit wins
  env.set("zero");
  EXPECT_THROW(default_threads(), InputError);
}

}  // namespace
}  // namespace secpe
