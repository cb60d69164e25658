#include "privacy/report.hpp"

#include <cmath>

#include "privacy/conversions.hpp"
#include "privacy/gaussian.hpp"

namespace secpe {
namespace {

// The mu of the Gaussian mechanism with the same blow-up at p: Phi^-1(1-p) - Phi^-1(1-r).
double equivalent_mu(double p, double r) { return r <= p ? 0.0 : mu_from_pr(p, std::min(r, 1.0 - 1e-16)); }

}  // namespace

nlohmann::ordered_json privacy_report(const PrivacyReportInputs& in) {
  nlohmann::ordered_json j;
  j["method"] = in.method;
  j["guarantee"] = "(p, r)-secret protection: any attack reconstructing secret j from everything released succeeds with probability at most r_j when its prior is p_j";
  const double eta = mu_from_pr(in.p, in.r);
  j["budget"] = {{"p", in.p}, {"r", in.r}, {"r_over_p", in.r / in.p}, {"mu", eta},
                 {"per_secret_file", in.budgets_file.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(in.budgets_file)}};
  j["iterations"] = in.iterations;
  if (in.plan) {
    const auto& plan = *in.plan;
    if (plan.mode == CalibrationMode::kExact) {
      j["calibration"] = {{"mode", "exact"},
                          {"description", "sigma_l = lambda * (the paper's sigma_l); lambda is the smallest factor for which the exact accountant (Poisson-binomial mixture of Gaussians, counts and centres together: l2 sensitivity sqrt(2) C, composed over T iterations and over every label holding the secret, discretised privacy-loss distribution with pessimistic rounding) certifies B_j(p_j) <= r_j for every secret"},
                          {"lambda", plan.lambda}};
    } else {
      j["calibration"] = {{"mode", "paper"},
                          {"description", "sigma_l = max_j sqrt(T) * Delta_j / eta_j, as published: a single-Gaussian approximation of a Gaussian mixture that accounts for one of the two released statistics; it is NOT an upper bound, see r_achieved per secret"}};
    }
    j["cross_label_composition"] = "a secret held in L_j labels gets the per-label allocation target eta_j / sqrt(L_j); r_achieved composes every label holding it";
    nlohmann::ordered_json secrets = nlohmann::ordered_json::array();
    bool all_within = true;
    for (std::size_t s = 0; s < plan.eta.size(); ++s) {
      const double p = in.budgets->p[s], r = in.budgets->r[s], got = plan.achieved_r[s];
      const bool within = got <= r;
      all_within = all_within && within;
      secrets.push_back({{"secret", s}, {"p", p}, {"r", r}, {"mu", plan.eta[s]}, {"r_achieved", got},
                         {"r_achieved_over_p", got / p}, {"mu_equivalent", equivalent_mu(p, got)}, {"within_budget", within}});
    }
    j["all_secrets_within_budget"] = all_within;
    j["secrets_note"] = "secrets are identified by index; the secret words themselves are never written to outputs. r_achieved is an upper bound from the exact accountant for the sigmas actually used";
    j["secrets"] = secrets;
  } else {
    j["calibration"] = {{"mode", "gdp"},
                        {"description", "Aug-PE: every private record votes (l2 sensitivity 1); sigma = sqrt(T) / mu with mu from " + in.gdp_source},
                        {"mu", in.gdp_mu}, {"sigma", in.gdp_sigma}};
    j["secrets_note"] = "record-level mu-GDP; r per secret is r_from_mu(p_j, mu), the paper's comparison, which does not account for a secret held by several records";
  }
  const double mu = in.plan ? eta : in.gdp_mu;
  j["equivalent_dp"] = {{"mu_gdp", mu}, {"delta", in.delta}, {"epsilon", eps_from_mu(mu, in.delta)}};
  j["labels"] = in.labels;
  j["releases"] = in.releases;
  j["not_released"] = "private texts, private embeddings, unnoised counts and sums; the generator learned from public texts only (" + in.generator + ")";
  return j;
}

}  // namespace secpe
