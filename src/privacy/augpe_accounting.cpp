#include "privacy/augpe_accounting.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "privacy/calibration.hpp"
#include "privacy/conversions.hpp"

namespace secpe {

AugPECalibration calibrate_augpe(const SecretBudgets& budgets, double p, double r, double epsilon, double delta,
                                 int iterations) {
  AugPECalibration c;
  std::ostringstream source;
  if (epsilon > 0) {
    c.mu = mu_from_eps_delta(epsilon, delta);
    source << "(eps, delta) = (" << epsilon << ", " << delta << ")";
  } else {
    c.mu = mu_from_pr(p, r);
    for (std::size_t j = 0; j < budgets.p.size(); ++j) c.mu = std::min(c.mu, mu_from_pr(budgets.p[j], budgets.r[j]));
    source << "the strictest (p, r) budget, starting from (" << p << ", " << r << ")";
  }
  c.source = source.str();
  c.sigma = gdp_sigma(c.mu, iterations);
  return c;
}

std::vector<AugPESecretCost> augpe_secret_costs(const std::vector<std::int64_t>& holder_square_sums,
                                                const SecretBudgets& budgets, int iterations, double sigma) {
  std::vector<AugPESecretCost> costs(holder_square_sums.size());
  for (std::size_t j = 0; j < costs.size(); ++j) {
    costs[j].mu = std::sqrt(double(iterations) * double(holder_square_sums[j])) / sigma;
    costs[j].r = costs[j].mu > 0 ? r_from_mu(budgets.p[j], costs[j].mu) : budgets.p[j];  // no voting holder: nothing to learn
  }
  return costs;
}

}  // namespace secpe
