#include "cluster/secret_clustering.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

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

// Each sampled row travels to the rank that owns its centre (ranks own consecutive ranges of
// centres), which adds it to that centre's sum. The sums are integers (fixed point), so the order
// the rows arrive in does not matter, and they equal a reduction of every rank's partial sums. A
// label samples about a thousand rows, far fewer than its K centres times d coordinates, so
// sending the rows costs a fraction of reducing K x d partial sums.
SecretClustering::OwnedRows SecretClustering::owned_rows(std::span<const std::uint8_t> sampled, std::uint64_t first,
                                                          std::size_t mine) const {
  const auto k = static_cast<std::uint64_t>(centres_.rows());
  const auto kd = static_cast<std::size_t>(clipped_.cols());
  const auto ranks = static_cast<std::size_t>(comm_.size()), me = static_cast<std::size_t>(comm_.rank());
  std::vector<std::uint64_t> starts(ranks);
  for (std::size_t r = 0; r < ranks; ++r) starts[r] = comm_.shard_of(k, static_cast<int>(r)).first;
  const auto owner = [&](std::int32_t c) {  // ranks without centres come last, starting at k
    return static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), static_cast<std::uint64_t>(c)) - starts.begin()) - 1;
  };
  // One record per row sent: its centre, then its coordinates.
  const std::size_t record = sizeof(std::int32_t) + kd * sizeof(float);
  const std::size_t n = sampled.size();
  std::vector<std::size_t> to(n, me), send_counts(ranks, 0);  // each sampled row's owner
  for (std::size_t i = 0; i < n; ++i) {
    if (!sampled[i]) continue;
    to[i] = owner(assignment_[i]);
    if (to[i] != me) send_counts[to[i]] += record;
  }
  std::vector<std::size_t> at(ranks, 0);
  for (std::size_t r = 1; r < ranks; ++r) at[r] = at[r - 1] + send_counts[r - 1];
  std::vector<unsigned char> send(at.back() + send_counts.back());
  for (std::size_t i = 0; i < n; ++i) {
    if (!sampled[i] || to[i] == me) continue;
    unsigned char* out = send.data() + at[to[i]];
    std::memcpy(out, &assignment_[i], sizeof(std::int32_t));
    std::memcpy(out + sizeof(std::int32_t), clipped_.row(static_cast<Eigen::Index>(i)).data(), kd * sizeof(float));
    at[to[i]] += record;
  }
  std::vector<std::size_t> recv_counts;
  const std::vector<unsigned char> received = comm_.alltoallv(send, send_counts, recv_counts);

  OwnedRows owned{MatrixF(static_cast<Eigen::Index>(received.size() / record), clipped_.cols()), std::vector<std::size_t>(mine + 1, 0), {}};
  std::vector<std::size_t> centre_of(static_cast<std::size_t>(owned.arrived.rows()));
  for (std::size_t q = 0; q < centre_of.size(); ++q) {
    const unsigned char* in = received.data() + q * record;
    std::int32_t c;
    std::memcpy(&c, in, sizeof c);
    if (c < 0 || static_cast<std::uint64_t>(c) < first || static_cast<std::uint64_t>(c) >= first + mine)
      throw std::logic_error("release: a row arrived for a centre this rank does not own");
    centre_of[q] = static_cast<std::size_t>(static_cast<std::uint64_t>(c) - first);
    std::memcpy(owned.arrived.row(static_cast<Eigen::Index>(q)).data(), in + sizeof(std::int32_t), kd * sizeof(float));
  }
  // The rows by centre: this rank's own sampled rows of its centres, then those that arrived.
  const auto local_centre = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<std::uint64_t>(assignment_[i]) - first); };
  for (std::size_t i = 0; i < n; ++i)
    if (sampled[i] && to[i] == me) ++owned.start[local_centre(i) + 1];
  for (const auto c : centre_of) ++owned.start[c + 1];
  for (std::size_t c = 0; c < mine; ++c) owned.start[c + 1] += owned.start[c];
  owned.rows.resize(owned.start[mine]);
  std::vector<std::size_t> fill(owned.start.begin(), owned.start.end() - 1);
  for (std::size_t i = 0; i < n; ++i)
    if (sampled[i] && to[i] == me) owned.rows[fill[local_centre(i)]++] = clipped_.row(static_cast<Eigen::Index>(i)).data();
  for (std::size_t q = 0; q < centre_of.size(); ++q) owned.rows[fill[centre_of[q]]++] = owned.arrived.row(static_cast<Eigen::Index>(q)).data();
  return owned;
}

