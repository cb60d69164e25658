#include "text/tfidf.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/error.hpp"
#include "text/ngrams.hpp"

namespace secpe {
namespace {

void terms_of(const std::vector<std::uint64_t>& words, int max_n, std::vector<std::uint64_t>& out) {
  out.clear();
  for (int n = 1; n <= max_n; ++n) append_ngram_keys(words, n, out);
}

TermCounts count_terms(std::span<const std::vector<std::uint64_t>> texts, int max_n) {
  TermCounts counts(max_n);
  for (const auto& words : texts) counts.add(words);
  return counts;
}

}  // namespace

TermCounts::TermCounts(int max_n) : max_n_(max_n) {
  if (max_n < 1) throw InputError("TF-IDF: n-grams need at least one word");
}

void TermCounts::add(const std::vector<std::uint64_t>& words) {
  terms_of(words, max_n_, terms_);
  std::sort(terms_.begin(), terms_.end());
  terms_.erase(std::unique(terms_.begin(), terms_.end()), terms_.end());
  for (const std::uint64_t t : terms_) ++df_[t];
  ++texts_;
}

TfidfVectorizer::TfidfVectorizer(std::span<const std::vector<std::uint64_t>> texts, const TfidfOptions& options)
    : TfidfVectorizer(count_terms(texts, options.max_n), options) {}

TfidfVectorizer::TfidfVectorizer(const TermCounts& counts, const TfidfOptions& options) : max_n_(options.max_n) {
  if (options.max_n != counts.max_n()) throw std::invalid_argument("TfidfVectorizer: counted n-grams differ from options.max_n");
  std::vector<std::pair<std::uint32_t, std::uint64_t>> kept;  // (df, key)
  for (const auto& [key, count] : counts.document_frequencies()) {
    if (count >= options.min_df) kept.emplace_back(count, key);
  }
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (kept.size() > options.max_features) kept.resize(options.max_features);
  const double n = static_cast<double>(counts.texts());
  for (const auto& [df, key] : kept) {
    terms_.push_back(key);
    idf_.push_back(std::log((1.0 + n) / (1.0 + df)) + 1.0);
  }
  index_terms();
}

TfidfVectorizer::TfidfVectorizer(int max_n, std::vector<std::uint64_t> terms, std::vector<double> idf)
    : max_n_(max_n), terms_(std::move(terms)), idf_(std::move(idf)) {
  if (max_n < 1) throw InputError("TF-IDF: n-grams need at least one word");
  if (terms_.size() != idf_.size()) {
    throw InputError("TF-IDF vocabulary: " + std::to_string(terms_.size()) + " terms but " + std::to_string(idf_.size()) + " weights");
  }
  if (terms_.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) throw InputError("TF-IDF vocabulary: too many terms");
  for (std::size_t f = 0; f < idf_.size(); ++f) {
    if (!(std::isfinite(idf_[f]) && idf_[f] > 0)) throw InputError("TF-IDF vocabulary: term " + std::to_string(f) + " has a weight that is not finite and positive");
  }
  index_terms();
}

void TfidfVectorizer::index_terms() {
  const std::size_t slots = std::bit_ceil(std::max<std::size_t>(16, terms_.size() * 2));
  slot_keys_.assign(slots, 0);
  slot_index_.assign(slots, -1);
  for (std::size_t f = 0; f < terms_.size(); ++f) {
    std::size_t s = terms_[f] & (slots - 1);
    while (slot_index_[s] >= 0) {
      // A repeated key would make the second feature unreachable: a stored vocabulary is damaged.
      if (slot_keys_[s] == terms_[f]) throw InputError("TF-IDF vocabulary: term " + std::to_string(f) + " repeats an earlier term");
      s = (s + 1) & (slots - 1);
    }
    slot_keys_[s] = terms_[f];
    slot_index_[s] = static_cast<std::int32_t>(f);
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
    terms_of(texts[i], max_n_, terms);
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
