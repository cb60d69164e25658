#pragma once
// SecretNoise (paper Algorithm 1), distributed, with exact accounting.
//
// Per label: the packing LP gives sampling weights to the label's private records (solved
// exactly, privacy/sampling_lp.hpp), scaled to an expected batch B. The paper then sets
//     sigma_l = max_j sqrt(T) * Delta_{j,l} / eta_{j,l},   Delta_{j,l} = sum of rho_i over holders,
// a single-Gaussian approximation that accounts for one of the two released statistics.
//
// Exact mode (the default) keeps the paper's allocation across labels but scales every sigma_l by
// the smallest common factor lambda for which the exact accountant certifies every secret:
// for secret j, each label l holding it releases, per iteration, counts and centres with l2
// sensitivity sqrt(2) C_{j,l} (C_{j,l} Poisson-binomial over the holders' rho), so its dominating
// pair is the mixture sum_c pi_{j,l}(c) N(sqrt(2) c / sigma_l, 1) vs N(0, 1), composed over T
// iterations and over all labels holding j; lambda makes B_j(p_j) <= r_j for every j. With one
// label this is exactly sigma = max_j sigma_j^exact.
//
// Secrets held in several labels: their releases compose, so the per-label targets of the
// allocation are eta_j / sqrt(L_j) (L_j labels hold secret j); exact mode then certifies the
// composition itself.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dist/communicator.hpp"
#include "io/dataset.hpp"
#include "privacy/budgets.hpp"

namespace secpe {

enum class CalibrationMode { kExact, kPaper };
CalibrationMode parse_calibration(const std::string& name);  // "exact" | "paper"
std::string calibration_name(CalibrationMode mode);

struct LabelNoise {
  double sigma = 0.0;            // the noise standard deviation used for the label's releases
  double sigma_paper = 0.0;      // the paper's formula (lambda = 1)
  double batch_requested = 0.0;  // expected private records sampled per iteration
  double batch_used = 0.0;       // lowered when the requested batch would push some rho_i above 1
  bool has_private = false;
  std::string lp_path;           // how the LP was solved (privacy/sampling_lp.hpp)
};

struct SecretNoisePlan {
  CalibrationMode mode = CalibrationMode::kExact;
  double lambda = 1.0;               // sigma_l = lambda * sigma_paper_l
  std::vector<LabelNoise> labels;
  std::vector<double> eta;           // per secret: target mu_j = Phi^-1(1-p_j) - Phi^-1(1-r_j)
  std::vector<double> achieved_r;    // per secret: exact upper bound on B_j(p_j) with the sigmas used
  std::vector<double> rho;           // per local row: sampling probability (0 for public rows)
  double accounting_seconds = 0.0;
};

SecretNoisePlan plan_secret_noise(const Communicator& comm, const SecretMatrix& local_secrets,
                                  std::span<const std::int32_t> local_labels, std::size_t num_labels,
                                  const SecretBudgets& budgets, int iterations, double batch, CalibrationMode mode);

}  // namespace secpe
