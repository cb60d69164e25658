// select_rows: the same copy on any number of threads, rows repeated or reordered included.
#include <gtest/gtest.h>

#include "core/matrix.hpp"

namespace secpe {
namespace {

TEST(SelectRows, SameCopyOnAnyNumberOfThreads) {
  MatrixF m(500, 300);
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = static_cast<float>(i * 1000 + j);
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < 2000; ++i) rows.push_back((i * 7919) % 500);  // every row, in another order, four times
  for (const int threads : {1, 2, 3}) {
    const MatrixF out = select_rows(m, rows, threads);
    ASSERT_EQ(out.rows(), static_cast<Eigen::Index>(rows.size()));
    ASSERT_EQ(out.cols(), m.cols());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      ASSERT_TRUE(out.row(static_cast<Eigen::Index>(i)) == m.row(static_cast<Eigen::Index>(rows[i]))) << i << " at " << threads << " threads";
    }
  }
  EXPECT_EQ(select_rows(m, {}, 2).rows(), 0);
}

}  // namespace
}  // namespace secpe
