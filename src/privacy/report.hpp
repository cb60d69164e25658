#pragma once
// privacy.json: what was released, under which calibration, and what it costs per secret.
// Only released values, budgets and accounting results appear here; nothing is timed, so the
// file is byte-identical for any number of ranks.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "privacy/augpe_accounting.hpp"
#include "privacy/budgets.hpp"
#include "privacy/secret_noise.hpp"

namespace secpe {

struct PrivacyReportInputs {
  std::string method;                 // "secpe" | "augpe"
  int iterations = 0;
  double p = 0, r = 0;                // the uniform budget
  std::string budgets_file;           // per-secret overrides ("" for none)
  const SecretBudgets* budgets = nullptr;
  double delta = 0;                   // for the (eps, delta) equivalents
  const SecretNoisePlan* plan = nullptr;  // SecPE
  const AugPECalibration* augpe = nullptr;                 // Aug-PE
  const std::vector<AugPESecretCost>* augpe_costs = nullptr;
  std::string augpe_voters;                                // "all" | "private"
  nlohmann::ordered_json labels;          // per label reports
  nlohmann::ordered_json releases;        // the ledger
  std::string generator;                  // what the generator learned from
  nlohmann::ordered_json leak_scan;       // the public leak scan of the released texts (evolve/leak_report.hpp); null: none
};

nlohmann::ordered_json privacy_report(const PrivacyReportInputs& in);

}  // namespace secpe
