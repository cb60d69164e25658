#include "evolve/votes.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "core/secret_rng.hpp"
#include "privacy/noisy_release.hpp"

namespace secpe {

namespace {

// Each centre's `votes` nearest candidates over all shards: every rank's top-k list is gathered,
// and every rank merges them identically by (score, global index).
void spread_votes(const Communicator& comm, const NoisyClusters& clusters, const MatrixF& shard, std::size_t shard_begin,
                  const NearestCentreKernel& kernel, Metric metric, std::size_t votes, std::vector<double>& out) {
  const auto k = static_cast<std::size_t>(clusters.centres.rows());
  const std::size_t local_k = std::min<std::size_t>(votes, static_cast<std::size_t>(shard.rows()));
  std::vector<MinLoc> mine(k * local_k);
  if (local_k > 0) {
    std::vector<std::int32_t> nearest(k * local_k);
    std::vector<double> score(k * local_k);
    kernel.search_k(clusters.centres, shard, metric, static_cast<int>(local_k), nearest, score);
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = {score[i], static_cast<std::int64_t>(shard_begin) + nearest[i]};
  }
  const std::string packed(reinterpret_cast<const char*>(mine.data()), mine.size() * sizeof(MinLoc));
  const auto all = comm.allgather_strings({packed});
  std::vector<std::vector<MinLoc>> per_centre(k);
  for (const auto& bytes : all) {
    const std::size_t n = bytes.size() / sizeof(MinLoc), rank_k = k ? n / k : 0;
    std::vector<MinLoc> v(n);
    if (n) std::memcpy(v.data(), bytes.data(), bytes.size());
    for (std::size_t c = 0; c < k; ++c) per_centre[c].insert(per_centre[c].end(), v.begin() + c * rank_k, v.begin() + (c + 1) * rank_k);
  }
  for (std::size_t c = 0; c < k; ++c) {
    auto& list = per_centre[c];
    std::sort(list.begin(), list.end(), [](const MinLoc& a, const MinLoc& b) { return a.value != b.value ? a.value < b.value : a.index < b.index; });
    const std::size_t take = std::min(votes, list.size());
    for (std::size_t i = 0; i < take; ++i) out[static_cast<std::size_t>(list[i].index)] += clusters.sizes[c] / double(take);
  }
}

}  // namespace

VoteResult secpe_votes(const Communicator& comm, const NoisyClusters& clusters, const MatrixF& candidates,
                       std::size_t shard_begin, std::size_t shard_end, const NearestCentreKernel& kernel, Metric metric,
                       int votes_per_centre) {
  const auto n_cand = static_cast<std::size_t>(candidates.rows());
  const auto k = static_cast<std::size_t>(clusters.centres.rows());
  const MatrixF shard = candidates.middleRows(static_cast<Eigen::Index>(shard_begin),
                                              static_cast<Eigen::Index>(shard_end - shard_begin));
  VoteResult result{std::vector<double>(n_cand, 0.0), std::vector<double>(n_cand, 0.0)};
  if (k == 0 || n_cand == 0) return result;

  if (votes_per_centre < 1) throw InputError("votes per centre must be at least 1");
  // Tie key: each candidate's distance to its nearest noisy centre (owner fills, min-loc gathers).
  std::vector<MinLoc> key(n_cand, MinLoc{std::numeric_limits<double>::infinity(), 0});
  std::vector<std::int32_t> cand_nearest(shard_end - shard_begin);
  std::vector<double> cand_score(shard_end - shard_begin);
  if (votes_per_centre == 1) {
    // Nearest candidate of each noisy centre: one search of this shard in both directions (the
    // tie keys come with it), then min-loc over the ranks.
    std::vector<MinLoc> best(k, MinLoc{std::numeric_limits<double>::infinity(), std::numeric_limits<std::int64_t>::max()});
    std::vector<std::int32_t> nearest(k);
    std::vector<double> score(k);
    if (shard.rows() > 0) {
      kernel.search_mutual(clusters.centres, shard, metric, nearest, score, cand_nearest, cand_score);
      for (std::size_t c = 0; c < k; ++c) best[c] = {score[c], static_cast<std::int64_t>(shard_begin) + nearest[c]};
    }
    comm.allreduce_min_loc(best);
    for (std::size_t c = 0; c < k; ++c) result.votes[static_cast<std::size_t>(best[c].index)] += clusters.sizes[c];
  } else {
    spread_votes(comm, clusters, shard, shard_begin, kernel, metric, std::min<std::size_t>(votes_per_centre, n_cand), result.votes);
    kernel.search(shard, clusters.centres, metric, cand_nearest, cand_score);
  }
  for (std::size_t i = 0; i < cand_score.size(); ++i) key[shard_begin + i] = {cand_score[i], 0};
  comm.allreduce_min_loc(key);
  for (std::size_t i = 0; i < n_cand; ++i) result.tie_key[i] = key[i].value;
  return result;
}

VoteResult random_votes(std::size_t candidates, std::uint64_t seed, std::uint64_t label, int iteration) {
  VoteResult result{std::vector<double>(candidates), std::vector<double>(candidates, 0.0)};
  CounterRng rng(seed, Stream::kRandomSelection, label, static_cast<std::uint64_t>(iteration));
  for (auto& v : result.votes) v = rng.uniform();
  return result;
}

VoteResult augpe_votes(const Communicator& comm, const MatrixF& voters, const MatrixF& candidates,
                       const NearestCentreKernel& kernel, Metric metric, double sigma, double threshold,
                       const NoiseKey& key, std::uint64_t label, int iteration) {
  const auto n_cand = static_cast<std::size_t>(candidates.rows());
  VoteResult result{std::vector<double>(n_cand, 0.0), std::vector<double>(n_cand, 0.0)};
  std::vector<std::int64_t> histogram(n_cand, 0);
  std::vector<std::int32_t> nearest(static_cast<std::size_t>(voters.rows()));
  std::vector<double> score(nearest.size());
  if (n_cand > 0) kernel.search(voters, candidates, metric, nearest, score);
  for (auto c : nearest) ++histogram[static_cast<std::size_t>(c)];
  comm.allreduce_sum(histogram);
  if (comm.is_root()) {
    SecretRng noise = SecretStreamFamily(key, SecretStream::kNoise, label, static_cast<std::uint64_t>(iteration)).stream(0);
    for (std::size_t i = 0; i < n_cand; ++i) {
      const double noisy = noisy_release(double(histogram[i]), sigma, noise);
      result.votes[i] = std::max(0.0, noisy - threshold);
    }
  }
  comm.broadcast(std::span<double>(result.votes));
  return result;
}

}  // namespace secpe
