#include "evolve/votes.hpp"

#include <algorithm>
#include <limits>

#include "core/rng.hpp"

namespace secpe {

VoteResult secpe_votes(const Communicator& comm, const NoisyClusters& clusters, const MatrixF& candidates,
                       std::size_t shard_begin, std::size_t shard_end, const NearestCentreKernel& kernel, Metric metric) {
  const auto n_cand = static_cast<std::size_t>(candidates.rows());
  const auto k = static_cast<std::size_t>(clusters.centres.rows());
  const MatrixF shard = candidates.middleRows(static_cast<Eigen::Index>(shard_begin),
                                              static_cast<Eigen::Index>(shard_end - shard_begin));
  VoteResult result{std::vector<double>(n_cand, 0.0), std::vector<double>(n_cand, 0.0)};
  if (k == 0 || n_cand == 0) return result;

  // Nearest candidate of each noisy centre: search this shard, then min-loc over the ranks.
  std::vector<MinLoc> best(k, MinLoc{std::numeric_limits<double>::infinity(), std::numeric_limits<std::int64_t>::max()});
  std::vector<std::int32_t> nearest(k);
  std::vector<double> score(k);
  if (shard.rows() > 0) {
    kernel.search(clusters.centres, shard, metric, nearest, score);
    for (std::size_t c = 0; c < k; ++c) best[c] = {score[c], static_cast<std::int64_t>(shard_begin) + nearest[c]};
  }
  comm.allreduce_min_loc(best);
  for (std::size_t c = 0; c < k; ++c) result.votes[static_cast<std::size_t>(best[c].index)] += clusters.sizes[c];

  // Tie key: each candidate's distance to its nearest noisy centre (owner fills, min-loc gathers).
  std::vector<MinLoc> key(n_cand, MinLoc{std::numeric_limits<double>::infinity(), 0});
  std::vector<std::int32_t> cand_nearest(shard_end - shard_begin);
  std::vector<double> cand_score(shard_end - shard_begin);
  kernel.search(shard, clusters.centres, metric, cand_nearest, cand_score);
  for (std::size_t i = 0; i < cand_score.size(); ++i) key[shard_begin + i] = {cand_score[i], 0};
  comm.allreduce_min_loc(key);
  for (std::size_t i = 0; i < n_cand; ++i) result.tie_key[i] = key[i].value;
  return result;
}

VoteResult augpe_votes(const Communicator& comm, const MatrixF& private_rows, const MatrixF& candidates,
                       const NearestCentreKernel& kernel, Metric metric, double sigma, double threshold,
                       std::uint64_t seed, std::uint64_t label, int iteration) {
  const auto n_cand = static_cast<std::size_t>(candidates.rows());
  VoteResult result{std::vector<double>(n_cand, 0.0), std::vector<double>(n_cand, 0.0)};
  std::vector<std::int64_t> histogram(n_cand, 0);
  std::vector<std::int32_t> nearest(static_cast<std::size_t>(private_rows.rows()));
  std::vector<double> score(nearest.size());
  if (n_cand > 0) kernel.search(private_rows, candidates, metric, nearest, score);
  for (auto c : nearest) ++histogram[static_cast<std::size_t>(c)];
  comm.allreduce_sum(histogram);
  if (comm.is_root()) {
    CounterRng noise(seed, Stream::kNoise, label, static_cast<std::uint64_t>(iteration));
    for (std::size_t i = 0; i < n_cand; ++i) {
      result.votes[i] = std::max(0.0, double(histogram[i]) + sigma * noise.normal() - threshold);
    }
  }
  comm.broadcast(std::span<double>(result.votes));
  return result;
}

}  // namespace secpe
