#include "evolve/noise_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <utility>

#include "core/parallel.hpp"
#include "core/timer.hpp"
#include "privacy/conversions.hpp"

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

// f(worker) for this rank's `threads` workers, one thread each; the first exception (an
// uncertifiable secret, say) is rethrown once all have finished.
template <typename F>
void for_each_worker(int threads, F&& f) {
  std::vector<std::exception_ptr> failed(static_cast<std::size_t>(threads));
  run_chunks(threads, static_cast<std::size_t>(threads), [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t t = begin; t < end; ++t) {
      try {
        f(t);
      } catch (...) {
        failed[t] = std::current_exception();
      }
    }
  });
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
}

// The accountant's workers: worker w = rank x threads + t of W = ranks x threads (every rank has
// the same thread count) takes entries w, w + W, ... of a list.
struct Workers {
  const Communicator& comm;
  std::size_t threads, first, count;

  Workers(const Communicator& c, int per_rank)
      : comm(c),
        threads(static_cast<std::size_t>(std::max(1, per_rank))),
        first(static_cast<std::size_t>(c.rank()) * threads),
        count(static_cast<std::size_t>(c.size()) * threads) {}

  // f(k) for k < n, each on its entry's worker; every rank gets every value (exact: each comes
  // from the one worker that computed it).
  template <typename F>
  std::vector<double> map(std::size_t n, F&& f) const {
    std::vector<MinLoc> mine(n, MinLoc{std::numeric_limits<double>::infinity(), 0});
    for_each_worker(static_cast<int>(threads), [&](std::size_t t) {
      for (std::size_t k = first + t; k < n; k += count) mine[k].value = f(k);
    });
    comm.allreduce_min_loc(mine);
    std::vector<double> out(n);
    for (std::size_t k = 0; k < n; ++k) out[k] = mine[k].value;
    return out;
  }
  template <typename F>
  double max(std::size_t n, F&& f) const {
    const auto v = map(n, std::forward<F>(f));
    return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
  }
};

// Exact mode: lambda is where every secret passes, found with few root searches. The kProbes
// most exposed secrets are searched first and lambda set to their largest root; every secret's
// bound is then evaluated once at lambda. While some fail, the one that fails by the most is
// searched (its bound at its root is its certificate), lambda rises to that root, and only the
// failed secrets are evaluated again. A secret that passed at a lambda more than kCloseEnough
// below the final one is evaluated once more at the final lambda; the others keep the bound of
// the lambda they passed at: the noise of a larger lambda is that release plus independent noise,
// a post-processing, so the bound still holds, and it is within a few 1e-4 (relative) of the bound
// at the final lambda. Every decision depends on the data alone, never on the split over ranks and
// threads, so neither lambda nor any bound does. Returns lambda (0 when no secret needs noise);
// fills `achieved_r` unless the probes need no noise (then every secret is searched).
double certify_exact(const SecretNoiseModel& model, const SecretBudgets& budgets, const Workers& workers,
                     std::vector<double>& achieved_r) {
  constexpr std::size_t kProbes = 2;
  constexpr double kCloseEnough = 1e-4;
  const auto order = model.secrets_by_exposure();
  double lambda = workers.max(std::min(kProbes, order.size()), [&](std::size_t k) { return model.lambda_of(order[k]); });
  if (!(lambda > 0)) return workers.max(order.size(), [&](std::size_t j) { return model.lambda_of(j); });
  achieved_r.assign(order.size(), 0.0);
  std::vector<double> bound_at(order.size(), 0.0);  // the lambda of each secret's bound
  std::vector<std::size_t> pending = order;         // secrets to evaluate at lambda
  while (!pending.empty()) {
    const auto bound = workers.map(pending.size(), [&](std::size_t k) { return model.achieved_r(pending[k], lambda); });
    std::vector<std::size_t> failed;
    std::size_t worst = 0;
    double worst_excess = 0.0;
    for (std::size_t k = 0; k < pending.size(); ++k) {
      const std::size_t j = pending[k];
      achieved_r[j] = bound[k];
      bound_at[j] = lambda;
      if (bound[k] <= budgets.r[j]) continue;
      const double excess = std::log(bound[k] / budgets.r[j]);
      if (failed.empty() || excess > worst_excess) {
        worst = j;
        worst_excess = excess;
      }
      failed.push_back(j);
    }
    if (failed.empty()) break;
    // A root of 0 (no noise needed at all, by the closed form) keeps the bound at lambda.
    const double root = workers.max(1, [&](std::size_t) { return model.lambda_of(worst); });
    if (root > 0) {
      achieved_r[worst] = workers.max(1, [&](std::size_t) { return model.achieved_r(worst, root); });
      bound_at[worst] = root;
    }
    lambda = std::max(lambda, root);
    std::erase(failed, worst);
    pending = std::move(failed);
  }
  std::vector<std::size_t> stale;
  for (const std::size_t j : order)
    if (bound_at[j] < lambda * (1.0 - kCloseEnough)) stale.push_back(j);
  const auto fresh = workers.map(stale.size(), [&](std::size_t k) { return model.achieved_r(stale[k], lambda); });
  for (std::size_t k = 0; k < stale.size(); ++k) achieved_r[stale[k]] = fresh[k];
  return lambda;
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
  const SecretNoiseModel model(rows.per_label, in.budgets, in.iterations, in.batch, in.mode);
  const Workers workers(comm, in.threads);
  std::vector<double> achieved_r;
  double lambda = in.mode == CalibrationMode::kExact ? certify_exact(model, in.budgets, workers, achieved_r) : 1.0;
  // Every secret certified even without noise (tiny sampling rates): keep a negligible noise
  // rather than none, so every release stays a Gaussian mechanism.
  if (lambda <= 0) lambda = 1e-6;
  // Paper mode, or every secret searched: what every secret gets with the sigmas used.
  if (achieved_r.empty())
    achieved_r = workers.map(model.num_secrets(), [&](std::size_t j) { return model.achieved_r(j, lambda); });

  SecretNoisePlan plan = model.plan(lambda, std::move(achieved_r));
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
