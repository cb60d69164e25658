#include "privacy/poisson_binomial.hpp"

#include <cmath>
#include <cstddef>
#include <sstream>

#include "core/error.hpp"

namespace secpe {

std::vector<double> poisson_binomial_pmf(const std::vector<double>& rho, double tail_tolerance) {
  if (!(tail_tolerance >= 0.0 && tail_tolerance < 1.0)) {
    std::ostringstream msg;
    msg.precision(17);
    msg << "poisson_binomial_pmf: tail tolerance must lie in [0, 1), got " << tail_tolerance;
    throw InputError(msg.str());
  }
  std::size_t positive = 0;
  for (std::size_t i = 0; i < rho.size(); ++i) {
    if (!(rho[i] >= 0.0 && rho[i] <= 1.0)) {  // rejects NaN too
      std::ostringstream msg;
      msg.precision(17);
      msg << "poisson_binomial_pmf: rho[" << i << "] must lie in [0, 1], got " << rho[i];
      throw InputError(msg.str());
    }
    if (rho[i] > 0.0) ++positive;
  }

  // pmf[k] is the mass of count lo + k.
  std::vector<double> pmf = {1.0};
  pmf.reserve(64);
  std::size_t lo = 0;
  double moved_up_to_n = 0.0;    // upper-tail mass parked at count `positive`
  double budget_used_hi = 0.0;   // mass moved by the upper-tail rule so far
  double budget_used_lo = 0.0;   // mass moved by the lower-tail rule so far
  const double half = 0.5 * tail_tolerance;
  std::size_t done = 0;
  for (const double r : rho) {
    if (!(r > 0.0)) continue;
    ++done;
    if (r == 1.0) {
      ++lo;  // a certain success shifts the distribution
    } else {
      const double keep = 1.0 - r;
      pmf.push_back(0.0);
      for (std::size_t k = pmf.size() - 1; k > 0; --k) pmf[k] = pmf[k] * keep + pmf[k - 1] * r;
      pmf[0] *= keep;
    }
    // Budgets grow linearly with the holders processed, so unused budget carries forward.
    const double allowance = half * static_cast<double>(done) / static_cast<double>(positive);
    while (pmf.size() > 1 && budget_used_hi + pmf.back() <= allowance) {
      budget_used_hi += pmf.back();
      moved_up_to_n += pmf.back();
      pmf.pop_back();
    }
    std::size_t cut = 0;
    while (pmf.size() - cut > 1 && budget_used_lo + pmf[cut] <= allowance) {
      budget_used_lo += pmf[cut];
      pmf[cut + 1] += pmf[cut];  // moved up to the next kept count
      ++cut;
    }
    if (cut > 0) {
      pmf.erase(pmf.begin(), pmf.begin() + static_cast<std::ptrdiff_t>(cut));
      lo += cut;
    }
  }

  std::size_t size = lo + pmf.size();
  if (moved_up_to_n > 0.0 && positive + 1 > size) size = positive + 1;
  std::vector<double> out(size, 0.0);
  for (std::size_t k = 0; k < pmf.size(); ++k) out[lo + k] = pmf[k];
  if (moved_up_to_n > 0.0) out[positive] += moved_up_to_n;
  while (out.size() > 1 && out.back() == 0.0) out.pop_back();
  return out;
}

}  // namespace secpe
