#include "privacy/secret_noise.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"
#include "privacy/blow_up.hpp"
#include "privacy/calibration.hpp"
#include "privacy/conversions.hpp"
#include "privacy/poisson_binomial.hpp"
#include "privacy/sampling_lp.hpp"

namespace secpe {

CalibrationMode parse_calibration(const std::string& name) {
  if (name == "exact") return CalibrationMode::kExact;
  if (name == "paper") return CalibrationMode::kPaper;
  if (name == "public-profile") return CalibrationMode::kPublicProfile;
  throw InputError("SecPE's calibration must be exact, paper or public-profile (gdp is Aug-PE's), not '" + name + "'");
}

std::string calibration_name(CalibrationMode mode) {
  switch (mode) {
    case CalibrationMode::kExact: return "exact";
    case CalibrationMode::kPaper: return "paper";
    case CalibrationMode::kPublicProfile: return "public-profile";
  }
  return "?";
}

SecretNoiseModel::SecretNoiseModel(std::vector<SecretMatrix> label_rows, const SecretBudgets& budgets, int iterations,
                                   double batch, CalibrationMode mode)
    : budgets_(budgets), iterations_(iterations), mode_(mode) {
  const std::size_t num_labels = label_rows.size();
  const std::size_t m = budgets.p.size();
  for (const auto& rows : label_rows)
    if (static_cast<std::size_t>(rows.num_secrets) != m) throw InputError("budgets: expected one per secret");
  labels_.resize(num_labels);
  rho_.resize(num_labels);
  eta_.resize(m);
  for (std::size_t j = 0; j < m; ++j) eta_[j] = mu_from_pr(budgets.p[j], budgets.r[j]);

  // Labels holding each secret.
  std::vector<double> labels_holding(m, 0.0);
  std::vector<std::vector<std::int64_t>> holders(num_labels, std::vector<std::int64_t>(m, 0));
  for (std::size_t l = 0; l < num_labels; ++l) {
    for (auto j : label_rows[l].indices) ++holders[l][static_cast<std::size_t>(j)];
    for (std::size_t j = 0; j < m; ++j) labels_holding[j] += holders[l][j] > 0 ? 1.0 : 0.0;
  }

  // Per label: exact LP weights, rho scaled to the batch, Poisson-binomial PMFs, paper sigma.
  pmf_.assign(num_labels, std::vector<std::vector<double>>(m));
  expected_count_.resize(num_labels);
  for (std::size_t l = 0; l < num_labels; ++l) {
    auto& noise = labels_[l];
    noise.batch_requested = batch;
    const SecretMatrix& s = label_rows[l];
    if (s.rows() == 0) continue;
    noise.has_private = true;
    noise.private_records = static_cast<std::int64_t>(s.rows());
    std::vector<double> eta_label(m);
    for (std::size_t j = 0; j < m; ++j) eta_label[j] = eta_[j] / std::sqrt(std::max(1.0, labels_holding[j]));
    const SamplingLpResult lp = solve_sampling_lp(s, eta_label);
    noise.lp_path = to_string(lp.path);
    const double wmax = *std::max_element(lp.weights.begin(), lp.weights.end());
    const double wsum = std::max(std::accumulate(lp.weights.begin(), lp.weights.end(), 0.0), wmax);
    const BatchScaling scaling = scale_to_batch(wsum, wmax, batch);
    noise.batch_used = scaling.batch;
    std::vector<std::vector<double>> rho_of_holders(m);
    std::vector<double> expected(m, 0.0);
    std::vector<double>& rho = rho_[l];
    rho.resize(s.rows());
    for (std::size_t i = 0; i < s.rows(); ++i) {
      rho[i] = std::min(1.0, scaling.scale * lp.weights[i]);
      for (auto j : s.secrets_of(i)) {
        rho_of_holders[static_cast<std::size_t>(j)].push_back(rho[i]);
        expected[static_cast<std::size_t>(j)] += rho[i];
      }
    }
    for (std::size_t j = 0; j < m; ++j) {
      if (rho_of_holders[j].empty()) continue;
      noise.sigma_paper = std::max(noise.sigma_paper, paper_sigma(expected[j], eta_label[j], iterations));
      pmf_[l][j] = poisson_binomial_pmf(rho_of_holders[j]);
    }
    expected_count_[l] = std::move(expected);
  }
}

std::vector<MixtureRelease> SecretNoiseModel::releases_of(std::size_t j, double lambda) const {
  std::vector<MixtureRelease> out;
  for (std::size_t l = 0; l < labels_.size(); ++l) {
    if (pmf_[l][j].empty() || labels_[l].sigma_paper <= 0) continue;
    // Same arithmetic as the accountant's own scaling (step at lambda = 1, then / lambda), so the
    // reported bound is bit-for-bit the one the calibration certified.
    out.push_back({pmf_[l][j], kCountsAndCentresScale / labels_[l].sigma_paper / lambda, iterations_});
  }
  return out;
}

std::vector<std::size_t> SecretNoiseModel::secrets_by_exposure() const {
  const std::size_t m = eta_.size();
  std::vector<double> exposure(m, 0.0);  // single-Gaussian estimate of mu^2 / eta^2
  for (std::size_t l = 0; l < labels_.size(); ++l) {
    if (labels_[l].sigma_paper <= 0) continue;
    for (std::size_t j = 0; j < m; ++j) exposure[j] += std::pow(expected_count_[l][j] / labels_[l].sigma_paper, 2) / (eta_[j] * eta_[j]);
  }
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return exposure[a] > exposure[b]; });
  return order;
}

double SecretNoiseModel::lambda_of(std::size_t j) const {
  const auto releases = releases_of(j, 1.0);
  return releases.empty() ? 0.0 : calibrate_scale_composed(releases, budgets_.p[j], budgets_.r[j]);
}

double SecretNoiseModel::achieved_r(std::size_t j, double lambda) const {
  const auto releases = releases_of(j, lambda);
  return releases.empty() ? budgets_.p[j] : blow_up_upper_composed(releases, budgets_.p[j]);
}

SecretNoisePlan SecretNoiseModel::plan(double lambda, std::vector<double> achieved_r) const {
  SecretNoisePlan plan;
  plan.mode = mode_;
  plan.lambda = lambda;
  plan.labels = labels_;
  double largest = 0.0;
  for (auto& noise : plan.labels) {
    noise.sigma = lambda * noise.sigma_paper;
    largest = std::max(largest, noise.sigma);
  }
  if (!(largest > 0)) largest = no_private_sigma();
  for (auto& noise : plan.labels)
    if (!noise.has_private) noise.sigma = largest;
  plan.eta = eta_;
  plan.achieved_r = std::move(achieved_r);
  return plan;
}

double SecretNoiseModel::no_private_sigma() const {
  double eta_min = 0.0;
  for (const double e : eta_)
    if (e > 0 && std::isfinite(e) && (eta_min == 0.0 || e < eta_min)) eta_min = e;
  if (!(eta_min > 0)) eta_min = 1.0;  // no finite budget: any positive noise will do
  const double scale = mode_ == CalibrationMode::kExact ? kCountsAndCentresScale : 1.0;
  return std::sqrt(double(iterations_)) * scale / eta_min;
}

}  // namespace secpe
