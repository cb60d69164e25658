#pragma once
// The tfidf-svd embedder (text/learned_embedder.hpp): TF-IDF of word unigrams and bigrams
// (text/tfidf.hpp, the embedder's word boundaries) projected onto the top right singular vectors
// of the public TF-IDF matrix (latent semantic analysis), so that texts sharing topics but few
// exact words land close, which feature hashing cannot do.
#include <cstdint>
#include <span>
#include <string_view>

#include "text/learned_embedder.hpp"

namespace secpe {

struct TfidfSvdOptions {
  int dim = 256;                                  // output dimension d, in [kLearnedEmbedderMinDim, kLearnedEmbedderMaxDim]
  std::size_t min_df = 2;                         // vocabulary: terms of at least this many public texts,
  std::size_t vocabulary = std::size_t{1} << 16;  // the V of them with the highest document frequency
  // Randomized SVD (text/randomized_svd.hpp).
  int oversampling = 16;
  int power_iterations = 3;
  std::uint64_t seed = 0;  // public: the Gaussian test matrix (Stream::kEmbedder)
  int threads = 0;         // 0: default_threads(); the model does not depend on it
};

// Fits the model on `public_texts`; callers pass only records that hold no secret. InputError
// when the options are out of range or the texts hold fewer than dim vocabulary terms.
LearnedEmbedder fit_tfidf_svd(std::span<const std::string_view> public_texts, const TfidfSvdOptions& options);

// The checks every learned embedder's fit makes: InputError naming `kind` when dim is out of range,
// the minimum document frequency is 0, or the vocabulary cap is below dim.
void check_learned_embedder_options(const char* kind, int dim, std::size_t min_df, std::size_t vocabulary);

}  // namespace secpe
