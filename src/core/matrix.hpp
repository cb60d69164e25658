#pragma once
// Dense row-major float32 matrices: one row per record, centre or candidate.
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "core/parallel.hpp"

namespace secpe {

using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using VectorF = Eigen::VectorXf;

// The given rows of m, in the given order (a copy), on up to `threads` threads: a large copy
// lands in fresh pages, and their first touch (the kernel zeroing each one) costs more than the
// copy itself, so both are shared out.
inline MatrixF select_rows(const MatrixF& m, const std::vector<std::size_t>& rows, int threads = 1) {
  MatrixF out(static_cast<Eigen::Index>(rows.size()), m.cols());
  run_chunks(chunk_count(threads, rows.size(), 4.0 * double(m.cols())), rows.size(), [&](int, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) out.row(static_cast<Eigen::Index>(i)) = m.row(static_cast<Eigen::Index>(rows[i]));
  });
  return out;
}

}  // namespace secpe
