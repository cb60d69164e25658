// CPU against GPU: the CUDA kernel returns what the reference kernel returns, bit for bit (search,
// search_k, errors), its per-centre sums equal the CPU's, and k-means, SecPE's release and the
// Aug-PE histogram come out identical on either device. Every test skips without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "cluster/kmeans.hpp"
#include "cluster/secret_clustering.hpp"
#include "compute/cpu/blas_kernel.hpp"
#include "compute/cpu/reference_kernel.hpp"
#include "core/error.hpp"
#include "compute/cuda/cuda_backend.hpp"
#include "compute/verify.hpp"
#include "comms/communicator.hpp"
#include "evolve/votes.hpp"
#include "kernel_test_util.hpp"

namespace secpe {
namespace {

// Skips without a GPU, unless SECPE_REQUIRE_GPU is set (jobs/gpu-check.sh sets it: on a GPU node
// a missing device is a failure, not a skip).
#define SKIP_WITHOUT_GPU()                                                                                \
  if (cuda_device_count() == 0) {                                                                         \
    if (std::getenv("SECPE_REQUIRE_GPU")) FAIL() << "SECPE_REQUIRE_GPU is set, but no CUDA device is usable"; \
    GTEST_SKIP() << "no CUDA device here (or a build without CUDA): the CPU/GPU equivalence is not checked on this machine"; \
  }

using test::kMetrics;
using test::random_matrix;

// Kernels under test: default tiles; tiles of a few rows (many tiles, both slots reused); TF32;
// the host rescoring (the safe path's); no kept rows (every search uploads its rows).
std::vector<std::unique_ptr<CudaKernel>> cuda_kernels() {
  std::vector<std::unique_ptr<CudaKernel>> v;
  v.push_back(make_cuda_kernel({.threads = 2}));
  v.push_back(make_cuda_kernel({.threads = 1, .tile_bytes = 20000}));
  v.push_back(make_cuda_kernel({.threads = 2, .tf32 = true}));
  v.push_back(make_cuda_kernel({.threads = 2, .device_rescoring = false}));
  v.push_back(make_cuda_kernel({.threads = 2, .keep_rows = false}));
  return v;
}

// Every kernel's search of plain rows and of kept rows against the reference, and no built-in
// check failed on the way (it would have fallen back to the safe path and hidden a device bug).
void expect_agree(const MatrixF& x, const MatrixF& c, int k = 1) {
  for (const auto& kernel : cuda_kernels()) {
    const auto kept = kernel->keep(x);
    for (const Metric m : kMetrics) {
      std::string report;
      EXPECT_TRUE(verify_against_reference(*kernel, x, c, m, &report, k)) << report << " (k " << k << ")";
      std::vector<std::int32_t> got(static_cast<std::size_t>(x.rows() * k)), want(got.size());
      std::vector<double> got_s(got.size()), want_s(got.size());
      std::string got_error, want_error;
      try {
        ReferenceKernel().search_k(x, c, m, k, want, want_s);
      } catch (const InputError& e) {
        want_error = e.what();
      }
      try {
        kernel->search_kept(*kept, c, m, k, got, got_s);
      } catch (const InputError& e) {
        got_error = e.what();
      }
      EXPECT_EQ(got_error, want_error);
      EXPECT_EQ(got, want) << "kept rows, " << metric_name(m) << ", k " << k;
      EXPECT_EQ(got_s, want_s) << "kept rows, " << metric_name(m) << ", k " << k;
    }
    EXPECT_EQ(kernel->traffic().check_failures, 0u);
  }
}

TEST(CudaKernel, RandomShapesAgreeBitForBit) {
  SKIP_WITHOUT_GPU();
  struct Shape {
    Eigen::Index m, n, d;
  };
  for (const Shape& s : {Shape{1, 3, 1}, Shape{50, 13, 1}, Shape{101, 77, 3}, Shape{70, 45, 768}, Shape{1000, 300, 64},
                         Shape{3, 2000, 17}}) {
    const MatrixF x = random_matrix(s.m, s.d, 1 + s.m), c = random_matrix(s.n, s.d, 2 + s.n);
    for (const int k : {1, 2, 5}) {
      if (k <= s.n) expect_agree(x, c, k);
    }
  }
}

TEST(CudaKernel, TiesAndDuplicatesAgreeBitForBit) {
  SKIP_WITHOUT_GPU();
  // Integer-valued data: many exact ties in every metric.
  MatrixF x = random_matrix(200, 8, 3, -3.0f, 3.0f).array().round().matrix();
  MatrixF c = random_matrix(60, 8, 4, -3.0f, 3.0f).array().round().matrix();
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    if (x.row(i).squaredNorm() == 0) x(i, 0) = 1.0f;  // cosine rejects zero rows
  }
  for (Eigen::Index i = 0; i < c.rows(); ++i) {
    if (c.row(i).squaredNorm() == 0) c(i, 1) = 1.0f;
  }
  c.row(7) = c.row(3);
  c.row(40) = c.row(3);
  expect_agree(x, c, 1);
  expect_agree(x, c, 4);
  // Every centre the same: every row's candidates overflow the device list (all are rescored).
  const MatrixF same = MatrixF::Ones(500, 16);
  expect_agree(random_matrix(40, 16, 5), same, 3);
  // Huge norms: the exact-only path.
  expect_agree(random_matrix(20, 4, 6, 1e19f, 2e19f), random_matrix(30, 4, 7, 1e19f, 2e19f), 2);
}

TEST(CudaKernel, SameErrorsAsTheReference) {
  SKIP_WITHOUT_GPU();
  MatrixF x = random_matrix(10, 4, 8), c = random_matrix(5, 4, 9);
  x(3, 2) = std::numeric_limits<float>::quiet_NaN();
  c.row(2).setZero();
  for (const Metric m : kMetrics) {
    std::string report;
    EXPECT_TRUE(verify_against_reference(*make_cuda_kernel({}), x, c, m, &report)) << report;
  }
}

TEST(CudaKernel, CentreSumsEqualTheCpus) {
  SKIP_WITHOUT_GPU();
  const BlasKernel cpu(BlasKernelOptions{.threads = 2});
  for (const auto& gpu : cuda_kernels()) {
    for (const Eigen::Index d : {1, 5, 300}) {
      MatrixF x = random_matrix(3001, d, 10 + d, -3.0f, 3.0f);
      x(5, 0) = 1e6f;  // beyond the CPU's vectorised range (its llrint path)
      x(6, 0) = -0.5f / 4294967296.0f;  // a tie of the rounding: to even
      std::mt19937 gen(static_cast<unsigned>(d));
      const std::size_t k = 37;
      std::vector<std::int32_t> centre_of(static_cast<std::size_t>(x.rows()));
      std::vector<std::uint8_t> include(centre_of.size());
      for (std::size_t i = 0; i < centre_of.size(); ++i) centre_of[i] = static_cast<std::int32_t>(gen() % k), include[i] = gen() % 3 != 0;
      centre_of[100] = 0;
      for (std::size_t i = 200; i < 1200; ++i) centre_of[i] = 3;  // one large cluster: many runs of one centre
      const auto kept = gpu->keep(x);
      for (const bool masked : {false, true}) {
        for (const bool from_kept : {false, true, true}) {  // kept twice: the first sums are checked against the CPU's
          std::vector<std::int64_t> s_cpu(k * static_cast<std::size_t>(d), 7), c_cpu(k, 1), s_gpu = s_cpu, c_gpu = c_cpu;
          const std::span<const std::uint8_t> mask = masked ? std::span<const std::uint8_t>(include) : std::span<const std::uint8_t>();
          cpu.add_to_centres(x, centre_of, mask, s_cpu, c_cpu);
          if (from_kept) {
            gpu->add_kept_to_centres(*kept, centre_of, mask, s_gpu, c_gpu);
          } else {
            gpu->add_to_centres(x, centre_of, mask, s_gpu, c_gpu);
          }
          EXPECT_EQ(s_cpu, s_gpu) << "d " << d << ", masked " << masked << ", kept " << from_kept;
          EXPECT_EQ(c_cpu, c_gpu);
        }
      }
    }
    EXPECT_EQ(gpu->traffic().check_failures, 0u);
  }
}

TEST(CudaKernel, BatchesAgreeTaskByTaskAndWaitOnce) {
  SKIP_WITHOUT_GPU();
  const ReferenceKernel reference;
  const MatrixF c = random_matrix(300, 48, 51), huge = random_matrix(30, 48, 52, 1e19f, 2e19f);
  std::vector<MatrixF> xs;
  for (int l = 0; l < 12; ++l) xs.push_back(random_matrix(40 + 30 * l, 48, 60 + l));
  for (const auto& kernel : cuda_kernels()) {
    for (const Metric m : kMetrics) {
      std::vector<std::unique_ptr<KeptRows>> kept;
      for (const MatrixF& x : xs) kept.push_back(kernel->keep(x));
      // Per label: k = 1, k = 4, a mutual search, k beyond the device's reach (streamed), exact-only norms.
      std::vector<std::vector<std::int32_t>> got(5 * xs.size()), want(got.size());
      std::vector<std::vector<double>> got_s(got.size()), want_s(got.size());
      std::vector<std::int32_t> cn(c.rows()), want_cn(cn.size());
      std::vector<double> cs(cn.size()), want_cs(cn.size());
      std::vector<SearchTask> tasks;
      const KeptRows huge_view(huge);
      for (std::size_t l = 0; l < xs.size(); ++l) {
        const int ks[] = {1, 4, 1, 20, 2};  // 20: beyond the device rescoring's k (16), so streamed
        for (int t = 0; t < 5; ++t) {
          const std::size_t q = 5 * l + static_cast<std::size_t>(t);
          const MatrixF& x = t == 4 ? huge : xs[l];
          got[q].resize(static_cast<std::size_t>(x.rows() * ks[t])), want[q].resize(got[q].size());
          got_s[q].resize(got[q].size()), want_s[q].resize(got[q].size());
          const MatrixF& centres = t == 4 ? huge : c;
          tasks.push_back({.x = t == 4 ? &huge_view : kept[l].get(), .centres = &centres, .k = ks[t], .nearest = got[q], .score = got_s[q]});
          if (t == 2 && l == 0) tasks.back().centre_nearest = cn, tasks.back().centre_score = cs;
          reference.search_k(x, centres, m, ks[t], want[q], want_s[q]);
        }
      }
      reference.search(c, xs[0], m, want_cn, want_cs);
      kernel->search_batch(tasks, m);
      for (std::size_t q = 0; q < got.size(); ++q) {
        EXPECT_EQ(got[q], want[q]) << metric_name(m) << " task " << q;
        EXPECT_EQ(got_s[q], want_s[q]) << metric_name(m) << " task " << q;
      }
      EXPECT_EQ(cn, want_cn) << "mutual";
      EXPECT_EQ(cs, want_cs) << "mutual";
    }
    EXPECT_EQ(kernel->traffic().check_failures, 0u);
  }
}

TEST(CudaKernel, AllLabelsInOneBatchWaitOnce) {
  SKIP_WITHOUT_GPU();
  const auto kernel = make_cuda_kernel({.threads = 2});
  const MatrixF c = random_matrix(300, 48, 81);
  std::vector<MatrixF> xs;
  std::vector<std::unique_ptr<KeptRows>> kept;
  for (int l = 0; l < 50; ++l) xs.push_back(random_matrix(20 + l, 48, 90 + l));
  for (const MatrixF& x : xs) kept.push_back(kernel->keep(x));
  std::vector<std::vector<std::int32_t>> got(xs.size());
  std::vector<std::vector<double>> got_s(xs.size());
  std::vector<SearchTask> tasks;
  std::size_t rows = 0;
  for (std::size_t l = 0; l < xs.size(); ++l) {
    got[l].resize(static_cast<std::size_t>(xs[l].rows())), got_s[l].resize(got[l].size());
    tasks.push_back({.x = kept[l].get(), .centres = &c, .k = 1, .nearest = got[l], .score = got_s[l]});
    rows += got[l].size();
  }
  for (int repeat = 0; repeat < 2; ++repeat) {  // the first batch has the full built-in check
    const DeviceTraffic before = kernel->traffic();
    kernel->search_batch(tasks, Metric::kCosine);
    const DeviceTraffic used = kernel->traffic() - before;
    EXPECT_EQ(used.batches, 1u);
    EXPECT_EQ(used.syncs, 1u) << "one wait for 50 searches";
    EXPECT_EQ(used.bytes_down, 12 * rows) << "only each row's nearest centre and score come back";
    // Up go the centres and their norms, once per label (no rows: they are kept), aligned blocks.
    EXPECT_LE(used.bytes_up, 50u * (300 * 48 * 4 + 3 * 300 * 8 + 2 * 256));
  }
  for (std::size_t l = 0; l < xs.size(); ++l) {
    std::vector<std::int32_t> want(got[l].size());
    std::vector<double> want_s(want.size());
    ReferenceKernel().search(xs[l], c, Metric::kCosine, want, want_s);
    EXPECT_EQ(got[l], want) << "label " << l;
    EXPECT_EQ(got_s[l], want_s) << "label " << l;
  }
  EXPECT_EQ(kernel->traffic().check_failures, 0u);
}

TEST(CudaKernel, PhasesAreTimedOnlyWhenAsked) {
  SKIP_WITHOUT_GPU();
  // Large enough for every step to take microseconds (the events' resolution is about 0.5 us).
  const MatrixF c = random_matrix(2000, 64, 83);
  const MatrixF x = random_matrix(8000, 64, 84);
  std::vector<std::int32_t> want(8000);
  std::vector<double> want_s(8000);
  ReferenceKernel().search(x, c, Metric::kL2, want, want_s);
  for (const bool timed : {false, true}) {
    const auto kernel = make_cuda_kernel({.threads = 2, .time_phases = timed});
    const auto kept = kernel->keep(x);
    std::vector<std::int32_t> got(8000);
    std::vector<double> got_s(8000);
    kernel->search_kept(*kept, c, Metric::kL2, 1, got, got_s);  // the first batch: the full check
    const DeviceTraffic before = kernel->traffic();
    kernel->search_kept(*kept, c, Metric::kL2, 1, got, got_s);
    const DevicePhases used = (kernel->traffic() - before).phases;
    EXPECT_EQ(got, want) << "timing changes no result";
    EXPECT_EQ(got_s, want_s);
    for (std::size_t p = 0; p < kDevicePhases; ++p) {
      if (!timed) EXPECT_EQ(used.seconds[p], 0.0) << kDevicePhaseNames[p] << ": nothing is timed unless asked";
      EXPECT_GE(used.seconds[p], 0.0) << kDevicePhaseNames[p];
    }
    if (timed) {
      // One batch: the centres went up, one GEMM tile, its selection and rescoring, the results down.
      for (const DevicePhase p : {DevicePhase::kUpload, DevicePhase::kGemm, DevicePhase::kSelect, DevicePhase::kRescore,
                                  DevicePhase::kDownload, DevicePhase::kPlan, DevicePhase::kWait}) {
        EXPECT_GT(used[p], 0.0) << kDevicePhaseNames[static_cast<std::size_t>(p)];
      }
      EXPECT_EQ(used[DevicePhase::kRelease], 0.0) << "no release ran";
    }
    EXPECT_EQ(kernel->traffic().check_failures, 0u);
  }
}

TEST(CudaKernel, TheBuiltInCheckCatchesWrongDeviceResults) {
  SKIP_WITHOUT_GPU();
  // A kernel whose device results are altered on purpose: the check must see it, say so, and
  // the safe path must give the reference's answer all the same.
  const auto kernel = make_cuda_kernel({.threads = 2, .corrupt_device_results = true});
  const MatrixF x = random_matrix(500, 32, 70), c = random_matrix(200, 32, 71);
  std::string report;
  EXPECT_TRUE(verify_against_reference(*kernel, x, c, Metric::kL2, &report)) << report;
  EXPECT_EQ(kernel->traffic().check_failures, 1u);
  EXPECT_TRUE(verify_against_reference(*kernel, x, c, Metric::kCosine, &report)) << report;  // the safe path from now on

  const auto sums_kernel = make_cuda_kernel({.threads = 2, .corrupt_device_results = true});
  const auto kept = sums_kernel->keep(x);
  std::vector<std::int32_t> centre_of(static_cast<std::size_t>(x.rows()));
  for (std::size_t i = 0; i < centre_of.size(); ++i) centre_of[i] = static_cast<std::int32_t>(i % 7);
  std::vector<std::int64_t> s_cpu(7 * 32, 0), c_cpu(7, 0), s_gpu = s_cpu, c_gpu = c_cpu;
  BlasKernel(BlasKernelOptions{.threads = 2}).add_to_centres(x, centre_of, {}, s_cpu, c_cpu);
  sums_kernel->add_kept_to_centres(*kept, centre_of, {}, s_gpu, c_gpu);
  EXPECT_EQ(s_cpu, s_gpu);
  EXPECT_EQ(c_cpu, c_gpu);
  EXPECT_EQ(sums_kernel->traffic().check_failures, 1u);
}

// `clusters` groups of unit vectors: row i near the direction i mod clusters.
MatrixF clustered(Eigen::Index n, Eigen::Index d, Eigen::Index clusters, std::uint64_t seed) {
  MatrixF x = 0.05f * random_matrix(n, d, seed);
  for (Eigen::Index i = 0; i < n; ++i) {
    x(i, i % clusters) += 1.0f;
    x.row(i).normalize();
  }
  return x;
}

NoiseKey test_key() {
  NoiseKey key;
  for (std::size_t i = 0; i < key.bytes.size(); ++i) key.bytes[i] = static_cast<unsigned char>(3 + i);
  return key;
}

TEST(CudaKernel, KMeansReleaseAndHistogramIdenticalToTheCpu) {
  SKIP_WITHOUT_GPU();
  const LocalCommunicator self;
  const BlasKernel cpu(BlasKernelOptions{.threads = 2});
  const auto gpu = make_cuda_kernel({.threads = 2, .time_phases = true});  // timed, as the benchmarks' are: the same bits
  KMeansOptions options;
  options.k = 12;
  options.seed = 4;
  const MatrixF pub = clustered(3000, 24, 12, 1), pri = clustered(977, 24, 12, 2);
  const KMeansResult a = distributed_kmeans(self, pub, cpu, options), b = distributed_kmeans(self, pub, *gpu, options);
  EXPECT_TRUE((a.centres.array() == b.centres.array()).all());
  EXPECT_EQ(a.sizes, b.sizes);
  EXPECT_EQ(a.assignment, b.assignment);
  EXPECT_GT(gpu->traffic().phases[DevicePhase::kSums], 0.0) << "k-means' sums of its kept rows are timed";
  EXPECT_GT(gpu->traffic().phases[DevicePhase::kSumsHost], 0.0);

  std::vector<std::uint64_t> ids(977);
  std::vector<double> rho(977);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = 50 + i, rho[i] = 0.2 + 0.0005 * double(i);
  const SecretClustering on_cpu(self, a.centres, a.sizes, pri, ids, rho, cpu, Metric::kCosine, 1.0);
  const SecretClustering on_gpu(self, a.centres, a.sizes, pri, ids, rho, *gpu, Metric::kCosine, 1.0);
  for (int t = 0; t < 2; ++t) {
    const NoisyClusters x = on_cpu.release(test_key(), 1, t, 1.5), y = on_gpu.release(test_key(), 1, t, 1.5);
    EXPECT_EQ(x.sizes, y.sizes);
    EXPECT_TRUE((x.centres.array() == y.centres.array()).all());
  }

  const MatrixF candidates = clustered(400, 24, 12, 3);
  const VoteResult h_cpu = augpe_votes(self, pri, candidates, cpu, Metric::kCosine, 2.0, 0.5, test_key(), 0, 1);
  const VoteResult h_gpu = augpe_votes(self, pri, candidates, *gpu, Metric::kCosine, 2.0, 0.5, test_key(), 0, 1);
  EXPECT_EQ(h_cpu.votes, h_gpu.votes);
  EXPECT_EQ(h_cpu.tie_key, h_gpu.tie_key);

  // Several labels' votes in one batch each way, on either device.
  std::vector<NoisyClusters> noisy;
  std::vector<MatrixF> cands;
  for (int l = 0; l < 4; ++l) {
    noisy.push_back(on_cpu.release(test_key(), static_cast<std::uint64_t>(l), 0, 1.5));
    cands.push_back(clustered(300 + 50 * l, 24, 12, 10 + static_cast<std::uint64_t>(l)));
  }
  for (const int per_centre : {1, 3}) {
    std::vector<SecpeVoteJob> jobs;
    for (std::size_t l = 0; l < noisy.size(); ++l) jobs.push_back({&self, &noisy[l], &cands[l]});
    const auto a_votes = secpe_votes_batch(jobs, cpu, Metric::kCosine, per_centre);
    const auto b_votes = secpe_votes_batch(jobs, *gpu, Metric::kCosine, per_centre);
    for (std::size_t l = 0; l < noisy.size(); ++l) {
      EXPECT_EQ(a_votes[l].votes, b_votes[l].votes) << "label " << l << ", votes per centre " << per_centre;
      EXPECT_EQ(a_votes[l].tie_key, b_votes[l].tie_key);
    }
  }
  const auto kept_pri = gpu->keep(pri), kept_pub = gpu->keep(pub);
  const KeptRows view_pri(pri), view_pub(pub);
  const std::vector<AugpeVoteJob> gpu_jobs{{&self, kept_pri.get(), &cands[0], 0}, {&self, kept_pub.get(), &cands[1], 1}};
  const std::vector<AugpeVoteJob> cpu_jobs{{&self, &view_pri, &cands[0], 0}, {&self, &view_pub, &cands[1], 1}};
  const auto v_cpu = augpe_votes_batch(cpu_jobs, cpu, Metric::kCosine, 2.0, 0.5, test_key(), 3);
  const auto v_gpu = augpe_votes_batch(gpu_jobs, *gpu, Metric::kCosine, 2.0, 0.5, test_key(), 3);
  for (std::size_t l = 0; l < v_cpu.size(); ++l) EXPECT_EQ(v_cpu[l].votes, v_gpu[l].votes) << "label " << l;
  EXPECT_EQ(gpu->traffic().check_failures, 0u);
}


// SecPE's release of several labels at once on the device (every label's centres in one launch)
// against the CPU's, the released centres' device copies read by the votes (no upload of the
// centres), and a corrupted release caught by the built-in check and redone on the host.
TEST(CudaKernel, ReleaseOnTheDeviceAndVotesFromItsCopies) {
  SKIP_WITHOUT_GPU();
  const LocalCommunicator self;
  const BlasKernel cpu(BlasKernelOptions{.threads = 2});
  const auto gpu = make_cuda_kernel({.threads = 2, .time_phases = true});  // timed, as the benchmarks' are: the same bits
  const auto corrupt = make_cuda_kernel({.threads = 2, .corrupt_release = true});
  std::vector<std::unique_ptr<SecretClustering>> on_cpu, on_gpu, on_corrupt;
  std::vector<MatrixF> cands;
  for (int l = 0; l < 5; ++l) {
    const auto seed = static_cast<std::uint64_t>(20 + 3 * l);
    const MatrixF pub = clustered(600, 40, 16, seed), pri = clustered(300 + 40 * l, 40, 16, seed + 1);
    KMeansOptions options;
    options.k = 16 + l;
    options.seed = seed;
    const KMeansResult km = distributed_kmeans(self, pub, cpu, options);
    std::vector<std::uint64_t> ids(static_cast<std::size_t>(pri.rows()));
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = 1000 * static_cast<std::uint64_t>(l) + i;
    const std::vector<double> rho(ids.size(), 0.3);
    on_cpu.push_back(std::make_unique<SecretClustering>(self, km.centres, km.sizes, pri, ids, rho, cpu, Metric::kCosine, 0.8));
    on_gpu.push_back(std::make_unique<SecretClustering>(self, km.centres, km.sizes, pri, ids, rho, *gpu, Metric::kCosine, 0.8));
    on_corrupt.push_back(std::make_unique<SecretClustering>(self, km.centres, km.sizes, pri, ids, rho, *corrupt, Metric::kCosine, 0.8));
    cands.push_back(clustered(200 + 30 * l, 40, 16, seed + 2));
  }
  const NoiseKey key = test_key();
  for (int t = 0; t < 3; ++t) {  // the first release has the full check, the others one centre per label
    const auto requests = [&](const std::vector<std::unique_ptr<SecretClustering>>& c) {
      std::vector<ReleaseRequest> r;
      for (std::size_t l = 0; l < c.size(); ++l) r.push_back({c[l].get(), &key, l, t, 0.5 + 0.5 * double(l)});
      return r;
    };
    const auto a = SecretClustering::release_batch(requests(on_cpu));
    const auto b = SecretClustering::release_batch(requests(on_gpu));
    const auto c = SecretClustering::release_batch(requests(on_corrupt));
    std::vector<SecpeVoteJob> cpu_jobs, gpu_jobs;
    for (std::size_t l = 0; l < a.size(); ++l) {
      EXPECT_EQ(a[l].sizes, b[l].sizes) << "label " << l;
      EXPECT_TRUE((a[l].centres.array() == b[l].centres.array()).all()) << "label " << l;
      EXPECT_EQ(a[l].sizes, c[l].sizes) << "label " << l;
      EXPECT_TRUE((a[l].centres.array() == c[l].centres.array()).all()) << "label " << l;
      EXPECT_TRUE(b[l].device_copy) << "the released centres stay on the device";
      cpu_jobs.push_back({&self, &a[l], &cands[l]});
      gpu_jobs.push_back({&self, &b[l], &cands[l]});
    }
    const DeviceTraffic before = gpu->traffic();
    const auto va = secpe_votes_batch(cpu_jobs, cpu, Metric::kCosine, 1);
    const auto vb = secpe_votes_batch(gpu_jobs, *gpu, Metric::kCosine, 1);
    std::size_t candidate_bytes = 0;
    for (const MatrixF& m : cands) candidate_bytes += static_cast<std::size_t>(m.size()) * 4 + 3 * static_cast<std::size_t>(m.rows()) * 8 + 512;
    EXPECT_LE((gpu->traffic() - before).bytes_up, candidate_bytes) << "only the candidates go up";
    for (std::size_t l = 0; l < va.size(); ++l) {
      EXPECT_EQ(va[l].votes, vb[l].votes) << "label " << l;
      EXPECT_EQ(va[l].tie_key, vb[l].tie_key) << "label " << l;
    }
  }
  EXPECT_EQ(gpu->traffic().check_failures, 0u);
  EXPECT_EQ(corrupt->traffic().check_failures, 1u);
  const DevicePhases phases = gpu->traffic().phases;
  for (const DevicePhase p : {DevicePhase::kRelease, DevicePhase::kReleaseHost, DevicePhase::kReleaseNorms, DevicePhase::kUpload,
                              DevicePhase::kDownload, DevicePhase::kGemm, DevicePhase::kWait}) {
    EXPECT_GT(phases[p], 0.0) << kDevicePhaseNames[static_cast<std::size_t>(p)] << ": the release and the votes are timed";
  }
  const DevicePhases untimed = corrupt->traffic().phases;
  EXPECT_EQ(untimed[DevicePhase::kRelease] + untimed[DevicePhase::kWait], 0.0);
}

}  // namespace
}  // namespace secpe
