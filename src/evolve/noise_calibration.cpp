#include "evolve/noise_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <stdexcept>
#include <utility>

#include "core/timer.hpp"
#include "evolve/secret_certification.hpp"
#include "privacy/conversions.hpp"
#include "privacy/poisson_binomial.hpp"

namespace secpe {
namespace {

// Every label's private secret sets in global record order, and where this rank's rows of each
// label start: each rank holds its rows in ascending record id, and a label's rows are either on
// one rank (--shard-by label) or in consecutive record ranges in rank order (by record), which
// allgather keeps.
struct GatheredRows {
  std::vector<SecretMatrix> per_label;
  std::vector<std::size_t> my_offset;
};

GatheredRows gather_private_rows(const Communicator& comm, const SecretMatrix& local, std::span<const std::int32_t> labels,
                                 std::size_t num_labels) {
  std::vector<std::int32_t> packed;  // per private row: label, count, secret ids
  for (std::size_t i = 0; i < local.rows(); ++i) {
    if (!local.is_private(i)) continue;
    const auto s = local.secrets_of(i);
    packed.push_back(labels[i]);
    packed.push_back(static_cast<std::int32_t>(s.size()));
    packed.insert(packed.end(), s.begin(), s.end());
  }
  const auto all = comm.allgather_strings({std::string(reinterpret_cast<const char*>(packed.data()), packed.size() * sizeof(std::int32_t))});
  GatheredRows out{std::vector<SecretMatrix>(num_labels), std::vector<std::size_t>(num_labels, 0)};
  for (auto& l : out.per_label) {
    l.indptr = {0};
    l.num_secrets = local.num_secrets;
  }
  for (int r = 0; r < comm.size(); ++r) {
    const auto& bytes = all[static_cast<std::size_t>(r)];
    std::vector<std::int32_t> v(bytes.size() / sizeof(std::int32_t));
    if (!v.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
    if (r == comm.rank())
      for (std::size_t l = 0; l < num_labels; ++l) out.my_offset[l] = out.per_label[l].rows();
    for (std::size_t k = 0; k < v.size();) {
      auto& l = out.per_label[static_cast<std::size_t>(v[k])];
      const auto count = static_cast<std::size_t>(v[k + 1]);
      l.indices.insert(l.indices.end(), v.begin() + static_cast<std::ptrdiff_t>(k + 2), v.begin() + static_cast<std::ptrdiff_t>(k + 2 + count));
      l.indptr.push_back(static_cast<std::int64_t>(l.indices.size()));
      k += 2 + count;
    }
  }
  return out;
}

// The labels' LPs (most of a model's construction), shared out over the ranks: the labels are
// dealt largest first (by private records) each to the rank with the fewest records so far, each
// rank solves its own on its threads, and an allgather gives every rank every label's weights. A
// label's LP is the same bits on any rank, so the model is too. A failure on any rank fails every
// rank with the same error: each then solves every label itself, and the first failure in the
// deal's order is rethrown everywhere.
std::vector<LabelLp> solve_label_lps(const Communicator& comm, const std::vector<SecretMatrix>& label_rows,
                                     const SecretBudgets& budgets, int threads) {
  std::vector<std::size_t> order;
  for (std::size_t l = 0; l < label_rows.size(); ++l)
    if (label_rows[l].rows() > 0) order.push_back(l);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return label_rows[a].rows() > label_rows[b].rows(); });
  std::vector<int> owner(label_rows.size(), -1);
  std::vector<std::size_t> load(static_cast<std::size_t>(comm.size()), 0), mine;
  for (const std::size_t l : order) {
    const auto least = std::min_element(load.begin(), load.end());
    owner[l] = static_cast<int>(least - load.begin());
    *least += label_rows[l].rows();
    if (owner[l] == comm.rank()) mine.push_back(l);
  }
  const LabelLps lps(label_rows, budgets);
  std::vector<LabelLp> solved;
  double failed = 0.0;
  try {
    solved = lps.solve(mine, threads);
  } catch (...) {
    failed = 1.0;
  }
  if (comm.allreduce_max(failed) > 0) {
    lps.solve(order, threads);
    throw std::logic_error("calibration: a label's LP failed on one rank only");
  }
  std::vector<double> packed;  // per label of mine: its path, then its weights
  for (const LabelLp& lp : solved) {
    packed.push_back(static_cast<double>(lp.path));
    packed.insert(packed.end(), lp.weights.begin(), lp.weights.end());
  }
  const std::vector<double> all = comm.allgather(std::span<const double>(packed));
  std::vector<LabelLp> out(label_rows.size());
  std::size_t at = 0;
  for (int r = 0; r < comm.size(); ++r) {
    for (const std::size_t l : order) {
      if (owner[l] != r) continue;
      out[l].path = static_cast<SamplingLpPath>(static_cast<int>(all[at]));
      const auto first = all.begin() + static_cast<std::ptrdiff_t>(at + 1);
      out[l].weights.assign(first, first + static_cast<std::ptrdiff_t>(label_rows[l].rows()));
      at += 1 + label_rows[l].rows();
    }
  }
  return out;
}

// The public profile: one sigma from the caps; rho_l = min(q, B / n_l) for label l's private rows.
SecretNoisePlan calibrate_public(const Communicator& comm, const NoiseCalibrationInputs& in) {
  std::vector<std::int64_t> private_records(in.num_labels, 0);
  for (std::size_t i = 0; i < in.local_secrets.rows(); ++i)
    if (in.local_secrets.is_private(i)) ++private_records[static_cast<std::size_t>(in.local_labels[i])];
  comm.allreduce_sum(std::span<std::int64_t>(private_records));
  const PublicProfileNoise noise = calibrate_public_profile(in.budgets, in.iterations, in.profile);
  SecretNoisePlan plan;
  plan.mode = CalibrationMode::kPublicProfile;
  plan.lambda = 1.0;
  std::vector<double> rate(in.num_labels, 0.0);
  for (std::size_t l = 0; l < in.num_labels; ++l) {
    const auto n = private_records[l];
    rate[l] = n > 0 ? std::min(in.profile.sampling_rate, in.batch / double(n)) : 0.0;
    plan.labels.push_back({.sigma = noise.sigma,
                           .sigma_paper = 0.0,
                           .batch_requested = in.batch,
                           .batch_used = rate[l] * double(n),
                           .has_private = n > 0,
                           .private_records = n,
                           .lp_path = "none (public profile: one sampling rate per label)"});
  }
  for (std::size_t j = 0; j < in.budgets.p.size(); ++j) plan.eta.push_back(mu_from_pr(in.budgets.p[j], in.budgets.r[j]));
  plan.achieved_r = noise.achieved_r;
  plan.spend = uniform_spend({poisson_binomial_pmf(std::vector<double>(static_cast<std::size_t>(in.profile.max_holders), in.profile.sampling_rate)),
                              kCountsAndCentresScale / noise.sigma, in.iterations},
                             in.budgets.p.size());
  plan.rho.assign(in.local_secrets.rows(), 0.0);
  for (std::size_t i = 0; i < in.local_secrets.rows(); ++i)
    if (in.local_secrets.is_private(i)) plan.rho[i] = rate[static_cast<std::size_t>(in.local_labels[i])];
  return plan;
}

}  // namespace

