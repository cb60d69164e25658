#pragma once
// `secpe privacy`: calibration of one population of private records in every mode, and what a
// given sigma actually achieves, so a user can ask "the paper's sigma promises r/p = 2; what
// does it really give?". Also the appendix B.1 simulation setup.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/secret_matrix.hpp"
#include "privacy/budgets.hpp"

namespace secpe {

struct PrivacyStudyOptions {
  int iterations = 10;          // T
  double batch = 1000.0;        // expected private records sampled per iteration (lowered if needed); 0: rho = w
  double sigma = 0.0;           // sigma to evaluate; 0: the paper's sigma
  std::uint64_t records = 0;    // all records (public too): Aug-PE's voters, for the noise ratio
  bool per_secret_exact = true; // calibrate every secret exactly (false: only what sigma = max needs)
  int threads = 0;              // distinct holder profiles calibrated side by side (0: default_threads()); the results do not depend on it
  // Called from one thread as each stage advances: (stage, secrets done, secrets in the stage).
  std::function<void(const std::string&, std::size_t, std::size_t)> progress;
};

struct SecretStudy {
  double sigma_exact = 0.0;     // 0 when not computed (per_secret_exact = false and screened out)
  double sigma_paper = 0.0;
  double sigma_gdp = 0.0;
  double r_at_sigma = 0.0;      // exact B_j(p_j) at the evaluated sigma
};

struct PrivacyStudy {
  std::string lp_path;
  double batch_used = 0.0;
  double sigma_exact = 0.0, sigma_paper = 0.0, sigma_gdp = 0.0, sigma_evaluated = 0.0;
  // Which optimal LP solution (privacy/sampling_lp.hpp): the exact sigma above is that of the
  // concentrated one that secpe run uses; the plain grouped optimum (every record of a secret set
  // at the same weight) needs sigma_exact_spread. The two have the same objective, batch and
  // paper sigma.
  double sigma_exact_spread = 0.0;
  std::size_t weighted_records = 0, weighted_records_spread = 0;  // records sampled with rho > 0
  // sigma_gdp / sigma (the appendix B.1 quantity; larger is better for secret protection), and
  // the same per unit of signal: (sigma_gdp / records) / (sigma / batch_used).
  double sigma_ratio_exact = 0.0, sigma_ratio_paper = 0.0;
  // Record-level GDP gives (p, r)-protection only to secrets held by one record; for a secret held
  // by n_j records it needs group privacy: sigma_gdp_group = max_j sqrt(T) n_j / mu_j, the noise
  // that gives the same secret guarantee as SecPE.
  double sigma_gdp_group = 0.0;
  double group_ratio_exact = 0.0, group_ratio_paper = 0.0;
  double noise_ratio_exact = 0.0, noise_ratio_paper = 0.0;
  std::vector<SecretStudy> secrets;
};

// `private_rows`: the private records' secret sets (every row holds at least one secret).
PrivacyStudy study_privacy(const SecretMatrix& private_rows, const SecretBudgets& budgets,
                           const PrivacyStudyOptions& options);

// Appendix B.1: `records` records, each holding each of `secrets` secrets independently with
// probability `inclusion`; returns the rows that hold at least one (the private records).
SecretMatrix simulate_secret_matrix(std::uint64_t records, int secrets, double inclusion, std::uint64_t seed);

}  // namespace secpe
