#include "eval/gaussian_fit.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "compute/impl/fixed_point.hpp"
#include "comms/communicator.hpp"

namespace secpe {

MomentSums::MomentSums(int dim)
    : dim_(dim), sums_(1 + static_cast<std::size_t>(dim) + static_cast<std::size_t>(dim) * (dim + 1) / 2, 0) {}

void MomentSums::add(const MatrixF& rows) {
  if (rows.cols() != dim_) throw std::invalid_argument("MomentSums::add: dimension mismatch");
  if (rows.rows() == 0) return;
  const Eigen::MatrixXd x = rows.cast<double>();
  Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(dim_, dim_);
  gram.selfadjointView<Eigen::Upper>().rankUpdate(x.transpose());
  const Eigen::RowVectorXd sum = x.colwise().sum();
  sums_[0] += rows.rows();
  std::size_t at = 1;
  for (int j = 0; j < dim_; ++j) sums_[at++] += to_fixed(sum(j));
  for (int i = 0; i < dim_; ++i) {
    for (int j = i; j < dim_; ++j) sums_[at++] += to_fixed(gram(i, j));
  }
}

void MomentSums::allreduce(const Communicator& comm) { comm.allreduce_sum(sums_); }

GaussianFit MomentSums::fit() const {
  const auto n = static_cast<double>(count());
  if (count() < 2) throw std::logic_error("MomentSums::fit: a covariance needs at least two rows");
  GaussianFit g;
  g.mean.resize(dim_);
  g.covariance.resize(dim_, dim_);
  std::size_t at = 1;
  for (int j = 0; j < dim_; ++j) g.mean(j) = from_fixed(sums_[at++]) / n;
  for (int i = 0; i < dim_; ++i) {
    for (int j = i; j < dim_; ++j) {
      const double c = (from_fixed(sums_[at++]) - n * g.mean(i) * g.mean(j)) / (n - 1.0);
      g.covariance(i, j) = g.covariance(j, i) = c;
    }
  }
  return g;
}

namespace {

// The square root of a symmetric positive semi-definite matrix.
Eigen::MatrixXd psd_sqrt(const Eigen::MatrixXd& m) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(m);
  const Eigen::VectorXd roots = eig.eigenvalues().cwiseMax(0.0).cwiseSqrt();
  return eig.eigenvectors() * roots.asDiagonal() * eig.eigenvectors().transpose();
}

}  // namespace

double frechet_distance(const GaussianFit& a, const GaussianFit& b) {
  if (a.mean.size() != b.mean.size()) throw std::invalid_argument("frechet_distance: dimension mismatch");
  const Eigen::MatrixXd root_a = psd_sqrt(a.covariance);
  Eigen::MatrixXd middle = root_a * b.covariance * root_a;
  middle = 0.5 * (middle + middle.transpose());  // exactly symmetric for the eigensolver
  const double trace_root = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(middle, Eigen::EigenvaluesOnly)
                                .eigenvalues()
                                .cwiseMax(0.0)
                                .cwiseSqrt()
                                .sum();
  const double d = (a.mean - b.mean).squaredNorm() + a.covariance.trace() + b.covariance.trace() - 2.0 * trace_root;
  return std::max(d, 0.0);
}

}  // namespace secpe
