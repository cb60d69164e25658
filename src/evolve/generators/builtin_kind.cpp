// --generator builtin: the offline trigram model (text/generator.hpp), learned from the dataset's
// public records or --generator-corpus, per label, pooled (with latent topics) or steered by
// prompt labels (text/generator_training.hpp).
#include <algorithm>
#include <sstream>

#include "core/log.hpp"
#include "evolve/generators/generator_kind.hpp"
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

class BuiltinKind final : public GeneratorKind {
 public:
  std::string name() const override { return "builtin"; }
  std::string description() const override { return "the offline trigram model"; }
  bool learns_from_texts() const override { return true; }

  RunGenerator make(const GeneratorSetup& s) const override {
    const RunOptions& options = s.options;
    const auto texts = options.generator_corpus.empty() ? public_training_texts(s.shard.reader, options.generator_texts)
                                                       : corpus_training_texts(options.generator_corpus, s.shard.info().labels);
    warn_if_cut(s.comm, texts, options.generator.max_words);
    const int topics = generator_topics(s.comm, options, texts);
    // File names only: a path may say more about the data than the run should publish.
    const std::string source = options.generator_corpus.empty()
                                   ? "the public records (no secret) of " + options.data.filename().string()
                                   : options.generator_corpus.filename().string();
    return {.generator = std::make_unique<NgramGenerator>(generator_training(options.generator_labels, texts, source, s.prompts, topics),
                                                          options.generator),
            .topics = topics};
  }
};

}  // namespace

const GeneratorKind& builtin_generator_kind() {
  static const BuiltinKind kind;
  return kind;
}

}  // namespace secpe
