#pragma once
// The exact privacy accountant for one secret (docs/secpe-reference.md sections 1 and 3).
//
// Per iteration the released statistics of secret j form the dominating pair
//     P = sum_c pi_c N(s c, sigma^2)   vs   Q = N(0, sigma^2),
// with pi the PMF of the sampled count C (privacy/poisson_binomial.hpp) and s the sensitivity
// scale: s = sqrt(2) when the noisy counts and the noisy centres are both released with the same
// sensitivity-to-noise ratio (l2 sensitivity sqrt(2) C). The pair is composed over T iterations
// and the secret is protected when the blow-up function
//     B(alpha) = sup { P^T(E) : Q^T(E) <= alpha }
// at alpha = p stays <= r.
//
// How B is bounded (blow_up_upper):
//  1. Privacy loss. In z = x / sigma the loss is L(z) = log sum_c pi_c exp(m_c z - m_c^2 / 2) with
//     m_c = s c / sigma >= 0: convex and non-decreasing, so {L > t} is a half-line.
//  2. Discretisation on the loss grid t_k = k h. The z-line is cut at z_k = L^{-1}(t_k), for k from
//     k_lo to k_hi. z_hi = L^{-1}(t_{k_hi}) is chosen so that the P-mass above it is negligible
//     (<= 1e-7 alpha / T); that mass goes to a loss = +infinity atom. The P-mass below
//     z_{k_lo} goes to the atom t_{k_lo} (its loss is <= t_{k_lo}: rounded up).
//     Each interval (z_k, z_{k+1}], whose losses lie in [t_k, t_{k+1}], has exact P- and Q-masses
//     (P_k, Q_k) computed with normal_cdf/normal_sf. Two rules place them on the grid:
//       * kConnectDots (default): split into atoms at t_k and t_{k+1} that keep both P_k and Q_k
//         (p_b = (P_k - Q_k e^{t_k}) / (1 - e^{-h}), p_a = P_k - p_b). Merging the two atoms back
//         into one outcome recovers the interval, so the original pair is a post-processing of the
//         discrete one: the discrete pair dominates (Doroshenko et al., "Connect the dots", 2022).
//         The error is second order in h.
//       * kRoundUp: all of P_k goes to t_{k+1} (losses rounded up). Also dominating, error first
//         order in h (kept for comparison).
//     A tiny extra mass (a bound on the round-off of p_b) is moved from t_k to t_{k+1}, which is
//     again pessimistic. Q-masses are P-mass * e^{-loss}; the Q-mass this leaves unassigned sits
//     on a loss = -infinity atom (P-mass 0), which only helps the adversary.
//  3. Composition: the P-masses of the finite atoms are convolved T times by one FFT, a pointwise
//     T-th power and an inverse FFT. The FFT covers a window of the composed support outside
//     which Chernoff bounds leave at most tau_w = 1e-10 alpha of mass on each side (the full
//     support when that is small); what wraps around is covered by a margin of 3 tau_w.
//     Negative round-off is clamped to zero (nothing is rescaled). The +infinity atom composes as
//     1 - (1 - w_inf)^T.
//  4. Reading B(alpha) (Neyman-Pearson): the +infinity P-mass first, then atoms by loss, highest
//     first, with Q-mass P e^{-loss}, until the Q-mass reaches alpha (the last atom taken
//     fractionally). A round-off margin (2 * FFT noise floor * atoms taken) is added; the noise
//     floor is the larger of the most negative output and 4 eps log2(n) T max(output).
//  Grid: h = 0.5 sqrt(slack_target) * spread / T^{1/4}, with spread the standard deviation of the
//  composed loss (h is raised where needed to keep <= 262144 atoms per iteration and the FFT
//  within max_fft_size); measured relative slack for T <= 100: <= 1.4e-5 (pure Gaussian, alpha 1e-2 to
//  1e-6), <= 2e-6 (one-shot mixtures). One evaluation takes about 2-35 ms at T = 100.
//  Floor: FFT round-off leaves an absolute floor of roughly 1e-15 to 1e-11 on B for T >= 2 (none
//  for T = 1), so relative accuracy needs alpha well above that (p >= 1e-9 is fine at T <= 100).
//
// Inputs are validated with InputError (NaN rejected): pi a PMF (entries >= 0 and finite, sum
// 1 within 1e-9 and then renormalised, at least one entry), sensitivity_scale finite and > 0, sigma finite and > 0,
// 1 <= T <= 100000, alpha and p in (0, 1), r in (p, 1).
#include <cstdint>
#include <numbers>
#include <vector>

