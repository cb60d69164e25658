#pragma once
// The truncated SVD behind the learned embedders (text/tfidf_svd_embedder.hpp,
// text/ppmi_sif_embedder.hpp): a sparse matrix held in row blocks, and a randomized SVD of it
// (Halko, Martinsson and Tropp 2011, Algorithm 4.4: a Gaussian test matrix from a public seed,
// power iterations re-orthonormalised by QR, then a small dense eigenproblem). Every product sums
// in an order fixed by the data alone, and Eigen's dense work runs on one thread, so the result
// is the same for any thread count.
#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "text/tfidf.hpp"

namespace secpe {

using RowMatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Rows in blocks (each a SparseRows of `features` columns), and the split of the columns into one
// range per thread with about equal nonzeros, for the transposed products.
class BlockSparseMatrix {
 public:
  BlockSparseMatrix(std::vector<SparseRows> blocks, Eigen::Index features, int threads);
  Eigen::Index rows() const { return rows_; }
  Eigen::Index features() const { return features_; }
  int threads() const { return threads_; }
  RowMatrixD times(const RowMatrixD& x) const;            // A X: one row per row of A
  RowMatrixD transpose_times(const RowMatrixD& y) const;  // A^T Y: one row per feature
  RowMatrixD gram_times(const RowMatrixD& q) const;       // A^T (A Q), block by block

 private:
  void block_times(const SparseRows& block, const RowMatrixD& x, double* out) const;
  void add_block_transpose_times(const SparseRows& block, const double* y, RowMatrixD& z) const;

  std::vector<SparseRows> blocks_;
  Eigen::Index rows_ = 0, features_ = 0;
  std::vector<std::size_t> feature_begin_;  // thread t owns features [feature_begin_[t], feature_begin_[t + 1])
  double nonzeros_per_row_ = 0;
  int threads_;
};

struct RandomizedSvdOptions {
  int rank = 256;             // d: the singular triplets wanted
  int oversampling = 16;      // columns of the range beyond d
  int power_iterations = 3;   // each re-orthonormalised by a QR
  std::uint64_t seed = 0;     // public: the Gaussian test matrix (Stream::kEmbedder)
};

struct TruncatedSvd {
  RowMatrixD right;         // features x d: the top right singular vectors, largest first, each
                            // signed so that its entry of largest magnitude is positive
  Eigen::VectorXd values;   // the d singular values, descending
};

// Needs rank <= min(rows, features). The orthonormalisations cost (size x l^2) in the smaller of
// the row and feature spaces (l = rank + oversampling).
TruncatedSvd randomized_svd(const BlockSparseMatrix& a, const RandomizedSvdOptions& options);

// Keeps Eigen's dense products on one thread while alive: Eigen splits them over OpenMP threads
// when built with OpenMP, which can change how sums are grouped. Only the FAISS benchmark's files
// are compiled with it, but the linker may keep their copy of an Eigen product for every caller.
class OneEigenThread {
 public:
  OneEigenThread() : saved_(Eigen::nbThreads()) { Eigen::setNbThreads(1); }
  ~OneEigenThread() { Eigen::setNbThreads(saved_); }
  OneEigenThread(const OneEigenThread&) = delete;
  OneEigenThread& operator=(const OneEigenThread&) = delete;

 private:
  int saved_;
};

}  // namespace secpe
