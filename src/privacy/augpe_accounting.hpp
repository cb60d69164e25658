#pragma once
// The Aug-PE baseline's accounting. Each iteration every voting record of a label adds one vote to
// one candidate's histogram, and the histogram gets N(0, sigma^2) per bin: one record changes one
// bin by 1 (l2 sensitivity 1), so T iterations are record-level mu-GDP with mu = sqrt(T) / sigma.
// That is the whole guarantee; it is not (p, r)-secret protection. What a secret really gets is
// exact: its holders shift label l's histogram by at most n_jl votes (all in one bin in the worst
// case), so the T x L releases together are a Gaussian mechanism with shift
// mu_j = sqrt(T * sum_l n_jl^2) / sigma, and the best attack's success at prior p_j is
// r_j = r_from_mu(p_j, mu_j) (the blow-up of a Gaussian shift is exact, no approximation).
#include <cstdint>
#include <string>
#include <vector>

#include "privacy/budgets.hpp"

namespace secpe {

struct AugPECalibration {
  double mu = 0.0;     // record-level GDP of the whole run
  double sigma = 0.0;  // per bin and iteration
  std::string source;  // what mu came from, for the report
};

// mu from the strictest secret budget (p_j, r_j) (treated as a record-level target), or from
// (epsilon, delta) when epsilon > 0; sigma = sqrt(T) / mu.
AugPECalibration calibrate_augpe(const SecretBudgets& budgets, double p, double r, double epsilon, double delta,
                                 int iterations);

struct AugPESecretCost {
  double mu = 0.0;  // the Gaussian shift the secret's holders cause over the whole run
  double r = 0.0;   // the best attack's success at the secret's prior
};

// Per secret j: `holder_square_sums[j]` = sum over labels of n_jl^2 (voting holders per label).
std::vector<AugPESecretCost> augpe_secret_costs(const std::vector<std::int64_t>& holder_square_sums,
                                                const SecretBudgets& budgets, int iterations, double sigma);

}  // namespace secpe
