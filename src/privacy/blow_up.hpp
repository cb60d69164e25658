#pragma once
// The exact privacy accountant for one secret (docs/method.md, sections 2 '(p, r)-secret
// protection and the blow-up function' and 5 'Noise calibration').
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
//     (<= cut_share alpha / T, 1e-7 by default); that mass goes to a loss = +infinity atom. The P-mass below
//     z_{k_lo} goes to the atom t_{k_lo} (its loss is <= t_{k_lo}: rounded up), except when
//     t_{k_lo} - h lies below the loss's lower limit log pi_0: then that cell, which holds most of
//     the mass of a rarely sampled secret, is connected to the dots like the others (below).
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
//     which Chernoff bounds leave at most tau_w = window_share alpha (1e-10) of mass on each side (the full
//     support when that is small); what wraps around is covered by a margin of 3 tau_w.
//     Negative round-off is clamped to zero (nothing is rescaled). The +infinity atom composes as
//     1 - (1 - w_inf)^T.
//  4. Reading B(alpha) (Neyman-Pearson): the +infinity P-mass first, then atoms by loss, highest
//     first, with Q-mass P e^{-loss}, until the Q-mass reaches alpha (the last atom taken
//     fractionally). A round-off margin (2 * FFT noise floor * atoms taken) is added; the noise
//     floor is the larger of the most negative output and 4 eps log2(n) T max(output).
//  Grid: h = 0.5 sqrt(slack_target) * spread / T^{1/4}, with spread the standard deviation of the
//  composed loss (h is raised where needed to keep <= 262144 atoms per iteration, and doubled until
//  the FFT of the Chernoff window fits max_fft_size); measured relative slack for T <= 100:
//  <= 1.4e-5 (pure Gaussian, alpha 1e-2 to 1e-6), <= 2e-6 (one-shot mixtures), <= 1e-5 far above
//  the budget (one to three holders at rho 0.05 or 0.3, T = 5 to 100, B / alpha = 10 to 10^4). One evaluation takes
//  about 2-35 ms at T = 100. The slack grows about like sqrt(T) / T^{1/4} beyond that (see the
//  composed version below).
//  Floor: FFT round-off leaves an absolute floor of roughly 1e-15 to 1e-11 on B for T >= 2 (none
//  for T = 1), so relative accuracy needs alpha well above that (p >= 1e-9 is fine at T <= 100).
//
// Inputs are validated with InputError (NaN rejected): pi a PMF (entries >= 0 and finite, sum
// 1 within 1e-9 and then renormalised, at least one entry), sensitivity_scale finite and > 0, sigma finite and > 0,
// 1 <= T <= 100000, alpha and p in (0, 1), r in (p, 1).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numbers>
#include <span>
#include <vector>

