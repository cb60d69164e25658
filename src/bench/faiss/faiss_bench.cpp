#include "bench/faiss/faiss_bench.hpp"

#include <algorithm>
#include <cblas.h>
#include <ctime>
#include <memory>
#include <faiss/Clustering.h>
#include <faiss/IndexFlat.h>
#include <omp.h>

#include "cluster/kmeans.hpp"
#include "compute/cpu/blas_kernel.hpp"
#include "compute/nearest.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/rng.hpp"
#include "core/timer.hpp"
#include "comms/communicator.hpp"
#include "io/dataset.hpp"

namespace secpe {
namespace {


double process_cpu_seconds() {  // all threads of this process
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

MatrixF random_unit_rows(std::uint64_t seed, std::uint64_t stream, std::size_t n, int d) {
  MatrixF m(static_cast<Eigen::Index>(n), d);
  for (std::size_t i = 0; i < n; ++i) {
    CounterRng rng(seed, Stream::kCorpus, stream, i);
    for (int j = 0; j < d; ++j) m(static_cast<Eigen::Index>(i), j) = static_cast<float>(rng.normal());
    m.row(static_cast<Eigen::Index>(i)).normalize();
  }
  return m;
}

// The public rows of the dataset's label with the most public rows, at most `limit`, read in
// chunks so that a Yelp-scale file never sits in memory whole. Private rows are never read out:
// the benchmark reports an objective over these points.
MatrixF public_rows_of_largest_label(const std::string& path, std::size_t limit, std::string& label_name) {
  const DatasetReader reader(path);
  const std::uint64_t n = reader.info().num_records;
  const std::vector<std::int32_t> ids = reader.label_ids(0, n);
  const SecretMatrix secrets = reader.secrets(0, n);
  std::vector<std::size_t> public_count(reader.info().labels.size(), 0);
  for (std::uint64_t i = 0; i < n; ++i)
    if (!secrets.is_private(i)) ++public_count[static_cast<std::size_t>(ids[i])];
  const auto label = static_cast<std::int32_t>(std::max_element(public_count.begin(), public_count.end()) - public_count.begin());
  label_name = reader.info().labels.display(static_cast<std::size_t>(label));
  MatrixF rows(static_cast<Eigen::Index>(std::min(limit, public_count[static_cast<std::size_t>(label)])), reader.info().embedding_dim);
  Eigen::Index filled = 0;
  constexpr std::uint64_t kChunk = 1 << 16;
  for (std::uint64_t begin = 0; begin < n && filled < rows.rows(); begin += kChunk) {
    const std::uint64_t end = std::min(n, begin + kChunk);
    const MatrixF chunk = reader.embeddings(begin, end);
    for (std::uint64_t i = begin; i < end && filled < rows.rows(); ++i)
      if (ids[i] == label && !secrets.is_private(i)) rows.row(filled++) = chunk.row(static_cast<Eigen::Index>(i - begin));
  }
  return rows;
}

// The blas kernel's candidate screen with its engine for this many centres; "none" for other kernels.
std::string screen_of(const NearestCentreKernel& kernel, std::size_t centres) {
  const auto* blas = dynamic_cast<const BlasKernel*>(&kernel);
  return blas ? screen_label(blas->screen_for(static_cast<Eigen::Index>(centres))) : "none";
}

// Timings of repeated runs, FAISS's and ours taken back to back in each repetition, so that a
// ratio compares runs under the same load (the machine may be shared).
struct Runs {
  std::vector<double> faiss, secpe;  // wall seconds per repetition
  std::vector<double> faiss_cpu, secpe_cpu;  // process CPU seconds (all threads) per repetition
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// median, min and max of a list, and the list itself.
nlohmann::ordered_json spread(const std::vector<double>& v) {
  return {{"median", median(v)}, {"min", *std::min_element(v.begin(), v.end())}, {"max", *std::max_element(v.begin(), v.end())},
          {"all", v}};
}

// Per repetition a / b (faiss over secpe: speedup; secpe over faiss: time ratio).
std::vector<double> ratios(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> r(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) r[i] = a[i] / b[i];
  return r;
}

// Progress of one part (search, k-means) on rank 0's stderr, as every long command shows it: at
// the default sizes a timed run takes seconds to tens of seconds (FAISS's search 17 s on 2 shared
// vCPUs, one library call). Started once the data are ready, with a line saying so (the data are
// not a step, so the rate and ETA are the timed runs'); each of FAISS's and our runs is a step.
Progress timed_runs_progress(const std::string& part, const std::string& shape, const FaissBenchOptions& o) {
  log_info("bench faiss: " + part + " of " + shape + ", " + std::to_string(o.repeats) + " repetition(s) of FAISS then secpe");
  return Progress("bench faiss: " + part, 2 * static_cast<std::size_t>(o.repeats));
}

std::string repetition_detail(int r, int repeats, const std::string& side) {
  return "repetition " + std::to_string(r + 1) + "/" + std::to_string(repeats) + ": " + side + " done";
}

// Wall and CPU seconds of f() appended to `wall` and `cpu`.
template <class F>
void timed(std::vector<double>& wall, std::vector<double>& cpu, F&& f) {
  const double c0 = process_cpu_seconds();
  const Timer t0;
  f();
  wall.push_back(t0.seconds());
  cpu.push_back(process_cpu_seconds() - c0);
}

// What the blas kernel's screens did (BlasKernelOptions::stats): rows per screen, and per row the
// candidates each screen kept and the pairs scored exactly.
nlohmann::ordered_json screen_counts(const ScreenStats& stats) {
  nlohmann::ordered_json rows, kept;
  std::uint64_t total = stats.exact_rows;
  for (int l = 0; l < ScreenStats::kLevels; ++l) {
    rows[ScreenStats::level_name(l)] = stats.rows[l].load();
    total += stats.rows[l];
    if (stats.rows[l]) kept[ScreenStats::level_name(l)] = double(stats.kept[l]) / double(stats.rows[l]);
  }
  rows["exact"] = stats.exact_rows.load();
  return {{"rows", rows}, {"kept_per_row", kept}, {"rescored_per_row", total ? double(stats.rescored) / double(total) : 0.0}};
}

// Exact 1-NN by inner product (= cosine on unit vectors): IndexFlatIP against our kernel, on random
// unit rows or on a dataset's public rows (--search-data: the first `candidates` indexed, the next
// `queries` the queries).
nlohmann::ordered_json bench_search(const FaissBenchOptions& o, const NearestCentreKernel& kernel, const ScreenStats& stats) {
  std::string label;
  MatrixF queries, base;
  if (o.search_data.empty()) {
    queries = random_unit_rows(o.seed, 1, o.queries, o.dim);
    base = random_unit_rows(o.seed, 2, o.candidates, o.dim);
  } else {
    const MatrixF rows = public_rows_of_largest_label(o.search_data, o.candidates + o.queries, label);
    if (static_cast<std::size_t>(rows.rows()) < o.candidates + o.queries)
      throw InputError(o.search_data + ": " + std::to_string(rows.rows()) + " public rows in its largest label, fewer than --candidates plus --queries (" +
                       std::to_string(o.candidates + o.queries) + ")");
    base = rows.topRows(static_cast<Eigen::Index>(o.candidates));
    queries = rows.bottomRows(static_cast<Eigen::Index>(o.queries));
  }
  const int dim = static_cast<int>(base.cols());
  Progress progress = timed_runs_progress(
      "search", std::to_string(o.queries) + " queries in " + std::to_string(o.candidates) + " rows, d = " + std::to_string(dim), o);
  const double gflop = 2.0 * double(o.queries) * double(o.candidates) * dim / 1e9;
  faiss::IndexFlatIP index(dim);
  index.add(static_cast<faiss::Index::idx_t>(o.candidates), base.data());
  std::vector<float> distances(o.queries);
  std::vector<faiss::Index::idx_t> labels(o.queries);
  std::vector<std::int32_t> nearest(o.queries);
  std::vector<double> score(o.queries);
  Runs runs;
  for (int r = 0; r < o.repeats; ++r) {
    timed(runs.faiss, runs.faiss_cpu, [&] {
      index.search(static_cast<faiss::Index::idx_t>(o.queries), queries.data(), 1, distances.data(), labels.data());
    });
    progress.step(1 + 2 * std::size_t(r), repetition_detail(r, o.repeats, "faiss"));
    timed(runs.secpe, runs.secpe_cpu, [&] { kernel.search(queries, base, Metric::kInnerProduct, nearest, score); });
    progress.step(2 + 2 * std::size_t(r), repetition_detail(r, o.repeats, "secpe"));
  }
  progress.finish();
  std::size_t agree = 0;
  for (std::size_t i = 0; i < o.queries; ++i) agree += labels[i] == nearest[i] ? 1 : 0;
  const double faiss_s = median(runs.faiss), secpe_s = median(runs.secpe);
  return {{"queries", o.queries}, {"candidates", o.candidates}, {"dim", dim},
          {"data", o.search_data.empty() ? std::string("random unit rows") : o.search_data + ": public rows of label '" + label + "'"},
          {"gflop", gflop}, {"faiss_index", "IndexFlatIP"},
          {"faiss_seconds", faiss_s}, {"secpe_seconds", secpe_s}, {"secpe_kernel", kernel.name()},
          {"secpe_screen", screen_of(kernel, o.candidates)}, {"faiss_gflops", gflop / faiss_s}, {"secpe_gflops", gflop / secpe_s},
          {"speedup_vs_faiss", median(ratios(runs.faiss, runs.secpe))}, {"speedup", spread(ratios(runs.faiss, runs.secpe))},
          {"faiss_seconds_all", runs.faiss}, {"secpe_seconds_all", runs.secpe},
          {"cpu_speedup", spread(ratios(runs.faiss_cpu, runs.secpe_cpu))},
          {"same_nearest_fraction", double(agree) / double(o.queries)}, {"secpe_screens", screen_counts(stats)}};
}

// k-means: the same points, k and iteration count. FAISS seeds randomly (a permutation), so its
// time is essentially the Lloyd iterations; ours is split into seeding and Lloyd.
nlohmann::ordered_json bench_kmeans(const FaissBenchOptions& o, const NearestCentreKernel& kernel, const ScreenStats& stats, KMeansInit init) {
  std::string points_label;
  const MatrixF points = o.kmeans_data.empty() ? random_unit_rows(o.seed, 3, o.kmeans_points, o.dim)
                                               : public_rows_of_largest_label(o.kmeans_data, o.kmeans_points, points_label);
  const auto n_points = static_cast<std::size_t>(points.rows());
  const int points_dim = static_cast<int>(points.cols());
  if (n_points < static_cast<std::size_t>(o.kmeans_clusters))
    throw InputError(o.kmeans_data + ": " + std::to_string(n_points) + " public rows in its largest label, fewer than --clusters " +
                     std::to_string(o.kmeans_clusters));
  faiss::ClusteringParameters cp;
  cp.niter = o.kmeans_iterations;
  cp.seed = static_cast<int>(o.seed);
  cp.max_points_per_centroid = 1 << 30;  // no subsampling: same work as ours
  cp.spherical = true;
  Progress progress = timed_runs_progress(
      "k-means", std::to_string(n_points) + " points, d = " + std::to_string(points_dim) + ", K = " + std::to_string(o.kmeans_clusters), o);
  const LocalCommunicator self;
  KMeansOptions ko{o.kmeans_clusters, o.kmeans_iterations, 0.0, Metric::kCosine, o.seed, 0};
  ko.init = init;
  ko.init_rounds = o.kmeans_init_rounds;
  ko.threads = o.threads;
  Runs runs;
  std::vector<float> faiss_centroids;
  KMeansResult ours;
  std::vector<double> seed_s, lloyd_s;
  for (int r = 0; r < o.repeats; ++r) {
    faiss::Clustering clustering(points_dim, o.kmeans_clusters, cp);
    faiss::IndexFlatIP kindex(points_dim);
    timed(runs.faiss, runs.faiss_cpu, [&] { clustering.train(static_cast<faiss::Index::idx_t>(n_points), points.data(), kindex); });
    progress.step(1 + 2 * std::size_t(r), repetition_detail(r, o.repeats, "faiss"));
    faiss_centroids.assign(clustering.centroids.begin(), clustering.centroids.end());
    timed(runs.secpe, runs.secpe_cpu, [&] { ours = distributed_kmeans(self, points, kernel, ko); });
    progress.step(2 + 2 * std::size_t(r), repetition_detail(r, o.repeats, "secpe"));
    seed_s.push_back(ours.seed_seconds);
    lloyd_s.push_back(ours.lloyd_seconds);
  }
  // The spherical k-means objective of both results, by the same exact kernel: the mean cosine
  // of a point to its nearest centre (higher is better).
  const auto mean_cosine = [&](const MatrixF& centres) {
    std::vector<std::int32_t> c(n_points);
    std::vector<double> s(n_points);
    kernel.search(points, centres, Metric::kCosine, c, s);
    double sum = 0.0;
    for (double v : s) sum -= v;
    return sum / double(n_points);
  };
  const MatrixF faiss_centres = Eigen::Map<const MatrixF>(faiss_centroids.data(), o.kmeans_clusters, points_dim);
  const int lloyd_passes = ours.iterations + 1;  // the iterations and the final assignment pass
  const double faiss_per_iteration = median(runs.faiss) / o.kmeans_iterations, our_per_iteration = median(lloyd_s) / lloyd_passes;
  const double faiss_cosine = mean_cosine(faiss_centres), secpe_cosine = mean_cosine(ours.centres);
  progress.finish();
  return {{"points", n_points}, {"dim", points_dim},
          {"data", o.kmeans_data.empty() ? std::string("random unit rows") : o.kmeans_data + ": public rows of label '" + points_label + "'"},
          {"clusters", o.kmeans_clusters}, {"iterations", o.kmeans_iterations}, {"secpe_screen", screen_of(kernel, std::size_t(o.kmeans_clusters))},
          {"faiss_seconds", median(runs.faiss)}, {"faiss_cpu_seconds", median(runs.faiss_cpu)},
          {"faiss_seconds_per_iteration", faiss_per_iteration},
          {"secpe_init", kmeans_init_name(ko.init)}, {"secpe_init_rounds", ko.init_rounds}, {"secpe_seconds", median(runs.secpe)},
          {"secpe_cpu_seconds", median(runs.secpe_cpu)}, {"secpe_seed_seconds", median(seed_s)},
          {"secpe_init_candidates", ours.init_candidates}, {"secpe_lloyd_seconds", median(lloyd_s)},
          {"secpe_iterations_run", ours.iterations}, {"secpe_lloyd_passes", lloyd_passes},
          {"secpe_seconds_per_iteration", our_per_iteration},
          {"secpe_over_faiss", spread(ratios(runs.secpe, runs.faiss))},
          {"secpe_over_faiss_cpu", spread(ratios(runs.secpe_cpu, runs.faiss_cpu))},
          {"faiss_seconds_all", runs.faiss}, {"secpe_seconds_all", runs.secpe},
          {"secpe_over_faiss_per_iteration", our_per_iteration / faiss_per_iteration},
          {"secpe_seed_over_faiss_iteration", median(seed_s) / faiss_per_iteration},
          {"faiss_mean_cosine", faiss_cosine}, {"secpe_mean_cosine", secpe_cosine},
          {"secpe_screens", screen_counts(stats)},
          {"note", "faiss seeds randomly; FAISS and secpe run back to back in each of --repeats repetitions; *_seconds are medians, "
                   "secpe_over_faiss the per-repetition ratios of the totals (secpe seeding + Lloyd + sums against faiss::Clustering::train); "
                   "secpe_seconds_per_iteration = secpe_lloyd_seconds / secpe_lloyd_passes (the iterations plus the final assignment "
                   "pass); cpu seconds are process CPU time, all threads; *_mean_cosine: the spherical k-means objective, mean cosine of "
                   "a point to its nearest centre"}};
}

// The kernel under test; a blas kernel counts what its screens did into `stats`.
std::unique_ptr<NearestCentreKernel> bench_kernel_of(const FaissBenchOptions& o, ScreenStats* stats) {
  BlasScreen screen;
  try {
    screen = parse_blas_screen(o.screen);
  } catch (const InputError& e) {
    throw InputError(std::string("--screen: ") + e.what());
  }
  if (o.kernel == "blas")
    return std::make_unique<BlasKernel>(BlasKernelOptions{.threads = o.threads, .screen = screen, .stats = stats, .screen_shift = o.screen_shift});
  return make_kernel(o.kernel, o.threads);
}

}  // namespace

nlohmann::ordered_json bench_faiss(const FaissBenchOptions& o) {
  const KMeansInit init = parse_kmeans_init(o.kmeans_init);  // bad names fail before any work
  ScreenStats search_stats, kmeans_stats;  // each part's own counts (the k-means ones include its objective's search)
  const auto search_kernel = bench_kernel_of(o, &search_stats), kmeans_kernel = bench_kernel_of(o, &kmeans_stats);
  // FAISS parallelises with OpenMP and calls sgemm, which runs on OpenBLAS's own threads: cap both.
  omp_set_num_threads(o.threads);
  openblas_set_num_threads(o.threads);
  nlohmann::ordered_json out;
  out["search"] = bench_search(o, *search_kernel, search_stats);
  out["kmeans"] = bench_kmeans(o, *kmeans_kernel, kmeans_stats, init);
  return out;
}

}  // namespace secpe
