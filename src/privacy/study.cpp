#include "privacy/study.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <thread>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "privacy/blow_up.hpp"
#include "privacy/calibration.hpp"
#include "privacy/conversions.hpp"
#include "privacy/poisson_binomial.hpp"
#include "privacy/sampling_lp.hpp"

namespace secpe {

namespace {

// One LP solution's sampling: rho scaled to the batch, and per secret the PMF of its count.
struct Sampling {
  BatchScaling scaling;
  std::size_t weighted_records = 0;           // records with rho > 0
  std::vector<std::vector<double>> pmf;       // per secret
  std::vector<double> expected;               // per secret: Delta_j = sum of its holders' rho
};

Sampling sample(const SecretMatrix& rows, const std::vector<double>& weights, double batch) {
  const auto m = static_cast<std::size_t>(rows.num_secrets);
  const double wmax = *std::max_element(weights.begin(), weights.end());
  const double wsum = std::max(std::accumulate(weights.begin(), weights.end(), 0.0), wmax);
  Sampling out;
  out.scaling = batch > 0 ? scale_to_batch(wsum, wmax, batch) : BatchScaling{1.0, wsum, false};
  std::vector<std::vector<double>> rho_of(m);
  for (std::size_t i = 0; i < rows.rows(); ++i) {
    const double rho = std::min(1.0, out.scaling.scale * weights[i]);
    out.weighted_records += rho > 0 ? 1 : 0;
    for (auto j : rows.secrets_of(i)) rho_of[static_cast<std::size_t>(j)].push_back(rho);
  }
  out.pmf.resize(m);
  out.expected.resize(m);
  for (std::size_t j = 0; j < m; ++j) {
    out.pmf[j] = poisson_binomial_pmf(rho_of[j]);
    out.expected[j] = std::accumulate(rho_of[j].begin(), rho_of[j].end(), 0.0);
  }
  return out;
}

// f(j) for every secret j in `order`, on `threads` threads (secret k of the order on thread
// k % threads), reporting `stage` through the options' progress callback from thread 0.
template <class F>
void for_each_secret(const std::vector<std::size_t>& order, const PrivacyStudyOptions& o, const std::string& stage, F&& f) {
  const std::size_t m = order.size();
  const auto threads = static_cast<std::size_t>(std::max(1, std::min<int>(o.threads > 0 ? o.threads : default_threads(), static_cast<int>(std::max<std::size_t>(m, 1)))));
  std::atomic<std::size_t> done{0};
  auto work = [&](std::size_t t) {
    for (std::size_t k = t; k < m; k += threads) {
      f(t, order[k]);
      const std::size_t now = ++done;
      if (t == 0 && o.progress && now < m) o.progress(stage, now, m);
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& t : pool) t.join();
  if (o.progress) o.progress(stage, m, m);
}

// The exact sigma_j of the secrets (into `per_secret` when given, else only what the maximum
// needs), most exposed first (`order`); returns max_j sigma_j. Without per-secret output, a secret
// that the cheap screen certifies at the running maximum cannot raise it and is skipped.
double exact_sigmas(const Sampling& s, const SecretBudgets& budgets, const PrivacyStudyOptions& o, const std::vector<std::size_t>& order,
                    std::vector<SecretStudy>* per_secret, const std::string& stage) {
  std::vector<double> best(static_cast<std::size_t>(std::max(1, o.threads > 0 ? o.threads : default_threads())), 0.0);
  for_each_secret(order, o, stage, [&](std::size_t t, std::size_t j) {
    if (!per_secret && best[t] > 0) {
      const MixtureRelease release{s.pmf[j], kCountsAndCentresScale / best[t], o.iterations};
      if (blow_up_screen(std::span<const MixtureRelease>(&release, 1), budgets.p[j]) <= budgets.r[j]) return;
    }
    const double sigma = calibrate_sigma_exact(s.pmf[j], kCountsAndCentresScale, o.iterations, budgets.p[j], budgets.r[j]);
    if (per_secret) (*per_secret)[j].sigma_exact = sigma;
    best[t] = std::max(best[t], sigma);
  });
  return *std::max_element(best.begin(), best.end());
}

}  // namespace

PrivacyStudy study_privacy(const SecretMatrix& rows, const SecretBudgets& budgets, const PrivacyStudyOptions& o) {
  if (o.iterations < 1) throw InputError("iterations must be at least 1");
  if (!(o.batch >= 0)) throw InputError("the private batch must be 0 (rho = LP weights) or positive");
  if (!(o.sigma >= 0)) throw InputError("sigma must be 0 or more");
  const auto m = static_cast<std::size_t>(rows.num_secrets);
  if (rows.rows() == 0) throw InputError("no private records: nothing to calibrate");
  std::vector<double> eta(m);
  for (std::size_t j = 0; j < m; ++j) eta[j] = mu_from_pr(budgets.p[j], budgets.r[j]);
  std::vector<std::int64_t> holders(m, 0);
  for (auto j : rows.indices) ++holders[static_cast<std::size_t>(j)];
  for (std::size_t j = 0; j < m; ++j) {
    if (holders[j] == 0) throw InputError("secret #" + std::to_string(j) + " is held by no record");
  }

  PrivacyStudy study;
  // The LP solution secpe run uses (concentrated), and the plain grouped optimum for comparison.
  const SamplingLpResult lp = solve_sampling_lp(rows, eta);
  const SamplingLpResult lp_spread = solve_sampling_lp(rows, eta, {.concentrate = false});
  study.lp_path = to_string(lp.path);
  const Sampling used = sample(rows, lp.weights, o.batch);
  const Sampling spread = sample(rows, lp_spread.weights, o.batch);
  study.batch_used = used.scaling.batch;
  study.weighted_records = used.weighted_records;
  study.weighted_records_spread = spread.weighted_records;
  study.secrets.resize(m);
  for (std::size_t j = 0; j < m; ++j) {
    study.secrets[j].sigma_paper = paper_sigma(used.expected[j], eta[j], o.iterations);
    study.secrets[j].sigma_gdp = gdp_sigma(eta[j], o.iterations);
    study.sigma_paper = std::max(study.sigma_paper, study.secrets[j].sigma_paper);
    study.sigma_gdp = std::max(study.sigma_gdp, study.secrets[j].sigma_gdp);
  }

  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](auto a, auto b) { return study.secrets[a].sigma_paper / eta[a] > study.secrets[b].sigma_paper / eta[b]; });
  study.sigma_exact = exact_sigmas(used, budgets, o, order, o.per_secret_exact ? &study.secrets : nullptr, "privacy: exact sigma per secret");
  study.sigma_exact_spread = exact_sigmas(spread, budgets, o, order, nullptr, "privacy: exact sigma, spread LP solution");

