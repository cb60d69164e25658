#pragma once
// Better estimates from a SecPE release, by post-processing (no privacy cost): the released sizes
// and centres are shrunk towards their public parts by how much signal the release holds beyond
// its noise (empirical Bayes, method of moments over the label's K clusters).
//
// A released size is n_k + m_k + N(0, sigma^2) with n_k public, a released centre is the mean of
// the public part and the sampled private rows plus N(0, (2R sigma / n_k)^2) per coordinate. With
// few private records per cluster (the 5,000-review dev set samples about five per label) the
// noise is far larger than m_k and than the private shift of the mean, so the raw release is
// almost pure noise and voting with it is worse than voting at random. The estimate approaches
// the release itself only where the sampled private records per cluster (about B / K) outweigh
// the noise's norm, 2 R sigma sqrt(d) / n_k against their shift m_k |delta| / n_k: a larger
// dataset alone does not get there, nor a larger batch, whose sigma grows with it (measured by
// `secpe bench histogram --signal-candidates centres`, docs/studies.md).
#include <cstdint>
#include <span>

#include "cluster/secret_clustering.hpp"
#include "core/matrix.hpp"
#include "comms/communicator.hpp"

namespace secpe {

struct ReleaseShrinkage {
  double size_weight = 0.0;    // share of the released private count kept: tau^2 / (tau^2 + sigma^2)
  double centre_signal = 0.0;  // per-coordinate variance of the private shift of the centres
};

// `public_centres` are the public parts as released (clipped to R), `public_sizes` their counts
// (all K, on every rank). The estimate keeps the release's sharding: this rank's block of centres,
// every size; the ranks exchange one released number per centre.
NoisyClusters shrink_release(const Communicator& comm, const NoisyClusters& released, const MatrixF& public_centres,
                             std::span<const std::int64_t> public_sizes, double sigma, double clip_radius,
                             ReleaseShrinkage* shrinkage = nullptr);

}  // namespace secpe
