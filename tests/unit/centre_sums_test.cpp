// The CPU per-centre fixed-point sums (NearestCentreKernel::add_to_centres) against a plain sum:
// exact for any thread count, whether the threads split the rows (many rows per centre) or the
// centres (few), and for rows whose coordinates take the wide rounding path.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "compute/cpu/blas_kernel.hpp"
#include "compute/impl/fixed_point.hpp"

namespace secpe {
namespace {

struct Sums {
  std::vector<std::int64_t> sums, counts;
};

Sums plain_sums(const MatrixF& x, const std::vector<std::int32_t>& centre_of, const std::vector<std::uint8_t>& include,
                std::size_t k) {
  const auto d = static_cast<std::size_t>(x.cols());
  Sums out{std::vector<std::int64_t>(k * d, 0), std::vector<std::int64_t>(k, 0)};
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    if (!include[static_cast<std::size_t>(i)]) continue;
    const auto c = static_cast<std::size_t>(centre_of[static_cast<std::size_t>(i)]);
    ++out.counts[c];
    for (std::size_t j = 0; j < d; ++j)
      out.sums[c * d + j] += std::llrint(static_cast<double>(x(i, static_cast<Eigen::Index>(j))) * kFixedPointScale);
  }
  return out;
}

TEST(CentreSums, ExactForAnyThreadsWhetherRowsOrCentresAreSplit) {
  const Eigen::Index n = 6000, d = 768;  // large enough for the threads to split either way
  const std::size_t k = 50;
  std::mt19937 rng(5);
  std::normal_distribution<float> normal;
  MatrixF x(n, d);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng);
  x(17, 3) = 1e6f;  // a coordinate of 2^19 or more: the wide rounding path
  x(2000, 0) = -3e7f;
  std::vector<std::int32_t> centre_of(static_cast<std::size_t>(n));
  for (auto& c : centre_of) c = static_cast<std::int32_t>(rng() % k);
  // A few rows (fewer than 8 per centre: the threads split the centres) and every row (they split the rows).
  for (const std::size_t every : {std::size_t{20}, std::size_t{1}}) {
    std::vector<std::uint8_t> include(static_cast<std::size_t>(n), 0);
    for (std::size_t i = 0; i < include.size(); i += every) include[i] = 1;
    include[17] = include[2000] = 1;
    const Sums expected = plain_sums(x, centre_of, include, k);
    for (const int threads : {1, 2, 3}) {
      SCOPED_TRACE(testing::Message() << "every " << every << " rows, " << threads << " threads");
      Sums got{std::vector<std::int64_t>(k * static_cast<std::size_t>(d), 0), std::vector<std::int64_t>(k, 0)};
      BlasKernel(BlasKernelOptions{.threads = threads}).add_to_centres(x, centre_of, include, got.sums, got.counts);
      EXPECT_EQ(got.sums, expected.sums);
      EXPECT_EQ(got.counts, expected.counts);
    }
  }
}

}  // namespace
}  // namespace secpe
