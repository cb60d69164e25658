#include "eval/diversity.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/error.hpp"
#include "eval/ngrams.hpp"

namespace secpe {

double distinct_ngram_ratio(std::span<const std::vector<std::uint64_t>> texts, int n) {
  std::vector<std::uint64_t> all;
  for (const auto& words : texts) append_ngram_keys(words, n, all);
  if (all.empty()) return 0.0;
  const auto total = static_cast<double>(all.size());
  std::sort(all.begin(), all.end());
  return static_cast<double>(std::unique(all.begin(), all.end()) - all.begin()) / total;
}

std::size_t count_near_duplicates(std::span<const std::vector<std::uint64_t>> texts,
                                  std::span<const std::int32_t> groups, const NearDuplicateOptions& options) {
  if (groups.size() != texts.size()) throw std::invalid_argument("count_near_duplicates: one group per text");
  if (options.n < 1 || !(options.share > 0.0 && options.share <= 1.0)) {
    throw InputError("near-duplicates: n must be at least 1 and the share in (0, 1]");
  }
  // (group-salted n-gram key, text), sorted: each run of one key is that n-gram's posting list.
  struct Entry {
    std::uint64_t key;
    std::uint32_t text;
  };
  std::vector<Entry> entries;
  std::vector<std::uint64_t> grams;
  for (std::size_t t = 0; t < texts.size(); ++t) {
    grams.clear();
    if (texts[t].size() < static_cast<std::size_t>(options.n)) {
      if (!texts[t].empty()) grams.push_back(ngram_key(texts[t]));
    } else {
      append_ngram_keys(texts[t], options.n, grams);
    }
    std::sort(grams.begin(), grams.end());
    grams.erase(std::unique(grams.begin(), grams.end()), grams.end());
    const auto group = static_cast<std::uint64_t>(groups[t]);
    const std::uint64_t salt = ngram_key(std::span<const std::uint64_t>(&group, 1));
    for (const std::uint64_t g : grams) entries.push_back({g ^ salt, static_cast<std::uint32_t>(t)});
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.key != b.key ? a.key < b.key : a.text < b.text; });
  // Each text's posting lists, as [begin, end) ranges of `entries`.
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> lists(texts.size());
  for (std::size_t a = 0; a < entries.size();) {
    std::size_t b = a + 1;
    while (b < entries.size() && entries[b].key == entries[a].key) ++b;
    for (std::size_t e = a; e < b; ++e) lists[entries[e].text].emplace_back(a, b);
    a = b;
  }
  std::vector<std::uint32_t> shared(texts.size(), 0);  // n-grams text t shares with each other text
  std::vector<std::uint32_t> touched;
  std::size_t duplicates = 0;
  for (std::size_t t = 0; t < texts.size(); ++t) {
    // The least count that is at least share * size (a hair below it for round-off, e.g. 0.3 * 10).
    const auto need = static_cast<std::uint32_t>(std::ceil(options.share * static_cast<double>(lists[t].size()) - 1e-9));
    bool found = false;
    for (const auto& [a, b] : lists[t]) {
      for (std::uint32_t e = a; e < b && !found; ++e) {
        const std::uint32_t u = entries[e].text;
        if (u == t) continue;
        if (shared[u]++ == 0) touched.push_back(u);
        found = shared[u] >= need;
      }
      if (found) break;
    }
    duplicates += found ? 1 : 0;
    for (const std::uint32_t u : touched) shared[u] = 0;
    touched.clear();
  }
  return duplicates;
}

}  // namespace secpe
