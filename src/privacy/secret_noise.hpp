#pragma once
// SecretNoise (paper Algorithm 1), distributed: per label, LP sampling weights for the private
// records, sampling probabilities scaled to an expected batch, and sigma from the paper's formula.
//
// Secrets held in several labels: each label's releases are separate Gaussian mechanisms on the
// same secret, so their privacy losses add up (mu^2 adds). The paper calibrates each label as if
// it were alone; we give secret j the per-label target eta_j / sqrt(L_j), with L_j the number of
// labels holding it, so that the composition over labels stays within eta_j.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dist/communicator.hpp"
#include "io/dataset.hpp"

namespace secpe {

struct PrivacyBudget {
  double p = 1e-4;   // adversary prior, the same for every secret (per-secret files: later)
  double r = 1e-3;   // allowed reconstruction probability
};

struct LabelNoise {
  double sigma = 0.0;            // noise standard deviation for the label's releases (0: no private records)
  double batch_requested = 0.0;  // expected private records sampled per iteration
  double batch_used = 0.0;       // lowered when the requested batch would push some rho_i above 1
  bool has_private = false;
};

struct SecretNoisePlan {
  std::vector<LabelNoise> labels;
  std::vector<double> eta;           // per secret: the target mu_j = Phi^-1(1-p) - Phi^-1(1-r)
  std::vector<double> achieved_mu;   // per secret: composed over labels and iterations (single-Gaussian approximation)
  std::vector<double> rho;           // per local row: sampling probability (0 for public rows)
};

SecretNoisePlan plan_secret_noise(const Communicator& comm, const SecretMatrix& local_secrets,
                                  std::span<const std::int32_t> local_labels, std::size_t num_labels,
                                  const PrivacyBudget& budget, int iterations, double batch);

}  // namespace secpe
