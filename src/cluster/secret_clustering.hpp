#pragma once
// SecretClustering (paper Algorithm 2): each iteration samples private records (each with its
// own probability rho_i, from the secret-keyed stream (label, iteration, record)), adds their
// clipped embeddings to their nearest public centre, reduces the per-centre sums and counts
// exactly to the rank that owns the centre (ranks own consecutive ranges of centres), which adds
// calibrated Gaussian noise from the secret key's stream for that centre:
//   n~_k = n_k + m_k + N(0, sigma^2)
//   e~_k = (n_k c_k + sum_{i in C_k} e_i) / (n_k + m_k) + (2R / n_k) N(0, sigma^2 I)
// Sensitivity: the noise scale 2R/n_k bounds the change of the mean when one record joins or
// leaves cluster k only if every term has norm at most R. Private rows are clipped to R, and so is
// the public centre's contribution: c_k is the k-means centre e_k scaled to norm min(|e_k|, R)
// (k-means of unit vectors stays inside the unit ball, but not inside a radius R < 1, and under
// the l2 metric nothing bounds it). Assignments use the unclipped centres: they depend on one
// record's own embedding and on public data only. Released values are snapped to the release
// grid (privacy/noisy_release.hpp) before they leave their rank (allgather). The private-to-centre
// assignment never changes across iterations, so it is computed once.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "compute/nearest.hpp"
#include "core/matrix.hpp"
#include "core/secret_key.hpp"
#include "comms/communicator.hpp"

namespace secpe {

// A release, sharded by centre: each rank holds its block of the K centres (ranks own consecutive
// ranges, Communicator::shard of K) and every size. One rank holds them all.
struct NoisyClusters {
  MatrixF centres;            // this rank's released centres: rows first .. first + centres.rows() - 1 of the K
  std::vector<double> sizes;  // all K, released
  Eigen::Index first = 0;     // the global index of centres' first row
  // The kernel's copy of `centres` (a GPU's, where its release made them), for the votes' search.
  std::shared_ptr<const DeviceCopy> device_copy;
};

class SecretClustering;

// One label's release in a batch (SecretClustering::release_batch).
struct ReleaseRequest {
  const SecretClustering* clustering;
  const NoiseKey* key;
  std::uint64_t label;
  int iteration;
  double sigma;
};

class SecretClustering {
 public:
  // `public_centres`/`public_sizes`: k-means of the label's public embeddings (identical on all
  // ranks). `private_rows`: this rank's private embeddings of the label, with their global record
  // ids and sampling probabilities (taken, and clipped in place).
  SecretClustering(const Communicator& comm, MatrixF public_centres, std::vector<std::int64_t> public_sizes,
                   MatrixF private_rows, std::vector<std::uint64_t> record_ids, std::vector<double> rho,
                   const NearestCentreKernel& kernel, Metric metric, double clip_radius);
  SecretClustering(const SecretClustering&) = delete;  // the kernel keeps views of its rows
  SecretClustering& operator=(const SecretClustering&) = delete;

  NoisyClusters release(const NoiseKey& key, std::uint64_t label, int iteration, double sigma) const;
  // Several labels' releases at once, each what release() gives it alone: the sampling of every
  // label on the host threads, each label's exchange of sampled rows in request order (every rank
  // must make the same requests), then one NearestCentreKernel::noisy_centre_means for every label's
  // centres (on a GPU: one upload, one launch, one download), the sizes gathered in request order.
  // Every request's clustering must use the same kernel.
  static std::vector<NoisyClusters> release_batch(std::span<const ReleaseRequest> requests);
  Eigen::Index clusters() const { return centres_.rows(); }
  // Public centres whose norm exceeded the clipping radius (public information).
  Eigen::Index clipped_centres() const { return clipped_centres_; }
  // The public part of every released centre (the k-means centre clipped to R) and its count.
  const MatrixF& public_centres() const { return public_part_; }
  std::span<const std::int64_t> public_sizes() const { return sizes_; }

 private:
  // The sampled rows of this rank's centres [first, first + mine), from every rank, by centre:
  // centre i's are members[start[i] .. start[i + 1]) (NoisyMeansTask's encoding: v >= 0 is this
  // rank's private row v, v < 0 row -1 - v of `arrived`).
  struct OwnedRows {
    MatrixF arrived;
    std::vector<std::size_t> start;
    std::vector<std::int64_t> members;
  };
  std::vector<std::uint8_t> sample(const NoiseKey& key, std::uint64_t label, int iteration) const;
  OwnedRows owned_rows(std::span<const std::uint8_t> sampled, std::uint64_t first, std::size_t mine) const;

  const Communicator& comm_;
  const NearestCentreKernel& kernel_;     // assignments, and the release's thread count
  MatrixF centres_;                       // k-means centres: private rows are assigned to these
  MatrixF public_part_;                   // the same, clipped to the radius: what the means add
  Eigen::Index clipped_centres_ = 0;
  std::vector<std::int64_t> sizes_;
  MatrixF clipped_;                       // private rows clipped to the radius
  std::unique_ptr<KeptRows> kept_rows_;   // clipped_ and public_part_ kept by the kernel (a GPU's memory)
  std::unique_ptr<KeptRows> kept_public_;
  std::vector<std::uint64_t> record_ids_;
  std::vector<double> rho_;
  std::vector<std::int32_t> assignment_;  // cached nearest public centre per private row
  double clip_radius_;
};

}  // namespace secpe
