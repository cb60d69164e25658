#pragma once
// Dense row-major float32 matrices: one row per record, centre or candidate.
#include <Eigen/Core>
#include <cstdint>

namespace secpe {

using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using VectorF = Eigen::VectorXf;

}  // namespace secpe
