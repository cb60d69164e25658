#include "privacy/secret_noise.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "core/error.hpp"
#include "core/log.hpp"
#include "privacy/blow_up.hpp"
#include "privacy/calibration.hpp"
#include "privacy/conversions.hpp"
#include "privacy/poisson_binomial.hpp"
#include "privacy/sampling_lp.hpp"

namespace secpe {
namespace {

// The private records of one label, in global record order, as every rank sees them.
struct LabelPrivateRows {
  SecretMatrix secrets;              // indptr from 0
  std::size_t my_offset = 0;         // index of this rank's first row of the label
};

// Every rank gets every label's private secret sets (small: a few ints per private record), in
// global record order: ranks own contiguous record ranges and allgather keeps rank order. Each
// rank can then solve the per-label LPs itself, identically, whatever the number of ranks.
std::vector<LabelPrivateRows> gather_private_rows(const Communicator& comm, const SecretMatrix& local,
                                                  std::span<const std::int32_t> labels, std::size_t num_labels) {
  std::vector<std::int32_t> packed;  // per private row: label, count, secret ids
  for (std::size_t i = 0; i < local.rows(); ++i) {
    if (!local.is_private(i)) continue;
    const auto s = local.secrets_of(i);
    packed.push_back(labels[i]);
    packed.push_back(static_cast<std::int32_t>(s.size()));
    packed.insert(packed.end(), s.begin(), s.end());
  }
  const auto all = comm.allgather_strings({std::string(reinterpret_cast<const char*>(packed.data()), packed.size() * sizeof(std::int32_t))});
  std::vector<LabelPrivateRows> out(num_labels);
  for (auto& l : out) {
    l.secrets.indptr = {0};
    l.secrets.num_secrets = local.num_secrets;
  }
  for (int r = 0; r < comm.size(); ++r) {
    const auto& bytes = all[static_cast<std::size_t>(r)];
    std::vector<std::int32_t> v(bytes.size() / sizeof(std::int32_t));
    if (!v.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
    if (r == comm.rank())
      for (auto& l : out) l.my_offset = l.secrets.rows();
    for (std::size_t k = 0; k < v.size();) {
      auto& l = out[static_cast<std::size_t>(v[k])].secrets;
      const auto count = static_cast<std::size_t>(v[k + 1]);
      l.indices.insert(l.indices.end(), v.begin() + static_cast<std::ptrdiff_t>(k + 2), v.begin() + static_cast<std::ptrdiff_t>(k + 2 + count));
      l.indptr.push_back(static_cast<std::int64_t>(l.indices.size()));
      k += 2 + count;
    }
  }
  return out;
}

// The releases of secret j: one mixture per label holding it, at lambda = 1.
std::vector<MixtureRelease> releases_of(std::size_t j, const std::vector<std::vector<std::vector<double>>>& pmf,
                                        const std::vector<LabelNoise>& labels, int iterations, double lambda) {
  std::vector<MixtureRelease> out;
  for (std::size_t l = 0; l < labels.size(); ++l) {
    if (pmf[l][j].empty() || labels[l].sigma_paper <= 0) continue;
    // Same arithmetic as the accountant's own scaling (step at lambda = 1, then / lambda), so the
    // reported bound is bit-for-bit the one the calibration certified.
    out.push_back({pmf[l][j], kCountsAndCentresScale / labels[l].sigma_paper / lambda, iterations});
  }
  return out;
}

}  // namespace

CalibrationMode parse_calibration(const std::string& name) {
  if (name == "exact") return CalibrationMode::kExact;
  if (name == "paper") return CalibrationMode::kPaper;
  throw InputError("--calibration must be exact or paper for --method secpe (gdp is Aug-PE's), not '" + name + "'");
}

std::string calibration_name(CalibrationMode mode) { return mode == CalibrationMode::kExact ? "exact" : "paper"; }

SecretNoisePlan plan_secret_noise(const Communicator& comm, const SecretMatrix& local_secrets,
                                  std::span<const std::int32_t> local_labels, std::size_t num_labels,
                                  const SecretBudgets& budgets, int iterations, double batch, CalibrationMode mode) {
  const auto start = std::chrono::steady_clock::now();
  const auto m = static_cast<std::size_t>(local_secrets.num_secrets);
  if (budgets.p.size() != m) throw InputError("budgets: expected one per secret");
  SecretNoisePlan plan;
  plan.mode = mode;
  plan.labels.resize(num_labels);
  plan.rho.assign(local_secrets.rows(), 0.0);
  plan.eta.resize(m);
  for (std::size_t j = 0; j < m; ++j) plan.eta[j] = mu_from_pr(budgets.p[j], budgets.r[j]);

  const auto rows = gather_private_rows(comm, local_secrets, local_labels, num_labels);
  // Labels holding each secret.
  std::vector<double> labels_holding(m, 0.0);
  std::vector<std::vector<std::int64_t>> holders(num_labels, std::vector<std::int64_t>(m, 0));
  for (std::size_t l = 0; l < num_labels; ++l) {
    for (auto j : rows[l].secrets.indices) ++holders[l][static_cast<std::size_t>(j)];
    for (std::size_t j = 0; j < m; ++j) labels_holding[j] += holders[l][j] > 0 ? 1.0 : 0.0;
  }

  // Per label: exact LP weights, rho scaled to the batch, Poisson-binomial PMFs, paper sigma.
  std::vector<std::vector<std::vector<double>>> pmf(num_labels, std::vector<std::vector<double>>(m));
  std::vector<std::vector<double>> expected_count(num_labels);  // Delta_{j,l}
  for (std::size_t l = 0; l < num_labels; ++l) {
    auto& noise = plan.labels[l];
    noise.batch_requested = batch;
    const SecretMatrix& s = rows[l].secrets;
    if (s.rows() == 0) continue;
    noise.has_private = true;
    std::vector<double> eta_label(m);
    for (std::size_t j = 0; j < m; ++j) eta_label[j] = plan.eta[j] / std::sqrt(std::max(1.0, labels_holding[j]));
    const SamplingLpResult lp = solve_sampling_lp(s, eta_label);
    noise.lp_path = to_string(lp.path);
    const double wmax = *std::max_element(lp.weights.begin(), lp.weights.end());
    const double wsum = std::max(std::accumulate(lp.weights.begin(), lp.weights.end(), 0.0), wmax);
    const BatchScaling scaling = scale_to_batch(wsum, wmax, batch);
    noise.batch_used = scaling.batch;
    std::vector<std::vector<double>> rho_of_holders(m);
    std::vector<double> expected(m, 0.0);
    std::vector<double> rho(s.rows());
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
      pmf[l][j] = poisson_binomial_pmf(rho_of_holders[j]);
    }
    expected_count[l] = expected;
    // This rank's rows of the label are a contiguous run starting at my_offset.
    std::size_t k = rows[l].my_offset;
    for (std::size_t i = 0; i < local_secrets.rows(); ++i) {
      if (local_secrets.is_private(i) && static_cast<std::size_t>(local_labels[i]) == l) plan.rho[i] = rho[k++];
    }
  }

