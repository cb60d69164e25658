#include "evolve/candidates.hpp"

#include "core/rng.hpp"
#include "core/timer.hpp"

namespace secpe {
namespace {

// This rank's share of one pool: the parents it keeps as they are, and a generation task for
// every other candidate of its index range, with the slot its text goes to.
struct PoolShare {
  std::vector<std::string> mine;
  std::vector<std::size_t> task_slot;
};

PoolShare share_of(const PoolRequest& request, const CandidatePool& pool, std::uint64_t seed, int variations,
                   std::vector<GenerationTask>& tasks) {
  const std::vector<std::string>& parents = *request.parents;
  const std::size_t n_parents = request.iteration == 0 ? 0 : parents.size();
  PoolShare share{.mine = std::vector<std::string>(pool.shard_end - pool.shard_begin), .task_slot = {}};
  for (std::size_t c = pool.shard_begin; c < pool.shard_end; ++c) {
    const CounterRng rng(seed, Stream::kGeneration, request.label, static_cast<std::uint64_t>(request.iteration), c);
    if (request.iteration == 0) {
      tasks.push_back({request.label, nullptr, rng});
    } else if (c < n_parents) {
      share.mine[c - pool.shard_begin] = parents[c];
      continue;
    } else {
      tasks.push_back({request.label, &parents[(c - n_parents) / static_cast<std::size_t>(variations)], rng});
    }
    share.task_slot.push_back(c - pool.shard_begin);
  }
  return share;
}

}  // namespace

std::size_t candidate_count(const PoolRequest& request, int variations) {
  const auto per_parent = static_cast<std::size_t>(variations);
  return request.iteration == 0 ? request.synthetic * per_parent : request.parents->size() * (1 + per_parent);
}

std::vector<CandidatePool> make_candidate_pools(const Communicator& comm, const Generator& generator, const Embedder& embedder,
                                                std::uint64_t seed, int variations, std::span<const PoolRequest> requests) {
  std::vector<CandidatePool> pools(requests.size());
  std::vector<PoolShare> shares;
  std::vector<GenerationTask> tasks;
  std::vector<std::size_t> first_task;  // per pool: its first task in `tasks`
  for (std::size_t i = 0; i < requests.size(); ++i) {
    std::tie(pools[i].shard_begin, pools[i].shard_end) = comm.shard(candidate_count(requests[i], variations));
    first_task.push_back(tasks.size());
    shares.push_back(share_of(requests[i], pools[i], seed, variations, tasks));
  }
  first_task.push_back(tasks.size());

  // Every candidate of the round is one call's task, so that a generator behind a server keeps
  // requests of all the round's labels in flight together.
  const Timer generate_timer;
  std::vector<std::string> made = generator.generate(tasks);
  const double generate_seconds = generate_timer.seconds();

  for (std::size_t i = 0; i < requests.size(); ++i) {
    CandidatePool& pool = pools[i];
    PoolShare& share = shares[i];
    const std::size_t begin = first_task[i], count = first_task[i + 1] - begin;
    for (std::size_t k = 0; k < count; ++k) share.mine[share.task_slot[k]] = std::move(made[begin + k]);
    pool.generate_seconds = tasks.empty() ? 0.0 : generate_seconds * static_cast<double>(count) / static_cast<double>(tasks.size());

    const Timer embed_timer;
    MatrixF local;
    embedder.embed(share.mine, local);
    pool.embed_seconds = embed_timer.seconds();

    pool.texts = comm.allgather_strings(share.mine);
    const std::vector<float> all = comm.allgather(std::span<const float>(local.data(), static_cast<std::size_t>(local.size())));
    pool.embeddings = Eigen::Map<const MatrixF>(all.data(), static_cast<Eigen::Index>(pool.texts.size()), embedder.dim());
  }
  return pools;
}

}  // namespace secpe
