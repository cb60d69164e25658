#include "evolve/votes.hpp"

#include <algorithm>
#include <limits>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "core/secret_rng.hpp"
#include "privacy/noisy_release.hpp"

namespace secpe {

VoteResult secpe_votes(const Communicator& comm, const NoisyClusters& clusters, const MatrixF& candidates,
                       const NearestCentreKernel& kernel, Metric metric, int votes_per_centre) {
  const auto n_cand = static_cast<std::size_t>(candidates.rows());
  const auto k = clusters.sizes.size(), mine = static_cast<std::size_t>(clusters.centres.rows());
  VoteResult result{std::vector<double>(n_cand, 0.0), std::vector<double>(n_cand, 0.0)};
  if (k == 0 || n_cand == 0) return result;
  if (votes_per_centre < 1) throw InputError("votes per centre must be at least 1");

  // This rank's centres against every candidate: each centre's `take` nearest candidates (best
  // first, ties to the lower index), and each candidate's nearest centre of this block.
  const std::size_t take = std::min<std::size_t>(static_cast<std::size_t>(votes_per_centre), n_cand);
  std::vector<std::int32_t> chosen(mine * take), cand_nearest(n_cand);
  std::vector<double> score(mine * take), cand_score(n_cand, std::numeric_limits<double>::infinity());
  if (mine > 0) {
    if (take == 1) {
      kernel.search_mutual(candidates, clusters.centres, metric, cand_nearest, cand_score, chosen, score);
    } else {
      kernel.search_k(clusters.centres, candidates, metric, static_cast<int>(take), chosen, score);
      kernel.search(candidates, clusters.centres, metric, cand_nearest, cand_score);
    }
  }
  // Every centre's choice, in centre order on every rank; each gives its size, split equally.
  const std::vector<std::int64_t> mine_chosen(chosen.begin(), chosen.end());
  const std::vector<std::int64_t> all = comm.allgather(std::span<const std::int64_t>(mine_chosen));
  for (std::size_t c = 0; c < k; ++c) {
    for (std::size_t i = 0; i < take; ++i) result.votes[static_cast<std::size_t>(all[c * take + i])] += clusters.sizes[c] / double(take);
  }
  // Tie key: each candidate's distance to its nearest noisy centre, the least over the blocks.
  std::vector<MinLoc> key(n_cand);
  for (std::size_t i = 0; i < n_cand; ++i) key[i] = {cand_score[i], 0};
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
