#include "evolve/run_models.hpp"

#include <algorithm>

#include "compute/verify.hpp"
#include "core/log.hpp"
#include "evolve/dataset_embedder.hpp"
#include "evolve/training_texts.hpp"

namespace secpe {
namespace {

// The built-in generator learns from public texts; the HTTP one needs only the labels and prompts.
std::unique_ptr<Generator> make_generator(const Communicator& comm, const RunOptions& options, const Shard& shard) {
  const DatasetInfo& info = shard.info();
  PromptTemplates prompts = options.prompts.empty() ? PromptTemplates::builtin(info.labels) : PromptTemplates::load(options.prompts, info.labels);
  if (options.http_generator) {
    HttpGeneratorOptions http = options.http_generation;
    http.cache_dir = options.state_dir;
    http.cache_writer = "r" + std::to_string(comm.rank());
    return std::make_unique<HttpGenerator>(http, std::move(prompts));
  }
  const auto texts = options.generator_corpus.empty() ? public_training_texts(shard.reader, options.generator_texts)
                                                     : corpus_training_texts(options.generator_corpus, info.labels);
  // File names only: a path may say more about the data than the run should publish.
  const std::string source = options.generator_corpus.empty()
                                 ? "the public records (no secret) of " + options.data.filename().string()
                                 : options.generator_corpus.filename().string();
  return std::make_unique<NgramGenerator>(generator_training(options.generator_labels, texts, source, prompts, options.generator_topics),
                                          options.generator);
}

}  // namespace

Models build_models(const Communicator& comm, const RunOptions& options, const Shard& shard) {
  HttpEmbedderOptions http_embedding = options.http_embedding;
  http_embedding.cache_dir = options.state_dir;
  http_embedding.cache_writer = "r" + std::to_string(comm.rank());
  Models m{.generator = make_generator(comm, options, shard),
           .embedder = dataset_embedder(shard.reader, options.data, &http_embedding),
           .kernel = make_kernel(options.kernel, options.threads, options.device)};
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
