#include "privacy/conversions.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "privacy/gaussian.hpp"

namespace secpe {
namespace {

[[noreturn]] void reject(const char* function, const char* quantity, const char* requirement, double value) {
  std::ostringstream msg;
  msg.precision(17);
  msg << function << ": " << quantity << " must be " << requirement << ", got " << value;
  throw InputError(msg.str());
}

// The checks below are written so that NaN fails every one of them.
void check_prior(const char* function, double p) {
  if (!(p > 0.0 && p < 1.0)) reject(function, "prior p", "in (0, 1)", p);
}
void check_mu(const char* function, double mu) {
  if (!(mu > 0.0 && std::isfinite(mu))) reject(function, "mu", "finite and > 0", mu);
}
void check_eps(const char* function, double eps) {
  if (!(eps >= 0.0 && std::isfinite(eps))) reject(function, "eps", "finite and >= 0", eps);
}
void check_delta(const char* function, double delta) {
  if (!(delta > 0.0 && delta < 1.0)) reject(function, "delta", "in (0, 1)", delta);
}

// delta(eps) of mu-GDP for already validated arguments. With a = -eps/mu + mu/2 and b = a - mu,
// delta = Phi(a) - e^eps Phi(b) = Phi(a) * (1 - exp(eps + log Phi(b) - log Phi(a))), computed in
// log space so that neither e^eps overflows nor Phi underflows, and with expm1 so that small
// deltas keep their relative accuracy.
double delta_unchecked(double mu, double eps) {
  const double a = -eps / mu + 0.5 * mu;
  const double b = a - mu;
  const double log_pa = normal_logcdf(a);
  const double log_second = eps + normal_logcdf(b);
  const double diff = log_second - log_pa;  // < 0 in exact arithmetic
  if (!(diff < 0.0)) return 0.0;
  return std::exp(log_pa) * -std::expm1(diff);
}

constexpr int kMaxBracketSteps = 2100;  // enough doublings/halvings to span the double range
constexpr int kMaxBisections = 400;

bool close_enough(double lo, double hi) { return hi - lo <= 1e-15 * hi; }

}  // namespace

double mu_from_pr(double p, double r) {
  check_prior("mu_from_pr", p);
  if (!(r > p && r < 1.0)) reject("mu_from_pr", "bound r", "in (p, 1)", r);
  // Phi^{-1}(1-p) - Phi^{-1}(1-r) = Phi^{-1}(r) - Phi^{-1}(p), without forming 1 - p.
  return normal_quantile(r) - normal_quantile(p);
}

double r_from_mu(double p, double mu) {
  check_prior("r_from_mu", p);
  check_mu("r_from_mu", mu);
  // 1 - Phi(Phi^{-1}(1-p) - mu) = 1 - Phi(-Phi^{-1}(p) - mu).
  return normal_sf(-normal_quantile(p) - mu);
}

double delta_from_mu(double mu, double eps) {
  check_mu("delta_from_mu", mu);
  check_eps("delta_from_mu", eps);
  return delta_unchecked(mu, eps);
}

double eps_from_mu(double mu, double delta) {
  check_mu("eps_from_mu", mu);
  check_delta("eps_from_mu", delta);
  // delta(eps) decreases from delta(0) = 2 Phi(mu/2) - 1 towards 0.
  if (delta_unchecked(mu, 0.0) <= delta) return 0.0;
  double lo = 0.0, hi = 1.0;  // invariant: delta(lo) > delta >= delta(hi)
  int steps = 0;
  while (delta_unchecked(mu, hi) > delta) {
    lo = hi;
    hi *= 2.0;
    if (++steps > kMaxBracketSteps || !std::isfinite(hi))
      reject("eps_from_mu", "mu", "small enough for a finite eps at this delta", mu);
  }
  for (int i = 0; i < kMaxBisections && !close_enough(lo, hi); ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    if (delta_unchecked(mu, mid) > delta) lo = mid; else hi = mid;
  }
  return hi;  // delta(hi) <= delta: the conservative end of the bracket
}

double mu_from_eps_delta(double eps, double delta) {
  check_eps("mu_from_eps_delta", eps);
  check_delta("mu_from_eps_delta", delta);
  // delta(mu) increases from 0 (mu -> 0) to 1 (mu -> infinity).
  double lo = 1.0, hi = 1.0;  // invariant: delta(lo) <= delta < delta(hi)
  int steps = 0;
  if (delta_unchecked(1.0, eps) <= delta) {
    while (delta_unchecked(hi, eps) <= delta) {
      lo = hi;
      hi *= 2.0;
      if (++steps > kMaxBracketSteps || !std::isfinite(hi))
        reject("mu_from_eps_delta", "eps", "small enough for a finite mu at this delta", eps);
    }
  } else {
    while (delta_unchecked(lo, eps) > delta) {
      hi = lo;
      lo *= 0.5;
      if (++steps > kMaxBracketSteps || !(lo > 0.0))
        reject("mu_from_eps_delta", "delta", "large enough for a positive mu at this eps", delta);
    }
  }
  for (int i = 0; i < kMaxBisections && !close_enough(lo, hi); ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    if (delta_unchecked(mid, eps) <= delta) lo = mid; else hi = mid;
  }
  return lo;  // delta(lo) <= delta: the conservative end of the bracket
}

double r_from_eps_delta(double p, double eps, double delta) {
  check_prior("r_from_eps_delta", p);
  check_eps("r_from_eps_delta", eps);
  if (!(delta >= 0.0 && delta < 1.0)) reject("r_from_eps_delta", "delta", "in [0, 1)", delta);
  // e^eps p + delta, without overflow: once e^eps p exceeds 1 the bound is 1 anyway.
  const double log_first = eps + std::log(p);
  const double first = log_first >= 0.0 ? 1.0 : std::exp(log_first) + delta;
  // 1 - e^{-eps} (1 - delta - p) = (1 - e^{-eps}) + e^{-eps} (delta + p), without cancellation.
  const double second = -std::expm1(-eps) + std::exp(-eps) * (delta + p);
  return std::min(1.0, std::min(first, second));
}

}  // namespace secpe
