#include "bench/histogram_bench.hpp"

#include <algorithm>
#include <cmath>

#include "bench/bench_report.hpp"
#include "bench/private_signal.hpp"
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

// What every part of the benchmark reads.
struct BenchInputs {
  const Communicator& comm;
  const Shard& shard;
  const std::vector<MatrixF>& candidates;  // per label, N_syn share x (L + 1) random unit vectors
  const std::vector<std::size_t>& synthetic;
  const NearestCentreKernel& kernel;
  const NoiseKey& key;
  const HistogramBenchOptions& options;
  // A count summed over the ranks when each rank measured its own labels.
  std::int64_t over_ranks(std::int64_t v) const { return shard.by == ShardBy::kLabel ? comm.allreduce_sum(v) : v; }
};

// SecPE's one-time setup per label: k-means, then the cached private-to-centre assignment (every
// private record sampled with min(1, B / M_l)). `keep` (when given) receives the public clusters.
struct SecpeSetup {
  std::vector<std::unique_ptr<SecretClustering>> clustering;
  nlohmann::ordered_json figures;
  std::int64_t vote_work = 0;  // sum over labels of K_l x N_l
};

SecpeSetup secpe_setup(const BenchInputs& in, std::vector<PublicClusters>* keep) {
  const HistogramBenchOptions& o = in.options;
  const Shard& shard = in.shard;
  const std::size_t n_labels = shard.num_labels();
  const KMeansInit init = parse_kmeans_init(o.kmeans_init);
  SecpeSetup setup;
  setup.clustering.resize(n_labels);
  if (keep) keep->assign(n_labels, {});
  double kmeans_seconds = 0.0, assign_seconds = 0.0;  // this rank's, summed over its labels
  double kmeans_seed_seconds = 0.0, kmeans_lloyd_seconds = 0.0;
  std::int64_t kmeans_iterations_run = 0, centres = 0;
  Progress progress("secpe setup", n_labels);
  for (std::size_t l = 0; l < n_labels; ++l) {
    if (in.synthetic[l] == 0 || !shard.evolves(l)) continue;
    Timer label_timer;
    KMeansOptions ko{o.clusters, o.kmeans_iterations, 1e-4, Metric::kCosine, o.seed, l};
    ko.threads = o.threads;
    ko.init = init;
    KMeansResult km = distributed_kmeans(shard.label_comm(), select_rows(shard.embeddings, shard.public_rows[l], o.threads), in.kernel, ko);
    kmeans_seconds += label_timer.seconds();
    kmeans_seed_seconds += km.seed_seconds;
    kmeans_lloyd_seconds += km.lloyd_seconds;
    kmeans_iterations_run += km.iterations;
    centres += km.centres.rows();
    setup.vote_work += km.centres.rows() * in.candidates[l].rows();
    if (keep) (*keep)[l] = {km.centres, km.sizes};
    const std::int64_t m = shard.private_counts[l];
    const double rho = m > 0 ? std::min(1.0, o.private_batch / double(m)) : 0.0;
    std::vector<std::uint64_t> ids;
    for (auto i : shard.private_rows[l]) ids.push_back(shard.ids[i]);
    label_timer.restart();
    setup.clustering[l] = std::make_unique<SecretClustering>(shard.label_comm(), std::move(km.centres), std::move(km.sizes),
                                                             select_rows(shard.embeddings, shard.private_rows[l], o.threads), ids,
                                                             std::vector<double>(ids.size(), rho), in.kernel, Metric::kCosine, 1.0);
    assign_seconds += label_timer.seconds();
    progress.step(l + 1);
  }
  progress.finish();
  setup.vote_work = in.over_ranks(setup.vote_work);
  setup.figures = {{"clusters_total", in.over_ranks(centres)},
                   {"kmeans_seconds", in.comm.allreduce_max(kmeans_seconds)},
                   {"kmeans_init", kmeans_init_name(init)},
                   {"kmeans_seed_seconds", in.comm.allreduce_max(kmeans_seed_seconds)},
                   {"kmeans_lloyd_seconds", in.comm.allreduce_max(kmeans_lloyd_seconds)},
                   {"kmeans_iterations_total", in.over_ranks(kmeans_iterations_run)},
                   {"assignment_cache_seconds", in.comm.allreduce_max(assign_seconds)}};
  return setup;
}

