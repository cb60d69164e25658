#include "bench/histogram_bench.hpp"

#include <algorithm>
#include <cmath>

#include "bench/bench_report.hpp"
#include "bench/cuda/sgemm_bench.hpp"
#include "bench/private_signal.hpp"
#include "compute/cuda/cuda_backend.hpp"
#include "bench/kernel_bench.hpp"
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

// Record-like candidates around one label's public centres (PrivateSignalOptions::candidates
// "centres"; at least one centre): candidate i sits at centre i mod K plus `spread` times a random
// unit vector, from the public seed.
MatrixF candidates_near_centres(std::uint64_t seed, std::size_t label, std::size_t n, const MatrixF& centres, double spread) {
  MatrixF m(static_cast<Eigen::Index>(n), centres.cols());
  for (std::size_t i = 0; i < n; ++i) {
    CounterRng rng(seed, Stream::kGeneration, label, 1, i);
    auto row = m.row(static_cast<Eigen::Index>(i));
    for (Eigen::Index j = 0; j < m.cols(); ++j) row[j] = static_cast<float>(rng.normal());
    row *= static_cast<float>(spread) / row.norm();
    row += centres.row(static_cast<Eigen::Index>(i % static_cast<std::size_t>(centres.rows())));
    row.normalize();
  }
  return m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// What both methods' measurements share.
struct Bench {
  const Communicator& comm;
  const HistogramBenchOptions& o;
  const NearestCentreKernel& kernel;
  const CudaKernel* cuda;  // the kernel, when it runs on a GPU
  const Shard& shard;
  std::vector<std::size_t> syn;     // N_syn per label
  std::vector<MatrixF> candidates;  // per label
  NoiseKey key;
  // By label, each rank measures its own labels on a one-rank communicator (label_comm, which
  // sends nothing) while the others measure theirs: counts are summed over the ranks.
  std::int64_t over_ranks(std::int64_t v) const { return shard.by == ShardBy::kLabel ? comm.allreduce_sum(v) : v; }
  DeviceTraffic traffic() const { return cuda ? cuda->traffic() : DeviceTraffic{}; }
};

// The CUDA kernel's traffic over `repeats` repetitions and its phases over the last
// `phase_repeats` of them, per repetition (slowest rank's figures, phase by phase).
nlohmann::ordered_json traffic_json(const Bench& b, const DeviceTraffic& t, int repeats, int phase_repeats) {
  const auto per = [&](std::uint64_t v) { return b.comm.allreduce_max(double(v) / double(std::max(1, repeats))); };
  DevicePhases slowest;
  for (std::size_t p = 0; p < kDevicePhases; ++p) slowest.seconds[p] = b.comm.allreduce_max(t.phases.seconds[p]);
  return {{"bytes_up", per(t.bytes_up)}, {"bytes_down", per(t.bytes_down)}, {"host_syncs", per(t.syncs)},
          {"device_batches", per(t.batches)}, {"host_rescored_rows", per(t.host_rescored_rows)}, {"device_releases", per(t.releases)},
          {"phases", device_phases_json(slowest, 1.0 / double(std::max(1, phase_repeats)))}};
}

// The CUDA kernel's counters over the timed iterations (done(t) after each): bytes, waits and
// batches per iteration over all of them; phases per iteration over the warm ones, all but the
// first (which also loads cuBLAS's kernels and makes the built-in check's full comparison), as
// the median iteration the figures report is a warm one.
class IterationMeter {
 public:
  explicit IterationMeter(const Bench& b) : b_(b), start_(b.traffic()), warm_(start_) {}
  void done(int t) {
    if (t == 0) warm_ = b_.traffic();
  }
  nlohmann::ordered_json json(int repeats) const {
    const DeviceTraffic now = b_.traffic();
    const bool warm = repeats > 1;
    DeviceTraffic counted = now - start_;
    if (warm) counted.phases = (now - warm_).phases;
    nlohmann::ordered_json j = traffic_json(b_, counted, repeats, warm ? repeats - 1 : repeats);
    j["phases"]["over"] = warm ? "the warm iterations (all but the first)" : "the one iteration";
    return j;
  }

 private:
  const Bench& b_;
  DeviceTraffic start_, warm_;
};

// The GEMM floor of searches of these shapes: cuBLAS (fp32 and TF32) on the GPU, OpenBLAS on
// the CPU (`pairs`: the same rows and centres the searches read), this rank's time.
nlohmann::ordered_json gemm_floor(const Bench& b, const std::vector<GemmShape>& shapes,
                                  const std::vector<std::pair<const MatrixF*, const MatrixF*>>& pairs) {
  if (b.cuda) {
    return {{"fp32", b.comm.allreduce_max(cuda_gemm_seconds(shapes, b.o.repeats, false))},
            {"tf32", b.comm.allreduce_max(cuda_gemm_seconds(shapes, b.o.repeats, true))},
            {"baseline", "cuBLAS cublasSgemm, data on the device, device time"}};
  }
  const Timer t0;
  for (const auto& [x, c] : pairs) openblas_sgemm_floor(*x, *c, b.o.threads);
  return {{"fp32", b.comm.allreduce_max(t0.seconds())}, {"baseline", "OpenBLAS cblas_sgemm on the same threads"}};
}

// One-time setup of SecPE: k-means per label (the kernel keeps its rows meanwhile), then the
// cached private-to-centre assignment.
// `keep` (when given) receives each label's public clusters, for the private-signal figures.
nlohmann::ordered_json secpe_setup(const Bench& b, std::vector<std::unique_ptr<SecretClustering>>& clustering,
                                   std::vector<PublicClusters>* keep) {
  const HistogramBenchOptions& o = b.o;
  const Shard& shard = b.shard;
  double kmeans_seconds = 0.0, assign_seconds = 0.0;  // this rank's, summed over its labels
  double kmeans_seed_seconds = 0.0, kmeans_lloyd_seconds = 0.0;
  std::int64_t kmeans_iterations_run = 0, centres = 0, vote_work = 0;  // vote_work: sum over labels of K_l x N_l
  std::int64_t pairs_scored = 0, pairs_assigned = 0;                    // Lloyd's, this rank's rows
  const DeviceTraffic before = b.traffic();
  Progress progress("secpe setup", shard.num_labels());
  for (std::size_t l = 0; l < shard.num_labels(); ++l) {
    if (b.syn[l] == 0 || !shard.evolves(l)) continue;
    Timer label_timer;
    KMeansOptions ko{o.clusters, o.kmeans_iterations, 1e-4, Metric::kCosine, o.seed, l};
    ko.threads = o.threads;
    ko.init = parse_kmeans_init(o.kmeans_init);
    ko.incremental = o.kmeans_incremental;
    KMeansResult km = distributed_kmeans(shard.label_comm(), select_rows(shard.embeddings, shard.public_rows[l], o.threads), b.kernel, ko);
    kmeans_seconds += label_timer.seconds();
    kmeans_seed_seconds += km.seed_seconds;
    kmeans_lloyd_seconds += km.lloyd_seconds;
    kmeans_iterations_run += km.iterations;
    pairs_scored += km.pairs_scored;
    pairs_assigned += km.pairs_assigned;
    centres += km.centres.rows();
    vote_work += km.centres.rows() * b.candidates[l].rows();
    if (keep) (*keep)[l] = {km.centres, km.sizes};
    const double rho = shard.private_counts[l] > 0 ? std::min(1.0, o.private_batch / double(shard.private_counts[l])) : 0.0;
    std::vector<std::uint64_t> ids;
    for (auto i : shard.private_rows[l]) ids.push_back(shard.ids[i]);
    label_timer.restart();
    clustering[l] = std::make_unique<SecretClustering>(shard.label_comm(), std::move(km.centres), std::move(km.sizes),
                                                       select_rows(shard.embeddings, shard.private_rows[l], o.threads), ids,
                                                       std::vector<double>(ids.size(), rho), b.kernel, Metric::kCosine, 1.0);
    assign_seconds += label_timer.seconds();
    progress.step(l + 1);
  }
  progress.finish();
  nlohmann::ordered_json setup = {{"clusters_per_label_requested", o.clusters},
                                  {"clusters_total", b.over_ranks(centres)},
                                  {"kmeans_seconds", b.comm.allreduce_max(kmeans_seconds)},
                                  {"kmeans_init", o.kmeans_init},
                                  {"kmeans_seed_seconds", b.comm.allreduce_max(kmeans_seed_seconds)},
                                  {"kmeans_lloyd_seconds", b.comm.allreduce_max(kmeans_lloyd_seconds)},
                                  {"kmeans_iterations_total", b.over_ranks(kmeans_iterations_run)},
                                  {"kmeans_incremental", o.kmeans_incremental},
                                  {"kmeans_pairs_scored_share", double(b.comm.allreduce_sum(pairs_scored)) / double(std::max<std::int64_t>(1, b.comm.allreduce_sum(pairs_assigned)))},
                                  {"assignment_cache_seconds", b.comm.allreduce_max(assign_seconds)},
                                  {"vote_work", b.over_ranks(vote_work)}};
  if (b.cuda) setup["setup_traffic"] = traffic_json(b, b.traffic() - before, 1, 1);
  return setup;
}

nlohmann::ordered_json bench_secpe(const Bench& b, std::vector<PublicClusters>* keep) {
  const HistogramBenchOptions& o = b.o;
  const std::size_t n_labels = b.shard.num_labels();
  std::vector<std::unique_ptr<SecretClustering>> clustering(n_labels);
  if (keep) keep->assign(n_labels, {});
  nlohmann::ordered_json figures = secpe_setup(b, clustering, keep);
  const double vote_work = figures["vote_work"].get<double>();
  figures.erase("vote_work");
  std::vector<double> per_iteration, release_seconds, vote_seconds;
  std::vector<GemmShape> shapes;
  std::vector<std::pair<const MatrixF*, const MatrixF*>> pairs;
  std::vector<NoisyClusters> noisy(n_labels);
  const std::uint64_t bytes_before = b.comm.bytes_sent();
  IterationMeter meter(b);
  for (int t = 0; t < o.repeats; ++t) {
    double release = 0.0, vote = 0.0;
    per_iteration.push_back(timed(b.comm, [&] {
      Timer t0;
      std::vector<ReleaseRequest> requests;
      std::vector<std::size_t> labels;
      for (std::size_t l = 0; l < n_labels; ++l) {
        if (!clustering[l]) continue;
        requests.push_back({clustering[l].get(), &b.key, l, t, o.sigma});
        labels.push_back(l);
      }
      std::vector<NoisyClusters> released = SecretClustering::release_batch(requests);  // every label's at once
      std::vector<SecpeVoteJob> jobs;
      for (std::size_t r = 0; r < labels.size(); ++r) {
        noisy[labels[r]] = std::move(released[r]);
        jobs.push_back({&b.shard.label_comm(), &noisy[labels[r]], &b.candidates[labels[r]]});
      }
      release = t0.seconds();
      t0.restart();
      secpe_votes_batch(jobs, b.kernel, Metric::kCosine, 1);  // every label's votes in one batch
      vote = t0.seconds();
    }));
    release_seconds.push_back(b.comm.allreduce_max(release));
    vote_seconds.push_back(b.comm.allreduce_max(vote));
    meter.done(t);
  }
  const nlohmann::ordered_json traffic = b.cuda ? meter.json(o.repeats) : nlohmann::ordered_json();
  // The votes' GEMM floor: one product per label, each label's candidates against this rank's
  // noisy centres (the search reads it both ways).
  for (std::size_t l = 0; l < n_labels; ++l) {
    if (!clustering[l] || noisy[l].centres.rows() == 0) continue;
    shapes.push_back({b.candidates[l].rows(), noisy[l].centres.rows(), b.candidates[l].cols()});
    pairs.emplace_back(&b.candidates[l], &noisy[l].centres);
  }
  figures["iteration_seconds"] = per_iteration;
  figures["iteration_seconds_median"] = median(per_iteration);
  figures["release_seconds"] = release_seconds;
  figures["release_seconds_median"] = median(release_seconds);
  figures["vote_seconds"] = vote_seconds;
  figures["vote_seconds_median"] = median(vote_seconds);
  figures["vote_gemm_floor_seconds"] = gemm_floor(b, shapes, pairs);
  figures["bytes_sent_per_iteration_rank"] = double(b.comm.bytes_sent() - bytes_before) / o.repeats;
  if (b.cuda) figures["iteration_traffic"] = traffic;
  // One K_l x N_l product per label, read both ways (each centre's nearest candidate and each
  // candidate's nearest centre: search_mutual).
  figures["vote_gflop"] = 2.0 * vote_work * double(b.shard.info().embedding_dim) / 1e9;
  return figures;
}

nlohmann::ordered_json bench_augpe(const Bench& b) {
  // Every record of the label votes (or only the private ones, --augpe-voters private). With
  // --augpe-fraction 1 the iteration is measured in full; below 1 a share is measured and the
  // time scaled by the cost model (proportional to sum over labels of M_l x N_l), labelled an
  // estimate. The cost model is always given as a cross-check.
  const HistogramBenchOptions& o = b.o;
  const Shard& shard = b.shard;
  const std::size_t n_labels = shard.num_labels();
  double work_measured = 0.0, work_full = 0.0;
  std::int64_t voters_total = 0;
  std::vector<MatrixF> voting(n_labels);
  std::vector<std::unique_ptr<KeptRows>> kept(n_labels);
  std::vector<AugpeVoteJob> jobs;
  std::vector<GemmShape> shapes;
  std::vector<std::pair<const MatrixF*, const MatrixF*>> pairs;
  const DeviceTraffic keep_before = b.traffic();
  const Timer keep_timer;  // setup: the voters selected and kept by the kernel (a GPU: uploaded once)
  for (std::size_t l = 0; l < n_labels; ++l) {
    if (b.syn[l] == 0) continue;
    std::vector<std::size_t> rows = shard.private_rows[l];
    if (o.augpe_voters == "all") {
      rows.insert(rows.end(), shard.public_rows[l].begin(), shard.public_rows[l].end());
      std::sort(rows.begin(), rows.end());
    }
    const std::int64_t label_voters = b.comm.allreduce_sum(static_cast<std::int64_t>(rows.size()));
    rows.resize(static_cast<std::size_t>(std::ceil(double(rows.size()) * o.augpe_fraction)));
    const std::int64_t voters = b.comm.allreduce_sum(static_cast<std::int64_t>(rows.size()));
    work_measured += double(voters) * double(b.candidates[l].rows());
    work_full += double(label_voters) * double(b.candidates[l].rows());
    voters_total += label_voters;
    if (!shard.evolves(l)) continue;
    voting[l] = select_rows(shard.embeddings, rows, o.threads);
    kept[l] = b.kernel.keep(voting[l]);
    jobs.push_back({&shard.label_comm(), kept[l].get(), &b.candidates[l], l});
    shapes.push_back({voting[l].rows(), b.candidates[l].rows(), voting[l].cols()});
    pairs.emplace_back(&voting[l], &b.candidates[l]);
  }
  const double keep_seconds = b.comm.allreduce_max(keep_timer.seconds());
  const DeviceTraffic keep_traffic = b.traffic() - keep_before;
  std::vector<double> measured;
  const std::uint64_t bytes_before = b.comm.bytes_sent();
  IterationMeter meter(b);
  for (int t = 0; t < o.repeats; ++t) {
    measured.push_back(timed(b.comm, [&] { augpe_votes_batch(jobs, b.kernel, Metric::kCosine, o.sigma, 0.0, b.key, t); }));
    meter.done(t);
  }
  const nlohmann::ordered_json traffic = b.cuda ? meter.json(o.repeats) : nlohmann::ordered_json();
  const double iteration = median(measured);
  const nlohmann::ordered_json floor = gemm_floor(b, shapes, pairs);
  const double model = work_measured > 0 ? iteration * work_full / work_measured : 0.0;
  const bool full = o.augpe_fraction >= 1.0;
  nlohmann::ordered_json figures = {
      {"voters", o.augpe_voters}, {"voters_total", voters_total}, {"fraction_measured", o.augpe_fraction},
      {"keep_seconds", keep_seconds},
      {"iteration_seconds", full ? nlohmann::ordered_json(iteration) : nlohmann::ordered_json(nullptr)},
      {"iteration_seconds_measured", measured},
      {"iteration_seconds_cost_model", model},
      {"cost_model", "time proportional to sum_l M_l * N_l (voters x candidates per label), scaled from the measured share"},
      {"vote_gflop", 2.0 * work_full * double(shard.info().embedding_dim) / 1e9},
      {"achieved_gflops", iteration > 0 ? 2.0 * work_measured * double(shard.info().embedding_dim) / iteration / 1e9 : 0.0},
      {"gemm_floor_seconds", floor["fp32"]},
      {"over_gemm_floor", floor["fp32"].get<double>() > 0 ? iteration / floor["fp32"].get<double>() : 0.0},
      {"gemm_floor", floor},
      {"bytes_sent_rank", double(b.comm.bytes_sent() - bytes_before) / o.repeats}};
  if (floor.contains("tf32") && floor["tf32"].get<double>() > 0) figures["over_tf32_gemm_floor"] = iteration / floor["tf32"].get<double>();
  if (b.cuda) {
    figures["keep_traffic"] = traffic_json(b, keep_traffic, 1, 1);
    figures["iteration_traffic"] = traffic;
  }
  return figures;
}

}  // namespace

