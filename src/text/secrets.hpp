#pragma once
// Secret detection: which records hold which secrets. Records holding none are public.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/secret_matrix.hpp"

namespace secpe {

struct SecretSet {
  std::vector<std::string> secrets;  // lower-cased words or phrases (emails, phone numbers, names)
  std::string mode;                  // "random-word" or "list:<file>"
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

// The records x secrets matrix (indptr from 0) for `texts`.
SecretMatrix detect_secrets(const std::vector<std::string>& texts, const SecretSet& secrets);

}  // namespace secpe
