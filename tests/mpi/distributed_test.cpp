// Distributed algorithms give bit-identical results to a single-rank run of the same data:
// each test runs the algorithm over MPI_COMM_WORLD (sharded) and over MPI_COMM_SELF (all rows).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compute/cpu/blas_kernel.hpp"
#include "compute/cpu/reference_kernel.hpp"
#include "cluster/kmeans.hpp"
#include "cluster/secret_clustering.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "comms/mpi_communicator.hpp"
#include "evolve/votes.hpp"

namespace secpe {
namespace {

// n points around `clusters` well-separated unit vectors in d dimensions; point i depends only on i.
MatrixF clustered_points(std::size_t n, int d, int clusters) {
  MatrixF x(static_cast<Eigen::Index>(n), d);
  for (std::size_t i = 0; i < n; ++i) {
    CounterRng rng(11, Stream::kCorpus, i);
    const int c = static_cast<int>(i % static_cast<std::size_t>(clusters));
    for (int j = 0; j < d; ++j) x(static_cast<Eigen::Index>(i), j) = static_cast<float>((j == c ? 1.0 : 0.0) + 0.05 * rng.normal());
    x.row(static_cast<Eigen::Index>(i)).normalize();
  }
  return x;
}

NoiseKey test_key(unsigned char first = 1) {
  NoiseKey key;
  for (std::size_t i = 0; i < key.bytes.size(); ++i) key.bytes[i] = static_cast<unsigned char>(first + i);
  return key;
}

MatrixF shard_of(const Communicator& comm, const MatrixF& all) {
  const auto [b, e] = comm.shard(static_cast<std::uint64_t>(all.rows()));
  return all.middleRows(static_cast<Eigen::Index>(b), static_cast<Eigen::Index>(e - b));
}

// This rank's block of a whole release, as SecretClustering::release shards it.
NoisyClusters block_of(const Communicator& comm, const NoisyClusters& all) {
  return {shard_of(comm, all.centres), all.sizes, static_cast<Eigen::Index>(comm.shard(all.sizes.size()).first)};
}

TEST(Communicator, ShardsCoverAllRecordsContiguously) {
  const MpiCommunicator world;
  const std::uint64_t n = 1003;
  const auto [b, e] = world.shard(n);
  EXPECT_EQ(world.allreduce_sum(static_cast<std::int64_t>(e - b)), static_cast<std::int64_t>(n));
  EXPECT_EQ(world.exclusive_scan_sum(static_cast<std::int64_t>(e - b)), static_cast<std::int64_t>(b));
}

// Rank f sends rank t a block of (f + 1) (t + 1) bytes, each byte 16 f + t, and rank 1 nothing
// (empty blocks); the block a rank sends itself is returned with the others.
TEST(Communicator, AlltoallvDeliversEveryBlockInRankOrder) {
  const MpiCommunicator world;
  const auto ranks = static_cast<std::size_t>(world.size()), me = static_cast<std::size_t>(world.rank());
  const auto length = [](std::size_t from, std::size_t to) { return to == 1 ? std::size_t{0} : (from + 1) * (to + 1); };
  std::vector<std::size_t> counts(ranks);
  std::vector<unsigned char> send;
  std::uint64_t away = 0;
  for (std::size_t t = 0; t < ranks; ++t) {
    counts[t] = length(me, t);
    send.insert(send.end(), counts[t], static_cast<unsigned char>(16 * me + t));
    away += t == me ? 0 : counts[t];
  }
  const std::uint64_t before = world.bytes_sent();
  std::vector<std::size_t> received_counts;
  const std::vector<unsigned char> received = world.alltoallv(send, counts, received_counts);
  EXPECT_EQ(world.bytes_sent() - before, away) << "the bytes that left this rank";
  ASSERT_EQ(received_counts.size(), ranks);
  std::size_t at = 0;
  for (std::size_t f = 0; f < ranks; ++f) {
    ASSERT_EQ(received_counts[f], length(f, me)) << "from rank " << f;
    for (std::size_t i = 0; i < received_counts[f]; ++i) ASSERT_EQ(received[at + i], static_cast<unsigned char>(16 * f + me));
    at += received_counts[f];
  }
  EXPECT_EQ(at, received.size());
  EXPECT_THROW(world.alltoallv(send, std::vector<std::size_t>(ranks + 1, 0), received_counts), std::invalid_argument);
}

TEST(Communicator, AllgatherStringsKeepsRankOrder) {
  const MpiCommunicator world;
  std::vector<std::string> mine;
  for (int i = 0; i <= world.rank(); ++i) mine.push_back("r" + std::to_string(world.rank()) + "," + std::string(static_cast<std::size_t>(i), 'x'));
  const auto all = world.allgather_strings(mine);
  std::size_t k = 0;
  for (int r = 0; r < world.size(); ++r)
    for (int i = 0; i <= r; ++i) EXPECT_EQ(all[k++], "r" + std::to_string(r) + "," + std::string(static_cast<std::size_t>(i), 'x'));
  EXPECT_EQ(k, all.size());
}

TEST(Communicator, MinLocBreaksTiesByLowestIndex) {
  const MpiCommunicator world;
  std::vector<MinLoc> v{{1.0, 100 - world.rank()}, {static_cast<double>(world.rank()), world.rank()}};
  world.allreduce_min_loc(v);
  EXPECT_EQ(v[0].value, 1.0);
  EXPECT_EQ(v[0].index, 100 - (world.size() - 1));
  EXPECT_EQ(v[1].value, 0.0);
  EXPECT_EQ(v[1].index, 0);
}

// Large buffers make Open MPI segment the reduction (ring and pipelined algorithms split at byte
// offsets); an element cut in two was dropped or spliced when the operation ran over MPI_BYTE.
// Odd sizes put the segment boundaries inside 16-byte elements; every element must come out right.
TEST(Communicator, MinLocIsExactForLargeAndOddSizes) {
  const MpiCommunicator world;
  for (const std::size_t n : {std::size_t{1}, std::size_t{515}, std::size_t{4097}, std::size_t{65537}, std::size_t{300001}}) {
    std::vector<MinLoc> v(n);
    // Element i's minimum lives on rank i % size; other ranks hold larger values or equal values
    // with larger indices, so both the value and the tie-break are checked.
    for (std::size_t i = 0; i < n; ++i) {
      const int owner = static_cast<int>(i % static_cast<std::size_t>(world.size()));
      const double value = static_cast<double>(i % 97) + (world.rank() == owner ? 0.0 : (world.rank() % 2 ? 0.5 : 0.0));
      v[i] = {value, static_cast<std::int64_t>(i) * 8 + (world.rank() == owner ? 0 : 1 + world.rank())};
    }
    world.allreduce_min_loc(v);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
      wrong += v[i].value == static_cast<double>(i % 97) && v[i].index == static_cast<std::int64_t>(i) * 8 ? 0 : 1;
    EXPECT_EQ(wrong, 0u) << "n = " << n << " at " << world.size() << " ranks";
  }
}

void expect_identical(const KMeansResult& sharded, const KMeansResult& single) {
  EXPECT_EQ(sharded.sizes, single.sizes);
  EXPECT_EQ(sharded.iterations, single.iterations);
  EXPECT_EQ(sharded.empty_repairs, single.empty_repairs);
  EXPECT_EQ(sharded.init_candidates, single.init_candidates);
  ASSERT_EQ(sharded.centres.rows(), single.centres.rows());
  ASSERT_EQ(sharded.centres.cols(), single.centres.cols());
  EXPECT_TRUE((sharded.centres.array() == single.centres.array()).all()) << "centres differ from the single-rank run";
}

std::vector<std::int64_t> sorted(std::vector<std::int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

class DistributedKMeansInit : public testing::TestWithParam<KMeansInit> {};

TEST_P(DistributedKMeansInit, IdenticalToSingleRankAndRecoversClusters) {
  const MpiCommunicator world, self(MPI_COMM_SELF);
  const MatrixF all = clustered_points(601, 8, 4);
  ReferenceKernel kernel;
  KMeansOptions options;
  options.k = 4;
  options.seed = 3;
  options.init = GetParam();
  const auto sharded = distributed_kmeans(world, shard_of(world, all), kernel, options);
  const auto single = distributed_kmeans(self, all, kernel, options);
  ASSERT_EQ(sharded.centres.rows(), 4);
  expect_identical(sharded, single);
  if (GetParam() == KMeansInit::kParallel) {
    EXPECT_GT(sharded.init_candidates, 4);  // the reduction ran
  }
  // Well separated: every true cluster (150 or 151 points) is found. Random seeding may put two
  // centres in one cluster, so it only has to match the single-rank run.
  if (GetParam() != KMeansInit::kRandom) {
    EXPECT_EQ(sorted(sharded.sizes), (std::vector<std::int64_t>{150, 150, 150, 151}));
  }
}

TEST_P(DistributedKMeansInit, L2WithBlasKernelAndManyClustersIdenticalToSingleRank) {
  const MpiCommunicator world, self(MPI_COMM_SELF);
  const MatrixF all = clustered_points(1500, 40, 30);
  BlasKernel kernel(BlasKernelOptions{.threads = 2});
  KMeansOptions options;
  options.k = 30;
  options.seed = 5;
  options.stream = 7;
  options.metric = Metric::kL2;
  options.max_iterations = 6;
  options.init = GetParam();
  options.threads = 2;
  const auto sharded = distributed_kmeans(world, shard_of(world, all), kernel, options);
  const auto single = distributed_kmeans(self, all, kernel, options);
  ASSERT_EQ(sharded.centres.rows(), 30);
  expect_identical(sharded, single);
  // The thread count of the seeding and the sums changes nothing either.
  options.threads = 1;
  expect_identical(distributed_kmeans(world, shard_of(world, all), kernel, options), single);
  std::int64_t total = 0;
  for (auto s : sharded.sizes) total += s;
  EXPECT_EQ(total, 1500);
}

TEST_P(DistributedKMeansInit, FewerRowsThanClustersAndEmptyShards) {
  const MpiCommunicator world, self(MPI_COMM_SELF);
  const MatrixF all = clustered_points(3, 5, 3);
  ReferenceKernel kernel;
  KMeansOptions options;
  options.k = 10;
  options.init = GetParam();
  const auto sharded = distributed_kmeans(world, shard_of(world, all), kernel, options);
  EXPECT_EQ(sharded.centres.rows(), 3);
  std::int64_t total = 0;
  for (auto s : sharded.sizes) total += s;
  EXPECT_EQ(total, 3);
  expect_identical(sharded, distributed_kmeans(self, all, kernel, options));
}

TEST_P(DistributedKMeansInit, NoRowsAnywhere) {
  const MpiCommunicator world;
  ReferenceKernel kernel;
  KMeansOptions options;
  options.init = GetParam();
  const auto r = distributed_kmeans(world, MatrixF(0, 4), kernel, options);
  EXPECT_EQ(r.centres.rows(), 0);
  EXPECT_TRUE(r.sizes.empty());
}

// Only six distinct points among 120 rows: seeding runs out of distinct rows and stops at six.
TEST_P(DistributedKMeansInit, DuplicateRowsGiveFewerCentres) {
  if (GetParam() == KMeansInit::kRandom) GTEST_SKIP() << "random seeding picks rows, duplicates included";
  const MpiCommunicator world, self(MPI_COMM_SELF);
  const MatrixF distinct = clustered_points(6, 8, 6);
  MatrixF all(120, 8);
  for (Eigen::Index i = 0; i < all.rows(); ++i) all.row(i) = distinct.row((i * 7) % 6);
  ReferenceKernel kernel;
  for (Metric metric : {Metric::kCosine, Metric::kL2}) {
    KMeansOptions options;
    options.k = 10;
    options.metric = metric;
    options.init = GetParam();
    const auto sharded = distributed_kmeans(world, shard_of(world, all), kernel, options);
    EXPECT_EQ(sharded.centres.rows(), 6);
    EXPECT_EQ(sorted(sharded.sizes), (std::vector<std::int64_t>(6, 20)));
    expect_identical(sharded, distributed_kmeans(self, all, kernel, options));
  }
}

INSTANTIATE_TEST_SUITE_P(Inits, DistributedKMeansInit,
                         testing::Values(KMeansInit::kParallel, KMeansInit::kPlusPlus, KMeansInit::kRandom),
                         [](const testing::TestParamInfo<KMeansInit>& info) { return kmeans_init_name(info.param); });

// k-means|| with too few candidates for k (one round, little oversampling; or no rounds at all)
// tops up with k-means++ over the rows.
TEST(DistributedKMeans, ParallelTopsUpWhenCandidatesAreFewerThanK) {
  const MpiCommunicator world, self(MPI_COMM_SELF);
  const MatrixF all = clustered_points(601, 8, 4);
  ReferenceKernel kernel;
  for (int rounds : {0, 1}) {
    KMeansOptions options;
    options.k = 12;
    options.seed = 9;
    options.init_rounds = rounds;
    options.oversampling = 0.25;
    const auto sharded = distributed_kmeans(world, shard_of(world, all), kernel, options);
    EXPECT_LT(sharded.init_candidates, 12);
    EXPECT_EQ(sharded.centres.rows(), 12);
    expect_identical(sharded, distributed_kmeans(self, all, kernel, options));
  }
}

TEST(DistributedKMeans, InitNames) {
  for (KMeansInit init : {KMeansInit::kParallel, KMeansInit::kPlusPlus, KMeansInit::kRandom}) {
    EXPECT_EQ(parse_kmeans_init(kmeans_init_name(init)), init);
  }
  EXPECT_THROW(parse_kmeans_init("forgy"), InputError);
  EXPECT_EQ(KMeansOptions{}.init, KMeansInit::kRandom);
}

TEST(SecretClustering, NoisyReleaseIdenticalToSingleRank) {
  const MpiCommunicator world, self(MPI_COMM_SELF);
  const MatrixF pub = clustered_points(200, 6, 3);
  const MatrixF pri = clustered_points(97, 6, 3);
  ReferenceKernel kernel;
  KMeansOptions options;
  options.k = 3;
  const auto km = distributed_kmeans(self, pub, kernel, options);
  std::vector<std::uint64_t> ids(97);
  std::vector<double> rho(97);
  for (std::size_t i = 0; i < 97; ++i) {
    ids[i] = 1000 + i;
    rho[i] = 0.3 + 0.005 * double(i);
  }
  const auto [b, e] = world.shard(97);
  SecretClustering sharded(world, km.centres, km.sizes, shard_of(world, pri),
                           std::vector<std::uint64_t>(ids.begin() + b, ids.begin() + e),
                           std::vector<double>(rho.begin() + b, rho.begin() + e), kernel, Metric::kCosine, 1.0);
  SecretClustering single(self, km.centres, km.sizes, pri, ids, rho, kernel, Metric::kCosine, 1.0);
  for (int t = 0; t < 3; ++t) {
    const auto a = sharded.release(test_key(), 2, t, 1.5);
    const auto s = single.release(test_key(), 2, t, 1.5);
    EXPECT_EQ(a.sizes, s.sizes);
    // Each rank holds its block of the centres (at 4 ranks, one holds none of the 3).
    EXPECT_EQ(static_cast<std::uint64_t>(a.first), world.shard(3).first);
    EXPECT_EQ(static_cast<std::uint64_t>(a.centres.rows()), world.shard(3).second - world.shard(3).first);
    const std::vector<float> all = world.allgather(std::span<const float>(a.centres.data(), a.centres.size()));
    EXPECT_TRUE(std::equal(all.begin(), all.end(), s.centres.data(), s.centres.data() + s.centres.size()) && all.size() == s.centres.size());
  }
}

// The centre noise 2R/n_k * sigma is calibrated to this bound: with one private record added to or
// removed from the data, no released centre moves by more than 2R/n_k and no size by more than 1.
// Public centres far outside R (l2 metric, long vectors) must not break it, for any R.
TEST(SecretClustering, OneRecordMovesACentreByAtMostTwoRadiiOverItsSize) {
  const MpiCommunicator world;
  const int d = 6;
  MatrixF pub = clustered_points(60, d, 3), pri = clustered_points(31, d, 3);
  pub *= 3.0f;  // norms about 3: far outside every radius tried
  pri *= 3.0f;
  ReferenceKernel kernel;
  KMeansOptions options;
  options.k = 3;
  options.metric = Metric::kL2;
  const auto km = distributed_kmeans(MpiCommunicator(MPI_COMM_SELF), pub, kernel, options);
  std::vector<std::uint64_t> ids(31);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = i;
  const std::vector<double> everyone(31, 1.0);
  for (const double radius : {0.25, 0.5, 1.0, 2.0}) {
    // D: every private record sampled (rho 1); D': the same without record 0 (rho 0). sigma 0.
    std::vector<double> without(everyone);
    without[0] = 0.0;
    const auto [b, e] = world.shard(31);
    const MatrixF shard = shard_of(world, pri);
    const std::vector<std::uint64_t> my_ids(ids.begin() + b, ids.begin() + e);
    SecretClustering with_d(world, km.centres, km.sizes, shard, my_ids, std::vector<double>(everyone.begin() + b, everyone.begin() + e),
                            kernel, Metric::kL2, radius);
    SecretClustering without_d(world, km.centres, km.sizes, shard, my_ids, std::vector<double>(without.begin() + b, without.begin() + e),
                               kernel, Metric::kL2, radius);
    EXPECT_EQ(with_d.clipped_centres(), 3);
    const auto x = with_d.release(test_key(), 0, 0, 0.0), y = without_d.release(test_key(), 0, 0, 0.0);
    for (Eigen::Index i = 0; i < x.centres.rows(); ++i) {
      const Eigen::Index c = x.first + i;
      const double moved = (x.centres.row(i) - y.centres.row(i)).cast<double>().norm();
      const double bound = 2.0 * radius / double(std::max<std::int64_t>(1, km.sizes[static_cast<std::size_t>(c)]));
      EXPECT_LE(moved, bound * (1 + 1e-6)) << "R = " << radius << ", centre " << c;
      EXPECT_LE(std::fabs(x.sizes[static_cast<std::size_t>(c)] - y.sizes[static_cast<std::size_t>(c)]), 1.0);
    }
  }
}

// The noise depends on the secret key, not on anything published: another key, other noise.
TEST(SecretClustering, NoiseComesFromTheSecretKey) {
  const MpiCommunicator world;
  const MatrixF pub = clustered_points(60, 6, 3), pri = clustered_points(20, 6, 3);
  ReferenceKernel kernel;
  KMeansOptions options;
  options.k = 3;
  const auto km = distributed_kmeans(MpiCommunicator(MPI_COMM_SELF), pub, kernel, options);
  std::vector<std::uint64_t> ids(20);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = i;
  const auto [b, e] = world.shard(20);
  SecretClustering c(world, km.centres, km.sizes, shard_of(world, pri), std::vector<std::uint64_t>(ids.begin() + b, ids.begin() + e),
                     std::vector<double>(e - b, 0.5), kernel, Metric::kCosine, 1.0);
  const auto a = c.release(test_key(1), 0, 0, 2.0), a2 = c.release(test_key(1), 0, 0, 2.0), z = c.release(test_key(2), 0, 0, 2.0);
  EXPECT_EQ(a.sizes, a2.sizes);
  for (std::size_t k = 0; k < a.sizes.size(); ++k) EXPECT_NE(a.sizes[k], z.sizes[k]);
}

TEST(Votes, AugPEHistogramCountsEveryPrivateRecordOnce) {
  const MpiCommunicator world;
  const MatrixF candidates = clustered_points(40, 6, 5);
  const MatrixF pri = clustered_points(123, 6, 5);
  ReferenceKernel kernel;
  // sigma 0: the released histogram is the exact vote count.
  const auto votes = augpe_votes(world, shard_of(world, pri), candidates, kernel, Metric::kCosine, 0.0, 0.0, test_key(), 0, 0);
  double total = 0;
  for (double v : votes.votes) total += v;
  EXPECT_EQ(total, 123.0);
}

TEST(Votes, SecPEVotesIdenticalToSingleRank) {
  const MpiCommunicator world, self(MPI_COMM_SELF);
  const MatrixF candidates = clustered_points(50, 6, 5);
  ReferenceKernel kernel;
  // 7 centres, and 2 (at 3 and 4 ranks, some ranks hold none).
  for (const auto& [noisy, total_size] : {std::pair{NoisyClusters{clustered_points(7, 6, 5), {3, 4, 5, 6, 7, 8, 9}}, 42.0},
                                          std::pair{NoisyClusters{clustered_points(2, 6, 5), {3, 4}}, 7.0}}) {
    const auto a = secpe_votes(world, block_of(world, noisy), candidates, kernel, Metric::kCosine, 1);
    const auto s = secpe_votes(self, noisy, candidates, kernel, Metric::kCosine, 1);
    EXPECT_EQ(a.votes, s.votes);
    EXPECT_EQ(a.tie_key, s.tie_key);
    double total = 0;
    for (double v : a.votes) total += v;
    EXPECT_EQ(total, total_size);
  }
}

}  // namespace
}  // namespace secpe

namespace secpe {
namespace {

TEST(Votes, SpreadOverKNearestIdenticalToSingleRank) {
  const MpiCommunicator world, self(MPI_COMM_SELF);
  const MatrixF candidates = clustered_points(50, 6, 5);
  const NoisyClusters noisy{clustered_points(7, 6, 5), {3, 4, 5, 6, 7, 8, 9}};
  ReferenceKernel kernel;
  const auto a = secpe_votes(world, block_of(world, noisy), candidates, kernel, Metric::kCosine, 3);
  const auto s = secpe_votes(self, noisy, candidates, kernel, Metric::kCosine, 3);
  EXPECT_EQ(a.votes, s.votes);
  EXPECT_EQ(a.tie_key, s.tie_key);
  double total = 0;
  std::size_t voted = 0;
  for (double v : a.votes) {
    total += v;
    voted += v > 0 ? 1 : 0;
  }
  EXPECT_NEAR(total, 42.0, 1e-12);
  EXPECT_GE(voted, 3u);
}

}  // namespace
}  // namespace secpe
