#pragma once
// The synthetic candidate pools of one round: one pool per label in flight, each at its own next
// iteration, sharded across ranks by index: each rank generates and embeds its own index range
// of every pool, then every rank gets all of them.
//   iteration 0:  N_syn x L random texts (RANDOM with the label as prompt)
//   iteration t:  the parents (previous selection) first, then `variations` variations of each:
//                 candidate n_parents + p * variations + v is variation v of parent p.
// Every text comes from a random stream keyed by (seed, label, iteration, candidate index), so
// each pool is identical for any number of ranks and whichever labels share its round. The
// round's texts go to the generator in one call, so that a generator behind a server keeps
// requests of every label in flight together (evolve/label_windows.hpp says which labels).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/matrix.hpp"
#include "comms/communicator.hpp"
#include "text/embedder.hpp"
#include "text/generator.hpp"

namespace secpe {

struct CandidatePool {
  std::vector<std::string> texts;  // all candidates, on every rank
  MatrixF embeddings;              // all candidates, on every rank
  std::size_t shard_begin = 0, shard_end = 0;  // this rank's share of the index range
  // The round's generation time shared out by this pool's share of the round's requests, and
  // this pool's own embedding time.
  double generate_seconds = 0.0, embed_seconds = 0.0;
};

// One label's pool to make in a round.
struct PoolRequest {
  std::size_t label;
  int iteration;
  std::size_t synthetic;                    // the label's N_syn
  const std::vector<std::string>* parents;  // the label's selection so far (unused at iteration 0)
};

// The size of a request's pool: N_syn x L random texts at iteration 0, else its parents x (1 + L).
std::size_t candidate_count(const PoolRequest& request, int variations);

// The pools of `requests`, in their order.
std::vector<CandidatePool> make_candidate_pools(const Communicator& comm, const Generator& generator, const Embedder& embedder,
                                                std::uint64_t seed, int variations, std::span<const PoolRequest> requests);

}  // namespace secpe
