#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "compute/cpu/reference_kernel.hpp"
#include "compute/impl/exact_score.hpp"
#include "compute/nearest.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "kernel_test_util.hpp"

namespace secpe {
namespace {

TEST(ReferenceKernel, NearestWithTiesToLowestIndex) {
  MatrixF c(3, 2);
  c << 1, 0, 0, 1, 1, 0;  // centres 0 and 2 coincide
  MatrixF x(2, 2);
  x << 0.9f, 0.1f, 0.1f, 0.8f;
  std::vector<std::int32_t> idx(2);
  std::vector<double> score(2);
  ReferenceKernel k;
  for (Metric m : {Metric::kL2, Metric::kInnerProduct, Metric::kCosine}) {
    k.search(x, c, m, idx, score);
    EXPECT_EQ(idx[0], 0) << metric_name(m);
    EXPECT_EQ(idx[1], 1) << metric_name(m);
  }
  k.search(x, c, Metric::kL2, idx, score);
  EXPECT_NEAR(score[0], 0.01 + 0.01, 1e-7);
}

// Every search's norms (eight rows at a time: the lanes of an AVX-512 register, or interleaved
// chains) are norm() of each row, bit for bit: any shape, thread count, path and magnitude.
TEST(ExactNorms, EqualNormOfEachRowBitForBit) {
  CounterRng rng(11, Stream::kGeneration, 0, 0, 0);
  for (Eigen::Index rows : {1, 7, 8, 9, 17, 64}) {
    for (Eigen::Index d : {1, 7, 8, 9, 16, 23, 768, 770}) {
      MatrixF m(rows, d);
      for (Eigen::Index i = 0; i < rows; ++i)
        for (Eigen::Index j = 0; j < d; ++j)  // magnitudes from 1e-40 (subnormal) to 1e36
          m(i, j) = static_cast<float>(rng.normal() * std::pow(10.0, static_cast<double>(rng.below(77)) - 40.0));
      for (const auto& [threads, path] : {std::pair{1, exact::SumPath::kAuto}, std::pair{3, exact::SumPath::kAuto},
                                          std::pair{1, exact::SumPath::kChains}, std::pair{2, exact::SumPath::kChains}}) {
        const std::vector<double> got = exact::norms(m, threads, path);
        for (Eigen::Index i = 0; i < rows; ++i) {
          const double want = exact::norm(m.row(i).data(), d);
          ASSERT_EQ(std::memcmp(&got[static_cast<std::size_t>(i)], &want, sizeof want), 0)
              << rows << " x " << d << ", row " << i << ": " << got[static_cast<std::size_t>(i)] << " against " << want;
        }
      }
    }
  }
}

// Exact scores of many pairs at once (eight in the lanes of an AVX-512 register, or four chains),
// the pairs belonging to different rows and centres, are pair_score of each, bit for bit.
TEST(ExactPairScores, EqualPairScoreBitForBit) {
  CounterRng rng(12, Stream::kGeneration, 0, 0, 0);
  for (Eigen::Index d : {1, 7, 8, 9, 23, 768, 770}) {
    MatrixF x(5, d), c(11, d);
    for (MatrixF* m : {&x, &c})
      for (Eigen::Index i = 0; i < m->size(); ++i)
        m->data()[i] = static_cast<float>(rng.normal() * std::pow(10.0, static_cast<double>(rng.below(41)) - 20.0));
    const std::vector<double> xn = exact::norms(x), cn = exact::norms(c);
    std::vector<exact::PairToScore> pairs;
    for (int q = 0; q < 37; ++q) {
      const auto i = static_cast<Eigen::Index>(q % 5 == 4 ? 0 : rng.below(5)), j = static_cast<Eigen::Index>(rng.below(11));
      pairs.push_back({x.row(i).data(), c.row(j).data(), xn[static_cast<std::size_t>(i)], cn[static_cast<std::size_t>(j)]});
    }
    for (const Metric metric : test::kMetrics) {
      for (const exact::SumPath path : {exact::SumPath::kAuto, exact::SumPath::kChains}) {
        std::vector<double> got(pairs.size());
        exact::pair_scores(metric, d, pairs, got.data(), path);
        for (std::size_t q = 0; q < pairs.size(); ++q) {
          const double want = exact::pair_score(metric, pairs[q].x, pairs[q].c, d, pairs[q].x_norm, pairs[q].c_norm);
          ASSERT_EQ(std::memcmp(&got[q], &want, sizeof want), 0) << "d " << d << ", pair " << q << ", " << metric_name(metric);
        }
      }
    }
  }
}

TEST(ReferenceKernel, BadInputsAreClearErrors) {
  ReferenceKernel k;
  std::vector<std::int32_t> idx(1);
  std::vector<double> score(1);
  MatrixF c = MatrixF::Ones(2, 3), x = MatrixF::Ones(1, 2);
  EXPECT_THROW(k.search(x, c, Metric::kL2, idx, score), InputError);
  x = MatrixF::Zero(1, 3);
  EXPECT_THROW(k.search(x, c, Metric::kCosine, idx, score), InputError);
  x(0, 1) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(k.search(x, c, Metric::kL2, idx, score), InputError);
  EXPECT_THROW(parse_metric("hamming"), InputError);
}

}  // namespace
}  // namespace secpe
