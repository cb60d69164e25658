#pragma once
// The ppmi-sif embedder (text/learned_embedder.hpp): word vectors from the factorised PPMI matrix
// of the public texts' word co-occurrences (Levy, Goldberg and Dagan 2015), averaged with SIF
// weights and with the common direction removed (Arora, Liang and Ma 2017). Words that occur in
// the same contexts get close vectors, so texts about the same things land close even when they
// share no word.
//   1. Vocabulary: the V words of highest document frequency among those in at least min_df
//      public texts.
//   2. Co-occurrences: every pair of vocabulary words at most `window` words apart in a text,
//      weighted window + 1 - distance (word2vec's dynamic window), both ways.
//   3. PPMI(a, b) = max(0, ln(#(a, b) Z / (#a #b^0.75))), Z the sum of #b^0.75: the context
//      distribution smoothed by 0.75, which keeps rare contexts from dominating.
//   4. A randomized truncated SVD of the PPMI matrix (text/randomized_svd.hpp); word vectors
//      U_d S_d^0.5 (the symmetric split of the singular values).
//   5. SIF weight a / (a + p(w)), p(w) the word's share of the tokens: frequent words count less.
//   6. The first principal direction u of the public texts' (unit) embeddings, mostly syntax and
//      frequency, is removed from every word vector: v <- v - (v . u) u, the same as removing it
//      from every text's embedding, since the embedding is linear before its normalisation.
// Steps 2 to 6 read at most `max_texts` public texts, evenly spaced, which bounds the memory of
// the co-occurrence counts at Yelp scale.
#include <cstdint>
#include <span>
#include <string_view>

#include "text/learned_embedder.hpp"

namespace secpe {

struct PpmiSifOptions {
  int dim = 256;                                  // d, in [kLearnedEmbedderMinDim, kLearnedEmbedderMaxDim]
  std::size_t min_df = 2;                         // vocabulary: words of at least this many public texts,
  std::size_t vocabulary = std::size_t{1} << 16;  // the V of them with the highest document frequency
  int window = 5;
  double context_smoothing = 0.75;
  double sif_a = 1e-3;
  double singular_value_power = 0.5;
  std::size_t max_texts = 200000;
  int oversampling = 16;      // randomized SVD (text/randomized_svd.hpp)
  int power_iterations = 3;
  std::uint64_t seed = 0;     // public: the SVD's Gaussian test matrix
  int threads = 0;            // 0: default_threads(); the model does not depend on it
};

// Fits the model on `public_texts`; callers pass only records that hold no secret. InputError
// when the options are out of range or the texts hold fewer than dim vocabulary words.
LearnedEmbedder fit_ppmi_sif(std::span<const std::string_view> public_texts, const PpmiSifOptions& options);

}  // namespace secpe
