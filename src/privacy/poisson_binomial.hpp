#pragma once
// The Poisson-binomial distribution: the number of successes C of independent Bernoulli(rho_i)
// trials, here the number of records holding a secret that one iteration samples
// (docs/method.md, section 5 'Noise calibration').
//
// Computed by the dynamic-programming convolution pmf' [k] = (1 - rho) pmf[k] + rho pmf[k-1], one
// holder at a time. Every term is non-negative, so each entry carries a relative error of at most
// a few ulp per holder: no cancellation, unlike characteristic-function (DFT) methods.
//
// Tail rule (pessimistic). To keep the work O(n * support) rather than O(n^2), the kept support
// is trimmed after every holder:
//   * upper tail: the highest counts are cut while their mass, summed over all holders, stays
//     below tail_tolerance / 2; the cut mass is moved to the count n (the number of holders with
//     rho > 0, the largest count possible), never dropped and never moved down;
//   * lower tail: the lowest counts are cut under the same budget and their mass is added to the
//     lowest kept count, i.e. moved up.
// Both moves replace C by a count C' >= C (a coupling), and for the mixtures of Gaussians with
// non-negative means that the accountant uses (privacy/blow_up.hpp), a stochastically larger
// count can only increase the blow-up function: the Neyman-Pearson test of the composed pair is
// monotone in the observations, and its power is increasing in every mixture mean. So the
// returned PMF is safe to account with. Total moved mass <= tail_tolerance.
#include <cstdint>
#include <vector>

namespace secpe {

// Default total mass allowed to be moved by the tail rule above.
inline constexpr double kPoissonBinomialTailTolerance = 1e-15;

// PMF over c = 0..max_count (dense; entries between the kept support and the tail atom at n are
// zero; trailing zeros are removed, so the result has size max_count + 1 with a positive last
// entry). rho_i must lie in [0, 1] (NaN rejected) and 0 <= tail_tolerance < 1: InputError otherwise.
// tail_tolerance = 0 gives the exact PMF (up to round-off). An empty rho gives {1}.
std::vector<double> poisson_binomial_pmf(const std::vector<double>& rho,
                                         double tail_tolerance = kPoissonBinomialTailTolerance);

}  // namespace secpe
