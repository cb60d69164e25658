// The CUDA kernel's exact rescoring emulated on the CPU: compute/impl/exact_order.hpp is the header the
// device code compiles (compute/cuda/kernels.cu: rescore), and here the same functions, in the same
// loop structure (32 lanes taking every 32nd candidate, k rounds, each a shuffle-down tree over the
// lanes), must give exact::pair_score's and exact::best_k_of's bits on random, tied, duplicate,
// subnormal and large data. What is left for a GPU to confirm is the hardware's rounding of each
// operation (IEEE round-to-nearest intrinsics), which tests/unit/cuda_kernel_test.cpp checks there.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <numeric>
#include <random>

#include "compute/impl/exact_order.hpp"
#include "compute/impl/exact_score.hpp"
#include "kernel_test_util.hpp"

namespace secpe {
namespace {

using test::kMetrics;
using test::random_matrix;

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The device kernel's work for one row, one lane at a time: each lane's scores, then per round
// each lane's best after the last winner and the warp's shuffle-down tree (a lane whose source is
// out of range keeps its own value, as __shfl_down_sync gives it).
void emulate_rescore(Metric metric, const float* x, double row_norm, const MatrixF& c, std::span<const double> centre_norms,
                     std::span<const std::int32_t> ids, int k, std::int32_t* nearest, double* score) {
  const int found = static_cast<int>(ids.size());
  std::vector<double> scores(ids.size());
  for (int lane = 0; lane < exact_order::kLanes; ++lane) {
    for (int q = lane; q < found; q += exact_order::kLanes) {
      const auto j = static_cast<std::size_t>(ids[static_cast<std::size_t>(q)]);
      scores[static_cast<std::size_t>(q)] =
          exact_order::pair_score(metric, x, c.row(static_cast<Eigen::Index>(j)).data(), c.cols(), row_norm, centre_norms[j]);
    }
  }
  exact_order::Scored last = exact_order::before_all();
  for (int round = 0; round < k; ++round) {
    exact_order::Scored v[exact_order::kLanes];
    for (int lane = 0; lane < exact_order::kLanes; ++lane) v[lane] = exact_order::lane_best(scores.data(), ids.data(), found, lane, last);
    for (int offset = exact_order::kLanes / 2; offset > 0; offset /= 2) {
      exact_order::Scored before[exact_order::kLanes];
      std::copy(v, v + exact_order::kLanes, before);
      for (int lane = 0; lane < exact_order::kLanes; ++lane) {
        const exact_order::Scored other = lane + offset < exact_order::kLanes ? before[lane + offset] : before[lane];
        v[lane] = exact_order::combine(before[lane], other);
      }
    }
    last = v[0];
    nearest[round] = static_cast<std::int32_t>(last.index);
    score[round] = last.score;
  }
}

TEST(ExactOrder, PairScoreIsTheReferencesBitForBit) {
  for (const Eigen::Index d : {1, 2, 3, 17, 64, 768}) {
    MatrixF x = random_matrix(20, d, 1 + d), c = random_matrix(30, d, 2 + d, -4.0f, 4.0f);
    x.row(1) *= 1e-41f;  // subnormal floats
    x.row(2) *= 3e18f;   // large: products far beyond float's range stay exact in double
    c.row(3) = x.row(0);  // a duplicate: L2 exactly 0
    x.row(4) = (x.row(4).array() * 8).round().matrix();  // integers: exact ties
    c.row(5) = (c.row(5).array() * 2).round().matrix();
    const std::vector<double> rn = exact::norms(x), cn = exact::norms(c);
    for (const Metric m : kMetrics) {
      for (Eigen::Index i = 0; i < x.rows(); ++i) {
        for (Eigen::Index j = 0; j < c.rows(); ++j) {
          if (m == Metric::kCosine && (rn[static_cast<std::size_t>(i)] == 0 || cn[static_cast<std::size_t>(j)] == 0)) continue;
          const double want = exact::pair_score(m, x.row(i).data(), c.row(j).data(), d, rn[static_cast<std::size_t>(i)], cn[static_cast<std::size_t>(j)]);
          const double got = exact_order::pair_score(m, x.row(i).data(), c.row(j).data(), d, rn[static_cast<std::size_t>(i)], cn[static_cast<std::size_t>(j)]);
          ASSERT_TRUE(same_bits(want, got)) << metric_name(m) << " d " << d << " row " << i << " centre " << j;
        }
      }
    }
  }
}

TEST(ExactOrder, EmulatedRescoringIsBestKOfBitForBit) {
  std::mt19937 gen(3);
  for (const Eigen::Index d : {1, 5, 96}) {
    // Integer data with repeated centres: many exact ties, which the index must break.
    MatrixF c = random_matrix(200, d, 7 + d, -3.0f, 3.0f).array().round().matrix();
    for (Eigen::Index j = 0; j < c.rows(); ++j) {
      if (c.row(j).squaredNorm() == 0) c(j, 0) = 1.0f;  // cosine rejects zero centres
    }
    for (Eigen::Index j = 0; j < 40; ++j) c.row(150 + j) = c.row(j);
    const MatrixF x = random_matrix(30, d, 9 + d, -3.0f, 3.0f).array().round().matrix().array() + 0.5f;
    const std::vector<double> rn = exact::norms(x), cn = exact::norms(c);
    for (const Metric m : kMetrics) {
      for (const int k : {1, 2, 5, 16}) {
        for (Eigen::Index i = 0; i < x.rows(); ++i) {
          // A candidate list as the selection writes it: distinct centres in any order, up to the capacity.
          std::vector<std::int32_t> ids(static_cast<std::size_t>(c.rows()));
          std::iota(ids.begin(), ids.end(), 0);
          std::shuffle(ids.begin(), ids.end(), gen);
          ids.resize(static_cast<std::size_t>(k) + gen() % static_cast<std::size_t>(32 + 3 * k));
          std::vector<std::int32_t> want(static_cast<std::size_t>(k)), got(want.size());
          std::vector<double> want_s(want.size()), got_s(want.size());
          std::vector<std::pair<double, std::int32_t>> scratch;
          exact::best_k_of(m, x.row(i).data(), rn[static_cast<std::size_t>(i)], c, cn, ids, static_cast<std::size_t>(k), scratch,
                           want.data(), want_s.data());
          emulate_rescore(m, x.row(i).data(), rn[static_cast<std::size_t>(i)], c, cn, ids, k, got.data(), got_s.data());
          ASSERT_EQ(want, got) << metric_name(m) << " d " << d << " k " << k << " row " << i;
          for (int j = 0; j < k; ++j) ASSERT_TRUE(same_bits(want_s[static_cast<std::size_t>(j)], got_s[static_cast<std::size_t>(j)]));
        }
      }
    }
  }
}

}  // namespace
}  // namespace secpe
