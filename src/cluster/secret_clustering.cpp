#include "cluster/secret_clustering.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "core/parallel.hpp"
#include "core/secret_rng.hpp"

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
  // The kernel keeps the private rows and the public part for every release (a GPU in its
  // memory), and the assignment searches the kept rows.
  kept_rows_ = kernel.keep(clipped_);
  kept_public_ = kernel.keep(public_part_);
  assignment_.resize(static_cast<std::size_t>(clipped_.rows()));
  std::vector<double> score(assignment_.size());
  kernel.search_kept(*kept_rows_, centres_, metric, 1, assignment_, score);
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
  owned.members.resize(owned.start[mine]);
  std::vector<std::size_t> fill(owned.start.begin(), owned.start.end() - 1);
  for (std::size_t i = 0; i < n; ++i)
    if (sampled[i] && to[i] == me) owned.members[fill[local_centre(i)]++] = static_cast<std::int64_t>(i);
  for (std::size_t q = 0; q < centre_of.size(); ++q) owned.members[fill[centre_of[q]]++] = -1 - static_cast<std::int64_t>(q);
  return owned;
}

std::vector<std::uint8_t> SecretClustering::sample(const NoiseKey& key, std::uint64_t label, int iteration) const {
  const SecretStreamFamily sampling(key, SecretStream::kSampling, label, static_cast<std::uint64_t>(iteration));
  std::vector<std::uint8_t> sampled(record_ids_.size());
  run_chunks(chunk_count(kernel_.threads(), sampled.size(), 200.0), sampled.size(), [&](int, std::size_t b, std::size_t e) {
    std::vector<double> u(e - b);
    sampling.uniforms(std::span<const std::uint64_t>(record_ids_).subspan(b, e - b), u);
    for (std::size_t i = b; i < e; ++i) sampled[i] = u[i - b] < rho_[i] ? 1 : 0;
  });
  return sampled;
}

NoisyClusters SecretClustering::release(const NoiseKey& key, std::uint64_t label, int iteration, double sigma) const {
  const ReleaseRequest request{this, &key, label, iteration, sigma};
  return std::move(release_batch(std::span<const ReleaseRequest>(&request, 1)).front());
}

std::vector<NoisyClusters> SecretClustering::release_batch(std::span<const ReleaseRequest> requests) {
  if (requests.empty()) return {};
  const NearestCentreKernel& kernel = requests.front().clustering->kernel_;
  // Every label's private sampling (keyed by (label, iteration, record)), the labels side by side.
  std::vector<std::vector<std::uint8_t>> sampled(requests.size());
  run_chunks(kernel.threads(), requests.size(), [&](int, std::size_t b, std::size_t e) {
    for (std::size_t r = b; r < e; ++r) sampled[r] = requests[r].clustering->sample(*requests[r].key, requests[r].label, requests[r].iteration);
  });
  // Each rank owns a consecutive range of every label's centres: it gathers their sampled rows
  // from every rank, sums them (fixed point, exact) and noises them, so the noise is drawn by all
  // ranks at once. One secret noise stream per centre, keyed by (label, iteration, centre): the
  // values do not depend on which rank, thread or device draws them.
  std::vector<OwnedRows> owned;
  std::vector<SecretStreamFamily> noise;
  std::vector<NoisyClusters> out;
  std::vector<NoisyMeansTask> tasks;
  owned.reserve(requests.size()), noise.reserve(requests.size()), out.reserve(requests.size());
  for (std::size_t r = 0; r < requests.size(); ++r) {
    const SecretClustering& c = *requests[r].clustering;
    if (&c.kernel_ != &kernel) throw std::logic_error("SecretClustering::release_batch: the labels use different kernels");
    const auto range = c.comm_.shard(static_cast<std::uint64_t>(c.centres_.rows()));
    const std::size_t mine = range.second - range.first;
    owned.push_back(c.owned_rows(sampled[r], range.first, mine));
    noise.emplace_back(*requests[r].key, SecretStream::kNoise, requests[r].label, static_cast<std::uint64_t>(requests[r].iteration));
    out.push_back({MatrixF(static_cast<Eigen::Index>(mine), c.centres_.cols()), std::vector<double>(mine), static_cast<Eigen::Index>(range.first), nullptr});
  }
  for (std::size_t r = 0; r < requests.size(); ++r) {
    const SecretClustering& c = *requests[r].clustering;
    tasks.push_back({.rows = c.kept_rows_.get(), .arrived = &owned[r].arrived, .members = owned[r].members, .start = owned[r].start,
                     .public_part = c.kept_public_.get(), .public_sizes = c.sizes_, .first = static_cast<std::uint64_t>(out[r].first),
                     .noise = &noise[r], .sigma = requests[r].sigma, .clip_radius = c.clip_radius_, .centres = &out[r].centres,
                     .sizes = out[r].sizes, .copy = &out[r].device_copy});
  }
  kernel.noisy_centre_means(tasks);
  // Only released values travel: every rank's noised sizes, in rank (= centre) order. The centres
  // stay with their owners: the votes are sharded by centre too.
  for (std::size_t r = 0; r < requests.size(); ++r) out[r].sizes = requests[r].clustering->comm_.allgather(std::span<const double>(out[r].sizes));
  return out;
}

}  // namespace secpe
