#pragma once
// privacy.json: what was released, under which calibration, and what it costs per secret.
// Only released values, budgets and accounting results appear here; nothing is timed, so the
// file is byte-identical for any number of ranks. What in it depends on the private records is
// said in the file itself: the sigmas (and lambda) under the exact and paper calibrations, and
// each secret's r_achieved (under SecPE's exact and paper calibrations and Aug-PE); under the
// public profile nothing but the releases does. The calibration's private inputs (private counts,
// the batch used, the LPs) are in the private state folder, never here.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "privacy/augpe_accounting.hpp"
#include "privacy/budgets.hpp"
#include "privacy/public_profile.hpp"
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
  PublicProfile profile{};                // SecPE under --calibration public-profile: the user's public caps
  const AugPECalibration* augpe = nullptr;                 // Aug-PE
  const std::vector<AugPESecretCost>* augpe_costs = nullptr;
  std::string augpe_voters;                                // "all" | "private"
  nlohmann::ordered_json labels;          // per label reports
  nlohmann::ordered_json releases;        // the ledger
  std::string generator;                  // what the generator learned from
  bool experiment = false;                // --experiment: marked not for publication
  const std::vector<double>* r_cumulative = nullptr;  // per secret: with the dataset's earlier runs (null: none composed)
  const std::vector<bool>* r_cumulative_coarse = nullptr;  // per secret (or empty): r_cumulative is the coarse grid's
  nlohmann::ordered_json across_runs;     // how (evolve/run_budget.hpp); null: not reported
  nlohmann::ordered_json leak_scan;       // the public leak scan of the released texts (evolve/leak_report.hpp); null: none
};

nlohmann::ordered_json privacy_report(const PrivacyReportInputs& in);

}  // namespace secpe
