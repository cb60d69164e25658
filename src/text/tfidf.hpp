#pragma once
// TF-IDF features of word 1..n-grams with the vocabulary learned from the training texts only
// (scikit-learn's TfidfVectorizer with sublinear_tf, smooth idf and l2 rows, on our tokenizer).
// Shared by the evaluation's classifier (eval/) and the learned embedder (text/tfidf_svd_embedder).
#include <Eigen/SparseCore>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace secpe {

// One row per text; row-major so that rows can be built and scored one at a time.
using SparseRows = Eigen::SparseMatrix<double, Eigen::RowMajor>;

struct TfidfOptions {
  int max_n = 2;                                    // word n-grams of 1 .. max_n words
  std::size_t min_df = 2;                           // kept terms occur in at least this many texts
  std::size_t max_features = std::size_t{1} << 18;  // then the most frequent (by document frequency)
};

// Document frequencies of the word 1..max_n-grams of texts added one at a time, so that a large
// corpus is counted without holding every text's word keys at once.
class TermCounts {
 public:
  explicit TermCounts(int max_n);
  void add(const std::vector<std::uint64_t>& words);  // one text's word keys (text/ngrams.hpp)
  int max_n() const { return max_n_; }
  std::size_t texts() const { return texts_; }
  const std::unordered_map<std::uint64_t, std::uint32_t>& document_frequencies() const { return df_; }

 private:
  int max_n_;
  std::size_t texts_ = 0;
  std::unordered_map<std::uint64_t, std::uint32_t> df_;
  std::vector<std::uint64_t> terms_;  // reused for every text
};

class TfidfVectorizer {
 public:
  // The vocabulary: counted terms in at least min_df texts, the max_features with the highest
  // document frequency (ties by key, so the choice is deterministic), each weighted by
  // idf = ln((1 + n) / (1 + df)) + 1. options.max_n must be counts.max_n().
  TfidfVectorizer(const TermCounts& counts, const TfidfOptions& options);
  // The same, counting `texts` (word keys per text, text/ngrams.hpp).
  TfidfVectorizer(std::span<const std::vector<std::uint64_t>> texts, const TfidfOptions& options);
  // A stored vocabulary: feature f is n-gram key terms[f] (ngram_key) with weight idf[f].
  // InputError when the two differ in size, a key repeats, or a weight is not finite and positive.
  TfidfVectorizer(int max_n, std::vector<std::uint64_t> terms, std::vector<double> idf);

  std::size_t num_features() const { return idf_.size(); }
  int max_n() const { return max_n_; }
  const std::vector<std::uint64_t>& terms() const { return terms_; }
  const std::vector<double>& idf() const { return idf_; }
  // Rows of (1 + ln tf) idf over the vocabulary, scaled to unit length (a text with no known term
  // is an empty row).
  SparseRows transform(std::span<const std::vector<std::uint64_t>> texts) const;

 private:
  void index_terms();
  // Open addressing over well-mixed 64-bit keys: the lookup of every n-gram of every real text
  // is the hot loop of scoring a large real set.
  std::int32_t find(std::uint64_t key) const;

  int max_n_;
  std::vector<std::uint64_t> terms_;
  std::vector<double> idf_;
  std::vector<std::uint64_t> slot_keys_;
  std::vector<std::int32_t> slot_index_;  // -1: empty slot
};

}  // namespace secpe
