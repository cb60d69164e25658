#include "text/latent_topics.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <limits>

#include "core/rng.hpp"
#include "text/function_words.hpp"
#include "text/ngrams.hpp"
#include "text/tfidf.hpp"
#include "text/tokenizer.hpp"

namespace secpe {
namespace {

constexpr int kLatentTopicIterations = 15;
constexpr std::uint64_t kTopicSeed = 0x746f70696373ull;  // "topics": public and fixed, like the data

// Each text's content words (no function word, no punctuation), joined by spaces.
std::vector<std::string> content_texts(const std::vector<std::string>& texts) {
  std::vector<std::string> out;
  out.reserve(texts.size());
  for (const auto& text : texts) {
    std::string joined;
    for (const auto& w : words_lower(text)) {
      if (is_function_word(w) || std::none_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; })) continue;
      joined += w;
      joined += ' ';
    }
    out.push_back(std::move(joined));
  }
  return out;
}

// k-means++ seeding on unit rows: each next centre drawn with probability proportional to its
// squared distance to the nearest chosen one (2 - 2 cos).
Eigen::MatrixXd seed_centres(const SparseRows& rows, const std::vector<std::size_t>& usable, int topics) {
  CounterRng rng(kTopicSeed, Stream::kGeneration, 0x7c);
  Eigen::MatrixXd centres = Eigen::MatrixXd::Zero(topics, rows.cols());
  std::vector<double> nearest(usable.size(), 4.0);
  for (int t = 0; t < topics; ++t) {
    double total = 0;
    for (const double d : nearest) total += d;
    double r = rng.uniform() * total;
    std::size_t pick = usable.size() - 1;
    for (std::size_t k = 0; k < usable.size(); ++k) {
      if (r < nearest[k]) {
        pick = k;
        break;
      }
      r -= nearest[k];
    }
    centres.row(t) = rows.row(static_cast<Eigen::Index>(usable[pick]));
    const Eigen::VectorXd c = centres.row(t).transpose();
    for (std::size_t k = 0; k < usable.size(); ++k)
      nearest[k] = std::min(nearest[k], std::max(0.0, 2.0 - 2.0 * rows.row(static_cast<Eigen::Index>(usable[k])).dot(c)));
  }
  return centres;
}

// Each usable row's topic: the centre of the largest cosine, the first of equal ones. A row's
// score for a centre is summed over its stored entries in order, from 0, as Eigen's sparse-dense
// product sums it (the same bits), without the rows x topics matrix of scores, a pass over
// memory per iteration that took most of the time at Yelp scale. Clones for wider registers: each
// lane adds as the scalar code does (no fused multiply-add: -ffp-contract=off), the same bits.
[[gnu::target_clones("avx512f", "avx2", "default")]]
void assign_topics(const SparseRows& rows, const std::vector<std::size_t>& usable, const Eigen::MatrixXd& centres,
                   std::vector<int>& assigned) {
  const Eigen::Index k = centres.rows();
  std::vector<double> score(static_cast<std::size_t>(k));
  for (std::size_t j = 0; j < usable.size(); ++j) {
    std::fill(score.begin(), score.end(), 0.0);
    for (SparseRows::InnerIterator it(rows, static_cast<Eigen::Index>(usable[j])); it; ++it) {
      const double v = it.value();
      const double* c = centres.col(it.index()).data();  // column-major: one word's weight in every centre
      for (Eigen::Index t = 0; t < k; ++t) score[static_cast<std::size_t>(t)] += v * c[t];
    }
    int best = 0;
    for (Eigen::Index t = 1; t < k; ++t)
      if (score[static_cast<std::size_t>(t)] > score[static_cast<std::size_t>(best)]) best = static_cast<int>(t);
    assigned[j] = best;
  }
}

}  // namespace

std::vector<std::vector<std::size_t>> latent_topics(const std::vector<std::string>& texts, int topics) {
  const auto words = words_of(content_texts(texts));
  const TfidfVectorizer tfidf(words, TfidfOptions{.max_n = 1, .min_df = 3});
  const SparseRows rows = tfidf.transform(words);
  std::vector<std::size_t> usable;
  for (std::size_t i = 0; i < texts.size(); ++i)
    if (rows.row(static_cast<Eigen::Index>(i)).nonZeros() > 0) usable.push_back(i);
  const int k = std::min<int>(topics, static_cast<int>(usable.size()));
  if (k <= 0) return std::vector<std::vector<std::size_t>>(static_cast<std::size_t>(std::max(0, topics)));
  Eigen::MatrixXd centres = seed_centres(rows, usable, k);
  std::vector<int> assigned(usable.size(), -1);
  for (int iteration = 0; iteration < kLatentTopicIterations; ++iteration) {
    assign_topics(rows, usable, centres, assigned);  // cosine: rows and centres unit length
    Eigen::MatrixXd sums = Eigen::MatrixXd::Zero(k, rows.cols());
    for (std::size_t j = 0; j < usable.size(); ++j) sums.row(assigned[j]) += rows.row(static_cast<Eigen::Index>(usable[j]));
    for (int t = 0; t < k; ++t)
      if (sums.row(t).norm() > 0) centres.row(t) = sums.row(t).normalized();  // an empty cluster keeps its centre
  }
  std::vector<std::vector<std::size_t>> members(static_cast<std::size_t>(topics));
  for (std::size_t j = 0; j < usable.size(); ++j) members[static_cast<std::size_t>(assigned[j])].push_back(usable[j]);
  return members;
}

}  // namespace secpe
