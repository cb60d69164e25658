#include "evolve/run_models.hpp"

#include <algorithm>

#include "compute/verify.hpp"
#include "core/log.hpp"
#include "embedders/dataset_embedder.hpp"
#include "devices/device_kind.hpp"
#include "evolve/generators/generator_kind.hpp"

namespace secpe {
namespace {

// The name of this rank's writes in the HTTP caches of the state folder.
std::string cache_writer(const Communicator& comm) { return std::string("r").append(std::to_string(comm.rank())); }

// The --generator kind's generator (evolve/generators/generator_kind.hpp), with the prompts.
RunGenerator make_generator(const Communicator& comm, const RunOptions& options, const Shard& shard) {
  const DatasetInfo& info = shard.info();
  return generator_kind(options.generator_kind)
      .make({.comm = comm,
             .options = options,
             .shard = shard,
             .prompts = options.prompts.empty() ? PromptTemplates::builtin(info.labels) : PromptTemplates::load(options.prompts, info.labels),
             .cache_writer = cache_writer(comm)});
}

}  // namespace

Models build_models(const Communicator& comm, const RunOptions& options, const Shard& shard) {
  HttpEmbedderOptions http_embedding = options.http_embedding;
  http_embedding.cache_dir = options.state_dir;
  http_embedding.cache_writer = cache_writer(comm);
  RunGenerator generator = make_generator(comm, options, shard);
  Models m{.generator = std::move(generator.generator),
           .embedder = dataset_embedder(shard.reader, options.data, &http_embedding),
           .kernel = device_kind(options.device).make_kernel(KernelRequest{.kernel = options.kernel, .threads = options.threads}),
           .generator_topics = generator.topics};
  if (options.verify) {
    // HPCG-style built-in check on real data: this rank's first rows against the next rows as centres.
    const MatrixF& x = shard.embeddings;
    const Eigen::Index n = x.rows(), rows = std::min<Eigen::Index>(n / 2, 512);
    const Eigen::Index centres = std::min<Eigen::Index>(n - rows, 256);
    std::string report;
    const bool ok = rows == 0 || verify_against_reference(*m.kernel, x.topRows(rows), x.middleRows(rows, centres), options.metric, &report,
                                                          std::min<int>(3, static_cast<int>(centres)));
    if (comm.allreduce_max(ok ? 0.0 : 1.0) > 0) throw std::runtime_error("kernel check: kernel '" + m.kernel->name() + "' disagrees with the reference kernel: " + report);
    log_info("kernel check: kernel '" + m.kernel->name() + "' agrees with the reference kernel bit for bit");
  }
  return m;
}

}  // namespace secpe
