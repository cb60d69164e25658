#pragma once
// Diversity of a text set: distinct n-grams (near-duplicates: text/near_duplicates.hpp). Texts
// are given as their word keys (text/ngrams.hpp).
#include <cstdint>
#include <span>
#include <vector>

#include "text/near_duplicates.hpp"

namespace secpe {

// Distinct word n-grams over all texts divided by all n-grams (1 when no n-gram repeats; 0 when there are none).
double distinct_ngram_ratio(std::span<const std::vector<std::uint64_t>> texts, int n);

}  // namespace secpe
