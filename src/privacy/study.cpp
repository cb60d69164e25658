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
#include "privacy/holder_profiles.hpp"
#include "privacy/poisson_binomial.hpp"
#include "privacy/sampling_lp.hpp"

namespace secpe {

namespace {

// One LP solution's sampling: rho scaled to the batch, per secret the PMF of its count, and the
// distinct PMFs with their budgets (secrets that share both share every accountant call, which
// gives them the same figures bit for bit: on the demo corpus' 48,916 secrets, 43 distinct).
struct Sampling {
  BatchScaling scaling;
  std::size_t weighted_records = 0;           // records with rho > 0
  std::vector<std::vector<double>> pmf;       // per secret
  std::vector<double> expected;               // per secret: Delta_j = sum of its holders' rho
  HolderProfiles profiles{{}};
};

Sampling sample(const SecretMatrix& rows, const std::vector<double>& weights, double batch, const SecretBudgets& budgets) {
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
  std::vector<HolderProfile> profile(m);
  for (std::size_t j = 0; j < m; ++j) {
    out.pmf[j] = poisson_binomial_pmf(rho_of[j]);
    out.expected[j] = std::accumulate(rho_of[j].begin(), rho_of[j].end(), 0.0);
    profile[j] = {{{kCountsAndCentresScale, out.pmf[j], {}}}, budgets.p[j], budgets.r[j]};
  }
  out.profiles = HolderProfiles(std::move(profile));
  return out;
}

// The distinct profiles in the order of their most exposed secret (`order`: secrets, most exposed
// first).
std::vector<std::size_t> profiles_by_exposure(const HolderProfiles& profiles, const std::vector<std::size_t>& order) {
  std::vector<std::size_t> rank(profiles.size(), order.size());
  for (std::size_t k = 0; k < order.size(); ++k) rank[profiles.profile_of(order[k])] = std::min(rank[profiles.profile_of(order[k])], k);
  std::vector<std::size_t> by_exposure(profiles.size());
  std::iota(by_exposure.begin(), by_exposure.end(), std::size_t{0});
  std::stable_sort(by_exposure.begin(), by_exposure.end(), [&](auto a, auto b) { return rank[a] < rank[b]; });
  return by_exposure;
}

std::size_t study_threads(const PrivacyStudyOptions& o) { return static_cast<std::size_t>(std::max(1, o.threads > 0 ? o.threads : default_threads())); }

// f(t, u) for every distinct profile u in `todo`, on the options' threads (entry k of `todo` on
// thread k % threads), reporting `stage` through the options' progress callback from thread 0 in
// secrets (a profile counts as the secrets that have it), never in profiles.
template <class F>
void for_each_profile(const HolderProfiles& profiles, const std::vector<std::size_t>& todo, const PrivacyStudyOptions& o,
                      const std::string& stage, F&& f) {
  const std::size_t n = todo.size(), secrets = profiles.num_secrets();
  const std::size_t threads = std::min(study_threads(o), std::max<std::size_t>(n, 1));
  std::vector<std::size_t> weight(profiles.size(), 0);
  for (std::size_t j = 0; j < secrets; ++j) ++weight[profiles.profile_of(j)];
  std::atomic<std::size_t> done{0};
  auto work = [&](std::size_t t) {
    for (std::size_t k = t; k < n; k += threads) {
      f(t, todo[k]);
      const std::size_t now = done += weight[todo[k]];
      if (t == 0 && o.progress && now < secrets) o.progress(stage, now, secrets);
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& t : pool) t.join();
  if (o.progress) o.progress(stage, secrets, secrets);
}

// The exact sigma_j of the secrets (into `per_secret` when given, else only what the maximum
// needs), one root search per distinct profile, most exposed first (`order`); returns max_j
// sigma_j. Without per-secret output, a profile that the cheap screen certifies at the running
// maximum cannot raise it and is skipped.
double exact_sigmas(const Sampling& s, const PrivacyStudyOptions& o, const std::vector<std::size_t>& order,
                    std::vector<SecretStudy>* per_secret, const std::string& stage) {
  const HolderProfiles& profiles = s.profiles;
  std::vector<double> sigma(profiles.size(), 0.0);
  std::vector<double> best(study_threads(o), 0.0);
  for_each_profile(profiles, profiles_by_exposure(profiles, order), o, stage, [&](std::size_t t, std::size_t u) {
    const HolderProfile& h = profiles[u];
    const std::vector<double>& pi = h.releases[0].pmf;
    if (!per_secret && best[t] > 0) {
      const MixtureRelease release{pi, kCountsAndCentresScale / best[t], o.iterations};
      if (blow_up_screen(std::span<const MixtureRelease>(&release, 1), h.p) <= h.r) return;
    }
    sigma[u] = calibrate_sigma_exact(pi, kCountsAndCentresScale, o.iterations, h.p, h.r);
    best[t] = std::max(best[t], sigma[u]);
  });
  if (per_secret)
    for (std::size_t j = 0; j < per_secret->size(); ++j) (*per_secret)[j].sigma_exact = sigma[profiles.profile_of(j)];
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
  const Sampling used = sample(rows, lp.weights, o.batch, budgets);
  const Sampling spread = sample(rows, lp_spread.weights, o.batch, budgets);
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
  study.sigma_exact = exact_sigmas(used, o, order, o.per_secret_exact ? &study.secrets : nullptr, "privacy: exact sigma per secret");
  study.sigma_exact_spread = exact_sigmas(spread, o, order, nullptr, "privacy: exact sigma, spread LP solution");

  study.sigma_evaluated = o.sigma > 0 ? o.sigma : study.sigma_paper;
  std::vector<double> r_at(used.profiles.size());
  for_each_profile(used.profiles, profiles_by_exposure(used.profiles, order), o, "privacy: achieved r at the evaluated sigma",
                   [&](std::size_t, std::size_t u) {
                     const HolderProfile& h = used.profiles[u];
                     r_at[u] = achieved_r_exact(h.releases[0].pmf, kCountsAndCentresScale, study.sigma_evaluated, o.iterations, h.p);
                   });
  for (std::size_t j = 0; j < m; ++j) study.secrets[j].r_at_sigma = r_at[used.profiles.profile_of(j)];
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
