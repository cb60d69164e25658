#include "cluster/secret_clustering.hpp"

#include <algorithm>
#include <cmath>

#include "compute/fixed_point.hpp"
#include "core/parallel.hpp"
#include "core/secret_rng.hpp"
#include "privacy/noisy_release.hpp"

namespace secpe {

SecretClustering::SecretClustering(const Communicator& comm, MatrixF public_centres,
                                   std::vector<std::int64_t> public_sizes, const MatrixF& private_rows,
                                   std::vector<std::uint64_t> record_ids, std::vector<double> rho,
                                   const NearestCentreKernel& kernel, Metric metric, double clip_radius)
    : comm_(comm), kernel_(kernel), centres_(std::move(public_centres)), sizes_(std::move(public_sizes)), clipped_(private_rows),
      record_ids_(std::move(record_ids)), rho_(std::move(rho)), clip_radius_(clip_radius) {
  // Scaling by R / norm in double and rounding to float can land a hair above R; the factor is
  // shrunk by a few float ulps so that the stored row is within R.
  const auto clip_rows = [this](MatrixF& m) {
    Eigen::Index clipped = 0;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
      const double norm = m.row(i).cast<double>().norm();
      if (norm <= clip_radius_) continue;
      m.row(i) = (m.row(i).cast<double>() * (clip_radius_ / norm * (1.0 - 0x1.0p-21))).cast<float>();
      ++clipped;
    }
    return clipped;
  };
  clip_rows(clipped_);
  public_part_ = centres_;
  clipped_centres_ = clip_rows(public_part_);
  assignment_.resize(static_cast<std::size_t>(clipped_.rows()));
  std::vector<double> score(assignment_.size());
  kernel.search(clipped_, centres_, metric, assignment_, score);
}

NoisyClusters SecretClustering::release(const NoiseKey& key, std::uint64_t label, int iteration, double sigma) const {
  const Eigen::Index k = centres_.rows(), d = centres_.cols();
  // Per-centre sums (fixed point) and counts of the sampled private rows: reduced exactly.
  std::vector<std::int64_t> sums(static_cast<std::size_t>(k * d + k), 0);  // K x d sums, then K counts
  const SecretStreamFamily sampling(key, SecretStream::kSampling, label, static_cast<std::uint64_t>(iteration));
  std::vector<std::uint8_t> sampled(record_ids_.size());
  for (std::size_t i = 0; i < record_ids_.size(); ++i) sampled[i] = sampling.uniform(record_ids_[i]) < rho_[i] ? 1 : 0;
  const std::span<std::int64_t> all(sums);
  kernel_.add_to_centres(clipped_, assignment_, sampled, all.first(static_cast<std::size_t>(k * d)), all.subspan(static_cast<std::size_t>(k * d)));
  comm_.allreduce_sum(sums);

  NoisyClusters out{MatrixF(k, d), std::vector<double>(static_cast<std::size_t>(k))};
  if (comm_.is_root()) {
    // One secret noise stream per centre, keyed by (label, iteration, centre): centres are noised
    // in parallel and the values do not depend on the thread count.
    const SecretStreamFamily noise_streams(key, SecretStream::kNoise, label, static_cast<std::uint64_t>(iteration));
    run_chunks(kernel_.threads(), static_cast<std::size_t>(k), [&](int, std::size_t cb, std::size_t ce) {
      for (auto c = static_cast<Eigen::Index>(cb); c < static_cast<Eigen::Index>(ce); ++c) {
        SecretRng noise = noise_streams.stream(static_cast<std::uint64_t>(c));
        const double n_pub = double(sizes_[c]);
        const double m_pri = double(sums[static_cast<std::size_t>(k * d + c)]);
        out.sizes[c] = noisy_release(n_pub + m_pri, sigma, noise);
        // A public cluster left empty by k-means (duplicate rows) counts as size 1 for the noise scale.
        const double centre_noise = 2.0 * clip_radius_ / std::max(1.0, n_pub) * sigma;
        const double inv_members = 1.0 / std::max(1.0, n_pub + m_pri);
        for (Eigen::Index j = 0; j < d; ++j) {
          const double mean = (n_pub * public_part_(c, j) + from_fixed(sums[c * d + j])) * inv_members;
          out.centres(c, j) = static_cast<float>(noisy_release(mean, centre_noise, noise));
        }
      }
    });
  }
  comm_.broadcast(std::span<float>(out.centres.data(), static_cast<std::size_t>(k * d)));
  comm_.broadcast(std::span<double>(out.sizes));
  return out;
}

}  // namespace secpe
