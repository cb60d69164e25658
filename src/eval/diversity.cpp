#include "eval/diversity.hpp"

#include <algorithm>

#include "text/ngrams.hpp"

namespace secpe {

double distinct_ngram_ratio(std::span<const std::vector<std::uint64_t>> texts, int n) {
  std::vector<std::uint64_t> all;
  for (const auto& words : texts) append_ngram_keys(words, n, all);
  if (all.empty()) return 0.0;
  const auto total = static_cast<double>(all.size());
  std::sort(all.begin(), all.end());
  return static_cast<double>(std::unique(all.begin(), all.end()) - all.begin()) / total;
}

}  // namespace secpe