nlohmann::ordered_json bench_histogram(const Communicator& comm, const NearestCentreKernel& kernel, const HistogramBenchOptions& o) {
  if (o.method != "secpe" && o.method != "augpe" && o.method != "both") throw InputError("the benchmarked method must be secpe, augpe or both");
  if (!(o.augpe_fraction > 0 && o.augpe_fraction <= 1)) throw InputError("the measured share of Aug-PE's voters must be in (0, 1]");
  if (o.repeats < 1) throw InputError("timed repetitions must be at least 1");
  parse_kmeans_init(o.kmeans_init);
  const bool run_secpe = o.method != "augpe", run_augpe = o.method != "secpe";
  if (!o.signal.r_over_p.empty() && !run_secpe) throw InputError("the private-signal figures need the SecPE setup (method secpe or both)");
  Timer t0;
  const Shard shard(comm, o.data, shard_by_for(o.shard_by, o.method == "augpe"));
  const double load_seconds = comm.allreduce_max(t0.seconds());
  const DatasetInfo& info = shard.info();
  Bench b{comm, o, kernel, dynamic_cast<const CudaKernel*>(&kernel), shard, split_synthetic(o.synthetic, shard.public_counts), {}, {}};
  std::size_t total_candidates = 0;
  for (std::size_t l = 0; l < shard.num_labels(); ++l) {
    b.candidates.push_back(random_candidates(o.seed, l, b.syn[l] * static_cast<std::size_t>(o.variations + 1), info.embedding_dim));
    total_candidates += static_cast<std::size_t>(b.candidates[l].rows());
  }
  // The benchmark releases nothing; it still draws its noise from a fresh secret key, as runs do.
  b.key = noise_key_from_os();
  comm.broadcast(std::span<unsigned char>(b.key.bytes));

  nlohmann::ordered_json figures;
  if (b.cuda) figures["gpu"] = b.cuda->device_description(), figures["tf32"] = b.cuda->tf32(), figures["screen"] = b.cuda->tf32() ? "tf32" : "fp32";
  figures["records"] = info.num_records;
  figures["labels"] = shard.num_labels();
  figures["dim"] = info.embedding_dim;
  figures["candidates_total"] = total_candidates;
  figures["load_seconds"] = load_seconds;
  figures["shard_by"] = shard_by_name(shard.by);
  std::int64_t private_total = 0;
  for (auto c : shard.private_counts) private_total += c;
  figures["private_records"] = private_total;
  std::vector<PublicClusters> clusters;
  if (run_secpe) figures["secpe"] = bench_secpe(b, o.signal.r_over_p.empty() ? nullptr : &clusters);
  if (run_augpe) figures["augpe"] = bench_augpe(b);
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
    // A label without centres on this rank (another rank evolves it) keeps the random candidates.
    std::vector<MatrixF> near;
    if (signal.candidates == "centres") {
      for (std::size_t l = 0; l < b.candidates.size(); ++l) {
        const bool has_centres = l < clusters.size() && clusters[l].centres.rows() > 0;
        near.push_back(has_centres ? candidates_near_centres(o.seed, l, static_cast<std::size_t>(b.candidates[l].rows()),
                                                             clusters[l].centres, signal.candidate_spread)
                                   : b.candidates[l]);
      }
    }
    figures["private_signal"] = private_signal(comm, shard, clusters, near.empty() ? b.candidates : near, b.syn, kernel, b.key, signal);
    figures["private_signal_candidates"] = signal.candidates;
  }
  if (b.cuda) figures["device_check_failures"] = comm.allreduce_max(double(b.cuda->traffic().check_failures));
  figures["peak_rss_mib_max_rank"] = comm.allreduce_max(peak_rss_mib());
  return figures;
}

}  // namespace secpe
