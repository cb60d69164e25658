#include "privacy/report.hpp"

#include <cmath>
#include <filesystem>

#include "privacy/conversions.hpp"
#include "privacy/gaussian.hpp"

namespace secpe {
namespace {

// The mu of the Gaussian mechanism with the same blow-up at p: Phi^-1(1-p) - Phi^-1(1-r).
double equivalent_mu(double p, double r) { return r <= p ? 0.0 : mu_from_pr(p, std::min(r, 1.0 - 1e-16)); }

// SecPE's "calibration" object: the mode, how sigma comes about and whether it depends on the
// private records.
nlohmann::ordered_json secpe_calibration(const SecretNoisePlan& plan, const PublicProfile& profile) {
  const char* const data_dependent =
      "sigma (and lambda) depend on the private records, as in the paper: each label's sampling LP and its secrets' holders set them. "
      "A label without private records gets the largest sigma of the others, so that its sigma does not tell it has none. "
      "For a sigma that depends on nothing private, use --calibration public-profile";
  if (plan.mode == CalibrationMode::kExact) {
    return {{"mode", "exact"},
            {"description", "sigma_l = lambda * (the paper's sigma_l); lambda is the smallest factor for which the exact accountant (Poisson-binomial mixture of Gaussians, counts and centres together: l2 sensitivity sqrt(2) C, composed over T iterations and over every label holding the secret, discretised privacy-loss distribution with pessimistic rounding) certifies B_j(p_j) <= r_j for every secret"},
            {"lambda", plan.lambda},
            {"sigma_depends_on_private_data", true},
            {"sigma_note", data_dependent}};
  }
  if (plan.mode == CalibrationMode::kPaper) {
    return {{"mode", "paper"},
            {"description", "sigma_l = max_j sqrt(T) * Delta_j / eta_j, as published: a single-Gaussian approximation of a Gaussian mixture that accounts for one of the two released statistics (it leaves out the sqrt(2) of releasing both counts and centres); it is NOT an upper bound, see r_achieved per secret"},
            {"sigma_depends_on_private_data", true},
            {"sigma_note", data_dependent}};
  }
  return {{"mode", "public-profile"},
          {"description", "one sigma for every label, from public caps alone: the smallest for which the worst public profile (a secret held by max_holders_per_secret records, each sampled with probability sampling_rate every iteration, all labels' releases of an iteration taken as one Gaussian mechanism of l2 sensitivity sqrt(2) C, composed over T iterations by the exact accountant) certifies B_j(p_j) <= r_j for every secret. The run refused data breaking the caps; each private record of a label is sampled with min(sampling_rate, B / its private records)"},
          {"max_holders_per_secret", profile.max_holders},
          {"sampling_rate", profile.sampling_rate},
          {"sigma", plan.labels.empty() ? 0.0 : plan.labels.front().sigma},
          {"sigma_depends_on_private_data", false},
          {"sigma_note", "nothing here but the released values depends on the private records: sigma and every r_achieved come from the public caps and budgets"}};
}

// The run's guarantee in words: SecPE's, the control's or Aug-PE's.
std::string guarantee_of(const PrivacyReportInputs& in) {
  if (in.plan) {
    return "(p, r)-secret protection: any attack reconstructing secret j from everything released succeeds with probability at most r_j "
           "when its prior is p_j";
  }
  if (!in.augpe) {
    return "no private data used (--method random, the control): the generator learned from the records without a secret, N_syn follows "
           "their label counts, selection is uniformly random from the public seed; no private record is read and nothing about one "
           "is released, so every secret keeps its prior (r_achieved = p)";
  }
  return "record-level mu-GDP (Aug-PE): two datasets that differ in one record are hard to tell apart (mu below, or (epsilon, delta) at "
         "the stated delta). This is not (p, r)-secret protection: a secret held by n records is protected only as strongly as n records "
         "are; what each secret really gets is r_achieved below. The record-level guarantee covers the noisy vote histograms only: "
         "the generator learned from the records without a secret and N_syn follows their label counts, as in SecPE, so those "
         "records are treated as public (train the generator on another corpus with --generator-corpus to avoid that)";
}

}  // namespace

nlohmann::ordered_json privacy_report(const PrivacyReportInputs& in) {
  nlohmann::ordered_json j;
  if (in.experiment) {
    j["publication"] = "NOT FOR PUBLICATION: an experiment (--experiment), made only to measure; its releases are not counted in the "
                       "dataset's budget, so publishing them would spend privacy that no report accounts for";
  }
  j["method"] = in.method;
  const double eta = mu_from_pr(in.p, in.r);
  j["guarantee"] = guarantee_of(in);
  j["budget"] = {{"p", in.p}, {"r", in.r}, {"r_over_p", in.r / in.p}, {"mu", eta},
                 {"per_secret_file", in.budgets_file.empty() ? nlohmann::ordered_json(nullptr)
                                                             : nlohmann::ordered_json(std::filesystem::path(in.budgets_file).filename().string())}};
  j["iterations"] = in.iterations;
  j["noise_key"] = "noise and private sampling are drawn (ChaCha20) under subkeys of a secret 256-bit key that no output contains, each "
                   "derived from everything that determines its release: the dataset's content, every option that changes a release, "
                   "the seed, the generator and embedder, the run's public nonce (run.json) and, for Aug-PE's histograms, the candidates. "
                   "Two different releases never share noise, even under one key; the public seed does not determine the noise";
  j["release_grid"] = "every released value is rounded to a power-of-two grid of at most 1/4096 of its noise's standard deviation (post-processing: no privacy cost)";
  nlohmann::ordered_json secrets = nlohmann::ordered_json::array();
  bool all_within = true;
  std::size_t over = 0;
  const auto add_secret = [&](std::size_t s, double mu, double got, double mu_equivalent) {
    const double p = in.budgets->p[s], r = in.budgets->r[s];
    const bool within = got <= r;
    all_within = all_within && within;
    over += within ? 0 : 1;
    secrets.push_back({{"secret", s}, {"p", p}, {"r", r}, {"mu", mu}, {"r_achieved", got},
                       {"r_achieved_over_p", got / p}, {"mu_equivalent", mu_equivalent}, {"within_budget", within}});
    if (in.r_cumulative) {
      secrets.back()["r_cumulative"] = (*in.r_cumulative)[s];
      secrets.back()["r_cumulative_over_p"] = (*in.r_cumulative)[s] / p;
      if (in.r_cumulative_coarse && s < in.r_cumulative_coarse->size() && (*in.r_cumulative_coarse)[s])
        secrets.back()["r_cumulative_bound"] = "coarse-accountant";
    }
  };
  if (in.plan) {
    const auto& plan = *in.plan;
    j["calibration"] = secpe_calibration(plan, in.profile);
    j["cross_label_composition"] =
        plan.mode == CalibrationMode::kPublicProfile
            ? "every label has the same sigma, so an iteration's releases of all labels are one Gaussian mechanism: r_achieved holds however a secret's holders are spread over labels"
            : "a secret held in L_j labels gets the per-label allocation target eta_j / sqrt(L_j); r_achieved composes every label holding it";
    for (std::size_t s = 0; s < plan.eta.size(); ++s) {
      const double got = plan.achieved_r[s];
      add_secret(s, plan.eta[s], got, equivalent_mu(in.budgets->p[s], got));
      if (plan.bound_source.empty()) continue;
      secrets.back()["bound"] = to_string(plan.bound_source[s]);
      if (plan.bound_source[s] == BoundSource::kDominated) secrets.back()["dominated_by"] = plan.dominated_by[s];
    }
    if (!plan.bound_source.empty()) {
      j["calibration"]["bounds"] =
          "many distinct holder profiles: each secret's r_achieved says in `bound` how it was obtained, every kind a rigorous upper bound on B_j(p_j): "
          "accountant (the exact accountant at full precision on the secret's own holder profile), coarse-accountant (the same accountant on a "
          "coarser privacy-loss grid: as rigorous, at most about 1e-3 looser), dominated (the bound of secret `dominated_by`, whose holder profile "
          "dominates this secret's: each label's release of this secret pairs with a distinct release of that one with at least the same shift "
          "per sampled holder and holders sampled at least as often, which can only help the adversary; docs/method.md, section 5)";
    }
    j["secrets_note"] = plan.mode == CalibrationMode::kPublicProfile
                            ? "secrets are identified by index; the secret words themselves are never written to outputs. r_achieved is the exact accountant's upper bound for the worst public profile at the sigma used: it holds for every secret the caps allow, and depends on nothing private"
                            : "secrets are identified by index; the secret words themselves are never written to outputs. r_achieved is an upper bound from the exact accountant for the sigmas actually used; it depends on the secret's holders (private), which is what it is for: what each secret really gets";
  } else if (!in.augpe) {
    j["calibration"] = {{"mode", "none"}, {"description", "nothing private is released, so there is no noise to calibrate"}};
    for (std::size_t s = 0; s < in.budgets->p.size(); ++s) add_secret(s, 0.0, in.budgets->p[s], 0.0);
    j["secrets_note"] = "secrets are identified by index; no release depends on them";
  } else {
    const auto& c = *in.augpe;
    j["calibration"] = {{"mode", "gdp"},
                        {"description", "Aug-PE: each iteration every voting record adds one vote to one candidate of its label (l2 sensitivity 1) and every bin gets N(0, sigma^2); sigma = sqrt(T) / mu with mu from " + c.source},
                        {"voters", in.augpe_voters == "all" ? "every record of the label (as in Aug-PE)" : "only the label's private records (--augpe-voters private)"},
                        {"mu", c.mu}, {"sigma", c.sigma}};
    for (std::size_t s = 0; s < in.augpe_costs->size(); ++s) {
      const auto& cost = (*in.augpe_costs)[s];
      add_secret(s, cost.mu, cost.r, cost.mu);
    }
    j["secrets_note"] = "secrets are identified by index; the secret words themselves are never written to outputs. r_achieved is exact: the n_jl holders of secret j in label l shift that label's histogram by at most n_jl votes per iteration, a Gaussian mechanism with mu_j = sqrt(T * sum_l n_jl^2) / sigma; it depends on the holders (private), which is what it is for: what each secret really gets";
  }
  j["all_secrets_within_budget"] = all_within;
  j["secrets_over_budget"] = over;
  if (!in.across_runs.is_null()) j["across_runs"] = in.across_runs;
  j["secrets"] = secrets;
  if (in.plan || in.augpe) {
    const double mu = in.plan ? eta : in.augpe->mu;
    j["equivalent_dp"] = {{"mu_gdp", mu}, {"delta", in.delta}, {"epsilon", eps_from_mu(mu, in.delta)},
                          {"meaning", in.plan ? "the (eps, delta) of a mu-GDP mechanism with the budget's mu, for comparison" : "the run's record-level guarantee as (eps, delta)"}};
  } else {
    j["equivalent_dp"] = {{"mu_gdp", 0.0}, {"delta", 0.0}, {"epsilon", 0.0}, {"meaning", "nothing private is released"}};
  }
  if (!in.leak_scan.is_null()) j["leak_scan"] = in.leak_scan;
  j["labels"] = in.labels;
  j["releases"] = in.releases;
  j["not_released"] = "private texts, private embeddings, unnoised counts and sums, the noise key; the generator learned from public texts only (" + in.generator + ")";
  return j;
}

}  // namespace secpe
