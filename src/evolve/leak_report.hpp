#pragma once
// The run's leak scan (text/leak_scan.hpp) of what it releases: the final synthetic texts and the
// initial population. PII-pattern counts go to privacy.json; exact-secret counts, which depend on
// the private secret list, go to the private state folder only (leak_scan.json there).
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/dataset.hpp"

namespace secpe {

struct LeakReportOptions {
  const DatasetReader& reader;      // the dataset's secrets and their categories
  std::filesystem::path state_dir;  // private: leak_scan.json is written here (by `root` only)
  bool drop_leaking = false;        // remove the texts with a PII pattern from both populations
};

// The private report's path in `state_dir`.
std::filesystem::path leak_scan_path(const std::filesystem::path& state_dir);

// Scans `synthetic` and `initial` (per label), drops their flagged texts when asked, writes the
// private report when `root`, and returns privacy.json's "leak_scan" object (counts only).
nlohmann::ordered_json scan_released_texts(bool root, const LeakReportOptions& options,
                                           std::vector<std::vector<std::string>>& synthetic,
                                           std::vector<std::vector<std::string>>& initial);

}  // namespace secpe
