#include "eval/tfidf.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <unordered_map>

#include "core/error.hpp"
#include "text/ngrams.hpp"

namespace secpe {

void TfidfVectorizer::terms_of(const std::vector<std::uint64_t>& words, std::vector<std::uint64_t>& out) const {
  out.clear();
  for (int n = 1; n <= max_n_; ++n) append_ngram_keys(words, n, out);
}

TfidfVectorizer::TfidfVectorizer(std::span<const std::vector<std::uint64_t>> texts, const TfidfOptions& options)
    : max_n_(options.max_n) {
  if (options.max_n < 1) throw InputError("TF-IDF: n-grams need at least one word");
  std::unordered_map<std::uint64_t, std::uint32_t> df;
  std::vector<std::uint64_t> terms;
  for (const auto& words : texts) {
    terms_of(words, terms);
    std::sort(terms.begin(), terms.end());
    terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
    for (const std::uint64_t t : terms) ++df[t];
  }
  std::vector<std::pair<std::uint32_t, std::uint64_t>> kept;  // (df, key)
  for (const auto& [key, count] : df) {
    if (count >= options.min_df) kept.emplace_back(count, key);
  }
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (kept.size() > options.max_features) kept.resize(options.max_features);

  const std::size_t slots = std::bit_ceil(std::max<std::size_t>(16, kept.size() * 2));
  slot_keys_.assign(slots, 0);
  slot_index_.assign(slots, -1);
  idf_.resize(kept.size());
  const double n = static_cast<double>(texts.size());
  for (std::size_t f = 0; f < kept.size(); ++f) {
    std::size_t s = kept[f].second & (slots - 1);
    while (slot_index_[s] >= 0) s = (s + 1) & (slots - 1);
    slot_keys_[s] = kept[f].second;
    slot_index_[s] = static_cast<std::int32_t>(f);
    idf_[f] = std::log((1.0 + n) / (1.0 + kept[f].first)) + 1.0;
  }
}

std::int32_t TfidfVectorizer::find(std::uint64_t key) const {
  const std::size_t mask = slot_keys_.size() - 1;
  for (std::size_t s = key & mask;; s = (s + 1) & mask) {
    if (slot_index_[s] < 0) return -1;
    if (slot_keys_[s] == key) return slot_index_[s];
  }
}

SparseRows TfidfVectorizer::transform(std::span<const std::vector<std::uint64_t>> texts) const {
  SparseRows out(static_cast<Eigen::Index>(texts.size()), static_cast<Eigen::Index>(idf_.size()));
  std::vector<std::uint64_t> terms;
  std::vector<std::int32_t> features;
  std::vector<std::pair<std::int32_t, double>> row;
  std::size_t nnz_guess = 0;
  for (const auto& words : texts) nnz_guess += 2 * words.size();
  out.reserve(static_cast<Eigen::Index>(nnz_guess));
  for (std::size_t i = 0; i < texts.size(); ++i) {
    terms_of(texts[i], terms);
    features.clear();
    for (const std::uint64_t t : terms) {
      if (const std::int32_t f = find(t); f >= 0) features.push_back(f);
    }
    std::sort(features.begin(), features.end());
    row.clear();
    double norm2 = 0.0;
    for (std::size_t a = 0; a < features.size();) {
      std::size_t b = a + 1;
      while (b < features.size() && features[b] == features[a]) ++b;
      const double w = (1.0 + std::log(static_cast<double>(b - a))) * idf_[static_cast<std::size_t>(features[a])];
      row.emplace_back(features[a], w);
      norm2 += w * w;
      a = b;
    }
    const auto r = static_cast<Eigen::Index>(i);
    out.startVec(r);
    const double inv = norm2 > 0.0 ? 1.0 / std::sqrt(norm2) : 0.0;
    for (const auto& [f, w] : row) out.insertBack(r, f) = w * inv;
  }
  out.finalize();
  return out;
}

}  // namespace secpe
