#include "text/learned_embedder.hpp"

#include <cmath>
#include <string_view>
#include <vector>

#include "core/digest.hpp"
#include "core/error.hpp"
#include "text/ngrams.hpp"

namespace secpe {


int learned_embedder_ngrams(LearnedEmbedderKind kind) { return kind == LearnedEmbedderKind::kPpmiSif ? 1 : 2; }

LearnedEmbedder::LearnedEmbedder(LearnedEmbedderKind kind, TfidfVectorizer vectorizer, MatrixF projection)
    : kind_(kind), vectorizer_(std::move(vectorizer)), projection_(std::move(projection)) {
  const std::string what = learned_embedder_kind_name(kind) + " model: ";
  const std::size_t v = vectorizer_.num_features();
  if (vectorizer_.max_n() != learned_embedder_ngrams(kind)) {
    throw InputError(what + "the vocabulary holds word " + std::to_string(vectorizer_.max_n()) + "-grams, not " +
                     std::to_string(learned_embedder_ngrams(kind)) + "-grams");
  }
  if (static_cast<std::size_t>(projection_.rows()) != v) {
    throw InputError(what + "the projection has " + std::to_string(projection_.rows()) + " rows for " + std::to_string(v) + " vocabulary terms");
  }
  if (projection_.cols() < kLearnedEmbedderMinDim || projection_.cols() > kLearnedEmbedderMaxDim) {
    throw InputError(what + "the projection has " + std::to_string(projection_.cols()) + " columns, outside [" +
                     std::to_string(kLearnedEmbedderMinDim) + ", " + std::to_string(kLearnedEmbedderMaxDim) + "]");
  }
  if (!projection_.allFinite()) throw InputError(what + "the projection holds a non-finite value");
  // The digest reads the values in this machine's byte order (little-endian wherever secpe runs).
  const auto bytes_of = [](const auto* data, std::size_t count) {
    return std::string_view(reinterpret_cast<const char*>(data), count * sizeof(*data));
  };
  const std::string kind_name = learned_embedder_kind_name(kind);
  std::string content = "secpe " + kind_name + " 1 n=" + std::to_string(vectorizer_.max_n()) + " V=" + std::to_string(v) +
                        " d=" + std::to_string(dim()) + "\n";
  content += bytes_of(vectorizer_.terms().data(), v);
  content += bytes_of(vectorizer_.idf().data(), v);
  content += bytes_of(projection_.data(), static_cast<std::size_t>(projection_.size()));
  name_ = kind_name + "(d=" + std::to_string(dim()) + ", V=" + std::to_string(v) + ", digest=" + blake2b_256_hex(content).substr(0, 16) + ")";
}

void LearnedEmbedder::embed(std::span<const std::string> texts, MatrixF& out) const {
  const auto d = static_cast<std::size_t>(projection_.cols());
  out.setZero(static_cast<Eigen::Index>(texts.size()), projection_.cols());
  const SparseRows x = vectorizer_.transform(words_of(texts));
  std::vector<double> row(d);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (SparseRows::InnerIterator it(x, i); it; ++it) {
      const float* pf = projection_.data() + static_cast<std::size_t>(it.index()) * d;
      for (std::size_t c = 0; c < d; ++c) row[c] += it.value() * pf[c];
    }
    double norm2 = 0.0;
    for (const double value : row) norm2 += value * value;
    if (norm2 == 0.0) {
      out(i, 0) = 1.0f;  // see the header: the first axis, never a zero row
      continue;
    }
    const double inv = 1.0 / std::sqrt(norm2);
    float* dst = out.data() + static_cast<std::size_t>(i) * d;
    for (std::size_t c = 0; c < d; ++c) dst[c] = static_cast<float>(row[c] * inv);
  }
}

}  // namespace secpe