// SecPE's iteration, timed --repeats times after the setup.
nlohmann::ordered_json secpe_figures(const BenchInputs& in, std::vector<PublicClusters>* keep) {
  const Communicator& comm = in.comm;
  const HistogramBenchOptions& o = in.options;
  const SecpeSetup setup = secpe_setup(in, keep);
  std::vector<double> per_iteration, release_seconds, vote_seconds;
  const std::uint64_t bytes_before = comm.bytes_sent();
  for (int t = 0; t < o.repeats; ++t) {
    double release = 0.0, vote = 0.0;
    per_iteration.push_back(timed(comm, [&] {
      for (std::size_t l = 0; l < setup.clustering.size(); ++l) {
        if (!setup.clustering[l]) continue;
        Timer t0;
        const NoisyClusters noisy = setup.clustering[l]->release(in.key, l, t, o.sigma);
        release += t0.seconds();
        t0.restart();
        secpe_votes(in.shard.label_comm(), noisy, in.candidates[l], in.kernel, Metric::kCosine, 1);
        vote += t0.seconds();
      }
    }));
    release_seconds.push_back(comm.allreduce_max(release));
    vote_seconds.push_back(comm.allreduce_max(vote));
  }
  std::sort(per_iteration.begin(), per_iteration.end());
  // One K_l x N_l product per label, read both ways (each centre's nearest candidate and each
  // candidate's nearest centre: search_mutual).
  const double flops = 2.0 * double(setup.vote_work) * double(in.shard.info().embedding_dim);
  nlohmann::ordered_json figures = setup.figures;
  figures["iteration_seconds"] = per_iteration;
  figures["iteration_seconds_median"] = per_iteration[per_iteration.size() / 2];
  figures["release_seconds"] = release_seconds;
  figures["vote_seconds"] = vote_seconds;
  figures["bytes_sent_per_iteration_rank"] = double(comm.bytes_sent() - bytes_before) / o.repeats;
  figures["vote_gflop"] = flops / 1e9;
  return figures;
}

// Aug-PE: every record of the label votes (or only the private ones, --augpe-voters private).
// With --augpe-fraction 1 the iteration is measured in full; below 1 a share is measured and the
// time scaled by the cost model (proportional to sum over labels of M_l x N_l), labelled an
// estimate. The cost model is always given as a cross-check.
nlohmann::ordered_json augpe_figures(const BenchInputs& in) {
  const Communicator& comm = in.comm;
  const Shard& shard = in.shard;
  const HistogramBenchOptions& o = in.options;
  const bool all_vote = o.augpe_voters == "all";
  double measured = 0.0, floor = 0.0, work_measured = 0.0, work_full = 0.0;  // times: this rank's, summed
  std::int64_t voters_total = 0;
  const std::uint64_t bytes_before = comm.bytes_sent();
  for (std::size_t l = 0; l < shard.num_labels(); ++l) {
    if (in.synthetic[l] == 0) continue;
    std::vector<std::size_t> rows = shard.private_rows[l];
    if (all_vote) {
      rows.insert(rows.end(), shard.public_rows[l].begin(), shard.public_rows[l].end());
      std::sort(rows.begin(), rows.end());
    }
    const std::int64_t label_voters = comm.allreduce_sum(static_cast<std::int64_t>(rows.size()));
    rows.resize(static_cast<std::size_t>(std::ceil(double(rows.size()) * o.augpe_fraction)));
    const std::int64_t voters = comm.allreduce_sum(static_cast<std::int64_t>(rows.size()));
    const auto n_cand = double(in.candidates[l].rows());
    work_measured += double(voters) * n_cand;
    work_full += double(label_voters) * n_cand;
    voters_total += label_voters;
    if (!shard.evolves(l)) continue;
    const MatrixF voting = select_rows(shard.embeddings, rows, o.threads);
    Timer label_timer;
    augpe_votes(shard.label_comm(), voting, in.candidates[l], in.kernel, Metric::kCosine, o.sigma, 0.0, in.key, l, 0);
    measured += label_timer.seconds();
    // The GEMM floor of the same votes: plain sgemm of the same voters against the same
    // candidates on the same threads, timed right after.
    label_timer.restart();
    openblas_sgemm_floor(voting, in.candidates[l], o.threads);
    floor += label_timer.seconds();
  }
  measured = comm.allreduce_max(measured);
  floor = comm.allreduce_max(floor);
  const double model = work_measured > 0 ? measured * work_full / work_measured : 0.0;
  const bool full = o.augpe_fraction >= 1.0;
  const double d = shard.info().embedding_dim;
  return {{"voters", o.augpe_voters},
          {"voters_total", voters_total},
          {"fraction_measured", o.augpe_fraction},
          {"iteration_seconds", full ? nlohmann::ordered_json(measured) : nlohmann::ordered_json(nullptr)},
          {"iteration_seconds_cost_model", model},
          {"cost_model", "time proportional to sum_l M_l * N_l (voters x candidates per label), scaled from the measured share"},
          {"vote_gflop", 2.0 * work_full * d / 1e9},
          {"achieved_gflops", measured > 0 ? 2.0 * work_measured * d / measured / 1e9 : 0.0},
          {"gemm_floor_seconds", floor},
          {"over_gemm_floor", floor > 0 ? measured / floor : 0.0},
          {"bytes_sent_rank", double(comm.bytes_sent() - bytes_before)}};
}

}  // namespace

