#include "text/ppmi_sif_embedder.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "text/ngrams.hpp"
#include "text/randomized_svd.hpp"
#include "text/tfidf_svd_embedder.hpp"

namespace secpe {
namespace {

constexpr std::size_t kBlockRows = 8192;  // matrix rows (words, or texts) per block

// Word counts and weighted co-occurrences of the sampled texts, over the vocabulary.
struct Cooccurrences {
  std::vector<std::uint64_t> tokens_of;  // per word: its tokens in the sample
  std::uint64_t tokens = 0;              // every word token of the sample, in the vocabulary or not
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;  // (a << 32 | b, weighted count), sorted
};

Cooccurrences count_cooccurrences(std::span<const std::string_view> sample, const std::vector<std::uint64_t>& terms, int window) {
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  for (std::size_t f = 0; f < terms.size(); ++f) index.emplace(terms[f], static_cast<std::uint32_t>(f));
  Cooccurrences c;
  c.tokens_of.assign(terms.size(), 0);
  std::unordered_map<std::uint64_t, std::uint64_t> pairs;
  std::vector<std::uint64_t> keys;
  std::vector<std::uint32_t> ids;
  for (const std::string_view text : sample) {
    keys.clear();
    append_ngram_keys(word_keys(text), 1, keys);
    c.tokens += keys.size();
    ids.clear();
    for (const std::uint64_t k : keys) {
      const auto it = index.find(k);
      if (it != index.end()) ids.push_back(it->second);  // words outside the vocabulary drop out of the window
    }
    for (std::size_t i = 0; i < ids.size(); ++i) {
      ++c.tokens_of[ids[i]];
      for (int dist = 1; dist <= window && i + static_cast<std::size_t>(dist) < ids.size(); ++dist) {
        const std::uint64_t a = ids[i], b = ids[i + static_cast<std::size_t>(dist)];
        const auto weight = static_cast<std::uint64_t>(window + 1 - dist);
        pairs[a << 32 | b] += weight;
        pairs[b << 32 | a] += weight;
      }
    }
  }
  c.pairs.assign(pairs.begin(), pairs.end());
  std::sort(c.pairs.begin(), c.pairs.end());
  return c;
}

// The PPMI matrix (words x words) in row blocks.
std::vector<SparseRows> ppmi_blocks(const Cooccurrences& c, std::size_t words, double smoothing) {
  std::vector<double> marginal(words, 0.0);  // symmetric counts: row and context marginals agree
  for (const auto& [key, count] : c.pairs) marginal[key >> 32] += double(count);
  std::vector<double> smoothed(words);
  double z = 0.0;
  for (std::size_t w = 0; w < words; ++w) z += smoothed[w] = std::pow(marginal[w], smoothing);
  std::vector<SparseRows> blocks;
  std::size_t next = 0;
  for (std::size_t first = 0; first < words; first += kBlockRows) {
    const std::size_t last = std::min(words, first + kBlockRows);
    SparseRows block(static_cast<Eigen::Index>(last - first), static_cast<Eigen::Index>(words));
    for (std::size_t row = first; row < last; ++row) {
      block.startVec(static_cast<Eigen::Index>(row - first));
      for (; next < c.pairs.size() && (c.pairs[next].first >> 32) == row; ++next) {
        const std::size_t b = c.pairs[next].first & 0xffffffffu;
        const double pmi = std::log(double(c.pairs[next].second) * z / (marginal[row] * smoothed[b]));
        if (pmi > 0) block.insertBack(static_cast<Eigen::Index>(row - first), static_cast<Eigen::Index>(b)) = pmi;
      }
    }
    block.finalize();
    blocks.push_back(std::move(block));
  }
  return blocks;
}

// The unit embeddings' first principal direction (uncentred, as SIF removes it): the top
// eigenvector of the sum of e e^T over the sampled texts, summed per fixed block of texts and the
// blocks in order, so it does not depend on the thread count.
Eigen::VectorXd common_direction(std::span<const std::string_view> sample, const LearnedEmbedder& embedder, int threads) {
  const int d = embedder.dim();
  const std::size_t blocks = (sample.size() + kBlockRows - 1) / kBlockRows;
  std::vector<Eigen::MatrixXd> grams(blocks, Eigen::MatrixXd::Zero(d, d));
  run_chunks(threads, blocks, [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b) {
      std::vector<std::string> texts;
      for (std::size_t i = b * kBlockRows; i < std::min(sample.size(), (b + 1) * kBlockRows); ++i) texts.emplace_back(sample[i]);
      MatrixF e;
      embedder.embed(texts, e);
      const Eigen::MatrixXd x = e.cast<double>();
      grams[b].noalias() = x.transpose() * x;
    }
  });
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(d, d);
  for (const auto& gram : grams) g += gram;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(g);  // ascending eigenvalues
  return eigen.eigenvectors().col(d - 1);
}

}  // namespace

LearnedEmbedder fit_ppmi_sif(std::span<const std::string_view> public_texts, const PpmiSifOptions& o) {
  const int d = o.dim;
  check_learned_embedder_options("ppmi-sif", d, o.min_df, o.vocabulary);
  if (o.window < 1 || !(o.sif_a > 0) || !(o.context_smoothing > 0) || o.max_texts < 1) throw std::invalid_argument("ppmi-sif embedder: bad options");
  const int threads = o.threads > 0 ? o.threads : default_threads();
  const OneEigenThread one_eigen_thread;

  TermCounts counts(1);
  for (const std::string_view text : public_texts) counts.add(word_keys(text));
  const TfidfVectorizer vocabulary(counts, {.max_n = 1, .min_df = o.min_df, .max_features = o.vocabulary});
  const std::size_t v = vocabulary.num_features();
  if (v < static_cast<std::size_t>(d)) {
    throw InputError("ppmi-sif embedder: the " + std::to_string(public_texts.size()) + " public records hold " + std::to_string(v) +
                     " words that occur in at least " + std::to_string(o.min_df) + " of them, fewer than the embedding dimension " +
                     std::to_string(d) + " (lower the dimension or the minimum document frequency, or import more public records)");
  }
  std::vector<std::string_view> sample;
  const std::size_t take = std::min(public_texts.size(), o.max_texts);
  for (std::size_t k = 0; k < take; ++k) sample.push_back(public_texts[k * public_texts.size() / take]);

  const Cooccurrences c = count_cooccurrences(sample, vocabulary.terms(), o.window);
  const BlockSparseMatrix ppmi(ppmi_blocks(c, v, o.context_smoothing), static_cast<Eigen::Index>(v), threads);
  const TruncatedSvd svd = randomized_svd(ppmi, {.rank = d, .oversampling = o.oversampling, .power_iterations = o.power_iterations, .seed = o.seed});
  RowMatrixD vectors = svd.right;
  for (int k = 0; k < d; ++k) vectors.col(k) *= std::pow(svd.values(k), o.singular_value_power);

  std::vector<double> weights(v);
  for (std::size_t f = 0; f < v; ++f) weights[f] = o.sif_a / (o.sif_a + double(c.tokens_of[f]) / double(std::max<std::uint64_t>(1, c.tokens)));
  const LearnedEmbedder plain(LearnedEmbedderKind::kPpmiSif, TfidfVectorizer(1, vocabulary.terms(), weights), vectors.cast<float>());
  const Eigen::VectorXd u = common_direction(sample, plain, threads);
  vectors -= (vectors * u) * u.transpose();
  return LearnedEmbedder(LearnedEmbedderKind::kPpmiSif, TfidfVectorizer(1, vocabulary.terms(), weights), vectors.cast<float>());
}

}  // namespace secpe