  // Exact mode: the smallest common factor lambda that certifies every secret. Secrets are split
  // over the ranks; each rank skips a secret that a cheap rigorous screen already certifies at
  // its current lambda (skipped secrets cannot raise the maximum), and the maximum is exact.
  if (mode == CalibrationMode::kExact) {
    // Most exposed secrets first (single-Gaussian estimate of mu^2), so the checks skip the rest.
    std::vector<double> exposure(m, 0.0);
    for (std::size_t l = 0; l < num_labels; ++l) {
      if (plan.labels[l].sigma_paper <= 0) continue;
      for (std::size_t j = 0; j < m; ++j) exposure[j] += std::pow(expected_count[l][j] / plan.labels[l].sigma_paper, 2) / (plan.eta[j] * plan.eta[j]);
    }
    std::vector<std::size_t> order(m);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return exposure[a] > exposure[b]; });
    double lambda = 0.0;
    for (std::size_t k = static_cast<std::size_t>(comm.rank()); k < m; k += static_cast<std::size_t>(comm.size())) {
      const std::size_t j = order[k];
      const auto releases = releases_of(j, pmf, plan.labels, iterations, 1.0);
      if (releases.empty()) continue;
      if (lambda > 0) {  // certified at the running lambda: cheap screen first, then one exact bound
        const auto scaled = releases_of(j, pmf, plan.labels, iterations, lambda);
        if (blow_up_screen(scaled, budgets.p[j]) <= budgets.r[j]) continue;
        if (blow_up_upper_composed(scaled, budgets.p[j]) <= budgets.r[j]) continue;
      }
      lambda = std::max(lambda, calibrate_scale_composed(releases, budgets.p[j], budgets.r[j]));
    }
    plan.lambda = comm.allreduce_max(lambda);
    // Every secret certified even without noise (tiny sampling rates): keep a negligible noise
    // rather than none, so every release stays a Gaussian mechanism.
    if (plan.lambda <= 0) plan.lambda = 1e-6;
  }
  for (auto& noise : plan.labels) noise.sigma = plan.lambda * noise.sigma_paper;

  // What every secret actually gets with the sigmas used (both modes), split over the ranks.
  std::vector<MinLoc> achieved(m, MinLoc{std::numeric_limits<double>::infinity(), 0});
  for (std::size_t j = static_cast<std::size_t>(comm.rank()); j < m; j += static_cast<std::size_t>(comm.size())) {
    const auto releases = releases_of(j, pmf, plan.labels, iterations, plan.lambda);
    achieved[j].value = releases.empty() ? budgets.p[j] : blow_up_upper_composed(releases, budgets.p[j]);
  }
  comm.allreduce_min_loc(achieved);
  plan.achieved_r.resize(m);
  for (std::size_t j = 0; j < m; ++j) plan.achieved_r[j] = achieved[j].value;
  plan.accounting_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

}  // namespace secpe
