#include "evolve/selection.hpp"

#include <algorithm>
#include <numeric>

#include "text/ngrams.hpp"

namespace secpe {

std::vector<std::size_t> rank_order(std::span<const double> votes, std::span<const double> tie_key) {
  std::vector<std::size_t> order(votes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (votes[a] != votes[b]) return votes[a] > votes[b];
    if (tie_key[a] != tie_key[b]) return tie_key[a] < tie_key[b];
    return a < b;
  });
  return order;
}

std::vector<std::size_t> select_distinct(std::span<const std::size_t> order, std::span<const std::string> texts,
                                         std::size_t n, const NearDuplicateOptions& options) {
  NearDuplicateFilter filter(options);
  std::vector<std::size_t> kept, skipped;
  for (const std::size_t i : order) {
    if (kept.size() == n) break;
    (filter.try_add(word_keys(texts[i])) ? kept : skipped).push_back(i);
  }
  for (std::size_t i = 0; kept.size() < n && i < skipped.size(); ++i) kept.push_back(skipped[i]);
  return kept;
}

}  // namespace secpe