NoisyClusters SecretClustering::release(const NoiseKey& key, std::uint64_t label, int iteration, double sigma) const {
  const Eigen::Index k = centres_.rows(), d = centres_.cols();
  const auto kd = static_cast<std::size_t>(d);
  const SecretStreamFamily sampling(key, SecretStream::kSampling, label, static_cast<std::uint64_t>(iteration));
  std::vector<std::uint8_t> sampled(record_ids_.size());
  run_chunks(chunk_count(kernel_.threads(), sampled.size(), 200.0), sampled.size(), [&](int, std::size_t b, std::size_t e) {
    std::vector<double> u(e - b);
    sampling.uniforms(std::span<const std::uint64_t>(record_ids_).subspan(b, e - b), u);
    for (std::size_t i = b; i < e; ++i) sampled[i] = u[i - b] < rho_[i] ? 1 : 0;
  });
  // Each rank owns a consecutive range of centres: it sums their sampled rows from every rank
  // (fixed point, exact) and noises them, so the noise is drawn by all ranks at once.
  const auto range = comm_.shard(static_cast<std::uint64_t>(k));
  const std::uint64_t first = range.first;  // not a structured binding: clang 14 cannot capture those
  const std::size_t mine = range.second - range.first;
  const OwnedRows owned = owned_rows(sampled, first, mine);

  // One secret noise stream per centre, keyed by (label, iteration, centre): the values do not
  // depend on which rank or thread draws them.
  const SecretStreamFamily noise_streams(key, SecretStream::kNoise, label, static_cast<std::uint64_t>(iteration));
  NoisyClusters out{MatrixF(static_cast<Eigen::Index>(mine), d), {}, static_cast<Eigen::Index>(first)};
  float* const centres = out.centres.data();
  std::vector<double> sizes(mine);
  // Each centre's sum is made where its noise is added, in a buffer that stays in cache: no K x d
  // array of sums is cleared, filled and read again.
  run_chunks(kernel_.threads(), mine, [&](int, std::size_t ib, std::size_t ie) {
    std::vector<std::int64_t> sum(kd);
    for (std::size_t i = ib; i < ie; ++i) {
      const auto c = static_cast<Eigen::Index>(first + i);
      std::fill(sum.begin(), sum.end(), 0);
      for (std::size_t q = owned.start[i]; q < owned.start[i + 1]; ++q) add_fixed_point(sum.data(), owned.rows[q], d);
      SecretRng noise = noise_streams.stream(static_cast<std::uint64_t>(c));
      const double n_pub = double(sizes_[static_cast<std::size_t>(c)]);
      const double m_pri = double(owned.start[i + 1] - owned.start[i]);
      sizes[i] = noisy_release(n_pub + m_pri, sigma, noise);
      // A public cluster left empty by k-means (duplicate rows) counts as size 1 for the noise scale.
      const GaussianRelease centre_release(2.0 * clip_radius_ / std::max(1.0, n_pub) * sigma);
      const double inv_members = 1.0 / std::max(1.0, n_pub + m_pri);
      const float* public_row = public_part_.row(c).data();
      for (std::size_t j = 0; j < kd; ++j) {
        const double mean = (n_pub * public_row[j] + from_fixed(sum[j])) * inv_members;
        centres[i * kd + j] = static_cast<float>(centre_release(mean, noise));
      }
    }
  });

  // Only released values travel: every rank's noised sizes, in rank (= centre) order. The centres
  // stay with their owners: the votes are sharded by centre too.
  out.sizes = comm_.allgather(std::span<const double>(sizes));
  return out;
}

}  // namespace secpe
