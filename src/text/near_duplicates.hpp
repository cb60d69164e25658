#pragma once
// Near-duplicate texts, one definition for the evaluation (how many texts of a set are near-copies)
// and for selection (keep no near-copy of a text already kept). Texts are given as their word keys
// (text/ngrams.hpp).
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace secpe {

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

// A growing set of texts none of which is a near-duplicate of another, in either direction: a
// selection that keeps only what `try_add` accepts has a near-duplicate rate of 0 by the
// definition above.
class NearDuplicateFilter {
 public:
  explicit NearDuplicateFilter(const NearDuplicateOptions& options);
  // Keeps `words` and returns true unless the text shares at least `share` of its own n-grams
  // with a kept text, or a kept text shares at least `share` of its n-grams with it.
  bool try_add(std::span<const std::uint64_t> words);
  std::size_t size() const { return grams_per_text_.size(); }

 private:
  NearDuplicateOptions options_;
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> postings_;  // n-gram -> kept texts
  std::vector<std::uint32_t> grams_per_text_;                               // distinct n-grams of each kept text
  std::vector<std::uint32_t> shared_;                                       // scratch, per kept text
};

}  // namespace secpe
