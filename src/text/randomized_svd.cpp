#include "text/randomized_svd.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/parallel.hpp"
#include "core/rng.hpp"

namespace secpe {
namespace {

// An orthonormal basis of y's columns: the thin Q of a Householder QR.
RowMatrixD orthonormal(const RowMatrixD& y) {
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(y);
  return qr.householderQ() * Eigen::MatrixXd::Identity(y.rows(), y.cols());
}

}  // namespace

BlockSparseMatrix::BlockSparseMatrix(std::vector<SparseRows> blocks, Eigen::Index features, int threads)
    : blocks_(std::move(blocks)), features_(features), threads_(std::max(1, threads)) {
  std::vector<std::size_t> per_feature(static_cast<std::size_t>(features), 0);
  std::size_t total = 0;
  for (const SparseRows& block : blocks_) {
    if (block.cols() != features) throw std::invalid_argument("BlockSparseMatrix: blocks differ in width");
    for (Eigen::Index k = 0; k < block.nonZeros(); ++k) ++per_feature[static_cast<std::size_t>(block.innerIndexPtr()[k])];
    total += static_cast<std::size_t>(block.nonZeros());
    rows_ += block.rows();
  }
  nonzeros_per_row_ = double(total) / double(std::max<Eigen::Index>(1, rows_));
  const auto parts = static_cast<std::size_t>(threads_);
  feature_begin_.assign(1, 0);
  std::size_t running = 0;
  for (std::size_t f = 0; f < per_feature.size(); ++f) {
    running += per_feature[f];
    while (feature_begin_.size() < parts && running * parts >= feature_begin_.size() * total) feature_begin_.push_back(f + 1);
  }
  feature_begin_.resize(parts + 1, per_feature.size());
}

// The products below sum in an order fixed by the data alone, so the result does not depend on
// the thread count: a row of A X is one thread's sum over the row's terms in index order, and a
// row of A^T Y is added to only by the thread owning its feature, rows in order.

// out (block rows x l, row-major) = block X.
void BlockSparseMatrix::block_times(const SparseRows& block, const RowMatrixD& x, double* out) const {
  const auto rows = static_cast<std::size_t>(block.rows()), l = static_cast<std::size_t>(x.cols());
  const int* outer = block.outerIndexPtr();
  const int* inner = block.innerIndexPtr();
  const double* values = block.valuePtr();
  std::fill(out, out + rows * l, 0.0);
  run_chunks(chunk_count(threads_, rows, nonzeros_per_row_ * double(l)), rows, [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      double* row = out + i * l;
      for (int k = outer[i]; k < outer[i + 1]; ++k) {
        const double* xf = x.data() + static_cast<std::size_t>(inner[k]) * l;
        const double v = values[k];
        for (std::size_t c = 0; c < l; ++c) row[c] += v * xf[c];
      }
    }
  });
}

// z += block^T y, y holding the block's rows (row-major, z.cols() wide).
void BlockSparseMatrix::add_block_transpose_times(const SparseRows& block, const double* y, RowMatrixD& z) const {
  const auto rows = static_cast<std::size_t>(block.rows()), l = static_cast<std::size_t>(z.cols());
  const int* outer = block.outerIndexPtr();
  const int* inner = block.innerIndexPtr();
  const double* values = block.valuePtr();
  run_chunks(threads_, feature_begin_.size() - 1, [&](int, std::size_t begin, std::size_t end) {
    const auto first = static_cast<int>(feature_begin_[begin]), last = static_cast<int>(feature_begin_[end]);
    for (std::size_t i = 0; i < rows; ++i) {
      const double* row = y + i * l;
      // Terms are sorted within a row: this thread's lie in one run.
      for (const int* k = std::lower_bound(inner + outer[i], inner + outer[i + 1], first); k != inner + outer[i + 1] && *k < last; ++k) {
        double* zf = z.data() + static_cast<std::size_t>(*k) * l;
        const double v = values[k - inner];
        for (std::size_t c = 0; c < l; ++c) zf[c] += v * row[c];
      }
    }
  });
}

RowMatrixD BlockSparseMatrix::times(const RowMatrixD& x) const {
  RowMatrixD out(rows_, x.cols());
  Eigen::Index offset = 0;
  for (const SparseRows& block : blocks_) {
    block_times(block, x, out.data() + offset * x.cols());
    offset += block.rows();
  }
  return out;
}

