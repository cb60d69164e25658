#pragma once
// --calibration public-profile: a sigma that depends on nothing private (docs/method.md, section 5).
//
// The exact and paper calibrations take sigma from the private data (each label's LP weights and
// its secrets' holders), as the paper does, so the published sigmas are a function of private
// records. Here the user gives two public caps instead, and the run refuses data that break them:
//   H = the most records any secret is held by (over all labels), and
//   q = the most any private record is sampled with per iteration.
// Every private record of a label is sampled with rho_l = min(q, B / n_l) (n_l its private records,
// B the requested batch: private, kept in the state folder), and every label, with private records
// or not, gets the same sigma: the smallest for which the worst public profile (a secret with H
// holders, each sampled with probability q) meets every secret's budget. So nothing published
// depends on the private records beyond the noisy releases themselves.
//
// Why the worst profile bounds every secret: with one sigma for all labels, iteration t's releases
// of all labels are one Gaussian mechanism; C sampled holders, spread over any labels and clusters,
// move it by at most sqrt(2) C in l2 (in units of the noise; section 6). (1) A mixture of Gaussian
// shifts whose norms are at most a_c is dominated by the same mixture of shifts of length a_c in
// one direction: every test of level alpha has power at most Phi(a_c - z_alpha) against each
// component, and the threshold test attains all of them at once. (2) C is a sum of independent
// Bernoulli(rho_i) over at most H holders with rho_i <= q, so Binomial(H, q) is stochastically
// larger, and a larger count only helps the adversary (privacy/poisson_binomial.hpp). (3) The T
// iterations are independent given the data (SecPE's releases do not depend on the candidates),
// and composition preserves domination (tensor products of trade-off functions are monotone).
// So B_j(p_j) <= the composed blow-up of T releases of {Binomial(H, q), sqrt(2) / sigma}.
#include <vector>

#include "privacy/budgets.hpp"

namespace secpe {

struct PublicProfile {
  int max_holders = 0;        // H >= 1
  double sampling_rate = 1.0; // q in (0, 1]
};

struct PublicProfileNoise {
  double sigma = 0.0;               // every label's noise multiplier
  std::vector<double> achieved_r;   // per secret: the bound for the worst profile at `sigma` (public)
};

// The smallest sigma (to the accountant's search tolerance) for which the worst profile meets
// every secret's (p_j, r_j), and the bound each secret gets at it. Pure function of public inputs;
// secrets with the same budget share one computation. InputError for H < 1, q outside (0, 1] or
// iterations < 1.
PublicProfileNoise calibrate_public_profile(const SecretBudgets& budgets, int iterations, const PublicProfile& profile);

}  // namespace secpe
