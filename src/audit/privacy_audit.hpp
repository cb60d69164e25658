#pragma once
// The empirical privacy audit (`secpe audit`): runs the real SecretClustering release of one label
// many times on two neighbouring datasets, D (with every holder of one secret) and D' (without
// them), attacks each release, and checks the attack's measured power against the exact
// accountant's certificate for the same sigma.
//
// The setting is the worst case the accountant has to cover for one secret: one public cluster of
// `public_size` records at centre R u (on the clipping sphere), the holders at -2R u (the
// mechanism clips them to -R u, the antipode: the largest possible shift of the centre), no other
// private record. Holders spread over several clusters or other private records in the holders'
// cluster only shrink the shift, and clusters without holders release the same law in D and D', so
// no test gains from them.
//
// The attack is the most powerful (Neyman-Pearson) test for this setting: the log-likelihood ratio
// of the noisy size and of the noisy centre's component along the holders' shift (the other
// components are noise of the same law in D and D'), with the holders' exact Poisson-binomial
// count, summed over the T iterations. It is built from the sigma the accountant certifies, as an
// auditor would, not from the sigma actually used.
//
// Thresholds: a fixed grid, chosen before the trials: the statistic's quantiles at false-positive
// rates 0.5, 0.5 * 10^(-1/4), ... down to kMinEvents / trials, from a simulation of the no-secret
// model (standard normal observations). Each threshold is a test E with Q(E) = FPR (D') and
// P(E) = TPR (D); the audit bounds both by one-sided Clopper-Pearson bounds, Bonferroni-corrected
// over the 2 x thresholds bounds, so that all hold at once with probability >= `confidence`.
//
// What a test proves. The blow-up function B(alpha) = sup {P(E) : Q(E) <= alpha} is
// non-decreasing and concave with B(0) >= 0, so a test with FPR <= a and TPR >= b shows
//   B(a) >= b                      (the trade-off curve at a), and
//   B(p) >= b * min(1, p / a)      (at the secret's prior p; B(p) / p is non-increasing).
// The accountant certifies B(alpha) <= U(alpha) for every alpha (privacy/blow_up.hpp) and
// r = U(p). The mechanism leaks more than certified ("exceeds") when some threshold has
// TPR_lower > U(FPR_upper), or when the implied lower bound on B(p) exceeds r. If the certificate
// holds, this happens with probability at most 1 - confidence.
//
// Statistical power: FPRs below about kMinEvents / trials cannot be resolved, so for a prior p
// far below that the check at p only uses concavity and is loose; the comparison along the curve
// at the resolvable FPRs is the sharp one (the worst ratio TPR_lower / U(FPR_upper) says how much
// of the certified curve the attack reaches).
//
// Several runs (`runs` K): K runs on one dataset, each of T releases with its own fresh noise (its
// own nonce), as the privacy ledger counts them (evolve/dataset_ledger.hpp). The attack then sums
// its statistic over all K T releases, and the certificate is the ledger's cumulative one: the K
// runs' releases composed by privacy/run_composition.hpp. `certified_runs` (test only) makes the
// certificate compose fewer runs than were released: a ledger that undercounts, which the audit
// must catch.
//
// `noise_multiplier` (test only) breaks the mechanism on purpose: the release gets
// noise_multiplier * sigma while the accountant and the attack keep sigma, so that a test can show
// the audit failing on, for example, halved noise.
//
// Trials are split over the ranks of `world` (each runs its share with a single-rank mechanism)
// and over `threads` threads within a rank; every trial (and every draw of the threshold
// simulation) is keyed by its index, and the counts are integers summed exactly, so the result
// does not depend on the rank or thread count.
#include <cstdint>
#include <vector>

#include "comms/communicator.hpp"

namespace secpe {

struct AuditOptions {
  int holders = 3;                   // records holding the secret
  double rho = 0.5;                  // sampling probability of each holder per iteration
  int iterations = 5;                // T releases per run (secpe run's default)
  int runs = 1;                      // K runs, each of T releases with fresh noise: K T releases per trial
  int certified_runs = 0;            // test only: runs the certificate composes (0: runs)
  double sigma = 0.0;                // the certified sigma; 0: calibrate exactly for (p, r)
  double p = 1e-4;                   // adversary prior (secpe run's default)
  double r = 1e-3;                   // the target risk, used when sigma is calibrated
  std::int64_t trials = 500000;      // per dataset (D and D'): resolves FPRs down to 4e-5 < p
  int dim = 4;                       // embedding dimension
  std::int64_t public_size = 1000;   // public records of the cluster
  double clip_radius = 1.0;          // R
  double confidence = 0.95;          // all Clopper-Pearson bounds together
  double noise_multiplier = 1.0;     // test only: release with noise_multiplier * sigma
  std::uint64_t seed = 1;            // keys the trials and the threshold simulation
  int threads = 1;                   // per rank: trials and threshold draws side by side
};

// One threshold test on the attack's statistic.
struct AuditThreshold {
  double threshold = 0.0;       // decide "secret present" when the statistic is >= this
  double model_fpr = 0.0;       // the FPR it was chosen for (no-secret model)
  std::int64_t false_positives = 0, true_positives = 0;  // out of `trials` each
  double fpr = 0.0, tpr = 0.0;                           // point estimates
  double fpr_upper = 0.0, tpr_lower = 0.0;               // Clopper-Pearson, Bonferroni-corrected
  double certified = 0.0;       // U(fpr_upper): the accountant's bound on the TPR of any test at that FPR
  double ratio = 0.0;           // tpr_lower / certified: > 1 means the mechanism leaks more than certified
  double estimate_ratio = 0.0;  // tpr / U(fpr), 0 without false positives (no confidence: how close the attack gets to the curve)
};

struct AuditResult {
  double sigma = 0.0;             // certified (calibrated or given)
  double sigma_released = 0.0;    // what the release used: noise_multiplier * sigma
  std::vector<double> count_pmf;  // the holders' sampled count, as the accountant uses it
  double certified_r = 0.0;       // U(p): the accountant's r at this sigma
  double error_per_bound = 0.0;   // one-sided error level of each Clopper-Pearson bound
  std::vector<AuditThreshold> thresholds;
  std::size_t worst = 0;          // index of the largest ratio
  double implied_b_at_p = 0.0;    // max over thresholds of tpr_lower * min(1, p / fpr_upper)
  std::size_t implied_from = 0;   // the threshold that gives it
  bool exceeds = false;           // the verdict: the mechanism leaks more than certified
  double trial_seconds = 0.0;     // wall time of the trials (slowest rank)
  double seconds = 0.0;           // all of it
};

AuditResult run_audit(const Communicator& world, const AuditOptions& options);

// Expected false positives at the smallest grid FPR: below this the FPR is not resolved.
inline constexpr double kMinEvents = 20.0;

}  // namespace secpe
