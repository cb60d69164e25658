#pragma once
// Conversions between (p, r)-secret protection, mu-GDP and (eps, delta)-DP
// (docs/secpe-reference.md section 1).
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

}  // namespace secpe
