#pragma once
// Selection (paper Algorithm 3, "rank"), on released votes and public candidate texts only, so it
// is post-processing and costs no privacy.
// - Rank order: higher released votes first; then the smaller tie key (for SecPE, the candidate's
//   distance to its nearest noisy centre); then the lower candidate index (parents come first).
// - Distinct selection: the first n candidates in rank order that are no near-duplicate of a
//   candidate already kept (text/near_duplicates.hpp). A parent and its variations share most of
//   their n-grams, so plain rank selection filled the set with near-copies of a few lineages
//   (62% near-duplicates on the Yelp dev set), which cost downstream accuracy.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "text/near_duplicates.hpp"

namespace secpe {

// Every candidate index, in rank order.
std::vector<std::size_t> rank_order(std::span<const double> votes, std::span<const double> tie_key);

// The first n indices of `order` whose texts are no near-duplicate of an earlier kept one; when
// fewer than n are distinct, the best skipped ones fill the remaining places (in order), so the
// population keeps its size.
std::vector<std::size_t> select_distinct(std::span<const std::size_t> order, std::span<const std::string> texts,
                                         std::size_t n, const NearDuplicateOptions& options);

}  // namespace secpe
