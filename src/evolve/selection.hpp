#pragma once
// Rank selection (paper Algorithm 3, "rank"): keep the n candidates with the highest released
// votes. Deterministic tie-break, documented in the README: higher votes first; then the smaller
// tie key (for SecPE, the candidate's distance to its nearest noisy centre, a post-processing of
// released values that costs no privacy); then the lower candidate index (parents come first).
#include <cstddef>
#include <span>
#include <vector>

namespace secpe {

std::vector<std::size_t> rank_select(std::span<const double> votes, std::span<const double> tie_key, std::size_t n);

}  // namespace secpe
