#pragma once
// What a run's options ask of one rank's memory, checked once the labels' synthetic shares are
// known and before any candidate is generated, so that --synthetic 1e7 or --variations 100000
// stop at once with the estimate instead of running out of memory hours later.
#include <cstdint>
#include <string>
#include <vector>

#include "evolve/methods/method.hpp"
#include "evolve/run_options.hpp"

namespace secpe {

struct RunEstimate {
  std::uint64_t candidates = 0;  // the largest label's candidate pool: its N_syn share x (L + 1)
  double candidate_bytes = 0;    // that pool on every rank: embeddings, texts, votes
  double cluster_bytes = 0;      // the method's per-label state (SecPE: K centres, fixed-point sums and noisy centres)
  double shard_bytes = 0;        // this rank's embedding rows
  double total() const { return candidate_bytes + cluster_bytes + shard_bytes; }
  std::string describe() const;  // "40000000 candidates: about 56.2 GB per rank (...)"
};

// `synthetic_per_label`: N_syn split over the labels; `shard_rows`: this rank's records.
RunEstimate estimate_run(const RunOptions& options, const Method& method, const std::vector<std::size_t>& synthetic_per_label, int dim,
                         std::uint64_t shard_rows);

// InputError naming --synthetic and --variations (with the estimate) when the pool exceeds the
// 32-bit candidate indices of the kernels or the estimate exceeds `available_bytes`.
void check_run_fits(const RunEstimate& estimate, double available_bytes);

// This rank's share of the node's physical memory (divided by the MPI ranks on the node when the
// launcher says how many there are).
double memory_per_rank_bytes();

}  // namespace secpe