std::int64_t max_holders_per_secret(const Communicator& comm, const SecretMatrix& local_secrets) {
  std::vector<std::int64_t> holders(static_cast<std::size_t>(std::max(0, local_secrets.num_secrets)), 0);
  for (const auto j : local_secrets.indices) ++holders[static_cast<std::size_t>(j)];
  comm.allreduce_sum(std::span<std::int64_t>(holders));
  return holders.empty() ? 0 : *std::max_element(holders.begin(), holders.end());
}

SecretNoisePlan calibrate_secret_noise(const Communicator& comm, const NoiseCalibrationInputs& in) {
  const Timer timer;
  if (in.mode == CalibrationMode::kPublicProfile) {
    SecretNoisePlan plan = calibrate_public(comm, in);
    plan.accounting_seconds = timer.seconds();
    return plan;
  }
  const GatheredRows rows = gather_private_rows(comm, in.local_secrets, in.local_labels, in.num_labels);
  const SecretNoiseModel model(rows.per_label, in.budgets, in.iterations, in.batch, in.mode,
                               solve_label_lps(comm, rows.per_label, in.budgets, in.threads), in.threads);
  SecretCertifier certifier(model, comm, in.threads, in.certification);
  SecretBounds bounds;
  double lambda = in.mode == CalibrationMode::kExact ? certifier.certify(bounds) : 1.0;
  // Every secret certified even without noise (tiny sampling rates): keep a negligible noise
  // rather than none, so every release stays a Gaussian mechanism.
  if (lambda <= 0) lambda = 1e-6;
  // Paper mode, or every secret searched: what every secret gets with the sigmas used.
  if (bounds.achieved_r.empty()) bounds = certifier.bounds_at(lambda);

  SecretNoisePlan plan = model.plan(lambda, std::move(bounds.achieved_r));
  plan.spend = model.spend(lambda);
  if (std::any_of(bounds.source.begin(), bounds.source.end(), [](BoundSource s) { return s != BoundSource::kAccountant; })) {
    plan.bound_source = std::move(bounds.source);
    plan.dominated_by = std::move(bounds.dominated_by);
  }
  // This rank's rows of each label are a contiguous run of the label's rows starting at my_offset.
  plan.rho.assign(in.local_secrets.rows(), 0.0);
  std::vector<std::size_t> next(rows.my_offset);
  for (std::size_t i = 0; i < in.local_secrets.rows(); ++i) {
    if (!in.local_secrets.is_private(i)) continue;
    const auto l = static_cast<std::size_t>(in.local_labels[i]);
    plan.rho[i] = model.label_rho(l)[next[l]++];
  }
  plan.accounting_seconds = timer.seconds();
  return plan;
}

}  // namespace secpe
