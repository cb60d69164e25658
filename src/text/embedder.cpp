#include "text/embedder.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "text/scan.hpp"

namespace secpe {

using namespace text_detail;

HashingEmbedder::HashingEmbedder(int dim) : dim_(dim) {
  if (dim <= 0) throw InputError("embedder: the embedding dimension must be positive");
}

std::string HashingEmbedder::name() const { return "hashing-uni+bigram-d" + std::to_string(dim_); }

void HashingEmbedder::embed(std::span<const std::string> texts, MatrixF& out) const {
  const auto d = static_cast<std::size_t>(dim_);
  out.resize(static_cast<Eigen::Index>(texts.size()), dim_);
  std::vector<std::uint64_t> features;  // reused for every text
  std::vector<double> row(d);
  // 1 + log(count) for small counts, computed once.
  std::vector<double> weight_of(65);
  for (std::size_t c = 1; c < weight_of.size(); ++c) weight_of[c] = 1.0 + std::log(static_cast<double>(c));
  constexpr std::uint64_t kBigramSalt = 0x9e3779b97f4a7c15ull;

  for (std::size_t t = 0; t < texts.size(); ++t) {
    features.clear();
    std::uint64_t prev = 0;
    bool has_prev = false;
    scan_tokens(texts[t], [&](std::string_view tok, bool is_word) {
      if (!is_word) return;  // punctuation does not break bigrams: "good, cheap" is a bigram
      const std::uint64_t h = fnv1a_lower(tok);
      features.push_back(mix64(h));
      if (has_prev) features.push_back(mix64(prev * kFnvPrime ^ (h + kBigramSalt)));
      prev = h;
      has_prev = true;
    });
    std::sort(features.begin(), features.end());
    std::fill(row.begin(), row.end(), 0.0);
    for (std::size_t i = 0; i < features.size();) {
      std::size_t j = i + 1;
      while (j < features.size() && features[j] == features[i]) ++j;
      const std::size_t count = j - i;
      const double w = count < weight_of.size() ? weight_of[count] : 1.0 + std::log(static_cast<double>(count));
      const std::uint64_t f = features[i];
      const std::size_t bucket = static_cast<std::size_t>((f & 0xffffffffull) % d);
      row[bucket] += (f >> 63) ? -w : w;
      i = j;
    }
    double norm2 = 0.0;
    for (double v : row) norm2 += v * v;
    float* dst = out.data() + t * d;
    if (norm2 > 0.0) {
      const double inv = 1.0 / std::sqrt(norm2);
      for (std::size_t k = 0; k < d; ++k) dst[k] = static_cast<float>(row[k] * inv);
    } else {
      std::fill(dst, dst + d, 0.0f);
    }
  }
}

}  // namespace secpe
