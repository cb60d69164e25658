#pragma once
// The leak scan of `secpe run`: which released texts (synthetic.csv, initial.csv) show PII or
// one of the dataset's secrets. Counts per category only, never a value.
//
// Two scans with different standing:
// - PII patterns (text/pii.hpp, every category): a function of the released texts alone, so its
//   counts are public (privacy.json) and dropping the texts it flags (--drop-leaking) is
//   post-processing, which costs no privacy.
// - Exact secrets (the dataset's secret list, whatever its mode, matched as secret detection
//   matches them): a function of the secret list too, which is private input (in pii and
//   random-word modes it is drawn from the private records), so its counts are private and go to
//   the run's private state folder only. Dropping those texts would make the release depend on the
//   secret list: anyone who can regenerate a text (the initial population follows from the public
//   seed and the public records) would learn from its absence that it held a secret.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "text/pii.hpp"
#include "text/secrets.hpp"

namespace secpe {

struct LeakCounts {
  std::size_t texts = 0;              // texts scanned
  std::size_t flagged = 0;            // texts with at least one hit
  std::vector<bool> flagged_text;     // per text
  std::map<std::string, std::size_t> by_category;  // texts with a hit of each category (every category listed)
  nlohmann::ordered_json to_json() const;           // {texts, flagged, by_category}
};

// PII patterns of every category in `texts`.
LeakCounts scan_pii_leaks(const std::vector<std::string>& texts);

// The exact secrets of `secrets` (secrets and categories) in `texts`.
LeakCounts scan_secret_leaks(const std::vector<std::string>& texts, const SecretSet& secrets);

}  // namespace secpe
