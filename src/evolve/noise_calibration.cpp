#include "evolve/noise_calibration.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <limits>

#include "core/parallel.hpp"
#include "core/timer.hpp"

namespace secpe {
namespace {

// Every label's private secret sets in global record order, and where this rank's rows of each
// label start: ranks own contiguous record ranges and allgather keeps rank order.
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

}  // namespace

SecretNoisePlan calibrate_secret_noise(const Communicator& comm, const NoiseCalibrationInputs& in) {
  const Timer timer;
  const GatheredRows rows = gather_private_rows(comm, in.local_secrets, in.local_labels, in.num_labels);
  const SecretNoiseModel model(rows.per_label, in.budgets, in.iterations, in.batch, in.mode);
  const std::size_t m = model.num_secrets();
  // Worker w = rank x threads + t of W = ranks x threads; every rank has the same thread count.
  const auto threads = static_cast<std::size_t>(std::max(1, in.threads));
  const auto first_worker = static_cast<std::size_t>(comm.rank()) * threads;
  const std::size_t workers = static_cast<std::size_t>(comm.size()) * threads;

  // Exact mode: the smallest common lambda that certifies every secret. Each worker takes every
  // W-th secret in exposure order (skipped secrets cannot raise the maximum); the maximum is exact.
  double lambda = 1.0;
  if (in.mode == CalibrationMode::kExact) {
    const auto order = model.secrets_by_exposure();
    std::vector<double> worker_lambda(threads, 0.0);
    for_each_worker(static_cast<int>(threads), [&](std::size_t t) {
      std::vector<std::size_t> mine;
      for (std::size_t k = first_worker + t; k < m; k += workers) mine.push_back(order[k]);
      worker_lambda[t] = model.lambda_for(mine);
    });
    lambda = comm.allreduce_max(*std::max_element(worker_lambda.begin(), worker_lambda.end()));
    // Every secret certified even without noise (tiny sampling rates): keep a negligible noise
    // rather than none, so every release stays a Gaussian mechanism.
    if (lambda <= 0) lambda = 1e-6;
  }

  // What every secret actually gets with the sigmas used (both modes), split over the workers.
  std::vector<MinLoc> achieved(m, MinLoc{std::numeric_limits<double>::infinity(), 0});
  for_each_worker(static_cast<int>(threads), [&](std::size_t t) {
    for (std::size_t j = first_worker + t; j < m; j += workers) achieved[j].value = model.achieved_r(j, lambda);
  });
  comm.allreduce_min_loc(achieved);
  std::vector<double> achieved_r(m);
  for (std::size_t j = 0; j < m; ++j) achieved_r[j] = achieved[j].value;

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
