#include "evolve/run_report.hpp"

#include <algorithm>
#include <filesystem>

#include "privacy/report.hpp"

namespace secpe {
namespace {

// A secret mode with each list's file by name: "list:/data/s.txt+pii" -> "list:s.txt+pii".
// secpe import stores names only; datasets imported by earlier versions hold the list's path.
std::string secret_mode_by_names(const std::string& mode) {
  std::string out;
  for (std::size_t begin = 0; begin <= mode.size();) {
    const std::size_t end = std::min(mode.find('+', begin), mode.size());
    const std::string part = mode.substr(begin, end - begin);
    out += (begin ? "+" : "") + (part.starts_with("list:") ? "list:" + std::filesystem::path(part.substr(5)).filename().string() : part);
    begin = end + 1;
  }
  return out;
}

}  // namespace

nlohmann::ordered_json public_provenance(const std::map<std::string, std::string>& provenance) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [key, value] : provenance) {
    if (key == "source" || key == "embeddings_file") {
      out[key] = std::filesystem::path(value).filename().string();
    } else if (key == "secret_mode") {
      out[key] = secret_mode_by_names(value);
    } else if (key != "bad_records_skipped") {  // malformed rows of the private input file
      out[key] = value;
    }
  }
  return out;
}

nlohmann::ordered_json privacy_report_of(const PrivacyReportFacts& facts, const Checkpoint& checkpoint, nlohmann::ordered_json leak_scan) {
  const RunOptions& options = facts.options;
  nlohmann::ordered_json label_reports = nlohmann::ordered_json::array();
  for (const auto& [label, outcome] : checkpoint.labels) label_reports.push_back(outcome.report);
  PrivacyReportInputs report{.method = facts.method.name(),
                             .iterations = options.iterations,
                             .p = options.p,
                             .r = options.r,
                             .budgets_file = options.budgets_file.string(),
                             .budgets = &facts.budgets,
                             .delta = facts.delta,
                             .augpe_voters = augpe_voters_name(options.augpe_voters),
                             .labels = label_reports,
                             .releases = facts.ledger.all_entries(),
                             .generator = facts.generator,
                             .experiment = options.experiment,
                             .r_cumulative = facts.across_runs.published_cumulative_r(),
                             .r_cumulative_coarse = &facts.across_runs.coarse(),
                             .across_runs = facts.across_runs.report(),
                             .leak_scan = std::move(leak_scan)};
  report.profile = {.max_holders = options.max_holders_per_secret, .sampling_rate = options.sampling_rate};
  facts.method.report(report);
  return privacy_report(report);
}

}  // namespace secpe
