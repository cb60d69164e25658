#include "cluster/kmeans.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace secpe {
namespace {

// Seeding weights (D^2) are reduced as fixed point with 2^-20 resolution: enough to order
// candidates, and two million unit-sphere rows still sum far below 2^63.
constexpr double kWeightScale = 1048576.0;

// Distance used for seeding and repairs: squared L2, or 1 - cos for the cosine metric (half the
// squared L2 distance between unit vectors), from the kernel's score.
double seeding_distance(double score, Metric metric) {
  return metric == Metric::kCosine ? std::max(0.0, 1.0 + score) : std::max(0.0, score);
}

// Draws one global row with probability proportional to `weights` (fixed point, this rank's rows)
// and returns it on every rank. Returns false when every weight is zero.
bool draw_weighted_row(const Communicator& comm, const MatrixF& rows, const std::vector<std::int64_t>& weights,
                       CounterRng& rng, Eigen::Index d, Eigen::Ref<Eigen::RowVectorXf> out) {
  std::int64_t local_total = 0;
  for (auto w : weights) local_total += w;
  const std::int64_t before = comm.exclusive_scan_sum(local_total);
  const std::int64_t total = comm.allreduce_sum(local_total);
  if (total <= 0) return false;
  const auto u = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(total)));
  const bool owner = u >= before && u < before + local_total;
  const int owner_rank = static_cast<int>(comm.allreduce_max(owner ? comm.rank() : -1));
  std::vector<float> row(static_cast<std::size_t>(d));
  if (owner) {
    std::int64_t acc = before;
    for (std::size_t i = 0; i < weights.size(); ++i) {
      acc += weights[i];
      if (u < acc) {
        std::copy_n(rows.row(static_cast<Eigen::Index>(i)).data(), d, row.begin());
        break;
      }
    }
  }
  comm.broadcast(std::span<float>(row), owner_rank);
  out = Eigen::Map<Eigen::RowVectorXf>(row.data(), d);
  return true;
}

void normalise_rows(MatrixF& m) {
  for (Eigen::Index k = 0; k < m.rows(); ++k) {
    const double n = m.row(k).cast<double>().norm();
    if (n > 0) m.row(k) = (m.row(k).cast<double>() / n).cast<float>();
  }
}

}  // namespace

KMeansResult distributed_kmeans(const Communicator& comm, const MatrixF& rows, const NearestCentreKernel& kernel,
                                const KMeansOptions& options) {
  if (options.metric == Metric::kInnerProduct) throw InputError("k-means supports the l2 and cosine metrics");
  if (options.k < 1) throw InputError("k-means: k must be at least 1");
  const std::int64_t total_rows = comm.allreduce_sum(static_cast<std::int64_t>(rows.rows()));
  const auto d = static_cast<Eigen::Index>(comm.allreduce_max(static_cast<double>(rows.cols())));
  KMeansResult result;
  if (total_rows == 0) return result;
  const auto k = static_cast<Eigen::Index>(std::min<std::int64_t>(options.k, total_rows));
  const Eigen::Index n = rows.rows();
  const auto nz = static_cast<std::size_t>(n);
  const std::int64_t offset = comm.exclusive_scan_sum(n);

  // ---- k-means++ seeding ----
  CounterRng rng(options.seed, Stream::kKMeansInit, options.stream);
  MatrixF centres(k, d);
  std::vector<std::int64_t> weights(nz, 1);
  draw_weighted_row(comm, rows, weights, rng, d, centres.row(0));
  std::vector<double> min_dist(nz, std::numeric_limits<double>::infinity());
  std::vector<std::int32_t> nearest(nz);
  std::vector<double> score(nz);
  Eigen::Index seeded = 1;
  for (; seeded < k; ++seeded) {
    kernel.search(rows, centres.middleRows(seeded - 1, 1), options.metric, nearest, score);
    for (std::size_t i = 0; i < nz; ++i) {
      min_dist[i] = std::min(min_dist[i], seeding_distance(score[i], options.metric));
      weights[i] = static_cast<std::int64_t>(std::llround(min_dist[i] * kWeightScale));
    }
    if (!draw_weighted_row(comm, rows, weights, rng, d, centres.row(seeded))) break;  // all rows already centres
  }
  centres.conservativeResize(seeded, d);
  const Eigen::Index kk = seeded;

  // ---- Lloyd iterations ----
  std::vector<std::int64_t> sums(static_cast<std::size_t>(kk * d)), counts(static_cast<std::size_t>(kk));
  auto accumulate = [&] {
    kernel.search(rows, centres, options.metric, nearest, score);
    std::fill(sums.begin(), sums.end(), 0);
    std::fill(counts.begin(), counts.end(), 0);
    for (std::size_t i = 0; i < nz; ++i) {
      const auto c = static_cast<std::size_t>(nearest[i]);
      ++counts[c];
      const float* x = rows.row(static_cast<Eigen::Index>(i)).data();
      for (Eigen::Index j = 0; j < d; ++j) sums[c * d + j] += to_fixed(x[j]);
    }
    comm.allreduce_sum(sums);
    comm.allreduce_sum(counts);
  };
  for (int it = 0; it < options.max_iterations; ++it) {
    accumulate();
    result.iterations = it + 1;
    MatrixF updated = centres;
    for (Eigen::Index c = 0; c < kk; ++c) {
      if (counts[c] == 0) continue;
      for (Eigen::Index j = 0; j < d; ++j) {
        updated(c, j) = static_cast<float>(from_fixed(sums[c * d + j]) / double(counts[c]));
      }
    }
    if (options.metric == Metric::kCosine) normalise_rows(updated);
    // Empty clusters take the row farthest from its centre (global, ties to the lowest index).
    for (Eigen::Index c = 0; c < kk; ++c) {
      if (counts[c] != 0) continue;
      MinLoc far{std::numeric_limits<double>::infinity(), std::numeric_limits<std::int64_t>::max()};
      for (std::size_t i = 0; i < nz; ++i) {
        const double v = -seeding_distance(score[i], options.metric);
        if (v < far.value) far = {v, offset + static_cast<std::int64_t>(i)};
      }
      comm.allreduce_min_loc(std::span<MinLoc>(&far, 1));
      const bool owner = far.index >= offset && far.index < offset + n;
      const int owner_rank = static_cast<int>(comm.allreduce_max(owner ? comm.rank() : -1));
      std::vector<float> row(static_cast<std::size_t>(d));
      if (owner) {
        const auto local = static_cast<Eigen::Index>(far.index - offset);
        std::copy_n(rows.row(local).data(), d, row.begin());
        score[static_cast<std::size_t>(local)] = -std::numeric_limits<double>::infinity();  // not chosen twice
      }
      comm.broadcast(std::span<float>(row), owner_rank);
      updated.row(c) = Eigen::Map<Eigen::RowVectorXf>(row.data(), d);
      ++result.empty_repairs;
    }
    const double shift = (updated - centres).rowwise().norm().maxCoeff();
    centres = std::move(updated);
    if (shift <= options.tolerance) break;
  }
  accumulate();  // sizes and assignment for the final centres
  result.centres = std::move(centres);
  result.sizes = counts;
  result.assignment = nearest;
  return result;
}

}  // namespace secpe