nlohmann::ordered_json bench_histogram(const Communicator& comm, const HistogramBenchOptions& o) {
  if (o.method != "secpe" && o.method != "augpe" && o.method != "both") throw InputError("the benchmarked method must be secpe, augpe or both");
  if (!(o.augpe_fraction > 0 && o.augpe_fraction <= 1)) throw InputError("the measured share of Aug-PE's voters must be in (0, 1]");
  if (o.repeats < 1) throw InputError("timed repetitions must be at least 1");
  const bool run_secpe = o.method != "augpe", run_augpe = o.method != "secpe";
  if (!o.signal.r_over_p.empty() && !run_secpe) throw InputError("the private-signal figures need the SecPE setup (method secpe or both)");
  const auto kernel = make_kernel(o.kernel, o.threads, o.device);

  Timer t0;
  // By label, each rank measures its own labels on a one-rank communicator (label_comm, which
  // sends nothing) while the others measure theirs: times are summed per rank and the slowest
  // rank's sum is reported.
  const Shard shard(comm, o.data, shard_by_for(o.shard_by, o.method == "augpe"));
  const double load_seconds = comm.allreduce_max(t0.seconds());
  const DatasetInfo& info = shard.info();
  const std::size_t n_labels = shard.num_labels();
  const auto syn = split_synthetic(o.synthetic, shard.public_counts);

  std::vector<MatrixF> candidates(n_labels);
  std::size_t total_candidates = 0;
  for (std::size_t l = 0; l < n_labels; ++l) {
    candidates[l] = random_candidates(o.seed, l, syn[l] * static_cast<std::size_t>(o.variations + 1), info.embedding_dim);
    total_candidates += static_cast<std::size_t>(candidates[l].rows());
  }

  // The benchmark releases nothing; it still draws its noise from a fresh secret key, as runs do.
  NoiseKey noise_key = noise_key_from_os();
  comm.broadcast(std::span<unsigned char>(noise_key.bytes));

  nlohmann::ordered_json figures;
  figures["records"] = info.num_records;
  figures["labels"] = n_labels;
  figures["dim"] = info.embedding_dim;
  figures["candidates_total"] = total_candidates;
  figures["load_seconds"] = load_seconds;
  figures["shard_by"] = shard_by_name(shard.by);
  std::int64_t private_total = 0;
  for (auto c : shard.private_counts) private_total += c;
  figures["private_records"] = private_total;

  const BenchInputs in{.comm = comm, .shard = shard, .candidates = candidates, .synthetic = syn, .kernel = *kernel, .key = noise_key, .options = o};
  std::vector<PublicClusters> clusters;
  if (run_secpe) figures["secpe"] = secpe_figures(in, o.signal.r_over_p.empty() ? nullptr : &clusters);
  if (run_augpe) figures["augpe"] = augpe_figures(in);
  if (run_secpe && run_augpe) {
    const double s = figures["secpe"]["iteration_seconds_median"].get<double>();
    const nlohmann::ordered_json a = figures["augpe"];  // a copy: the inserts below move the entries
    const double augpe = a["iteration_seconds"].is_null() ? a["iteration_seconds_cost_model"].get<double>() : a["iteration_seconds"].get<double>();
    figures["augpe_over_secpe"] = s > 0 ? augpe / s : 0.0;
    figures["augpe_over_secpe_basis"] = a["iteration_seconds"].is_null() ? "cost-model estimate" : "measured";
  }
  if (!o.signal.r_over_p.empty()) {
    PrivateSignalOptions signal = o.signal;
    signal.threads = o.threads;
    signal.private_batch = o.private_batch;
    figures["private_signal"] = private_signal(comm, shard, clusters, candidates, syn, *kernel, noise_key, signal);
  }
  figures["peak_rss_mib_max_rank"] = comm.allreduce_max(peak_rss_mib());
  return figures;
}

}  // namespace secpe
