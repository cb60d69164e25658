#include "text/tfidf_svd_embedder.hpp"

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "text/ngrams.hpp"
#include "text/randomized_svd.hpp"

namespace secpe {
namespace {

constexpr std::size_t kTextsPerBlock = 8192;  // public texts per sparse block

// The public TF-IDF matrix in row blocks.
std::vector<SparseRows> tfidf_blocks(std::span<const std::string_view> texts, const TfidfVectorizer& vectorizer, int threads) {
  std::vector<SparseRows> blocks((texts.size() + kTextsPerBlock - 1) / kTextsPerBlock);
  run_chunks(threads, blocks.size(), [&](int, std::size_t begin, std::size_t end) {
    std::vector<std::vector<std::uint64_t>> words;
    for (std::size_t b = begin; b < end; ++b) {
      words.clear();
      for (std::size_t i = b * kTextsPerBlock; i < std::min(texts.size(), (b + 1) * kTextsPerBlock); ++i) words.push_back(word_keys(texts[i]));
      blocks[b] = vectorizer.transform(words);
    }
  });
  return blocks;
}

}  // namespace

void check_learned_embedder_options(const char* kind, int dim, std::size_t min_df, std::size_t vocabulary) {
  const std::string what = std::string(kind) + " embedder: ";
  if (dim < kLearnedEmbedderMinDim || dim > kLearnedEmbedderMaxDim) {
    throw InputError(what + "the embedding dimension must be in [" + std::to_string(kLearnedEmbedderMinDim) + ", " +
                     std::to_string(kLearnedEmbedderMaxDim) + "], not " + std::to_string(dim));
  }
  if (min_df < 1) throw InputError(what + "the minimum document frequency must be at least 1");
  if (vocabulary < static_cast<std::size_t>(dim)) throw InputError(what + "the vocabulary must hold at least as many terms as the embedding dimension");
}

LearnedEmbedder fit_tfidf_svd(std::span<const std::string_view> public_texts, const TfidfSvdOptions& options) {
  const int d = options.dim;
  check_learned_embedder_options("tfidf-svd", d, options.min_df, options.vocabulary);
  if (options.oversampling < 0 || options.power_iterations < 0) throw std::invalid_argument("tfidf-svd embedder: negative oversampling or power iterations");
  const int threads = options.threads > 0 ? options.threads : default_threads();
  const int n = learned_embedder_ngrams(LearnedEmbedderKind::kTfidfSvd);

  TermCounts counts(n);
  for (const std::string_view text : public_texts) counts.add(word_keys(text));
  TfidfVectorizer vectorizer(counts, {.max_n = n, .min_df = options.min_df, .max_features = options.vocabulary});
  const std::size_t v = vectorizer.num_features();
  if (v < static_cast<std::size_t>(d)) {
    throw InputError("tfidf-svd embedder: the " + std::to_string(public_texts.size()) + " public records hold " + std::to_string(v) +
                     " terms that occur in at least " + std::to_string(options.min_df) + " of them, fewer than the embedding dimension " +
                     std::to_string(d) + " (lower the dimension or the minimum document frequency, or import more public records)");
  }
  if (public_texts.size() < static_cast<std::size_t>(d)) {
    throw InputError("tfidf-svd embedder: " + std::to_string(public_texts.size()) + " public records, fewer than the embedding dimension " +
                     std::to_string(d) + " (lower the dimension or import more public records)");
  }
  const BlockSparseMatrix a(tfidf_blocks(public_texts, vectorizer, threads), static_cast<Eigen::Index>(v), threads);
  const TruncatedSvd svd = randomized_svd(a, {.rank = d, .oversampling = options.oversampling,
                                              .power_iterations = options.power_iterations, .seed = options.seed});
  return LearnedEmbedder(LearnedEmbedderKind::kTfidfSvd, std::move(vectorizer), svd.right.cast<float>());
}

}  // namespace secpe
