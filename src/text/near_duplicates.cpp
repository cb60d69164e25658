#include "text/near_duplicates.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/error.hpp"
#include "text/ngrams.hpp"

namespace secpe {

namespace {

void check(const NearDuplicateOptions& options) {
  if (options.n < 1 || !(options.share > 0.0 && options.share <= 1.0)) {
    throw InputError("near-duplicates: n must be at least 1 and the share in (0, 1]");
  }
}

// The text's distinct n-grams, sorted; a text shorter than n is one n-gram of all its words.
std::vector<std::uint64_t> ngram_set(std::span<const std::uint64_t> words, int n) {
  std::vector<std::uint64_t> grams;
  if (words.size() < static_cast<std::size_t>(n)) {
    if (!words.empty()) grams.push_back(ngram_key(words));
  } else {
    append_ngram_keys(words, n, grams);
  }
  std::sort(grams.begin(), grams.end());
  grams.erase(std::unique(grams.begin(), grams.end()), grams.end());
  return grams;
}

// The least count that is at least share * size (a hair below it for round-off, e.g. 0.3 * 10).
std::uint32_t needed(double share, std::size_t size) {
  return static_cast<std::uint32_t>(std::ceil(share * static_cast<double>(size) - 1e-9));
}

}  // namespace

std::size_t count_near_duplicates(std::span<const std::vector<std::uint64_t>> texts,
                                  std::span<const std::int32_t> groups, const NearDuplicateOptions& options) {
  if (groups.size() != texts.size()) throw std::invalid_argument("count_near_duplicates: one group per text");
  check(options);
  // (group-salted n-gram key, text), sorted: each run of one key is that n-gram's posting list.
  struct Entry {
    std::uint64_t key;
    std::uint32_t text;
  };
  std::vector<Entry> entries;
  for (std::size_t t = 0; t < texts.size(); ++t) {
    const auto group = static_cast<std::uint64_t>(groups[t]);
    const std::uint64_t salt = ngram_key(std::span<const std::uint64_t>(&group, 1));
    for (const std::uint64_t g : ngram_set(texts[t], options.n)) entries.push_back({g ^ salt, static_cast<std::uint32_t>(t)});
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
    const std::uint32_t need = needed(options.share, lists[t].size());
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

NearDuplicateFilter::NearDuplicateFilter(const NearDuplicateOptions& options) : options_(options) { check(options); }

bool NearDuplicateFilter::try_add(std::span<const std::uint64_t> words) {
  const std::vector<std::uint64_t> grams = ngram_set(words, options_.n);
  const std::uint32_t need = needed(options_.share, grams.size());
  std::vector<std::uint32_t> touched;
  bool duplicate = false;
  for (const std::uint64_t g : grams) {
    const auto it = postings_.find(g);
    if (it == postings_.end()) continue;
    for (const std::uint32_t u : it->second) {
      if (shared_[u]++ == 0) touched.push_back(u);
      duplicate = duplicate || shared_[u] >= need || shared_[u] >= needed(options_.share, grams_per_text_[u]);
    }
  }
  for (const std::uint32_t u : touched) shared_[u] = 0;
  if (duplicate) return false;
  const auto id = static_cast<std::uint32_t>(grams_per_text_.size());
  for (const std::uint64_t g : grams) postings_[g].push_back(id);
  grams_per_text_.push_back(static_cast<std::uint32_t>(grams.size()));
  shared_.push_back(0);
  return true;
}

}  // namespace secpe
