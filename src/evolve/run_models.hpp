#pragma once
// Stage "models" of a run: the generator (public texts only), the candidate embedder, the kernel,
// and the optional built-in kernel check on this rank's data (--verify).
#include <memory>

#include "compute/nearest.hpp"
#include "comms/communicator.hpp"
#include "evolve/run_options.hpp"
#include "evolve/shard.hpp"
#include "text/embedder.hpp"
#include "text/generator.hpp"

namespace secpe {

struct Models {
  std::unique_ptr<Generator> generator;
  std::unique_ptr<Embedder> embedder;
  std::unique_ptr<NearestCentreKernel> kernel;
  int generator_topics = 0;  // the built-in pooled generator's latent topics (--generator-topics, auto resolved)
};

Models build_models(const Communicator& comm, const RunOptions& options, const Shard& shard);

}  // namespace secpe
