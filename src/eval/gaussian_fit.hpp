#pragma once
// Gaussian fits of embedding sets and the Frechet distance between them (FID, Heusel et al. 2017).
// The sums behind a fit are fixed point, so a set split into chunks and over ranks in any way
// gives the same fit bit for bit.
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "core/matrix.hpp"

namespace secpe {

class Communicator;

struct GaussianFit {
  Eigen::VectorXd mean;
  Eigen::MatrixXd covariance;  // unbiased (divides by n - 1)
};

// Count, sum of rows and sum of outer products (upper triangle) of a set of rows with entries of
// magnitude at most 1 (unit embeddings), each chunk's sums rounded to 2^-32 and added as integers.
class MomentSums {
 public:
  explicit MomentSums(int dim);
  int dim() const { return dim_; }
  std::int64_t count() const { return sums_[0]; }
  void add(const MatrixF& rows);
  void allreduce(const Communicator& comm);  // every rank gets the sums over every rank
  GaussianFit fit() const;                   // needs count() >= 2

 private:
  int dim_;
  std::vector<std::int64_t> sums_;  // [count, sum x (dim), sum x x^T (upper triangle, row by row)]
};

// ||m1 - m2||^2 + tr(S1) + tr(S2) - 2 tr((S1 S2)^(1/2)), with tr((S1 S2)^(1/2)) computed as
// tr((S1^(1/2) S2 S1^(1/2))^(1/2)): a symmetric positive semi-definite matrix whose square root
// comes from an eigendecomposition (tiny negative eigenvalues from round-off clamped to 0). The
// result is clamped at 0 for the same reason (identical fits give exactly 0 up to round-off).
double frechet_distance(const GaussianFit& a, const GaussianFit& b);

}  // namespace secpe
