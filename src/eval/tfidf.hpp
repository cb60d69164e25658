#pragma once
// TF-IDF features of word 1..n-grams with the vocabulary learned from the training texts only
// (scikit-learn's TfidfVectorizer with sublinear_tf, smooth idf and l2 rows, on our tokenizer).
#include <Eigen/SparseCore>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace secpe {

// One row per text; row-major so that rows can be built and scored one at a time.
using SparseRows = Eigen::SparseMatrix<double, Eigen::RowMajor>;

struct TfidfOptions {
  int max_n = 2;                                    // word n-grams of 1 .. max_n words
  std::size_t min_df = 2;                           // kept terms occur in at least this many texts
  std::size_t max_features = std::size_t{1} << 18;  // then the most frequent (by document frequency)
};

class TfidfVectorizer {
 public:
  // The vocabulary: terms of `texts` (word keys per text, text/ngrams.hpp) in at least min_df
  // texts, the max_features with the highest document frequency (ties by key, so the choice is
  // deterministic), each weighted by idf = ln((1 + n) / (1 + df)) + 1.
  TfidfVectorizer(std::span<const std::vector<std::uint64_t>> texts, const TfidfOptions& options);
  std::size_t num_features() const { return idf_.size(); }
  // Rows of (1 + ln tf) idf over the vocabulary, scaled to unit length (a text with no known term
  // is an empty row).
  SparseRows transform(std::span<const std::vector<std::uint64_t>> texts) const;

 private:
  // Open addressing over well-mixed 64-bit keys: the lookup of every n-gram of every real text
  // is the hot loop of scoring a large real set.
  std::int32_t find(std::uint64_t key) const;
  void terms_of(const std::vector<std::uint64_t>& words, std::vector<std::uint64_t>& out) const;

  int max_n_;
  std::vector<std::uint64_t> slot_keys_;
  std::vector<std::int32_t> slot_index_;  // -1: empty slot
  std::vector<double> idf_;
};

}  // namespace secpe
