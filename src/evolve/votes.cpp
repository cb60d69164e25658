#include "evolve/votes.hpp"

#include <algorithm>
#include <limits>
#include <memory>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "core/secret_rng.hpp"
#include "privacy/noisy_release.hpp"

namespace secpe {
namespace {

// One label's SecPE search: this rank's centres against every candidate, each centre's `take`
// nearest candidates (best first, ties to the lower index), and each candidate's nearest centre
// of this block.
struct SecpeSearch {
  bool empty = true;  // no centre or no candidate: no votes
  std::size_t take = 0;
  std::vector<std::int32_t> chosen, cand_nearest;
  std::vector<double> score, cand_score;
  std::unique_ptr<KeptRows> candidates, centres;  // views for the batch
};

// Adds the job's searches to `tasks` (none when it has nothing to search).
void plan_secpe(const SecpeVoteJob& job, int votes_per_centre, SecpeSearch& s, std::vector<SearchTask>& tasks) {
  const auto n_cand = static_cast<std::size_t>(job.candidates->rows());
  const auto mine = static_cast<std::size_t>(job.clusters->centres.rows());
  if (job.clusters->sizes.empty() || n_cand == 0) return;
  if (votes_per_centre < 1) throw InputError("votes per centre must be at least 1");
  s.empty = false;
  s.take = std::min<std::size_t>(static_cast<std::size_t>(votes_per_centre), n_cand);
  s.chosen.resize(mine * s.take), s.cand_nearest.resize(n_cand);
  s.score.resize(mine * s.take), s.cand_score.assign(n_cand, std::numeric_limits<double>::infinity());
  if (mine == 0) return;
  s.candidates = std::make_unique<KeptRows>(*job.candidates);
  s.centres = std::make_unique<KeptRows>(job.clusters->centres);
  if (s.take == 1) {
    tasks.push_back({.x = s.candidates.get(), .centres = &job.clusters->centres, .centres_copy = job.clusters->device_copy.get(), .k = 1,
                     .nearest = s.cand_nearest, .score = s.cand_score, .centre_nearest = s.chosen, .centre_score = s.score});
  } else {
    tasks.push_back({.x = s.centres.get(), .centres = job.candidates, .k = static_cast<int>(s.take), .nearest = s.chosen, .score = s.score});
    tasks.push_back({.x = s.candidates.get(), .centres = &job.clusters->centres, .centres_copy = job.clusters->device_copy.get(), .k = 1,
                     .nearest = s.cand_nearest, .score = s.cand_score});
  }
}

// The exchange after the search: every centre's choice, in centre order on every rank; each gives
// its size, split equally. The tie key: each candidate's distance to its nearest noisy centre,
// the least over the blocks.
VoteResult tally_secpe(const SecpeVoteJob& job, const SecpeSearch& s) {
  const auto n_cand = static_cast<std::size_t>(job.candidates->rows());
  VoteResult result{std::vector<double>(n_cand, 0.0), std::vector<double>(n_cand, 0.0)};
  if (s.empty) return result;
  const Communicator& comm = *job.comm;
  const std::vector<std::int64_t> mine_chosen(s.chosen.begin(), s.chosen.end());
  const std::vector<std::int64_t> all = comm.allgather(std::span<const std::int64_t>(mine_chosen));
  for (std::size_t c = 0; c < job.clusters->sizes.size(); ++c) {
    for (std::size_t i = 0; i < s.take; ++i) {
      result.votes[static_cast<std::size_t>(all[c * s.take + i])] += job.clusters->sizes[c] / double(s.take);
    }
  }
  std::vector<MinLoc> key(n_cand);
  for (std::size_t i = 0; i < n_cand; ++i) key[i] = {s.cand_score[i], 0};
  comm.allreduce_min_loc(key);
  for (std::size_t i = 0; i < n_cand; ++i) result.tie_key[i] = key[i].value;
  return result;
}

}  // namespace

std::vector<VoteResult> secpe_votes_batch(std::span<const SecpeVoteJob> jobs, const NearestCentreKernel& kernel, Metric metric,
                                          int votes_per_centre) {
  std::vector<SecpeSearch> searches(jobs.size());
  std::vector<SearchTask> tasks;
  for (std::size_t j = 0; j < jobs.size(); ++j) plan_secpe(jobs[j], votes_per_centre, searches[j], tasks);
  kernel.search_batch(tasks, metric);
  std::vector<VoteResult> results;
  for (std::size_t j = 0; j < jobs.size(); ++j) results.push_back(tally_secpe(jobs[j], searches[j]));
  return results;
}

VoteResult secpe_votes(const Communicator& comm, const NoisyClusters& clusters, const MatrixF& candidates,
                       const NearestCentreKernel& kernel, Metric metric, int votes_per_centre) {
  const SecpeVoteJob job{&comm, &clusters, &candidates};
  return std::move(secpe_votes_batch(std::span<const SecpeVoteJob>(&job, 1), kernel, metric, votes_per_centre).front());
}

VoteResult random_votes(std::size_t candidates, std::uint64_t seed, std::uint64_t label, int iteration) {
  VoteResult result{std::vector<double>(candidates), std::vector<double>(candidates, 0.0)};
  CounterRng rng(seed, Stream::kRandomSelection, label, static_cast<std::uint64_t>(iteration));
  for (auto& v : result.votes) v = rng.uniform();
  return result;
}

std::vector<VoteResult> augpe_votes_batch(std::span<const AugpeVoteJob> jobs, const NearestCentreKernel& kernel, Metric metric,
                                          double sigma, double threshold, const NoiseKey& key, int iteration) {
  std::vector<std::vector<std::int32_t>> nearest(jobs.size());
  std::vector<std::vector<double>> score(jobs.size());
  std::vector<SearchTask> tasks;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    nearest[j].resize(static_cast<std::size_t>(jobs[j].voters->rows().rows()));
    score[j].resize(nearest[j].size());
    if (jobs[j].candidates->rows() > 0) {
      tasks.push_back({.x = jobs[j].voters, .centres = jobs[j].candidates, .k = 1, .nearest = nearest[j], .score = score[j]});
    }
  }
  kernel.search_batch(tasks, metric);
  // Each label's integer histogram, reduced exactly; rank 0 adds the noise (the label's secret
  // stream for this iteration), snaps it to the release grid, subtracts the threshold, clips at 0.
  std::vector<VoteResult> results;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const Communicator& comm = *jobs[j].comm;
    const auto n_cand = static_cast<std::size_t>(jobs[j].candidates->rows());
    VoteResult result{std::vector<double>(n_cand, 0.0), std::vector<double>(n_cand, 0.0)};
    std::vector<std::int64_t> histogram(n_cand, 0);
    if (n_cand > 0) {
      for (auto c : nearest[j]) ++histogram[static_cast<std::size_t>(c)];
    }
    comm.allreduce_sum(histogram);
    if (comm.is_root()) {
      SecretRng noise = SecretStreamFamily(key, SecretStream::kNoise, jobs[j].label, static_cast<std::uint64_t>(iteration)).stream(0);
      for (std::size_t i = 0; i < n_cand; ++i) {
        const double noisy = noisy_release(double(histogram[i]), sigma, noise);
        result.votes[i] = std::max(0.0, noisy - threshold);
      }
    }
    comm.broadcast(std::span<double>(result.votes));
    results.push_back(std::move(result));
  }
  return results;
}

VoteResult augpe_votes(const Communicator& comm, const KeptRows& voters, const MatrixF& candidates,
                       const NearestCentreKernel& kernel, Metric metric, double sigma, double threshold,
                       const NoiseKey& key, std::uint64_t label, int iteration) {
  const AugpeVoteJob job{&comm, &voters, &candidates, label};
  return std::move(augpe_votes_batch(std::span<const AugpeVoteJob>(&job, 1), kernel, metric, sigma, threshold, key, iteration).front());
}

VoteResult augpe_votes(const Communicator& comm, const MatrixF& voters, const MatrixF& candidates,
                       const NearestCentreKernel& kernel, Metric metric, double sigma, double threshold,
                       const NoiseKey& key, std::uint64_t label, int iteration) {
  const KeptRows view(voters);
  return augpe_votes(comm, view, candidates, kernel, metric, sigma, threshold, key, label, iteration);
}

}  // namespace secpe
