#include "evolve/run_models.hpp"

#include <algorithm>
#include <sstream>

#include "compute/verify.hpp"
#include "core/log.hpp"
#include "evolve/dataset_embedder.hpp"
#include "evolve/training_texts.hpp"
#include "text/ngrams.hpp"

namespace secpe {
namespace {

// The built-in generator draws each text's length from its training texts' and stops at
// --max-words: where that cuts many of them (PubMed's abstracts, 127 words on average, against the
// default 64, the paper's Yelp setting), the synthetic texts come out shorter than the corpus's.
// Said on rank 0, from the public training texts only.
void warn_if_cut(const Communicator& comm, const std::vector<std::vector<std::string>>& texts, int max_words) {
  if (!comm.is_root()) return;
  std::vector<std::size_t> lengths;
  for (const auto& label : texts)
    for (const auto& t : label) lengths.push_back(word_count(t));
  const auto cut = std::count_if(lengths.begin(), lengths.end(), [&](std::size_t n) { return n > static_cast<std::size_t>(max_words); });
  if (lengths.empty() || static_cast<std::size_t>(cut) * 10 <= lengths.size()) return;  // at most a tenth cut
  std::sort(lengths.begin(), lengths.end());
  const auto quantile = [&](double q) { return lengths[static_cast<std::size_t>(q * static_cast<double>(lengths.size() - 1))]; };
  std::ostringstream what;
  what << "--max-words " << max_words << " cuts " << 100 * cut / static_cast<std::ptrdiff_t>(lengths.size())
       << " % of the generator's public training texts (median " << quantile(0.5) << " words, 95 % at most " << quantile(0.95)
       << "): the synthetic texts will be shorter than the corpus's; --max-words " << quantile(0.95) << " keeps 95 % of them whole";
  log_warn(what.str());
}

// The name of this rank's writes in the HTTP caches of the state folder.
std::string cache_writer(const Communicator& comm) { return std::string("r").append(std::to_string(comm.rank())); }

// --generator-topics auto, resolved from the training texts' count (public), said on rank 0.
int generator_topics(const Communicator& comm, const RunOptions& options, const std::vector<std::vector<std::string>>& texts) {
  if (options.generator_topics != kAutoGeneratorTopics) return options.generator_topics;
  std::size_t n = 0;
  for (const auto& label : texts) n += label.size();
  const int topics = auto_generator_topics(n);
  if (comm.is_root()) {
    log_info("--generator-topics auto: " + std::to_string(topics) + " latent topics for " + std::to_string(n) +
             " public training texts (one per " + std::to_string(kTextsPerAutoTopic) + ", at most " + std::to_string(kMaxAutoTopics) + ")");
  }
  return topics;
}

// The built-in generator learns from public texts; the HTTP one needs only the labels and prompts.
// `topics` gets the latent topics it uses.
std::unique_ptr<Generator> make_generator(const Communicator& comm, const RunOptions& options, const Shard& shard, int& topics) {
  const DatasetInfo& info = shard.info();
  PromptTemplates prompts = options.prompts.empty() ? PromptTemplates::builtin(info.labels) : PromptTemplates::load(options.prompts, info.labels);
  if (options.http_generator) {
    HttpGeneratorOptions http = options.http_generation;
    http.cache_dir = options.state_dir;
    http.cache_writer = cache_writer(comm);
    return std::make_unique<HttpGenerator>(http, std::move(prompts));
  }
  const auto texts = options.generator_corpus.empty() ? public_training_texts(shard.reader, options.generator_texts)
                                                     : corpus_training_texts(options.generator_corpus, info.labels);
  warn_if_cut(comm, texts, options.generator.max_words);
  topics = generator_topics(comm, options, texts);
  // File names only: a path may say more about the data than the run should publish.
  const std::string source = options.generator_corpus.empty()
                                 ? "the public records (no secret) of " + options.data.filename().string()
                                 : options.generator_corpus.filename().string();
  return std::make_unique<NgramGenerator>(generator_training(options.generator_labels, texts, source, prompts, topics),
                                          options.generator);
}

}  // namespace

Models build_models(const Communicator& comm, const RunOptions& options, const Shard& shard) {
  HttpEmbedderOptions http_embedding = options.http_embedding;
  http_embedding.cache_dir = options.state_dir;
  http_embedding.cache_writer = cache_writer(comm);
  int topics = 0;
  Models m{.generator = make_generator(comm, options, shard, topics),
           .embedder = dataset_embedder(shard.reader, options.data, &http_embedding),
           .kernel = make_kernel(options.kernel, options.threads, options.device),
           .generator_topics = topics};
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
