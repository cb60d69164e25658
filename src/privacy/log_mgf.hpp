#pragma once
// The log moment generating function of a discrete loss's atoms, as the accountant's Chernoff
// window reads it (privacy/blow_up.cpp, step 3): log sum_i w_i e^{lambda (i - centre)} over the
// atoms i = 0 .. n-1, with masses w_i >= 0 and at least one > 0. Two kernels, which agree to about
// n ulp (tests/unit/privacy_log_mgf_test.cpp): the reference, and the one the grid ladder uses,
// where a Yelp-scale composition across runs asks for a few million of them.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>

namespace secpe {

// exp(t) for t below this is far under half the least subnormal (exp(-800) ~ 4e-348 against
// 2.5e-324): exactly +0, so a sum may skip such terms without changing a bit (and save the call).
inline constexpr double kExpIsZeroBelow = -800.0;

// log sum_i w_i e^{lambda x(i)} over n points, shifted by the largest exponent to avoid overflow;
// points without mass (log w = -infinity) add nothing.
template <class X>
double log_mgf(std::size_t n, X&& x, const double* log_w, double lambda) {
  double top = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < n; ++i) top = std::max(top, log_w[i] + lambda * x(i));
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double t = log_w[i] + lambda * x(i) - top;
    if (t > kExpIsZeroBelow) sum += std::exp(t);
  }
  return top + std::log(sum);
}

// The reference: in log space, every exponent shifted by the largest, one exp per atom. Takes
// log w_i (-infinity for an atom without mass).
double atoms_log_mgf_reference(std::span<const double> log_w, double centre, double lambda);

// By Horner's rule: the atoms are evenly spaced, so for lambda > 0
//     sum_i w_i e^{lambda (i - centre)} = e^{lambda (n - 1 - centre)} sum_i w_i s^{n-1-i},  s = e^{-lambda},
// and for lambda <= 0 the same from the other end: a multiply-add per atom, one exp and one log in
// all. No partial sum exceeds the total mass, so nothing overflows; a sum below 1e-200, where terms
// lost to underflow could matter, goes to the reference.
double atoms_log_mgf(std::span<const double> w, double centre, double lambda);

}  // namespace secpe
