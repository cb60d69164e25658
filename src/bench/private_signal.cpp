#include "bench/private_signal.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "cluster/secret_clustering.hpp"
#include "core/log.hpp"
#include "evolve/noise_calibration.hpp"
#include "evolve/release_estimate.hpp"
#include "evolve/selection.hpp"
#include "evolve/votes.hpp"
#include "privacy/augpe_accounting.hpp"
#include "privacy/budgets.hpp"

namespace secpe {
namespace {

// Sums over labels (and ranks); each figure is a ratio or a root mean square of two of them.
struct SignalSums {
  double selected = 0, selected_agree = 0, selected_agree_public = 0;  // N_syn shares, and those kept by the noise-free votes too
  double centres = 0, centre_agree = 0, centre_agree_public = 0;       // centres (Aug-PE: bins), and those voting as the noise-free release does
  double size_error2 = 0, size_private2 = 0;      // (noisy - exact)^2 and (exact - public)^2 of the sizes (Aug-PE: the bins)
  double centre_error2 = 0, centre_private2 = 0;  // squared distances: noisy to exact centre, exact to public centre
  double sigma_min = INFINITY, sigma_max = 0;

  void add_selection(std::size_t n, const VoteResult& noisy, const VoteResult& exact, const VoteResult& public_only) {
    const auto top = [n](const VoteResult& v) {
      const auto order = rank_order(v.votes, v.tie_key);
      return std::set<std::size_t>(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(std::min(n, order.size())));
    };
    const auto want = top(exact), got = top(noisy), known = top(public_only);
    selected += double(want.size());
    for (const auto i : got) selected_agree += want.count(i) ? 1 : 0;
    for (const auto i : known) selected_agree_public += want.count(i) ? 1 : 0;
  }
  std::vector<double> values() const {
    return {selected, selected_agree, selected_agree_public, centres, centre_agree, centre_agree_public,
            size_error2, size_private2, centre_error2, centre_private2};
  }
};

// Each local centre's nearest candidate.
std::vector<std::int32_t> nearest_candidates(const NearestCentreKernel& kernel, const MatrixF& centres, const MatrixF& candidates) {
  std::vector<std::int32_t> nearest(static_cast<std::size_t>(centres.rows()));
  std::vector<double> score(nearest.size());
  if (!nearest.empty()) kernel.search(centres, candidates, Metric::kCosine, nearest, score);
  return nearest;
}

void secpe_label(const Communicator& comm, const SecretClustering& clustering, const MatrixF& candidates, std::size_t n_syn,
                 std::size_t label, double sigma, const NearestCentreKernel& kernel, const NoiseKey& key, SignalSums& s) {
  const NoisyClusters exact = clustering.release(key, label, 0, 0.0);
  const NoisyClusters noisy = shrink_release(comm, clustering.release(key, label, 0, sigma), clustering.public_centres(),
                                             clustering.public_sizes(), sigma, 1.0);
  NoisyClusters known{.centres = clustering.public_centres().middleRows(exact.first, exact.centres.rows()), .sizes = {}, .first = exact.first, .device_copy = {}};
  known.sizes.assign(clustering.public_sizes().begin(), clustering.public_sizes().end());
  const auto votes = [&](const NoisyClusters& c) { return secpe_votes(comm, c, candidates, kernel, Metric::kCosine, 1); };
  s.add_selection(n_syn, votes(noisy), votes(exact), votes(known));
  const auto want = nearest_candidates(kernel, exact.centres, candidates), got = nearest_candidates(kernel, noisy.centres, candidates),
             public_choice = nearest_candidates(kernel, known.centres, candidates);
  for (std::size_t k = 0; k < want.size(); ++k) {
    s.centres += 1;
    s.centre_agree += got[k] == want[k] ? 1 : 0;
    s.centre_agree_public += public_choice[k] == want[k] ? 1 : 0;
    const auto row = static_cast<Eigen::Index>(k);
    s.centre_error2 += double((noisy.centres.row(row) - exact.centres.row(row)).squaredNorm());
    s.centre_private2 += double((exact.centres.row(row) - known.centres.row(row)).squaredNorm());
  }
  if (comm.is_root()) {  // every rank holds every size: count them once
    for (std::size_t k = 0; k < exact.sizes.size(); ++k) {
      s.size_error2 += (noisy.sizes[k] - exact.sizes[k]) * (noisy.sizes[k] - exact.sizes[k]);
      s.size_private2 += (exact.sizes[k] - known.sizes[k]) * (exact.sizes[k] - known.sizes[k]);
    }
  }
}

void augpe_label(const Communicator& comm, const MatrixF& voters, const MatrixF& public_voters, const MatrixF& candidates,
                 std::size_t n_syn, std::size_t label, double sigma, const NearestCentreKernel& kernel, const NoiseKey& key,
                 SignalSums& s) {
  const auto votes = [&](const MatrixF& who, double noise) {
    return augpe_votes(comm, who, candidates, kernel, Metric::kCosine, noise, 0.0, key, label, 0);
  };
  const VoteResult exact = votes(voters, 0.0), noisy = votes(voters, sigma), known = votes(public_voters, 0.0);
  s.add_selection(n_syn, noisy, exact, known);
  if (comm.is_root()) {
    s.centres += double(exact.votes.size());  // Aug-PE: the bins
    for (std::size_t i = 0; i < exact.votes.size(); ++i) {
      s.size_error2 += (noisy.votes[i] - exact.votes[i]) * (noisy.votes[i] - exact.votes[i]);
      s.size_private2 += (exact.votes[i] - known.votes[i]) * (exact.votes[i] - known.votes[i]);
    }
  }
}

// Entry i summed over the ranks, in rank order, for each i in [first, v.size()).
void sum_over_ranks(const Communicator& comm, std::vector<double>& v, std::size_t first) {
  const std::vector<double> all = comm.allgather(std::span<const double>(v));
  for (std::size_t i = first; i < v.size(); ++i) {
    v[i] = 0;
    for (int r = 0; r < comm.size(); ++r) v[i] += all[static_cast<std::size_t>(r) * v.size() + i];
  }
}

nlohmann::ordered_json figures_of(const Communicator& comm, const Shard& shard, SignalSums s, bool secpe) {
  std::vector<double> v = s.values();
  if (shard.by == ShardBy::kLabel) {  // each rank measured its own labels
    sum_over_ranks(comm, v, 0);
    s.sigma_min = -comm.allreduce_max(-s.sigma_min);
    s.sigma_max = comm.allreduce_max(s.sigma_max);
  } else {  // every rank made the same selections; the centres are sharded and the sizes counted on rank 0
    sum_over_ranks(comm, v, 3);
  }
  const auto share = [](double part, double whole) { return whole > 0 ? part / whole : 0.0; };
  const auto rms = [](double sum2, double n) { return n > 0 ? std::sqrt(sum2 / n) : 0.0; };
  nlohmann::ordered_json f = {{"sigma_min", s.sigma_min}, {"sigma_max", s.sigma_max},
                              {"selection_agreement", share(v[1], v[0])}, {"selection_agreement_public_only", share(v[2], v[0])}};
  if (secpe) {
    f["centre_vote_agreement"] = share(v[4], v[3]);
    f["centre_vote_agreement_public_only"] = share(v[5], v[3]);
    f["size_error_rms"] = rms(v[6], v[3]);
    f["size_private_rms"] = rms(v[7], v[3]);
    f["centre_error_rms"] = rms(v[8], v[3]);
    f["centre_private_shift_rms"] = rms(v[9], v[3]);
  } else {
    f["bin_error_rms"] = rms(v[6], v[3]);
    f["bin_private_rms"] = rms(v[7], v[3]);
  }
  return f;
}

}  // namespace

nlohmann::ordered_json private_signal(const Communicator& comm, const Shard& shard, const std::vector<PublicClusters>& clusters,
                                      const std::vector<MatrixF>& candidates, const std::vector<std::size_t>& synthetic,
                                      const NearestCentreKernel& kernel, const NoiseKey& key, const PrivateSignalOptions& o) {
  const DatasetInfo& info = shard.info();
  const std::size_t n_labels = shard.num_labels();
  const auto m = static_cast<std::size_t>(info.num_secrets);
  const double delta = 1.0 / (double(info.num_records) * std::log(double(std::max<std::uint64_t>(info.num_records, 3))));
  const Communicator& label_comm = shard.label_comm();
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const double ratio : o.r_over_p) {
    const SecretBudgets budgets = uniform_budgets(m, o.p, o.p * ratio);
    log_info("private signal at r/p = " + std::to_string(ratio) + ": calibrating");
    const SecretNoisePlan plan = calibrate_secret_noise(comm, {.local_secrets = shard.secrets, .local_labels = shard.labels,
                                                              .num_labels = n_labels, .budgets = budgets, .iterations = o.iterations,
                                                              .batch = o.private_batch, .mode = o.calibration, .threads = o.threads});
    const double augpe_sigma = calibrate_augpe(budgets, o.p, o.p * ratio, 0.0, delta, o.iterations).sigma;
    SignalSums secpe, augpe;
    augpe.sigma_min = augpe.sigma_max = augpe_sigma;
    for (std::size_t l = 0; l < n_labels; ++l) {
      if (synthetic[l] == 0 || !shard.evolves(l)) continue;
      const auto& private_rows = shard.private_rows[l];
      std::vector<std::uint64_t> ids;
      std::vector<double> rho;
      for (const auto i : private_rows) {
        ids.push_back(shard.ids[i]);
        rho.push_back(plan.rho[i]);
      }
      const double sigma = plan.labels[l].sigma;
      secpe.sigma_min = std::min(secpe.sigma_min, sigma);
      secpe.sigma_max = std::max(secpe.sigma_max, sigma);
      const SecretClustering clustering(label_comm, clusters[l].centres, clusters[l].sizes, select_rows(shard.embeddings, private_rows, o.threads),
                                        std::move(ids), std::move(rho), kernel, Metric::kCosine, 1.0);
      secpe_label(label_comm, clustering, candidates[l], synthetic[l], l, sigma, kernel, key, secpe);
      std::vector<std::size_t> all = private_rows;
      all.insert(all.end(), shard.public_rows[l].begin(), shard.public_rows[l].end());
      std::sort(all.begin(), all.end());
      augpe_label(label_comm, select_rows(shard.embeddings, all, o.threads), select_rows(shard.embeddings, shard.public_rows[l], o.threads),
                  candidates[l], synthetic[l], l, augpe_sigma, kernel, key, augpe);
    }
    out.push_back({{"r_over_p", ratio}, {"secpe", figures_of(comm, shard, secpe, true)}, {"augpe", figures_of(comm, shard, augpe, false)}});
  }
  return out;
}

}  // namespace secpe
