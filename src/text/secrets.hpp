#pragma once
// Secret detection: which records hold which secrets. Records holding none are public.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/secret_matrix.hpp"
#include "text/pii.hpp"

namespace secpe {

struct SecretSet {
  std::vector<std::string> secrets;     // lower-cased words or phrases (emails, phone numbers, names)
  std::vector<std::string> categories;  // one per secret: "RANDOM_WORD", "LIST" or a PII category ("EMAIL", ...)
  std::string mode;                     // "random-word", "list:<file>", "pii", or several joined by '+'
};


// Random-word mode (the paper's main task): count word frequencies over the corpus, sort the
// vocabulary by descending frequency (ties by the word itself), and take `count` words centred on
// position `quantile` * vocabulary size, skipping words of fewer than `min_length` letters and the
// words of `published` (label values: they are published with the synthetic data, so they can
// never be secrets).
SecretSet choose_random_word_secrets(const std::vector<std::string>& texts, int count, double quantile,
                                     const std::vector<std::string>& published = {}, int min_length = 3);

// A secrets-list file: one secret per line (word or phrase, matched case-insensitively on word
// boundaries); blank lines and lines starting with '#' are ignored. Errors name file and line.
SecretSet read_secret_list(const std::filesystem::path& path);

// PII mode: every distinct value find_pii finds in `texts` (categories `wanted`) is a secret of
// its category, lower-cased, in order of first appearance. `found` (if given) gets the records x
// secrets matrix of the detections themselves: detect_secrets finds every other record holding a
// value, and the union of the two (secret_union) is the dataset's matrix, so a record in which a
// value was detected is private even where the value does not fall on word boundaries.
SecretSet choose_pii_secrets(const std::vector<std::string>& texts, PiiCategories wanted, SecretMatrix* found = nullptr);

// The secrets of `sets`, in order, less those with the same words as an earlier one (which keeps
// the earlier one's category): the first set's secret ids are unchanged.
SecretSet merge_secret_sets(const std::vector<SecretSet>& sets);

// Per record, the secrets of either matrix (same rows and secret count, indptr from 0).
SecretMatrix secret_union(const SecretMatrix& a, const SecretMatrix& b);

// The records x secrets matrix (indptr from 0) for `texts`.
SecretMatrix detect_secrets(const std::vector<std::string>& texts, const SecretSet& secrets);

}  // namespace secpe
