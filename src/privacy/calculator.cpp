#include "privacy/calculator.hpp"

#include <cmath>
#include <numeric>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "privacy/blow_up.hpp"
#include "privacy/conversions.hpp"
#include "privacy/poisson_binomial.hpp"

namespace secpe {
namespace {

[[noreturn]] void reject(const std::string& what, double value) {
  std::ostringstream msg;
  msg.precision(17);
  msg << "calculate_sigma: " << what << ", got " << value;
  throw InputError(msg.str());
}

struct PreparedRelease {
  std::vector<double> pmf;
  double factor = 1.0;
};

// The releases at common sigma `sigma` (> 0).
std::vector<MixtureRelease> at_sigma(const std::vector<PreparedRelease>& prepared, double scale, double sigma, int T) {
  std::vector<MixtureRelease> out;
  for (const PreparedRelease& p : prepared) out.push_back({p.pmf, scale / (p.factor * sigma), T});
  return out;
}

}  // namespace

CalculatorResult calculate_sigma(const std::vector<CalculatorRelease>& releases, const CalculatorOptions& o) {
  if (releases.empty()) throw InputError("calculate_sigma: no release (no holder) given");
  if (o.iterations < 1 || o.iterations > 100000) reject("iterations must be in [1, 100000]", o.iterations);
  if (!(o.p > 0 && o.p < 1)) reject("p must be in (0, 1)", o.p);
  if (!(o.r > o.p && o.r < 1)) reject("r must be in (p, 1)", o.r);
  if (!(o.scale > 0 && std::isfinite(o.scale))) reject("the sensitivity scale must be finite and > 0", o.scale);
  if (!(o.sigma >= 0 && std::isfinite(o.sigma))) reject("sigma must be finite and >= 0", o.sigma);

  CalculatorResult out;
  std::vector<PreparedRelease> prepared;
  double paper_mu2 = 0.0;  // sum_l (Delta_l / f_l)^2, the single-Gaussian mu^2 / T at sigma = 1
  for (const CalculatorRelease& rel : releases) {
    if (rel.rho.empty()) throw InputError("calculate_sigma: a release without holders");
    for (double x : rel.rho)
      if (!(x >= 0 && x <= 1)) reject("every rho must be in [0, 1]", x);
    if (!(rel.noise_factor > 0 && std::isfinite(rel.noise_factor))) reject("a noise factor must be finite and > 0", rel.noise_factor);
    const double delta = std::accumulate(rel.rho.begin(), rel.rho.end(), 0.0);
    out.holders += static_cast<double>(rel.rho.size());
    out.mean_count += delta;
    paper_mu2 += std::pow(delta / rel.noise_factor, 2);
    prepared.push_back({poisson_binomial_pmf(rel.rho), rel.noise_factor});
  }
  const int T = o.iterations;
  auto bound = [&](double sigma) { return blow_up_upper_composed(at_sigma(prepared, o.scale, sigma, T), o.p); };

  // calibrate_scale_composed's lambda multiplies every label's sigma: at lambda = 1 each release
  // has sigma_l = f_l, so lambda is the common sigma.
  out.sigma_certified = calibrate_scale_composed(at_sigma(prepared, o.scale, 1.0, T), o.p, o.r);
  out.bound_at_certified = out.sigma_certified > 0 ? bound(out.sigma_certified) : o.p;
  out.sigma_paper = std::sqrt(static_cast<double>(T) * paper_mu2) / mu_from_pr(o.p, o.r);
  out.r_at_paper = out.sigma_paper > 0 ? bound(out.sigma_paper) : o.p;
  if (o.sigma > 0) out.r_at_sigma = bound(o.sigma);
  return out;
}

}  // namespace secpe
