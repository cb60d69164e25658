#pragma once
// Conversions between (p, r)-secret protection, mu-GDP and (eps, delta)-DP
// (docs/method.md, section 2 '(p, r)-secret protection and the blow-up function').
// Inputs are validated (NaN always rejected) with an InputError naming the quantity:
// p in (0, 1), r in (p, 1), mu finite and > 0, eps finite and >= 0, delta in (0, 1).
// eps_from_mu and mu_from_eps_delta bracket and bisect to ~1e-15 relative and return the
// conservative end of the final bracket (delta_from_mu of the result <= delta).
namespace secpe {

// mu such that a mu-GDP mechanism gives (p, r)-protection: Phi^{-1}(1-p) - Phi^{-1}(1-r).
double mu_from_pr(double p, double r);
// The r that a mu-GDP mechanism achieves for prior p: 1 - Phi(Phi^{-1}(1-p) - mu).
double r_from_mu(double p, double mu);
// delta(eps) of mu-GDP: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2).
double delta_from_mu(double mu, double eps);
// The smallest eps with delta_from_mu(mu, eps) <= delta (0 when delta_from_mu(mu, 0) <= delta).
double eps_from_mu(double mu, double delta);
// The largest mu with delta_from_mu(mu, eps) <= delta.
double mu_from_eps_delta(double eps, double delta);

// The r that an (eps, delta)-DP mechanism achieves for prior p: its tight blow-up function
//   B(p) = min(1, e^eps p + delta, 1 - e^{-eps} (1 - delta - p)).
// Any (eps, delta)-DP pair satisfies P(E) <= e^eps Q(E) + delta and, applied to the complement,
// 1 - P(E) >= e^{-eps} (1 - delta - Q(E)); both are attained by the canonical 4-outcome pair
// (Kairouz et al.), so this is the exact worst case (the paper's Lemma C.2 direction:
// (eps, delta)-DP implies (p, r)-protection with this r). Here delta may be 0 (pure eps-DP):
// InputError unless p in (0, 1), eps finite and >= 0, delta in [0, 1).
double r_from_eps_delta(double p, double eps, double delta);

}  // namespace secpe
