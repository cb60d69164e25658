#pragma once
// Multinomial logistic regression on sparse rows: the downstream classifier of `secpe eval`
// (trained on synthetic texts, tested on real ones). Full-batch L-BFGS on one thread, so training
// is a deterministic function of the data. The products are plain loops over the nonzeros (each
// row of weights is one feature's class scores, contiguous), not Eigen's sparse products, which
// OpenMP parallelises when the library is built with it and which were 4x slower on shared cores.
#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <vector>

#include "eval/lbfgs.hpp"
#include "text/tfidf.hpp"

namespace secpe {

struct LogisticOptions {
  // Inverse L2 strength, as scikit-learn's C: minimises C * (sum of cross-entropies) + |W|^2 / 2
  // (the bias is not penalised). Solved as the mean loss + |W|^2 / (2 C n), which has the same
  // minimum. 10, not scikit-learn's 1: with unit-length TF-IDF rows and a few thousand texts, C = 1
  // underfits (Yelp dev, 4,000 -> 1,000 reviews: category / stars 63.0 / 55.6% at C = 1,
  // 68.0 / 58.5% at C = 10, 69.1 / 58.5% at C = 100).
  double c = 10.0;
  // Tolerance as scikit-learn's default tol; 1e-5 changed no prediction on the dev split.
  LbfgsOptions solver{.max_iterations = 500, .gradient_tolerance = 1e-4, .history = 10};
};

using RowMatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct LogisticModel {
  RowMatrixD weights;       // features x classes
  Eigen::RowVectorXd bias;  // classes
  int iterations = 0;
  bool converged = true;
  // The class with the highest score per row, ties to the lower class.
  std::vector<std::int32_t> predict(const SparseRows& x) const;
};

// y[i] in [0, classes). With one class there is nothing to learn: the model always predicts it.
LogisticModel train_logistic(const SparseRows& x, std::span<const std::int32_t> y, int classes,
                             const LogisticOptions& options);

}  // namespace secpe
