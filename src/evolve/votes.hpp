#pragma once
// Vote histograms over a label's candidate pool. Both return released (noisy) values only.
#include <cstdint>
#include <span>
#include <vector>

#include "cluster/secret_clustering.hpp"
#include "compute/nearest.hpp"
#include "core/matrix.hpp"
#include "comms/communicator.hpp"

namespace secpe {

struct VoteResult {
  std::vector<double> votes;     // per candidate, released
  std::vector<double> tie_key;   // per candidate, for rank_order
};

// secpe run's --votes-per-center auto where the generator does not know the labels (a measured
// choice: docs/studies.md).
constexpr int kSpreadVotesPerCentre = 4;

// SecPE: each noisy centre gives its noisy size to its nearest candidate (O(K x N_cand) work), or
// spreads it equally over its `votes_per_centre` nearest candidates (post-processing of released
// values: no privacy cost). The work is sharded by centre, as the release is: each rank searches
// its block of centres against every candidate, and the ranks exchange one choice per centre.
// Sizes are added in centre order, so the votes do not depend on the number of ranks.
// The tie key of a candidate is its distance to the nearest noisy centre (the same search, the
// other way, reduced by min-location): most candidates get no vote, and distinct selection may
// reach deep into the rank order.
VoteResult secpe_votes(const Communicator& comm, const NoisyClusters& clusters, const MatrixF& candidates,
                       const NearestCentreKernel& kernel, Metric metric, int votes_per_centre);

// One label's votes in a batch (below): its communicator, its release or voters, its candidates.
struct SecpeVoteJob {
  const Communicator* comm;
  const NoisyClusters* clusters;
  const MatrixF* candidates;
};
struct AugpeVoteJob {
  const Communicator* comm;
  const KeptRows* voters;  // kept by the kernel (NearestCentreKernel::keep), or a plain view
  const MatrixF* candidates;
  std::uint64_t label;
};

// The votes of several labels with one batched search (NearestCentreKernel::search_batch: on a
// GPU one upload, one download and one wait for all the labels), then each label's exchange and
// release in job order. Each result is what secpe_votes / augpe_votes gives for its job alone.
std::vector<VoteResult> secpe_votes_batch(std::span<const SecpeVoteJob> jobs, const NearestCentreKernel& kernel, Metric metric,
                                          int votes_per_centre);
std::vector<VoteResult> augpe_votes_batch(std::span<const AugpeVoteJob> jobs, const NearestCentreKernel& kernel, Metric metric,
                                          double sigma, double threshold, const NoiseKey& key, int iteration);

// The no-private-data control (--method random): an independent uniform key per candidate from
// the public seed, so rank selection keeps a uniformly random subset. Uses no record at all.
VoteResult random_votes(std::size_t candidates, std::uint64_t seed, std::uint64_t label, int iteration);

// Aug-PE: every voting record of the label (this rank's `voters`) votes for its nearest
// candidate; the integer histogram is reduced exactly, rank 0 adds N(0, sigma^2) to every bin
// (secret-keyed stream (label, iteration)), snaps it to the release grid, subtracts `threshold`
// and clips at 0, and the result is broadcast. Tie key: 0 (index order).
VoteResult augpe_votes(const Communicator& comm, const KeptRows& voters, const MatrixF& candidates,
                       const NearestCentreKernel& kernel, Metric metric, double sigma, double threshold,
                       const NoiseKey& key, std::uint64_t label, int iteration);
VoteResult augpe_votes(const Communicator& comm, const MatrixF& voters, const MatrixF& candidates,
                       const NearestCentreKernel& kernel, Metric metric, double sigma, double threshold,
                       const NoiseKey& key, std::uint64_t label, int iteration);

}  // namespace secpe
