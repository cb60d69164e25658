#include "eval/logistic.hpp"

#include <cmath>
#include <stdexcept>

#include "core/error.hpp"

namespace secpe {

namespace {

// dst[0, k) += a * src[0, k): the inner step of both products (k is the class count, about 10,
// where a raw loop beats Eigen's dynamic-size expressions several times over).
inline void add_scaled(double* dst, const double* src, double a, Eigen::Index k) {
  for (Eigen::Index c = 0; c < k; ++c) dst[c] += a * src[c];
}

// out = x w + b, one row at a time.
void class_scores(const SparseRows& x, const double* w, const Eigen::RowVectorXd& b, RowMatrixD& out) {
  const Eigen::Index k = b.size();
  out.resize(x.rows(), k);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    double* row = out.data() + i * k;
    for (Eigen::Index c = 0; c < k; ++c) row[c] = b(c);
    for (SparseRows::InnerIterator it(x, i); it; ++it) add_scaled(row, w + it.index() * k, it.value(), k);
  }
}

}  // namespace

std::vector<std::int32_t> LogisticModel::predict(const SparseRows& x) const {
  RowMatrixD scores;
  class_scores(x, weights.data(), bias, scores);
  std::vector<std::int32_t> out(static_cast<std::size_t>(x.rows()));
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    Eigen::Index best = 0;
    for (Eigen::Index c = 1; c < scores.cols(); ++c) {
      if (scores(i, c) > scores(i, best)) best = c;  // strict: ties keep the lower class
    }
    out[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(best);
  }
  return out;
}

LogisticModel train_logistic(const SparseRows& x, std::span<const std::int32_t> y, int classes,
                             const LogisticOptions& options) {
  if (static_cast<std::size_t>(x.rows()) != y.size()) throw std::invalid_argument("train_logistic: one label per row");
  if (classes < 1 || x.rows() == 0) throw std::invalid_argument("train_logistic: no classes or no rows");
  if (!(options.c > 0)) throw InputError("the classifier's C must be positive");
  const Eigen::Index f = x.cols(), k = classes, n = x.rows();
  LogisticModel model;
  model.weights = RowMatrixD::Zero(f, k);
  model.bias = Eigen::RowVectorXd::Zero(k);
  if (classes == 1) return model;

  const double lambda = 1.0 / (options.c * static_cast<double>(n));
  RowMatrixD p;  // softmax minus the one-hot labels, reused by every evaluation
  const Objective objective = [&](const Eigen::VectorXd& theta, Eigen::VectorXd& gradient) {
    const Eigen::Map<const RowMatrixD> w(theta.data(), f, k);
    const Eigen::Map<const Eigen::RowVectorXd> b(theta.data() + f * k, k);
    class_scores(x, theta.data(), b, p);
    double loss = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto truth = static_cast<Eigen::Index>(y[static_cast<std::size_t>(i)]);
      const double top = p.row(i).maxCoeff();
      const double margin = top - p(i, truth);
      double sum = 0.0;
      for (Eigen::Index c = 0; c < k; ++c) sum += (p(i, c) = std::exp(p(i, c) - top));
      loss += margin + std::log(sum);  // -log softmax, without underflow
      p.row(i) /= sum;
      p(i, truth) -= 1.0;
    }
    Eigen::Map<RowMatrixD> gw(gradient.data(), f, k);
    Eigen::Map<Eigen::RowVectorXd> gb(gradient.data() + f * k, k);
    gw = lambda * static_cast<double>(n) * w;  // scaled by n like the data term, divided below
    for (Eigen::Index i = 0; i < n; ++i) {
      for (SparseRows::InnerIterator it(x, i); it; ++it) add_scaled(gradient.data() + it.index() * k, p.data() + i * k, it.value(), k);
    }
    gw /= static_cast<double>(n);
    gb = p.colwise().sum() / static_cast<double>(n);
    return loss / static_cast<double>(n) + 0.5 * lambda * w.squaredNorm();
  };
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(f * k + k);
  const LbfgsResult result = minimize_lbfgs(objective, theta, options.solver);
  model.weights = Eigen::Map<const RowMatrixD>(theta.data(), f, k);
  model.bias = Eigen::Map<const Eigen::RowVectorXd>(theta.data() + f * k, k);
  model.iterations = result.iterations;
  model.converged = result.converged;
  return model;
}

}  // namespace secpe