namespace secpe {

// The sensitivity scale when noisy counts and noisy centres are both released (section 3).
inline constexpr double kCountsAndCentresScale = std::numbers::sqrt2;

enum class LossDiscretisation { kConnectDots, kRoundUp };

struct AccountantOptions {
  LossDiscretisation discretisation = LossDiscretisation::kConnectDots;
  double grid = 0.0;               // loss grid spacing h; 0 = automatic
  double slack_target = 1e-5;      // automatic grid: wanted relative slack of B (rough)
  std::int64_t max_fft_size = std::int64_t{1} << 22;
};

// Details of one evaluation, for tests and diagnostics.
struct BlowUpBound {
  double value = 0.0;            // the upper bound on B(alpha), in [alpha, 1]
  double grid = 0.0;             // loss grid spacing used
  std::int64_t atoms = 0;        // finite atoms of the per-iteration discrete loss
  std::int64_t fft_size = 0;     // 0 when no composition was needed (T = 1)
  double infinity_mass = 0.0;    // composed P-mass on loss = +infinity
  double roundoff_margin = 0.0;  // added to value for FFT round-off
};

// Guaranteed upper bound (up to floating-point round-off, covered by a margin) on B(alpha) of the
// T-fold composition of sum_c pi[c] N(s c, sigma^2) vs N(0, sigma^2). pi[c] is the mass of count c.
double blow_up_upper(const std::vector<double>& pi, double sensitivity_scale, double sigma, int T,
                     double alpha);
BlowUpBound blow_up_bound(const std::vector<double>& pi, double sensitivity_scale, double sigma,
                          int T, double alpha, const AccountantOptions& options = {});

// The r achieved for prior p: blow_up_upper(pi, scale, sigma, T, p).
double achieved_r_exact(const std::vector<double>& pi, double sensitivity_scale, double sigma,
                        int T, double p);

// The smallest sigma (to ~1e-6 relative; the returned end of the final bracket satisfies
// blow_up_upper(p) <= r) with blow_up_upper(pi, scale, sigma, T, p) <= r. Brackets by doubling or
// halving from the single-Gaussian guess sqrt(T) s E[C] / eta, then Illinois regula falsi in
// log sigma (typically 6-10 evaluations). Returns 0 when every sigma > 0 works, i.e. when even
// perfectly revealed counts keep B <= r: (1 - pi[0]) + pi[0] p <= r. InputError when r is so
// close to p that the round-off floor of the bound prevents certifying it.
double calibrate_sigma_exact(const std::vector<double>& pi, double sensitivity_scale, int T,
                             double p, double r);

// Closed forms, for tests.
// Pure Gaussian N(delta, sigma^2) vs N(0, sigma^2) composed T times:
// B(alpha) = 1 - Phi(Phi^{-1}(1 - alpha) - sqrt(T) delta / sigma).
double blow_up_gaussian(double delta, double sigma, int T, double alpha);
// One-shot mixture (T = 1): B(alpha) = sum_c pi_c Phi(s c / sigma - Phi^{-1}(1 - alpha)).
double blow_up_mixture_one_shot(const std::vector<double>& pi, double sensitivity_scale,
                                double sigma, double alpha);

}  // namespace secpe
