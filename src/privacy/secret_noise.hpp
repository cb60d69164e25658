#pragma once
// SecretNoise (paper Algorithm 1) with exact accounting, as pure maths: no MPI, no storage. The
// distributed orchestration (gathering the secret sets, splitting the accountant's work over the
// ranks, exact reductions) is the pipeline's calibration stage, evolve/noise_calibration.hpp.
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

#include "core/secret_matrix.hpp"
#include "privacy/blow_up.hpp"
#include "privacy/budgets.hpp"

namespace secpe {

// kPublicProfile: sigma from the user's public caps alone (privacy/public_profile.hpp).
enum class CalibrationMode { kExact, kPaper, kPublicProfile };
CalibrationMode parse_calibration(const std::string& name);  // "exact" | "paper" | "public-profile"
std::string calibration_name(CalibrationMode mode);

// One label's calibration. Only `sigma` is published (privacy.json, and it depends on the private
// data except under the public profile); the rest are the calibration's private inputs, kept in
// the private state folder (calibration.json).
struct LabelNoise {
  double sigma = 0.0;            // the noise standard deviation used for the label's releases
  double sigma_paper = 0.0;      // the paper's formula (lambda = 1); 0 without private records
  double batch_requested = 0.0;  // expected private records sampled per iteration
  double batch_used = 0.0;       // lowered when the requested batch would push some rho_i above 1
  bool has_private = false;
  std::int64_t private_records = 0;
  std::string lp_path;           // how the LP was solved (privacy/sampling_lp.hpp)
};

struct SecretNoisePlan {
  CalibrationMode mode = CalibrationMode::kExact;
  double lambda = 1.0;               // sigma_l = lambda * sigma_paper_l
  std::vector<LabelNoise> labels;
  std::vector<double> eta;           // per secret: target mu_j = Phi^-1(1-p_j) - Phi^-1(1-r_j)
  std::vector<double> achieved_r;    // per secret: an upper bound on B_j(p_j) with the sigmas used
                                     // (exact mode: the accountant's at the lambda it passed at)
  std::vector<double> rho;           // per local row: sampling probability (0 for public rows)
  double accounting_seconds = 0.0;
};

// Everything the calibration derives from the labels' private secret sets: per label the exact LP
// weights scaled to the batch (rho), the paper's sigma, and per (label, secret) the Poisson-binomial
// PMF of the holders' sampled count. Deterministic: every rank that builds it from the same rows
// gets the same model.
class SecretNoiseModel {
 public:
  // `label_rows[l]`: label l's private records' secret sets, in global record order.
  SecretNoiseModel(std::vector<SecretMatrix> label_rows, const SecretBudgets& budgets, int iterations, double batch,
                   CalibrationMode mode);

  std::size_t num_secrets() const { return eta_.size(); }
  // Secrets ordered by a single-Gaussian estimate of their exposure, most exposed first: the
  // first ones are likely to decide the exact calibration's lambda.
  std::vector<std::size_t> secrets_by_exposure() const;
  // The smallest factor lambda (to the root search's 1e-6, relative) at which secret j alone is
  // certified: 0 when it needs no noise or no label holds it. The exact calibration's lambda is
  // the largest over all secrets.
  double lambda_of(std::size_t secret) const;
  // An upper bound on B_j(p_j) at sigma_l = lambda * sigma_paper_l (p_j for a secret held nowhere).
  double achieved_r(std::size_t secret, double lambda) const;
  // Label l's sampling probabilities, one per private record in global order.
  const std::vector<double>& label_rho(std::size_t label) const { return rho_[label]; }
  // The plan for a calibrated lambda and the per-secret achieved r (local rho left empty). A label
  // without private records releases nothing private, but a sigma of 0 would publish that it has
  // none: it gets the largest sigma of the others (no_private_sigma when no label has private
  // records), so its sigma tells no more than theirs do.
  SecretNoisePlan plan(double lambda, std::vector<double> achieved_r) const;
  // The sigma of labels when no label holds a private record: as if one record held the strictest
  // secret and were sampled every iteration (sqrt(T) s / min_j eta_j, s = sqrt(2) in exact mode).
  double no_private_sigma() const;

 private:
  std::vector<MixtureRelease> releases_of(std::size_t secret, double lambda) const;

  const SecretBudgets& budgets_;
  int iterations_;
  CalibrationMode mode_;
  std::vector<LabelNoise> labels_;                      // sigma still 0: set by plan()
  std::vector<double> eta_;
  std::vector<std::vector<double>> rho_;                // [label][private row]
  std::vector<std::vector<std::vector<double>>> pmf_;   // [label][secret]: count PMF, empty if none
  std::vector<std::vector<double>> expected_count_;     // [label][secret]: Delta_{j,l}
};

}  // namespace secpe
