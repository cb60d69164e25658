#pragma once
// Stage "report" of a run: what its published files say about the dataset and its privacy.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "evolve/checkpoint.hpp"
#include "evolve/methods/method.hpp"
#include "evolve/run_budget.hpp"
#include "evolve/run_options.hpp"
#include "privacy/budgets.hpp"
#include "privacy/ledger.hpp"

namespace secpe {

// The dataset's provenance as run.json may show it: the import's public settings and the names of
// its input files, never their paths or counts that involve private records. The import stores
// names already; a dataset of an earlier version may hold paths, so they are cut here too.
nlohmann::ordered_json public_provenance(const std::map<std::string, std::string>& provenance);

// What privacy.json is made of besides the finished labels and the leak scan.
struct PrivacyReportFacts {
  const RunOptions& options;
  const Method& method;  // calibrated: adds its calibration and what each secret gets
  const SecretBudgets& budgets;
  double delta;          // of the (eps, delta) equivalents
  const PrivacyLedger& ledger;
  const RunBudget& across_runs;  // composed: the dataset's earlier runs with this one
  std::string generator;  // what the generator learned from
};

// privacy.json from the method's calibration, the finished labels and the ledger.
nlohmann::ordered_json privacy_report_of(const PrivacyReportFacts& facts, const Checkpoint& checkpoint, nlohmann::ordered_json leak_scan);

}  // namespace secpe
