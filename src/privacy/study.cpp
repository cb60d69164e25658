#include "privacy/study.hpp"

#include <algorithm>
#include <numeric>
#include <thread>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "privacy/blow_up.hpp"
#include "privacy/calibration.hpp"
#include "privacy/conversions.hpp"
#include "privacy/poisson_binomial.hpp"
#include "privacy/sampling_lp.hpp"

namespace secpe {

PrivacyStudy study_privacy(const SecretMatrix& rows, const SecretBudgets& budgets, const PrivacyStudyOptions& o) {
  if (o.iterations < 1) throw InputError("--iterations must be at least 1");
  if (!(o.batch >= 0)) throw InputError("--private-batch must be 0 (rho = LP weights) or positive");
  if (!(o.sigma >= 0)) throw InputError("--sigma must be 0 or more");
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
  const SamplingLpResult lp = solve_sampling_lp(rows, eta);
  study.lp_path = to_string(lp.path);
  const double wmax = *std::max_element(lp.weights.begin(), lp.weights.end());
  const double wsum = std::max(std::accumulate(lp.weights.begin(), lp.weights.end(), 0.0), wmax);
  const BatchScaling scaling = o.batch > 0 ? scale_to_batch(wsum, wmax, o.batch) : BatchScaling{1.0, wsum, false};
  study.batch_used = scaling.batch;
  std::vector<std::vector<double>> rho_of(m);
  for (std::size_t i = 0; i < rows.rows(); ++i) {
    const double rho = std::min(1.0, scaling.scale * lp.weights[i]);
    for (auto j : rows.secrets_of(i)) rho_of[static_cast<std::size_t>(j)].push_back(rho);
  }
  std::vector<std::vector<double>> pmf(m);
  study.secrets.resize(m);
  for (std::size_t j = 0; j < m; ++j) {
    pmf[j] = poisson_binomial_pmf(rho_of[j]);
    const double expected = std::accumulate(rho_of[j].begin(), rho_of[j].end(), 0.0);
    study.secrets[j].sigma_paper = paper_sigma(expected, eta[j], o.iterations);
    study.secrets[j].sigma_gdp = gdp_sigma(eta[j], o.iterations);
    study.sigma_paper = std::max(study.sigma_paper, study.secrets[j].sigma_paper);
    study.sigma_gdp = std::max(study.sigma_gdp, study.secrets[j].sigma_gdp);
  }

  // Exact sigma_j, most exposed secrets first; without per-secret output, a secret that the cheap
  // screen certifies at the running maximum cannot raise it and is skipped.
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](auto a, auto b) { return study.secrets[a].sigma_paper / eta[a] > study.secrets[b].sigma_paper / eta[b]; });
  const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 8));
  std::vector<double> best(threads, 0.0);
  auto work = [&](unsigned t) {
    for (std::size_t k = t; k < m; k += threads) {
      const std::size_t j = order[k];
      if (!o.per_secret_exact && best[t] > 0) {
        const MixtureRelease release{pmf[j], kCountsAndCentresScale / best[t], o.iterations};
        if (blow_up_screen(std::span<const MixtureRelease>(&release, 1), budgets.p[j]) <= budgets.r[j]) continue;
      }
      study.secrets[j].sigma_exact = calibrate_sigma_exact(pmf[j], kCountsAndCentresScale, o.iterations, budgets.p[j], budgets.r[j]);
      best[t] = std::max(best[t], study.secrets[j].sigma_exact);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (auto& t : pool) t.join();
  study.sigma_exact = *std::max_element(best.begin(), best.end());

  study.sigma_evaluated = o.sigma > 0 ? o.sigma : study.sigma_paper;
  for (std::size_t j = 0; j < m; ++j) {
    study.secrets[j].r_at_sigma = achieved_r_exact(pmf[j], kCountsAndCentresScale, study.sigma_evaluated, o.iterations, budgets.p[j]);
  }
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
  if (records < 1) throw InputError("--records must be at least 1");
  if (secrets < 1) throw InputError("--secrets must be at least 1");
  if (!(inclusion > 0 && inclusion <= 1)) throw InputError("--inclusion must be in (0, 1]");
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
