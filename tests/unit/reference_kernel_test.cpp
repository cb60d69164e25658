#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "compute/cpu/reference_kernel.hpp"
#include "compute/nearest.hpp"
#include "core/error.hpp"

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