RowMatrixD BlockSparseMatrix::transpose_times(const RowMatrixD& y) const {
  RowMatrixD z = RowMatrixD::Zero(features_, y.cols());
  Eigen::Index offset = 0;
  for (const SparseRows& block : blocks_) {
    add_block_transpose_times(block, y.data() + offset * y.cols(), z);
    offset += block.rows();
  }
  return z;
}

RowMatrixD BlockSparseMatrix::gram_times(const RowMatrixD& q) const {
  RowMatrixD z = RowMatrixD::Zero(q.rows(), q.cols());
  RowMatrixD aq;
  for (const SparseRows& block : blocks_) {
    aq.resize(block.rows(), q.cols());
    block_times(block, q, aq.data());
    add_block_transpose_times(block, aq.data(), z);
  }
  return z;
}

TruncatedSvd randomized_svd(const BlockSparseMatrix& a, const RandomizedSvdOptions& options) {
  const int d = options.rank;
  const auto rows = static_cast<std::size_t>(a.rows()), v = static_cast<std::size_t>(a.features());
  if (d < 1 || static_cast<std::size_t>(d) > std::min(rows, v)) throw std::invalid_argument("randomized_svd: rank out of range");
  if (options.oversampling < 0 || options.power_iterations < 0) throw std::invalid_argument("randomized_svd: negative oversampling or power iterations");
  const OneEigenThread one_eigen_thread;
  // Randomized range finder with power iterations: the range of (A A^T)^q A Omega, Omega Gaussian
  // (features x l), whose image under A^T, (A^T A)^(q+1) Omega, holds the approximate top right
  // singular vectors. The orthonormalisations work in whichever space is smaller: the rows'
  // while they are fewer than the features, else the features', where A^T A is applied block by
  // block. Both give the same subspace; then Rayleigh-Ritz: the eigenvectors W of Q^T (M M^T) Q,
  // largest eigenvalue first.
  const bool row_space = rows <= v;
  const auto l = static_cast<Eigen::Index>(std::min({v, rows, static_cast<std::size_t>(d + options.oversampling)}));
  RowMatrixD omega(static_cast<Eigen::Index>(v), l);
  run_chunks(chunk_count(a.threads(), v, 50.0 * double(l)), v, [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t f = begin; f < end; ++f) {
      CounterRng rng(options.seed, Stream::kEmbedder, f);
      for (Eigen::Index c = 0; c < l; ++c) omega(static_cast<Eigen::Index>(f), c) = rng.normal();
    }
  });
  const auto power = [&](const RowMatrixD& y) {  // M M^T y
    return row_space ? a.times(a.transpose_times(y)) : a.gram_times(y);
  };
  RowMatrixD q = orthonormal(row_space ? a.times(omega) : a.gram_times(omega));
  for (int i = 0; i < options.power_iterations; ++i) q = orthonormal(power(q));
  Eigen::MatrixXd g = q.transpose() * power(q);
  g = (0.5 * (g + g.transpose())).eval();
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(g);  // ascending eigenvalues
  TruncatedSvd svd;
  svd.values.resize(d);
  RowMatrixD w(l, d);
  for (int k = 0; k < d; ++k) {
    w.col(k) = eigen.eigenvectors().col(l - 1 - k);
    svd.values(k) = std::sqrt(std::max(0.0, eigen.eigenvalues()(l - 1 - k)));
  }
  if (row_space) {
    // The right singular vectors are A^T Q W, column k of length sqrt(eigenvalue k).
    for (int k = 0; k < d; ++k) w.col(k) *= svd.values(k) > 0 ? 1.0 / svd.values(k) : 0.0;
    svd.right = a.transpose_times(q * w);
  } else {
    svd.right = q * w;
  }
  // A singular vector's sign is the solver's choice: fix it (largest entry positive) so that the
  // result depends on the data only.
  for (int k = 0; k < d; ++k) {
    Eigen::Index at = 0;
    svd.right.col(k).cwiseAbs().maxCoeff(&at);
    if (svd.right(at, k) < 0) svd.right.col(k) *= -1.0;
  }
  return svd;
}

}  // namespace secpe
