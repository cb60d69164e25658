#include "cluster/secret_clustering.hpp"

#include <algorithm>
#include <cmath>

#include "compute/fixed_point.hpp"
#include "core/parallel.hpp"
#include "core/secret_rng.hpp"
#include "privacy/noisy_release.hpp"

namespace secpe {

SecretClustering::SecretClustering(const Communicator& comm, MatrixF public_centres,
                                   std::vector<std::int64_t> public_sizes, MatrixF private_rows,
                                   std::vector<std::uint64_t> record_ids, std::vector<double> rho,
                                   const NearestCentreKernel& kernel, Metric metric, double clip_radius)
    : comm_(comm), kernel_(kernel), centres_(std::move(public_centres)), sizes_(std::move(public_sizes)), clipped_(std::move(private_rows)),
      record_ids_(std::move(record_ids)), rho_(std::move(rho)), clip_radius_(clip_radius) {
  // Scaling by R / norm in double and rounding to float can land a hair above R; the factor is
  // shrunk by a few float ulps so that the stored row is within R.
  // Rows are independent, so the kernel's threads share them out.
  const auto clip_rows = [this](MatrixF& m) {
    const auto n = static_cast<std::size_t>(m.rows());
    std::vector<std::uint8_t> clipped(n, 0);
    run_chunks(chunk_count(kernel_.threads(), n, 8.0 * double(m.cols())), n, [&](int, std::size_t b, std::size_t e) {
      for (std::size_t r = b; r < e; ++r) {
        const auto i = static_cast<Eigen::Index>(r);
        const double norm = m.row(i).cast<double>().norm();
        if (norm <= clip_radius_) continue;
        m.row(i) = (m.row(i).cast<double>() * (clip_radius_ / norm * (1.0 - 0x1.0p-21))).cast<float>();
        clipped[r] = 1;
      }
    });
    return static_cast<Eigen::Index>(std::count(clipped.begin(), clipped.end(), std::uint8_t{1}));
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
  const auto kd = static_cast<std::size_t>(d);
  // Per-centre sums (fixed point) and counts of the sampled private rows.
  std::vector<std::int64_t> sums(static_cast<std::size_t>(k) * kd, 0), counts(static_cast<std::size_t>(k), 0);
  const SecretStreamFamily sampling(key, SecretStream::kSampling, label, static_cast<std::uint64_t>(iteration));
  std::vector<std::uint8_t> sampled(record_ids_.size());
  run_chunks(chunk_count(kernel_.threads(), sampled.size(), 1000.0), sampled.size(), [&](int, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) sampled[i] = sampling.uniform(record_ids_[i]) < rho_[i] ? 1 : 0;
  });
  kernel_.add_to_centres(clipped_, assignment_, sampled, sums, counts);

  // Each rank owns a consecutive range of centres: it receives their exact totals (reduce-scatter)
  // and noises them, so the noise is drawn by all ranks at once.
  std::vector<std::size_t> sum_blocks, count_blocks;
  for (int r = 0; r < comm_.size(); ++r) {
    const auto [b, e] = comm_.shard_of(static_cast<std::uint64_t>(k), r);
    count_blocks.push_back(e - b);
    sum_blocks.push_back((e - b) * kd);
  }
  const std::vector<std::int64_t> my_sums = comm_.reduce_scatter_sum(std::move(sums), sum_blocks);
  const std::vector<std::int64_t> my_counts = comm_.reduce_scatter_sum(std::move(counts), count_blocks);
  const auto range = comm_.shard(static_cast<std::uint64_t>(k));
  const std::uint64_t first = range.first;  // not a structured binding: clang 14 cannot capture those
  const std::size_t mine = range.second - range.first;

  // One secret noise stream per centre, keyed by (label, iteration, centre): the values do not
  // depend on which rank or thread draws them.
  const SecretStreamFamily noise_streams(key, SecretStream::kNoise, label, static_cast<std::uint64_t>(iteration));
  // Each rank writes its block of released centres in place; the others' arrive below.
  NoisyClusters out{MatrixF(k, d), {}};
  float* const centres = out.centres.data() + first * kd;
  std::vector<double> sizes(mine);
  run_chunks(kernel_.threads(), mine, [&](int, std::size_t ib, std::size_t ie) {
    for (std::size_t i = ib; i < ie; ++i) {
      const auto c = static_cast<Eigen::Index>(first + i);
      SecretRng noise = noise_streams.stream(static_cast<std::uint64_t>(c));
      const double n_pub = double(sizes_[static_cast<std::size_t>(c)]);
      const double m_pri = double(my_counts[i]);
      sizes[i] = noisy_release(n_pub + m_pri, sigma, noise);
      // A public cluster left empty by k-means (duplicate rows) counts as size 1 for the noise scale.
      const GaussianRelease centre_release(2.0 * clip_radius_ / std::max(1.0, n_pub) * sigma);
      const double inv_members = 1.0 / std::max(1.0, n_pub + m_pri);
      const float* public_row = public_part_.row(c).data();
      for (std::size_t j = 0; j < kd; ++j) {
        const double mean = (n_pub * public_row[j] + from_fixed(my_sums[i * kd + j])) * inv_members;
        centres[i * kd + j] = static_cast<float>(centre_release(mean, noise));
      }
    }
  });

  // Only released values travel: every rank's noised centres, in rank (= centre) order.
  out.sizes = comm_.allgather(std::span<const double>(sizes));
  comm_.allgather_in_place(std::span<float>(out.centres.data(), out.centres.size()), first * kd, mine * kd);
  return out;
}

}  // namespace secpe
