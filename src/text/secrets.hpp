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
  std::string mode;                     // "random-word", "list:<file name>", "pii", or several joined by '+'
};


// Random-word mode (the paper's main task): count word frequencies over the corpus, sort the
// vocabulary by descending frequency (ties by the word itself), and take `count` words centred on
// position `quantile` * vocabulary size, skipping words of fewer than `min_length` letters and the
// words of `published` (label values: they are published with the synthetic data, so they can
// never be secrets). With max_private_share < 1, words are taken in order of their distance from
// that centre, and a word that would make more than that share of the records private is passed
// over for the next (rarer or more frequent) one, within 10 x count positions of the centre: so on
// a small corpus, or one of few distinct words, where `count` words around the quantile would
// make most records private, fewer words are chosen and most records stay public. Where the limit
// never binds, the words are exactly the `count` centred ones (the paper's choice). With
// `label_of` (each text's label) as well, no word is taken that would leave a label without a
// public record (the generator learns from them, and N_syn follows their counts); a limit of 1
// applies neither rule.
struct RandomWordOptions {
  int count = 100;
  double quantile = 0.2;
  double max_private_share = 0.3;  // 1: no limit (the paper's setting)
  int min_length = 3;
};
SecretSet choose_random_word_secrets(const std::vector<std::string>& texts, const RandomWordOptions& options,
                                     const std::vector<std::string>& published = {}, const std::vector<std::int32_t>& label_of = {});

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
