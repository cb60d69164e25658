#pragma once
// SecretClustering (paper Algorithm 2): each iteration samples private records (each with its
// own probability rho_i, from a counter-based stream keyed by (seed, label, iteration, record)),
// adds their clipped embeddings to their nearest public centre, reduces the per-centre sums and
// counts exactly over the ranks, and rank 0 adds calibrated Gaussian noise:
//   n~_k = n_k + m_k + N(0, sigma^2)
//   e~_k = (n_k e_k + sum_{i in C_k} e_i) / (n_k + m_k) + (2R / n_k) N(0, sigma^2 I)
// Only the noisy values leave rank 0 (broadcast). The private-to-centre assignment never changes
// across iterations, so it is computed once.
#include <cstdint>
#include <vector>

#include "compute/nearest.hpp"
#include "core/matrix.hpp"
#include "dist/communicator.hpp"

namespace secpe {

struct NoisyClusters {
  MatrixF centres;            // K x d, released
  std::vector<double> sizes;  // K, released
};

class SecretClustering {
 public:
  // `public_centres`/`public_sizes`: k-means of the label's public embeddings (identical on all
  // ranks). `private_rows`: this rank's private embeddings of the label, with their global record
  // ids and sampling probabilities.
  SecretClustering(const Communicator& comm, MatrixF public_centres, std::vector<std::int64_t> public_sizes,
                   const MatrixF& private_rows, std::vector<std::uint64_t> record_ids, std::vector<double> rho,
                   const NearestCentreKernel& kernel, Metric metric, double clip_radius);

  NoisyClusters release(std::uint64_t seed, std::uint64_t label, int iteration, double sigma) const;
  Eigen::Index clusters() const { return centres_.rows(); }

 private:
  const Communicator& comm_;
  MatrixF centres_;
  std::vector<std::int64_t> sizes_;
  MatrixF clipped_;                       // private rows clipped to the radius
  std::vector<std::uint64_t> record_ids_;
  std::vector<double> rho_;
  std::vector<std::int32_t> assignment_;  // cached nearest public centre per private row
  double clip_radius_;
  bool vectorised_sums_ = true;           // every clipped value small enough for fast::add_rounded
};

}  // namespace secpe
