#include "privacy/secret_noise.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "privacy/calibration.hpp"
#include "privacy/conversions.hpp"

namespace secpe {

SecretNoisePlan plan_secret_noise(const Communicator& comm, const SecretMatrix& local_secrets,
                                  std::span<const std::int32_t> local_labels, std::size_t num_labels,
                                  const PrivacyBudget& budget, int iterations, double batch) {
  const auto m = static_cast<std::size_t>(local_secrets.num_secrets);
  const std::size_t rows = local_secrets.rows();
  SecretNoisePlan plan;
  plan.labels.resize(num_labels);
  plan.rho.assign(rows, 0.0);
  plan.eta.assign(m, mu_from_pr(budget.p, budget.r));
  plan.achieved_mu.assign(m, 0.0);

  // Holders of each secret per label (exact integer allreduce).
  std::vector<std::int64_t> holders(num_labels * m, 0);
  for (std::size_t i = 0; i < rows; ++i) {
    for (auto j : local_secrets.secrets_of(i)) ++holders[static_cast<std::size_t>(local_labels[i]) * m + j];
  }
  comm.allreduce_sum(holders);
  std::vector<double> labels_holding(m, 0.0);
  for (std::size_t l = 0; l < num_labels; ++l)
    for (std::size_t j = 0; j < m; ++j) labels_holding[j] += holders[l * m + j] > 0 ? 1.0 : 0.0;

  // Per-label targets eta_j / sqrt(L_j), then LP weights per private record.
  std::vector<std::vector<double>> eta_label(num_labels, std::vector<double>(m));
  for (std::size_t l = 0; l < num_labels; ++l)
    for (std::size_t j = 0; j < m; ++j) eta_label[l][j] = plan.eta[j] / std::sqrt(std::max(1.0, labels_holding[j]));
  std::vector<double> weight(rows, 0.0);
  std::vector<std::int64_t> weight_sum(num_labels, 0);
  std::vector<double> weight_max(num_labels, 0.0);
  for (std::size_t i = 0; i < rows; ++i) {
    if (!local_secrets.is_private(i)) continue;
    const auto l = static_cast<std::size_t>(local_labels[i]);
    const auto secrets = local_secrets.secrets_of(i);
    const std::vector<std::int32_t> ids(secrets.begin(), secrets.end());
    const std::vector<std::int64_t> label_holders(holders.begin() + l * m, holders.begin() + (l + 1) * m);
    weight[i] = uniform_share_weight(ids, eta_label[l], label_holders);
    weight_sum[l] += to_fixed(weight[i]);
    weight_max[l] = std::max(weight_max[l], weight[i]);
  }
  comm.allreduce_sum(weight_sum);
  std::vector<double> scale(num_labels, 0.0);
  for (std::size_t l = 0; l < num_labels; ++l) {
    weight_max[l] = comm.allreduce_max(weight_max[l]);
    auto& noise = plan.labels[l];
    noise.batch_requested = batch;
    noise.has_private = weight_max[l] > 0.0;
    if (!noise.has_private) continue;
    // The fixed-point sum can round a hair below the maximum when one record carries all weight.
    const double sum = std::max(from_fixed(weight_sum[l]), weight_max[l]);
    const BatchScaling s = scale_to_batch(sum, weight_max[l], batch);
    scale[l] = s.scale;
    noise.batch_used = s.batch;
  }

  // Expected sampled holders Delta_{j,l} = sum rho_i, then sigma_l = max_j sqrt(T) Delta_{j,l} / eta_{j,l}.
  std::vector<std::int64_t> expected(num_labels * m, 0);
  for (std::size_t i = 0; i < rows; ++i) {
    if (weight[i] == 0.0) continue;
    const auto l = static_cast<std::size_t>(local_labels[i]);
    plan.rho[i] = std::min(1.0, scale[l] * weight[i]);
    for (auto j : local_secrets.secrets_of(i)) expected[l * m + j] += to_fixed(plan.rho[i]);
  }
  comm.allreduce_sum(expected);
  for (std::size_t l = 0; l < num_labels; ++l) {
    for (std::size_t j = 0; j < m; ++j) {
      if (holders[l * m + j] == 0) continue;
      plan.labels[l].sigma = std::max(plan.labels[l].sigma,
                                      paper_sigma(from_fixed(expected[l * m + j]), eta_label[l][j], iterations));
    }
  }
  for (std::size_t j = 0; j < m; ++j) {
    double mu2 = 0.0;
    for (std::size_t l = 0; l < num_labels; ++l) {
      if (holders[l * m + j] == 0) continue;
      const double ratio = from_fixed(expected[l * m + j]) / plan.labels[l].sigma;
      mu2 += iterations * ratio * ratio;
    }
    plan.achieved_mu[j] = std::sqrt(mu2);
  }
  return plan;
}

}  // namespace secpe