  study.sigma_evaluated = o.sigma > 0 ? o.sigma : study.sigma_paper;
  for_each_secret(order, o, "privacy: achieved r at the evaluated sigma", [&](std::size_t, std::size_t j) {
    study.secrets[j].r_at_sigma = achieved_r_exact(used.pmf[j], kCountsAndCentresScale, study.sigma_evaluated, o.iterations, budgets.p[j]);
  });
  const double records = double(std::max<std::uint64_t>(o.records, rows.rows()));
  auto ratio = [&](double sigma) { return sigma > 0 ? (study.sigma_gdp / records) / (sigma / study.batch_used) : 0.0; };
  study.sigma_ratio_exact = study.sigma_exact > 0 ? study.sigma_gdp / study.sigma_exact : 0.0;
  study.sigma_ratio_paper = study.sigma_paper > 0 ? study.sigma_gdp / study.sigma_paper : 0.0;
  for (std::size_t j = 0; j < m; ++j) study.sigma_gdp_group = std::max(study.sigma_gdp_group, gdp_sigma(eta[j] / double(holders[j]), o.iterations));
  study.group_ratio_exact = study.sigma_exact > 0 ? study.sigma_gdp_group / study.sigma_exact : 0.0;
  study.group_ratio_paper = study.sigma_paper > 0 ? study.sigma_gdp_group / study.sigma_paper : 0.0;
  study.noise_ratio_exact = ratio(study.sigma_exact);
  study.noise_ratio_paper = ratio(study.sigma_paper);
  return study;
}

SecretMatrix simulate_secret_matrix(std::uint64_t records, int secrets, double inclusion, std::uint64_t seed) {
  if (records < 1) throw InputError("records must be at least 1");
  if (secrets < 1) throw InputError("secrets must be at least 1");
  if (!(inclusion > 0 && inclusion <= 1)) throw InputError("the inclusion probability must be in (0, 1]");
  SecretMatrix m;
  m.num_secrets = secrets;
  m.indptr = {0};
  for (std::uint64_t i = 0; i < records; ++i) {
    CounterRng rng(seed, Stream::kCorpus, i);
    const auto before = m.indices.size();
    for (int j = 0; j < secrets; ++j)
      if (rng.uniform() < inclusion) m.indices.push_back(j);
    if (m.indices.size() > before) m.indptr.push_back(static_cast<std::int64_t>(m.indices.size()));
  }
  return m;
}

}  // namespace secpe