namespace secpe {

// The sensitivity scale when noisy counts and noisy centres are both released (docs/method.md,
// sections 5 'Noise calibration' and 6 'SecretClustering').
inline constexpr double kCountsAndCentresScale = std::numbers::sqrt2;

enum class LossDiscretisation { kConnectDots, kRoundUp };

struct AccountantOptions {
  LossDiscretisation discretisation = LossDiscretisation::kConnectDots;
  double grid = 0.0;               // loss grid spacing h; 0 = automatic
  double slack_target = 1e-5;      // automatic grid: wanted relative slack of B (rough)
  std::int64_t max_fft_size = std::int64_t{1} << 22;
  // The mass each bound leaves out, as shares of alpha: the P-mass cut to the +infinity atom (step 2,
  // cut_share alpha over all repetitions, per iteration and release) and the mass outside the FFT's
  // window on each side (step 3). They add at most about cut_share alpha and 3 window_share alpha to
  // the bound; larger shares cut fewer atoms and a narrower window, a little looser and faster.
  double cut_share = 1e-7;
  double window_share = 1e-10;
  // Step 1's precision. The cuts z_lo and z_hi are found by bisection to cut_tolerance (relative)
  // and returned on the safe side (at most the tail mass beyond each), so any tolerance is as
  // rigorous: a coarser one keeps a few more atoms. The loss's spread, which only chooses the grid,
  // is a midpoint rule of spread_points points over [z_lo, z_hi].
  double cut_tolerance = 1e-12;
  int spread_points = 256;
  // false: the grid spacing and the cut's tail mass (steps 1 and 2) follow each bound's releases.
  // true: the spacing is rounded down to a power of 2^(1/8) and the tail mass down to a power of
  // 2^8 (a finer grid and a higher cut: as rigorous, and as tight but for the window's choice), so
  // that bounds over many combinations of shared releases, whatever their budgets, meet the same
  // discretised releases, which a ReleaseMemo then keeps (the composition across runs,
  // privacy/run_composition.hpp); step 3's Chernoff window then searches its lambda on rungs
  // 2^(k/4), the log-MGF at a rung of each release, and of each group of releases of one count PMF,
  // kept with it (computed by Horner's rule, privacy/log_mgf.hpp). The bits differ from false's.
  bool grid_ladder = false;
};

// Details of one evaluation, for tests and diagnostics.
struct BlowUpBound {
  double value = 0.0;            // the upper bound on B(alpha), in [alpha, 1]
  double grid = 0.0;             // loss grid spacing used
  std::int64_t atoms = 0;        // finite atoms of the per-iteration discrete losses (all releases)
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
// perfectly revealed counts keep B <= r: 1 - pi[0]^T (1 - p) <= r. InputError when r is so
// close to p that the round-off floor of the bound prevents certifying it.
double calibrate_sigma_exact(const std::vector<double>& pi, double sensitivity_scale, int T,
                             double p, double r);

// ---------------------------------------------------------------------------------------------
// Composition of several releases. A secret held by records of several labels is released by one
// mechanism per label per iteration, each with its own noise and its own count PMF; its privacy
// loss is the composition of all of them.
//
// One release, in unit-noise coordinates: P = sum_c pi[c] N(mean_step * c, 1) vs Q = N(0, 1)
// (mean_step = s / sigma_l), composed `repetitions` times (T). blow_up_upper(pi, s, sigma, T, .)
// is the composition of the single release {pi, s / sigma, T}: both run the same code.
struct MixtureRelease {
  std::vector<double> pi;  // PMF of the count (privacy/poisson_binomial.hpp)
  double mean_step = 0.0;  // mean shift per unit count, in units of the noise: finite, > 0
  int repetitions = 1;     // in [1, 100000]
};

// Guaranteed upper bound on B(alpha) of the product of all releases (each composed with itself
// `repetitions` times), with the same construction and standards as blow_up_upper: every release
// is discretised on one common loss grid (chosen from the spread of the composed loss), the
// releases' transforms, each raised to its repetitions, are multiplied and inverted by one FFT
// covering a Chernoff window of the composed loss; +infinity atoms compose to
// 1 - prod_l (1 - w_inf_l)^{reps_l}. Releases whose pi is a point mass at 0 are skipped; none left
// (or an empty span) gives alpha. In BlowUpBound, `atoms` sums the releases' atoms.
// InputError as for blow_up_upper (pi a PMF, mean_step finite and > 0, repetitions in
// [1, 100000], alpha in (0, 1)), and for a total of repetitions (over releases that are not
// skipped) above options.max_fft_size / 4.
// Grid: as for one release with T = the total repetitions R and spread the standard deviation of
// the composed loss. Measured (50 releases of 20-120 holders, composed mu ~ 0.8, alpha = 1e-4,
// default options, one core): R = 250 (T = 5): relative slack 8e-6, 0.19 s (119k atoms, FFT 2^16);
// R = 5000 (T = 100): slack 4e-5, 0.15 s (59k atoms, FFT 2^17). The slack scales with
// slack_target (slack_target = 1e-4: 8e-5 and 0.07 s at T = 5). About three quarters of the time
// is the per-release discretisation (one mixture CDF, i.e. one erfc per count, per atom).
// Step 1 of a bound prepares each release on its own (its mixture, where its z-line is cut, the spread
// of its loss): a function of the release's bits and of the cut's tail mass (cut_share alpha over the
// list's total repetitions) alone. Secrets' holder profiles share releases (at Yelp scale a pass
// over 46,000 profiles at one lambda meets each distinct release about 20 times), so a ReleaseMemo
// given to many bounds prepares each once: the same bits as without it (found by its bits, or for a
// SharedRelease by its id, which costs no copy of a list and no hashing). With grid_ladder it also
// keeps each release's discretisation per grid spacing (step 2), which bounds on the ladder share,
// and for each group of releases of one count PMF (a label's in runs at other noise) its sums and
// log-MGFs per grid spacing and its transform per grid spacing and FFT size (step 3; the transforms
// up to 256 MB, then those start again). A caller with many bounds to make meets each grid's
// discretisations once if it makes them in order of grid (composed_grid).
// Not synchronised (one per thread); it only grows (but for forget_grids), so give it one pass over
// the profiles at one lambda.
class ReleaseMemo {
 public:
  ReleaseMemo();
  ~ReleaseMemo();
  ReleaseMemo(ReleaseMemo&&) noexcept;
  ReleaseMemo& operator=(ReleaseMemo&&) noexcept;
  std::size_t size() const;   // releases prepared (a shared release once per tail mass and repetitions)
  std::size_t bytes() const;  // roughly the memory its entries hold, but for groups' transforms (capped apart)
  // Drops what the grid ladder keeps (discretisations, groups, transforms) and keeps the prepared
  // releases: for a caller whose bounds in order of grid have left a grid behind.
  void forget_grids();
  struct Impl;               // blow_up.cpp's
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

double blow_up_upper_composed(std::span<const MixtureRelease> releases, double alpha,
                              const AccountantOptions& options = {}, ReleaseMemo* memo = nullptr);
BlowUpBound blow_up_bound_composed(std::span<const MixtureRelease> releases, double alpha,
                                   const AccountantOptions& options = {}, ReleaseMemo* memo = nullptr);

// A release that many bounds share, by reference (the composition across runs: a run's release
// meets every secret whose list holds it): `id` numbers it among the releases a memo meets (one id
// per release, whatever lists hold it; small, as it indexes a table), so that the memo checks it
// once and finds it prepared by its id and repetitions instead of by its bits. `release` must
// outlive the memo and not change (its ids are the memo's only record of it); `repetitions`
// replaces its own (alike releases of several runs merged).
struct SharedRelease {
  std::size_t id = 0;
  const MixtureRelease* release = nullptr;
  int repetitions = 1;
};
// blow_up_bound_composed of the releases, found in the memo by id: the same bits.
BlowUpBound blow_up_bound_shared(std::span<const SharedRelease> releases, double alpha, const AccountantOptions& options,
                                 ReleaseMemo& memo);
// The loss grid spacing that blow_up_bound_shared(releases, alpha, options, memo) starts from
// (step 2; 0 when every release is trivial; a bound whose FFT would exceed max_fft_size then
// coarsens it). Bounds on one grid share their releases' discretisations on the ladder, so a caller
// with many bounds to make may order them by grid, and a memo then makes each once (compose_runs).
// Same InputErrors as blow_up_upper_composed.
double composed_grid(std::span<const SharedRelease> releases, double alpha, const AccountantOptions& options, ReleaseMemo& memo);

// The smallest noise multiplier lambda > 0 (to ~1e-6 relative; the returned end of the final
// bracket satisfies the bound) such that blow_up_upper_composed(releases with every mean_step
// divided by lambda, p) <= r. The releases carry the mean steps at lambda = 1 (so sigma_l =
// lambda * sigma_l_base). Same search as calibrate_sigma_exact. Returns 0 when every lambda > 0
// works, i.e. when even revealed counts keep B <= r: 1 - P0 (1 - p) <= r with
// P0 = prod_l pi_l[0]^{reps_l}. InputError for invalid releases, p not in (0, 1), r not in (p, 1),
// or r too close to p for the round-off floor.
double calibrate_scale_composed(std::span<const MixtureRelease> releases, double p, double r);

// A cheap rigorous upper bound on the same B(alpha) (no FFT; about 0.5 ms for 50 releases), to
// skip secrets that are clearly safe. The smaller of two bounds (proofs in blow_up.cpp):
//  * thresholds: for count thresholds c*_l with tail masses t_l = P(C_l > c*_l),
//      B(alpha) <= (1 - eps) B_gauss(alpha; mu) + eps,  mu^2 = sum_l reps_l (mean_step_l c*_l)^2,
//      eps = 1 - prod_l (1 - t_l)^{reps_l} <= sum_l reps_l t_l,
//    minimised over a few tail levels and then a few rounds of per-release refinement;
//  * averaged components: B(alpha) <= E B_gauss(alpha; sqrt(X)), X = sum over releases and
//    repetitions of (mean_step_l C)^2, bounded by summation by parts with Chernoff tail bounds of X.
//    This one is close for many repetitions (50 releases x T = 5 to 100: within 1.3x of the exact
//    bound) and loose (up to ~50x) for few repetitions of rare large counts.
// It bounds the exact B, so it is never below blow_up_upper_composed minus that one's
// discretisation slack (for point-mass PMFs, pure Gaussians, it is the exact closed form). Same
// InputErrors as blow_up_upper_composed, without the repetitions cap.
double blow_up_screen(std::span<const MixtureRelease> releases, double alpha);

// Closed forms, for tests.
// Pure Gaussian N(delta, sigma^2) vs N(0, sigma^2) composed T times:
// B(alpha) = 1 - Phi(Phi^{-1}(1 - alpha) - sqrt(T) delta / sigma).
double blow_up_gaussian(double delta, double sigma, int T, double alpha);
// One-shot mixture (T = 1): B(alpha) = sum_c pi_c Phi(s c / sigma - Phi^{-1}(1 - alpha)).
double blow_up_mixture_one_shot(const std::vector<double>& pi, double sensitivity_scale,
                                double sigma, double alpha);

}  // namespace secpe
