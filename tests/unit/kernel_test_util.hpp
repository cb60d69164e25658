#pragma once
// Test data shared by the kernel tests (CPU and CUDA): not a test itself.
#include <random>

#include "compute/nearest.hpp"

namespace secpe::test {

inline constexpr Metric kMetrics[] = {Metric::kL2, Metric::kInnerProduct, Metric::kCosine};

// Uniform in [lo, hi), from the seed alone.
inline MatrixF random_matrix(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  MatrixF m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = dist(gen);
  return m;
}

}  // namespace secpe::test
