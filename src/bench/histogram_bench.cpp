#include "bench/histogram_bench.hpp"

#include <algorithm>
#include <cmath>

#include "bench/bench_report.hpp"
#include "compute/kernel_bench.hpp"
#include "cluster/kmeans.hpp"
#include "cluster/secret_clustering.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/rng.hpp"
#include "core/secret_key.hpp"
#include "core/timer.hpp"
#include "evolve/shard.hpp"
#include "evolve/synthetic_split.hpp"
#include "evolve/votes.hpp"
#include "io/dataset.hpp"

namespace secpe {
namespace {


// Wall time of `f` across all ranks (barrier before and after).
template <typename F>
double timed(const Communicator& comm, F&& f) {
  comm.barrier();
  const Timer t0;
  f();
  comm.barrier();
  return comm.allreduce_max(t0.seconds());
}

MatrixF random_candidates(std::uint64_t seed, std::size_t label, std::size_t n, Eigen::Index d) {
  MatrixF m(static_cast<Eigen::Index>(n), d);
  for (std::size_t i = 0; i < n; ++i) {
    CounterRng rng(seed, Stream::kGeneration, label, 0, i);
    for (Eigen::Index j = 0; j < d; ++j) m(static_cast<Eigen::Index>(i), j) = static_cast<float>(rng.normal());
    m.row(static_cast<Eigen::Index>(i)).normalize();
  }
  return m;
}

}  // namespace

nlohmann::ordered_json bench_histogram(const Communicator& comm, const HistogramBenchOptions& o) {
  if (o.method != "secpe" && o.method != "augpe" && o.method != "both") throw InputError("the benchmarked method must be secpe, augpe or both");
  if (!(o.augpe_fraction > 0 && o.augpe_fraction <= 1)) throw InputError("the measured share of Aug-PE's voters must be in (0, 1]");
  if (o.repeats < 1) throw InputError("timed repetitions must be at least 1");
  const bool run_secpe = o.method != "augpe", run_augpe = o.method != "secpe";
  const KMeansInit init = parse_kmeans_init(o.kmeans_init);
  const auto kernel = make_kernel(o.kernel, o.threads, o.device);

  Timer t0;
  const Shard shard(comm, o.data, shard_by_for(o.shard_by, o.method == "augpe"));
  // By label, each rank measures its own labels on a one-rank communicator (label_comm, which
  // sends nothing) while the others measure theirs: times are summed per rank and the slowest
  // rank's sum is reported.
  const Communicator& label_comm = shard.label_comm();
  const auto over_ranks = [&](std::int64_t v) { return shard.by == ShardBy::kLabel ? comm.allreduce_sum(v) : v; };
  const double load_seconds = comm.allreduce_max(t0.seconds());
  const DatasetInfo& info = shard.info();
  const std::size_t n_labels = shard.num_labels();
  const Eigen::Index d = info.embedding_dim;
  const MatrixF& embeddings = shard.embeddings;
  const auto& pub_rows = shard.public_rows;
  const auto& pri_rows = shard.private_rows;
  const auto& private_counts = shard.private_counts;
  const auto syn = split_synthetic(o.synthetic, shard.public_counts);

  std::vector<MatrixF> candidates(n_labels);
  std::size_t total_candidates = 0;
  for (std::size_t l = 0; l < n_labels; ++l) {
    candidates[l] = random_candidates(o.seed, l, syn[l] * static_cast<std::size_t>(o.variations + 1), d);
    total_candidates += static_cast<std::size_t>(candidates[l].rows());
  }

  // The benchmark releases nothing; it still draws its noise from a fresh secret key, as runs do.
  NoiseKey noise_key = noise_key_from_os();
  comm.broadcast(std::span<unsigned char>(noise_key.bytes));

  nlohmann::ordered_json figures;
  figures["records"] = info.num_records;
  figures["labels"] = n_labels;
  figures["dim"] = d;
  figures["candidates_total"] = total_candidates;
  figures["load_seconds"] = load_seconds;
  figures["shard_by"] = shard_by_name(shard.by);
  std::int64_t private_total = 0;
  for (auto c : private_counts) private_total += c;
  figures["private_records"] = private_total;

  if (run_secpe) {
    // One-time setup: k-means per label, then the cached private-to-centre assignment.
    std::vector<std::unique_ptr<SecretClustering>> clustering(n_labels);
    double kmeans_seconds = 0.0, assign_seconds = 0.0;  // this rank's, summed over its labels
    double kmeans_seed_seconds = 0.0, kmeans_lloyd_seconds = 0.0;
    std::int64_t kmeans_iterations_run = 0, centres = 0;
    std::int64_t vote_work = 0;  // sum over labels of K_l x N_l
    Progress progress("secpe setup", n_labels);
    for (std::size_t l = 0; l < n_labels; ++l) {
      if (syn[l] == 0 || !shard.evolves(l)) continue;
      KMeansResult km;
      Timer label_timer;
      KMeansOptions ko{o.clusters, o.kmeans_iterations, 1e-4, Metric::kCosine, o.seed, l};
      ko.threads = o.threads;
      ko.init = init;
      km = distributed_kmeans(label_comm, select_rows(embeddings, pub_rows[l], o.threads), *kernel, ko);
      kmeans_seconds += label_timer.seconds();
      kmeans_seed_seconds += km.seed_seconds;
      kmeans_lloyd_seconds += km.lloyd_seconds;
      kmeans_iterations_run += km.iterations;
      centres += km.centres.rows();
      vote_work += km.centres.rows() * candidates[l].rows();
      const double rho = private_counts[l] > 0 ? std::min(1.0, o.private_batch / double(private_counts[l])) : 0.0;
      std::vector<std::uint64_t> ids;
      for (auto i : pri_rows[l]) ids.push_back(shard.ids[i]);
      label_timer.restart();
      clustering[l] = std::make_unique<SecretClustering>(label_comm, std::move(km.centres), std::move(km.sizes),
                                                         select_rows(embeddings, pri_rows[l], o.threads), ids,
                                                         std::vector<double>(ids.size(), rho), *kernel, Metric::kCosine, 1.0);
      assign_seconds += label_timer.seconds();
      progress.step(l + 1);
    }
    progress.finish();
    kmeans_seconds = comm.allreduce_max(kmeans_seconds);
    assign_seconds = comm.allreduce_max(assign_seconds);
    kmeans_iterations_run = over_ranks(kmeans_iterations_run);
    centres = over_ranks(centres);
    vote_work = over_ranks(vote_work);
    std::vector<double> per_iteration, release_seconds, vote_seconds;
    const std::uint64_t bytes_before = comm.bytes_sent();
    for (int t = 0; t < o.repeats; ++t) {
      double release = 0.0, vote = 0.0;
      per_iteration.push_back(timed(comm, [&] {
        for (std::size_t l = 0; l < n_labels; ++l) {
          if (!clustering[l]) continue;
          Timer t0;
          const NoisyClusters noisy = clustering[l]->release(noise_key, l, t, o.sigma);
          release += t0.seconds();
          t0.restart();
          secpe_votes(label_comm, noisy, candidates[l], *kernel, Metric::kCosine, 1);
          vote += t0.seconds();
        }
      }));
      release_seconds.push_back(comm.allreduce_max(release));
      vote_seconds.push_back(comm.allreduce_max(vote));
    }
    std::sort(per_iteration.begin(), per_iteration.end());
    // One K_l x N_l product per label, read both ways (each centre's nearest candidate and each
    // candidate's nearest centre: search_mutual).
    const double flops = 2.0 * double(vote_work) * double(d);
    figures["secpe"] = {{"clusters_per_label_requested", o.clusters},
                        {"clusters_total", centres},
                        {"kmeans_seconds", kmeans_seconds},
                        {"kmeans_init", kmeans_init_name(init)},
                        {"kmeans_seed_seconds", comm.allreduce_max(kmeans_seed_seconds)},
                        {"kmeans_lloyd_seconds", comm.allreduce_max(kmeans_lloyd_seconds)},
                        {"kmeans_iterations_total", kmeans_iterations_run},
                        {"assignment_cache_seconds", assign_seconds},
                        {"iteration_seconds", per_iteration},
                        {"iteration_seconds_median", per_iteration[per_iteration.size() / 2]},
                        {"release_seconds", release_seconds},
                        {"vote_seconds", vote_seconds},
                        {"bytes_sent_per_iteration_rank", double(comm.bytes_sent() - bytes_before) / o.repeats},
                        {"vote_gflop", flops / 1e9}};
  }

  if (run_augpe) {
    // Every record of the label votes (or only the private ones, --augpe-voters private). With
    // --augpe-fraction 1 the iteration is measured in full; below 1 a share is measured and the
    // time scaled by the cost model (proportional to sum over labels of M_l x N_l), labelled an
    // estimate. The cost model is always given as a cross-check.
    const bool all_vote = o.augpe_voters == "all";
    double measured = 0.0, floor = 0.0, work_measured = 0.0, work_full = 0.0;  // times: this rank's, summed
    std::int64_t voters_total = 0;
    const std::uint64_t bytes_before = comm.bytes_sent();
    for (std::size_t l = 0; l < n_labels; ++l) {
      if (syn[l] == 0) continue;
      std::vector<std::size_t> rows = pri_rows[l];
      if (all_vote) {
        rows.insert(rows.end(), pub_rows[l].begin(), pub_rows[l].end());
        std::sort(rows.begin(), rows.end());
      }
      const std::int64_t label_voters = comm.allreduce_sum(static_cast<std::int64_t>(rows.size()));
      rows.resize(static_cast<std::size_t>(std::ceil(double(rows.size()) * o.augpe_fraction)));
      const std::int64_t voters = comm.allreduce_sum(static_cast<std::int64_t>(rows.size()));
      work_measured += double(voters) * double(candidates[l].rows());
      work_full += double(label_voters) * double(candidates[l].rows());
      voters_total += label_voters;
      if (!shard.evolves(l)) continue;
      const MatrixF voting = select_rows(embeddings, rows, o.threads);
      Timer label_timer;
      augpe_votes(label_comm, voting, candidates[l], *kernel, Metric::kCosine, o.sigma, 0.0, noise_key, l, 0);
      measured += label_timer.seconds();
      // The GEMM floor of the same votes: plain sgemm of the same voters against the same
      // candidates on the same threads, timed right after.
      label_timer.restart();
      openblas_sgemm_floor(voting, candidates[l], o.threads);
      floor += label_timer.seconds();
    }
    measured = comm.allreduce_max(measured);
    floor = comm.allreduce_max(floor);
    const double model = work_measured > 0 ? measured * work_full / work_measured : 0.0;
    const bool full = o.augpe_fraction >= 1.0;
    figures["augpe"] = {{"voters", o.augpe_voters},
                        {"voters_total", voters_total},
                        {"fraction_measured", o.augpe_fraction},
                        {"iteration_seconds", full ? nlohmann::ordered_json(measured) : nlohmann::ordered_json(nullptr)},
                        {"iteration_seconds_cost_model", model},
                        {"cost_model", "time proportional to sum_l M_l * N_l (voters x candidates per label), scaled from the measured share"},
                        {"vote_gflop", 2.0 * work_full * double(d) / 1e9},
                        {"achieved_gflops", measured > 0 ? 2.0 * work_measured * double(d) / measured / 1e9 : 0.0},
                        {"gemm_floor_seconds", floor},
                        {"over_gemm_floor", floor > 0 ? measured / floor : 0.0},
                        {"bytes_sent_rank", double(comm.bytes_sent() - bytes_before)}};
  }
  if (run_secpe && run_augpe) {
    const double s = figures["secpe"]["iteration_seconds_median"].get<double>();
    const nlohmann::ordered_json a = figures["augpe"];  // a copy: the inserts below move the entries
    const double augpe = a["iteration_seconds"].is_null() ? a["iteration_seconds_cost_model"].get<double>() : a["iteration_seconds"].get<double>();
    figures["augpe_over_secpe"] = s > 0 ? augpe / s : 0.0;
    figures["augpe_over_secpe_basis"] = a["iteration_seconds"].is_null() ? "cost-model estimate" : "measured";
  }
  figures["peak_rss_mib_max_rank"] = comm.allreduce_max(peak_rss_mib());
  return figures;
}

}  // namespace secpe
