#pragma once
// An embedder learned from public texts: TF-IDF of word unigrams and bigrams (text/tfidf.hpp, the
// embedder's word boundaries) projected onto the top right singular vectors of the public TF-IDF
// matrix (latent semantic analysis), so that texts sharing topics but few exact words land close,
// which feature hashing cannot do. `secpe import` fits it once on the records that hold no secret
// and stores it with the dataset (io/dataset.hpp, /embedder); `secpe run` rebuilds it from there
// to embed candidates. Nothing in it depends on a private record.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "text/embedder.hpp"
#include "text/tfidf.hpp"

namespace secpe {

inline constexpr int kTfidfSvdNgrams = 2;  // word unigrams and bigrams
inline constexpr int kTfidfSvdMinDim = 64, kTfidfSvdMaxDim = 1024;

struct TfidfSvdOptions {
  int dim = 256;                                  // output dimension d, in [kTfidfSvdMinDim, kTfidfSvdMaxDim]
  std::size_t min_df = 2;                         // vocabulary: terms of at least this many public texts,
  std::size_t vocabulary = std::size_t{1} << 16;  // the V of them with the highest document frequency
  // Randomized SVD (Halko, Martinsson and Tropp 2011, Algorithm 4.4): a range of d + oversampling
  // columns refined by this many power iterations, each re-orthonormalised by a QR.
  int oversampling = 16;
  int power_iterations = 3;
  std::uint64_t seed = 0;  // public: the Gaussian test matrix (Stream::kEmbedder)
  int threads = 0;         // 0: default_threads(); the model does not depend on it
};

class TfidfSvdEmbedder final : public Embedder {
 public:
  // Fits the model on `public_texts`; callers pass only records that hold no secret. InputError
  // when the options are out of range or the texts hold fewer than dim vocabulary terms.
  static TfidfSvdEmbedder fit(std::span<const std::string_view> public_texts, const TfidfSvdOptions& options);
  // A stored model: `projection` holds one row per vocabulary term and d columns. InputError when
  // the parts disagree in shape, d is out of range or a value is not finite.
  TfidfSvdEmbedder(TfidfVectorizer vectorizer, MatrixF projection);

  int dim() const override { return static_cast<int>(projection_.cols()); }
  // "tfidf-svd(d=256, V=65536, digest=<16 hex digits>)", the digest (BLAKE2b-256) covering the
  // n-gram length, vocabulary, weights and projection: the model's identity, recorded in the
  // dataset's provenance and checked against the stored model before a run uses it.
  std::string name() const override { return name_; }
  // Rows: the text's TF-IDF row times the projection, L2-normalised. A text without a vocabulary
  // term (a record in another language, only rare words) gets the first axis, the top singular
  // direction, which every TF-IDF row leans towards (the rows are non-negative): the generic
  // text. A zero row would stop a run, since the cosine metric refuses zero vectors.
  void embed(std::span<const std::string> texts, MatrixF& out) const override;

  const TfidfVectorizer& vectorizer() const { return vectorizer_; }
  const MatrixF& projection() const { return projection_; }

 private:
  TfidfVectorizer vectorizer_;
  MatrixF projection_;  // V x d
  std::string name_;
};

}  // namespace secpe
