#pragma once
// The synthetic candidate pool of one label at one iteration, sharded across ranks by index:
// each rank generates and embeds its own index range, then every rank gets all of them.
//   iteration 0:  `initial` random texts (RANDOM with the label as prompt)
//   iteration t:  the parents (previous selection) first, then `variations` variations of each:
//                 candidate n_parents + p * variations + v is variation v of parent p.
// Every text comes from a random stream keyed by (seed, label, iteration, candidate index), so
// the pool is identical for any number of ranks.
#include <cstdint>
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
  double generate_seconds = 0.0, embed_seconds = 0.0;
};

CandidatePool make_candidate_pool(const Communicator& comm, const Generator& generator, const Embedder& embedder,
                                  std::uint64_t seed, std::size_t label, int iteration,
                                  const std::vector<std::string>& parents, int variations, std::size_t initial);

}  // namespace secpe
