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
// decomposes per secret) and a feasible point otherwise. A record without secrets gets 1 (no
// constraint); eta_j = +infinity (no protection) is allowed. privacy/sampling_lp.hpp solves the LP
// exactly in every case. InputError for an out-of-range secret
// index, eta_j <= 0 or NaN, holders_j <= 0 for a secret the record holds, or eta/holders sizes
// that differ.
double uniform_share_weight(const std::vector<std::int32_t>& secrets_of_record,
                            const std::vector<double>& eta, const std::vector<std::int64_t>& holders);

struct BatchScaling {
  double scale = 0.0;          // rho_i = scale * w_i
  double batch = 0.0;          // the expected batch actually used
  bool lowered = false;        // true when the requested batch would push some rho_i above 1
};
// Scales weights with sum `weight_sum` and maximum `weight_max` to an expected batch B, lowering
// B to weight_sum / weight_max if needed so that no rho_i exceeds 1 (scale * weight_max <= 1 is
// guaranteed in floating point). InputError unless 0 < weight_max <= weight_sum < inf and
// 0 < batch < inf: a label without private records has nothing to scale and must be skipped.
BatchScaling scale_to_batch(double weight_sum, double weight_max, double batch);

// The paper's formula: sigma_j = sqrt(T) * Delta_j / eta_j (a single-Gaussian approximation).
// InputError unless iterations >= 1, eta > 0 and expected_count >= 0.
double paper_sigma(double expected_count, double eta, int iterations);
// The Aug-PE baseline: T sensitivity-1 Gaussian releases at total mu: sigma = sqrt(T) / mu.
// InputError unless iterations >= 1 and 0 < mu < inf.
double gdp_sigma(double mu, int iterations);

}  // namespace secpe
