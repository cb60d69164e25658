#include "evolve/candidates.hpp"

#include "core/rng.hpp"
#include "core/timer.hpp"

namespace secpe {
CandidatePool make_candidate_pool(const Communicator& comm, const Generator& generator, const Embedder& embedder,
                                  std::uint64_t seed, std::size_t label, int iteration,
                                  const std::vector<std::string>& parents, int variations, std::size_t initial) {
  const std::size_t n_parents = parents.size();
  const std::size_t total = iteration == 0 ? initial : n_parents * (1 + static_cast<std::size_t>(variations));
  CandidatePool pool;
  std::tie(pool.shard_begin, pool.shard_end) = comm.shard(total);

  Timer t0;
  // Parents are kept as they are; every other candidate is a task for the generator, all handed
  // over at once so that a generator behind a server can keep many requests in flight.
  std::vector<GenerationTask> tasks;
  std::vector<std::size_t> task_slot;
  std::vector<std::string> mine(pool.shard_end - pool.shard_begin);
  for (std::size_t c = pool.shard_begin; c < pool.shard_end; ++c) {
    const CounterRng rng(seed, Stream::kGeneration, label, static_cast<std::uint64_t>(iteration), c);
    if (iteration == 0) {
      tasks.push_back({label, nullptr, rng});
    } else if (c < n_parents) {
      mine[c - pool.shard_begin] = parents[c];
      continue;
    } else {
      tasks.push_back({label, &parents[(c - n_parents) / static_cast<std::size_t>(variations)], rng});
    }
    task_slot.push_back(c - pool.shard_begin);
  }
  std::vector<std::string> made = generator.generate(tasks);
  for (std::size_t k = 0; k < made.size(); ++k) mine[task_slot[k]] = std::move(made[k]);
  pool.generate_seconds = t0.seconds();

  t0.restart();
  MatrixF local;
  embedder.embed(mine, local);
  pool.embed_seconds = t0.seconds();

  pool.texts = comm.allgather_strings(mine);
  const std::vector<float> all = comm.allgather(std::span<const float>(local.data(), static_cast<std::size_t>(local.size())));
  pool.embeddings = Eigen::Map<const MatrixF>(all.data(), static_cast<Eigen::Index>(total), embedder.dim());
  return pool;
}

}  // namespace secpe
