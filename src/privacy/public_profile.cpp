#include "privacy/public_profile.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "core/error.hpp"
#include "privacy/blow_up.hpp"
#include "privacy/poisson_binomial.hpp"

namespace secpe {

PublicProfileNoise calibrate_public_profile(const SecretBudgets& budgets, int iterations, const PublicProfile& profile) {
  if (profile.max_holders < 1) throw InputError("public-profile calibration: the cap on holders per secret must be at least 1");
  if (!(profile.sampling_rate > 0 && profile.sampling_rate <= 1)) {
    throw InputError("public-profile calibration: the cap on the sampling rate must be in (0, 1]");
  }
  if (iterations < 1) throw InputError("public-profile calibration: iterations must be at least 1");
  const std::vector<double> pmf = poisson_binomial_pmf(std::vector<double>(static_cast<std::size_t>(profile.max_holders), profile.sampling_rate));
  // Unit sigma: the accountant's lambda is then sigma itself.
  const auto release = [&](double sigma) { return MixtureRelease{pmf, kCountsAndCentresScale / sigma, iterations}; };
  std::map<std::pair<double, double>, double> lambda_of;  // per distinct budget
  PublicProfileNoise out;
  for (std::size_t j = 0; j < budgets.p.size(); ++j) {
    auto [it, fresh] = lambda_of.try_emplace({budgets.p[j], budgets.r[j]}, 0.0);
    if (fresh) {
      const MixtureRelease unit = release(1.0);
      it->second = calibrate_scale_composed(std::span<const MixtureRelease>(&unit, 1), budgets.p[j], budgets.r[j]);
    }
    out.sigma = std::max(out.sigma, it->second);
  }
  // No secret needs noise (or there are none): keep a negligible noise, as the exact calibration
  // does, so that every release stays a Gaussian mechanism.
  if (!(out.sigma > 0)) out.sigma = 1e-6;
  std::map<std::pair<double, double>, double> bound_of;
  const MixtureRelease used = release(out.sigma);
  for (std::size_t j = 0; j < budgets.p.size(); ++j) {
    auto [it, fresh] = bound_of.try_emplace({budgets.p[j], budgets.r[j]}, 0.0);
    if (fresh) it->second = blow_up_upper_composed(std::span<const MixtureRelease>(&used, 1), budgets.p[j]);
    out.achieved_r.push_back(it->second);
  }
  return out;
}

}  // namespace secpe
