#pragma once
// `secpe privacy calibrate`: the sigma a secret needs, from its holders' sampling probabilities
// alone. One release per label holding the secret (a single population is one release); each
// label's noise may be a multiple of the common sigma, as in secpe run, where sigma_l = lambda *
// (the paper's sigma_l). Answers "what sigma do I need?" (certified by the exact accountant),
// "what does the paper's sigma really give?" and "what r does this sigma give?".
#include <vector>

namespace secpe {

struct CalculatorRelease {
  std::vector<double> rho;    // sampling probability of each holder in this label, in [0, 1]
  double noise_factor = 1.0;  // this label's sigma as a multiple of the common sigma, > 0
};

struct CalculatorOptions {
  int iterations = 10;        // T
  double p = 1e-4;
  double r = 1e-3;
  double scale = 1.0;         // sensitivity per unit count: sqrt(2) for counts and centres, 1 for one statistic
  double sigma = 0.0;         // a sigma whose r to report; 0: none
};

struct CalculatorResult {
  double holders = 0.0;        // over all releases
  double mean_count = 0.0;     // expected sampled holders per iteration, over all releases
  double sigma_certified = 0.0;   // smallest common sigma with B(p) <= r (0: any sigma > 0 works)
  double bound_at_certified = 0.0;  // the accountant's upper bound on B(p) there (p when sigma is 0)
  // The paper's formula generalised to several labels: the single Gaussian with the mean counts,
  // one statistic (no sqrt(2), whatever `scale`): sigma = sqrt(T sum_l (Delta_l / f_l)^2) / eta.
  double sigma_paper = 0.0;
  double r_at_paper = 0.0;     // what it really gives under exact accounting (with `scale`)
  double r_at_sigma = 0.0;     // at options.sigma (0 when not asked)
};

// InputError for: no release, an empty release, rho outside [0, 1] or NaN, a noise factor not
// finite and > 0, iterations outside [1, 100000], p outside (0, 1), r outside (p, 1), scale not
// finite and > 0, sigma negative or not finite.
CalculatorResult calculate_sigma(const std::vector<CalculatorRelease>& releases, const CalculatorOptions& options);

}  // namespace secpe
