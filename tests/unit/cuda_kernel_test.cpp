// CPU against GPU: the CUDA kernel returns what the reference kernel returns, bit for bit (search,
// search_k, errors), its per-centre sums equal the CPU's, and k-means, SecPE's release and the
// Aug-PE histogram come out identical on either device. Every test skips without a GPU.
#include <gtest/gtest.h>

#include <random>

#include "cluster/kmeans.hpp"
#include "cluster/secret_clustering.hpp"
#include "compute/cpu/blas_kernel.hpp"
#include "compute/cuda_backend.hpp"
#include "compute/verify.hpp"
#include "dist/communicator.hpp"
#include "evolve/votes.hpp"
#include "kernel_test_util.hpp"

namespace secpe {
namespace {

#define SKIP_WITHOUT_GPU()                                                                     \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device here (or a build without CUDA): " \
                                                "the CPU/GPU equivalence is not checked on this machine"

using test::kMetrics;
using test::random_matrix;

// Kernels under test: default tiles, and tiles of a few rows (many tiles, both slots reused).
std::vector<std::unique_ptr<CudaKernel>> cuda_kernels() {
  std::vector<std::unique_ptr<CudaKernel>> v;
  v.push_back(make_cuda_kernel({.threads = 2}));
  v.push_back(make_cuda_kernel({.threads = 1, .tile_bytes = 20000}));
  v.push_back(make_cuda_kernel({.threads = 2, .tf32 = true}));
  return v;
}

void expect_agree(const MatrixF& x, const MatrixF& c, int k = 1) {
  for (const auto& kernel : cuda_kernels()) {
    for (const Metric m : kMetrics) {
      std::string report;
      EXPECT_TRUE(verify_against_reference(*kernel, x, c, m, &report, k)) << report << " (k " << k << ")";
    }
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
      for (const bool masked : {false, true}) {
        std::vector<std::int64_t> s_cpu(k * static_cast<std::size_t>(d), 7), c_cpu(k, 1), s_gpu = s_cpu, c_gpu = c_cpu;
        const std::span<const std::uint8_t> mask = masked ? std::span<const std::uint8_t>(include) : std::span<const std::uint8_t>();
        cpu.add_to_centres(x, centre_of, mask, s_cpu, c_cpu);
        gpu->add_to_centres(x, centre_of, mask, s_gpu, c_gpu);
        EXPECT_EQ(s_cpu, s_gpu) << "d " << d << ", masked " << masked;
        EXPECT_EQ(c_cpu, c_gpu);
      }
    }
  }
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
  const auto gpu = make_cuda_kernel({.threads = 2});
  KMeansOptions options;
  options.k = 12;
  options.seed = 4;
  const MatrixF pub = clustered(3000, 24, 12, 1), pri = clustered(977, 24, 12, 2);
  const KMeansResult a = distributed_kmeans(self, pub, cpu, options), b = distributed_kmeans(self, pub, *gpu, options);
  EXPECT_TRUE((a.centres.array() == b.centres.array()).all());
  EXPECT_EQ(a.sizes, b.sizes);
  EXPECT_EQ(a.assignment, b.assignment);

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
}

}  // namespace
}  // namespace secpe
