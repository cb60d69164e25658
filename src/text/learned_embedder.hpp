#pragma once
// The embedders learned from public texts, as stored in a dataset (io/dataset.hpp, /embedder):
// a vocabulary of word n-grams with one weight each, and a projection of one row per term. A
// text's embedding is its weighted bag of terms ((1 + ln tf) x weight, text/tfidf.hpp) times the
// projection, L2-normalised. Two kinds are fitted (each in its own file):
//   tfidf-svd  word unigrams and bigrams with idf weights, projected on the top right singular
//              vectors of the public TF-IDF matrix (latent semantic analysis);
//   ppmi-sif   word unigrams with SIF weights a / (a + p(w)), each mapped to its word vector from
//              the factorised PPMI matrix of public word co-occurrences, with the public texts'
//              common direction removed.
// `secpe import` fits one on the records that hold no secret and stores it; `secpe run` rebuilds
// it from there to embed its candidates. Nothing in it depends on a private record.
#include <span>
#include <string>

#include "core/enum_names.hpp"
#include "text/embedder.hpp"
#include "text/tfidf.hpp"

namespace secpe {

inline constexpr int kLearnedEmbedderMinDim = 64, kLearnedEmbedderMaxDim = 1024;

enum class LearnedEmbedderKind { kTfidfSvd, kPpmiSif };
inline constexpr EnumNames<LearnedEmbedderKind, 2> kLearnedEmbedderKindNames{
    {{LearnedEmbedderKind::kTfidfSvd, "tfidf-svd"}, {LearnedEmbedderKind::kPpmiSif, "ppmi-sif"}}};
inline std::string learned_embedder_kind_name(LearnedEmbedderKind kind) { return std::string(name_of(kLearnedEmbedderKindNames, kind)); }
int learned_embedder_ngrams(LearnedEmbedderKind kind);             // 2 | 1 (the vocabulary's n-gram length)

class LearnedEmbedder final : public Embedder {
 public:
  // A model: `projection` holds one row per vocabulary term and d columns. InputError when the
  // parts disagree in shape or n-gram length, d is out of range or a value is not finite.
  LearnedEmbedder(LearnedEmbedderKind kind, TfidfVectorizer vectorizer, MatrixF projection);

  int dim() const override { return static_cast<int>(projection_.cols()); }
  // "tfidf-svd(d=256, V=65536, digest=<16 hex digits>)" (or "ppmi-sif(...)"), the digest
  // (BLAKE2b-256) covering the kind, n-gram length, vocabulary, weights and projection: the
  // model's identity, recorded in the dataset's provenance and checked against the stored model
  // before a run uses it.
  std::string name() const override { return name_; }
  // Rows: the text's weighted bag of terms times the projection, L2-normalised. A text without a
  // vocabulary term (a record in another language, only rare words) gets the first axis rather
  // than a zero row, which would stop a run (the cosine metric refuses zero vectors).
  void embed(std::span<const std::string> texts, MatrixF& out) const override;

  LearnedEmbedderKind kind() const { return kind_; }
  const TfidfVectorizer& vectorizer() const { return vectorizer_; }
  const MatrixF& projection() const { return projection_; }

 private:
  LearnedEmbedderKind kind_;
  TfidfVectorizer vectorizer_;
  MatrixF projection_;  // V x d
  std::string name_;
};

}  // namespace secpe
