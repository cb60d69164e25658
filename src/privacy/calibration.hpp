#pragma once
// Noise calibration: sampling weights from the packing LP of paper Algorithm 1, sampling
// probabilities for an expected private batch, and sigma.
#include <cstdint>
#include <string>
#include <vector>

namespace secpe {

// Per-secret view of one label's private records, as the calibration needs it.
struct SecretHolders {
  std::vector<std::int64_t> holders;  // number of private records of the label holding secret j
};

// LP weights for one record from its secrets: w_i = min(1, min_{j in i} eta_j / n_j).
// This is the exact LP optimum when every private record holds one secret (the LP then
// decomposes per secret) and a feasible point otherwise.
double uniform_share_weight(const std::vector<std::int32_t>& secrets_of_record,
                            const std::vector<double>& eta, const std::vector<std::int64_t>& holders);

struct BatchScaling {
  double scale = 0.0;          // rho_i = scale * w_i
  double batch = 0.0;          // the expected batch actually used
  bool lowered = false;        // true when the requested batch would push some rho_i above 1
};
// Scales weights with sum `weight_sum` and maximum `weight_max` to an expected batch B, lowering
// B to weight_sum / weight_max if needed so that no rho_i exceeds 1.
BatchScaling scale_to_batch(double weight_sum, double weight_max, double batch);

// The paper's formula: sigma_j = sqrt(T) * Delta_j / eta_j (a single-Gaussian approximation).
double paper_sigma(double expected_count, double eta, int iterations);
// The Aug-PE baseline: T sensitivity-1 Gaussian releases at total mu: sigma = sqrt(T) / mu.
double gdp_sigma(double mu, int iterations);

}  // namespace secpe
