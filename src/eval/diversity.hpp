#pragma once
// Diversity of a text set: distinct n-grams and near-duplicates. Texts are given as their word
// keys (eval/ngrams.hpp).
#include <cstdint>
#include <span>
#include <vector>

namespace secpe {

// Distinct word n-grams over all texts divided by all n-grams (1 when no n-gram repeats; 0 when there are none).
double distinct_ngram_ratio(std::span<const std::vector<std::uint64_t>> texts, int n);

struct NearDuplicateOptions {
  int n = 5;             // word n-grams, compared as sets
  double share = 0.5;    // a text is a near-duplicate when at least this share of its n-grams ...
};

// ... are also n-grams of another text of the same group (groups[i]: the text's label). A text of
// fewer than n words counts as one n-gram made of all its words, so short exact copies count too.
// Returns how many texts are near-duplicates. Uses an n-gram -> texts index: the work is the sum
// over n-grams of (texts holding it)^2 at worst, a fraction of a second for thousands of texts.
std::size_t count_near_duplicates(std::span<const std::vector<std::uint64_t>> texts,
                                  std::span<const std::int32_t> groups, const NearDuplicateOptions& options);

}  // namespace secpe
