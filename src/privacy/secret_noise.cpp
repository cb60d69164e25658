#include "privacy/secret_noise.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <functional>
#include <numeric>
#include <stdexcept>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "privacy/blow_up.hpp"
#include "privacy/calibration.hpp"
#include "privacy/conversions.hpp"
#include "privacy/poisson_binomial.hpp"
#include "privacy/sampling_lp.hpp"

namespace secpe {

// One label's share of the model.
struct SecretNoiseModel::LabelModel {
  LabelNoise noise;
  std::vector<double> rho;                   // per private row
  // Per secret held in the label (ascending): its holders' count PMF, their rho > 0 (largest
  // first) and the mean count Delta_{j,l}.
  std::vector<std::int32_t> secrets;
  std::vector<std::vector<double>> pmf, rho_held;
  std::vector<double> expected;
};

namespace {

// The number of labels holding each secret.
std::vector<double> labels_holding(const std::vector<SecretMatrix>& label_rows, std::size_t m) {
  std::vector<double> count(m, 0.0);
  std::vector<char> here(m);
  for (const SecretMatrix& rows : label_rows) {
    std::fill(here.begin(), here.end(), 0);
    for (auto j : rows.indices) here[static_cast<std::size_t>(j)] = 1;
    for (std::size_t j = 0; j < m; ++j) count[j] += here[j];
  }
  return count;
}

// Every secret's target for one label of the allocation: eta_j / sqrt(labels holding j).
std::vector<double> label_targets(const std::vector<double>& eta, const std::vector<double>& holding) {
  std::vector<double> out(eta.size());
  for (std::size_t j = 0; j < eta.size(); ++j) out[j] = eta[j] / std::sqrt(std::max(1.0, holding[j]));
  return out;
}

// f(l) for every label, on up to `threads` threads taking the next label as they finish one
// (labels are independent, and their sizes are skewed); the first failure is rethrown.
template <typename F>
void for_each_label(std::size_t num_labels, int threads, F&& f) {
  std::vector<std::exception_ptr> failed(num_labels);
  std::atomic<std::size_t> next{0};
  run_chunks(std::max(1, threads), static_cast<std::size_t>(std::max(1, threads)), [&](int, std::size_t, std::size_t) {
    for (std::size_t l = next++; l < num_labels; l = next++) {
      try {
        f(l);
      } catch (...) {
        failed[l] = std::current_exception();
      }
    }
  });
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
}

// 0, 1, ..., n - 1.
std::vector<std::size_t> every_label(std::size_t n) {
  std::vector<std::size_t> out(n);
  std::iota(out.begin(), out.end(), std::size_t{0});
  return out;
}

}  // namespace

LabelLps::LabelLps(const std::vector<SecretMatrix>& label_rows, const SecretBudgets& budgets)
    : rows_(label_rows), holding_(labels_holding(label_rows, budgets.p.size())) {
  for (std::size_t j = 0; j < budgets.p.size(); ++j) eta_.push_back(mu_from_pr(budgets.p[j], budgets.r[j]));
}

std::vector<LabelLp> LabelLps::solve(const std::vector<std::size_t>& labels, int threads) const {
  std::vector<LabelLp> out(labels.size());
  const std::vector<double> eta_label = label_targets(eta_, holding_);
  for_each_label(labels.size(), threads, [&](std::size_t k) {
    const SecretMatrix& s = rows_[labels[k]];
    if (s.rows() == 0) return;
    SamplingLpResult lp = solve_sampling_lp(s, eta_label);
    out[k] = {std::move(lp.weights), lp.path};
  });
  return out;
}

// Label l: its LP's weights, rho scaled to the batch, the paper's sigma and every held secret's
// PMF (in the holders' record order, which the PMF's rounding follows).
SecretNoiseModel::LabelModel SecretNoiseModel::model_label(const SecretMatrix& s, const LabelLp& lp,
                                                           const std::vector<double>& labels_holding) const {
  const std::size_t m = eta_.size();
  LabelModel out;
  out.noise.batch_requested = batch_;
  if (s.rows() == 0) return out;
  out.noise.has_private = true;
  out.noise.private_records = static_cast<std::int64_t>(s.rows());
  if (lp.weights.size() != s.rows()) throw std::logic_error("SecretNoiseModel: a label's LP has the wrong number of weights");
  const std::vector<double> eta_label = label_targets(eta_, labels_holding);
  out.noise.lp_path = to_string(lp.path);
  const double wmax = *std::max_element(lp.weights.begin(), lp.weights.end());
  const double wsum = std::max(std::accumulate(lp.weights.begin(), lp.weights.end(), 0.0), wmax);
  const BatchScaling scaling = scale_to_batch(wsum, wmax, batch_);
  out.noise.batch_used = scaling.batch;
  std::vector<std::int32_t> slot(m, -1);  // secret -> its index in out.secrets
  for (const auto j : s.indices) slot[static_cast<std::size_t>(j)] = 0;
  for (std::size_t j = 0; j < m; ++j) {
    if (slot[j] < 0) continue;
    slot[j] = static_cast<std::int32_t>(out.secrets.size());
    out.secrets.push_back(static_cast<std::int32_t>(j));
  }
  std::vector<std::vector<double>> rho_of_holders(out.secrets.size());
  out.expected.assign(out.secrets.size(), 0.0);
  out.rho.resize(s.rows());
  for (std::size_t i = 0; i < s.rows(); ++i) {
    out.rho[i] = std::min(1.0, scaling.scale * lp.weights[i]);
    for (auto j : s.secrets_of(i)) {
      const auto k = static_cast<std::size_t>(slot[static_cast<std::size_t>(j)]);
      rho_of_holders[k].push_back(out.rho[i]);
      out.expected[k] += out.rho[i];
    }
  }
  for (std::size_t k = 0; k < out.secrets.size(); ++k) {
    const auto j = static_cast<std::size_t>(out.secrets[k]);
    out.noise.sigma_paper = std::max(out.noise.sigma_paper, paper_sigma(out.expected[k], eta_label[j], iterations_));
    out.pmf.push_back(poisson_binomial_pmf(rho_of_holders[k]));
    std::vector<double> held;
    for (const double x : rho_of_holders[k])
      if (x > 0.0) held.push_back(x);
    std::sort(held.begin(), held.end(), std::greater<>());
    out.rho_held.push_back(std::move(held));
  }
  return out;
}

SecretNoiseModel::SecretNoiseModel(const std::vector<SecretMatrix>& label_rows, const SecretBudgets& budgets, int iterations,
                                   double batch, CalibrationMode mode, int threads)
    : SecretNoiseModel(label_rows, budgets, iterations, batch, mode, LabelLps(label_rows, budgets).solve(every_label(label_rows.size()), threads),
                       threads) {}

SecretNoiseModel::SecretNoiseModel(const std::vector<SecretMatrix>& label_rows, const SecretBudgets& budgets, int iterations,
                                   double batch, CalibrationMode mode, const std::vector<LabelLp>& lps, int threads)
    : budgets_(budgets), iterations_(iterations), batch_(batch), mode_(mode), profiles_({}) {
  const std::size_t num_labels = label_rows.size();
  const std::size_t m = budgets.p.size();
  for (const auto& rows : label_rows)
    if (static_cast<std::size_t>(rows.num_secrets) != m) throw InputError("budgets: expected one per secret");
  eta_.resize(m);
  for (std::size_t j = 0; j < m; ++j) eta_[j] = mu_from_pr(budgets.p[j], budgets.r[j]);

  if (lps.size() != num_labels) throw std::logic_error("SecretNoiseModel: expected one LP per label");
  const std::vector<double> holding = labels_holding(label_rows, m);
  std::vector<LabelModel> per_label(num_labels);
  for_each_label(num_labels, threads, [&](std::size_t l) { per_label[l] = model_label(label_rows[l], lps[l], holding); });

  // Per secret, in label order: its releases (a label whose sigma is 0 releases nothing about
  // it, nor does a PMF that is a point mass at 0) and its exposure.
  std::vector<HolderProfile> profile(m);
  exposure_.assign(m, 0.0);
  for (std::size_t j = 0; j < m; ++j) profile[j] = {{}, budgets.p[j], budgets.r[j]};
  for (std::size_t l = 0; l < num_labels; ++l) {
    LabelModel& lm = per_label[l];
    labels_.push_back(lm.noise);
    rho_.push_back(std::move(lm.rho));
    const double sigma = lm.noise.sigma_paper;
    if (!(sigma > 0)) continue;
    for (std::size_t k = 0; k < lm.secrets.size(); ++k) {
      const auto j = static_cast<std::size_t>(lm.secrets[k]);
      exposure_[j] += std::pow(lm.expected[k] / sigma, 2) / (eta_[j] * eta_[j]);
      if (lm.pmf[k].size() < 2) continue;
      profile[j].releases.push_back({kCountsAndCentresScale / sigma, std::move(lm.pmf[k]), std::move(lm.rho_held[k])});
    }
  }
  profiles_ = HolderProfiles(std::move(profile));
}

std::vector<MixtureRelease> SecretNoiseModel::releases_of(std::size_t profile, double lambda) const {
  std::vector<MixtureRelease> out;
  for (const ProfileRelease& rel : profiles_[profile].releases) {
    // Same arithmetic as the accountant's own scaling (step at lambda = 1, then / lambda), so the
    // reported bound is bit-for-bit the one the calibration certified.
    out.push_back({rel.pmf, rel.step / lambda, iterations_});
  }
  return out;
}

RunSpend SecretNoiseModel::spend(double lambda) const {
  SpendBuilder builder;
  for (std::size_t u = 0; u < profiles_.size(); ++u) builder.add_list(releases_of(u, lambda));
  RunSpend& out = builder.spend();
  for (std::size_t j = 0; j < profiles_.num_secrets(); ++j) {
    const std::size_t u = profiles_.profile_of(j);
    out.profile_of.push_back(out.lists[u].empty() ? -1 : static_cast<std::int32_t>(u));
  }
  return std::move(out);
}

std::vector<std::size_t> SecretNoiseModel::secrets_by_exposure() const {
  std::vector<std::size_t> order(exposure_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return exposure_[a] > exposure_[b]; });
  return order;
}

double SecretNoiseModel::lambda_of_profile(std::size_t profile) const {
  const HolderProfile& h = profiles_[profile];
  const auto releases = releases_of(profile, 1.0);
  return releases.empty() ? 0.0 : calibrate_scale_composed(releases, h.p, h.r);
}

double SecretNoiseModel::profile_bound(std::size_t profile, double lambda, const AccountantOptions& options,
                                      ReleaseMemo* memo) const {
  const HolderProfile& h = profiles_[profile];
  const auto releases = releases_of(profile, lambda);
  return releases.empty() ? h.p : blow_up_upper_composed(releases, h.p, options, memo);
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
