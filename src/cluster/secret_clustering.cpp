#include "cluster/secret_clustering.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "compute/cpu/fast_float.hpp"
#include "core/parallel.hpp"
#include "core/secret_rng.hpp"
#include "privacy/release_grid.hpp"

namespace secpe {

SecretClustering::SecretClustering(const Communicator& comm, MatrixF public_centres,
                                   std::vector<std::int64_t> public_sizes, const MatrixF& private_rows,
                                   std::vector<std::uint64_t> record_ids, std::vector<double> rho,
                                   const NearestCentreKernel& kernel, Metric metric, double clip_radius)
    : comm_(comm), centres_(std::move(public_centres)), sizes_(std::move(public_sizes)), clipped_(private_rows),
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
  // The vectorised fixed-point sum is exact while |x| * 2^32 < 2^51; clipped rows (|x| <= R) almost
  // always are. Both paths round to nearest, ties to even, so they agree bit for bit.
  const float limit = 0x1.0p18f;
  for (Eigen::Index i = 0; i < clipped_.rows(); ++i)
    vectorised_sums_ = vectorised_sums_ && fast::max_abs_bits(clipped_.row(i).data(), clipped_.cols()) < std::bit_cast<std::uint32_t>(limit);
  assignment_.resize(static_cast<std::size_t>(clipped_.rows()));
  std::vector<double> score(assignment_.size());
  kernel.search(clipped_, centres_, metric, assignment_, score);
}

NoisyClusters SecretClustering::release(const NoiseKey& key, std::uint64_t label, int iteration, double sigma) const {
  const Eigen::Index k = centres_.rows(), d = centres_.cols();
  // Per-centre sums (fixed point) and counts of the sampled private rows: reduced exactly.
  std::vector<std::int64_t> sums(static_cast<std::size_t>(k * d + k), 0);
  const SecretStreamFamily sampling(key, SecretStream::kSampling, label, static_cast<std::uint64_t>(iteration));
  for (std::size_t i = 0; i < record_ids_.size(); ++i) {
    if (sampling.uniform(record_ids_[i]) >= rho_[i]) continue;
    const auto c = static_cast<std::size_t>(assignment_[i]);
    const float* x = clipped_.row(static_cast<Eigen::Index>(i)).data();
    if (vectorised_sums_) {
      fast::add_rounded(sums.data() + c * d, x, d, kFixedPointScale);
    } else {
      for (Eigen::Index j = 0; j < d; ++j) sums[c * d + j] += std::llrint(x[j] * kFixedPointScale);
    }
    ++sums[static_cast<std::size_t>(k * d) + c];
  }
  comm_.allreduce_sum(sums);

  NoisyClusters out{MatrixF(k, d), std::vector<double>(static_cast<std::size_t>(k))};
  if (comm_.is_root()) {
    // One secret noise stream per centre, keyed by (label, iteration, centre): centres are noised
    // in parallel and the values do not depend on the thread count.
    const SecretStreamFamily noise_streams(key, SecretStream::kNoise, label, static_cast<std::uint64_t>(iteration));
    run_chunks(default_kernel_threads(), static_cast<std::size_t>(k), [&](int, std::size_t cb, std::size_t ce) {
      for (auto c = static_cast<Eigen::Index>(cb); c < static_cast<Eigen::Index>(ce); ++c) {
        SecretRng noise = noise_streams.stream(static_cast<std::uint64_t>(c));
        const double n_pub = double(sizes_[c]);
        const double m_pri = double(sums[static_cast<std::size_t>(k * d + c)]);
        out.sizes[c] = snap_to_release_grid(n_pub + m_pri + sigma * noise.normal(), sigma);
        // A public cluster left empty by k-means (duplicate rows) counts as size 1 for the noise scale.
        const double centre_noise = 2.0 * clip_radius_ / std::max(1.0, n_pub) * sigma;
        const double inv_members = 1.0 / std::max(1.0, n_pub + m_pri);
        for (Eigen::Index j = 0; j < d; ++j) {
          const double mean = (n_pub * public_part_(c, j) + from_fixed(sums[c * d + j])) * inv_members;
          out.centres(c, j) = static_cast<float>(snap_to_release_grid(mean + centre_noise * noise.normal(), centre_noise));
        }
      }
    });
  }
  comm_.broadcast(std::span<float>(out.centres.data(), static_cast<std::size_t>(k * d)));
  comm_.broadcast(std::span<double>(out.sizes));
  return out;
}

}  // namespace secpe
