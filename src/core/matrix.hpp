#pragma once
// Dense row-major float32 matrices: one row per record, centre or candidate.
#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace secpe {

using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using VectorF = Eigen::VectorXf;

// The given rows of m, in the given order (a copy).
inline MatrixF select_rows(const MatrixF& m, const std::vector<std::size_t>& rows) {
  MatrixF out(static_cast<Eigen::Index>(rows.size()), m.cols());
  for (std::size_t i = 0; i < rows.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = m.row(static_cast<Eigen::Index>(rows[i]));
  return out;
}

}  // namespace secpe
