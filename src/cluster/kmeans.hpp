#pragma once
// Distributed k-means over row shards (cuVS kmeans_mg style): each rank holds some rows, the
// communicator is passed in; assign locally, reduce per-centre sums and counts, allreduce.
// Sums are fixed point and counts integers, so the result is identical for any rank count.
#include <cstdint>
#include <span>
#include <vector>

#include "compute/nearest.hpp"
#include "core/matrix.hpp"
#include "dist/communicator.hpp"

namespace secpe {

struct KMeansOptions {
  int k = 20;
  int max_iterations = 20;
  double tolerance = 1e-4;      // stop when no centre moves more than this (L2)
  Metric metric = Metric::kCosine;  // cosine: spherical k-means, centres re-normalised
  std::uint64_t seed = 0;
  std::uint64_t stream = 0;     // e.g. the label id: separates the seeding streams of labels
};

struct KMeansResult {
  MatrixF centres;                    // k x d (k lowered to the number of rows if fewer)
  std::vector<std::int64_t> sizes;    // rows assigned to each centre (global)
  std::vector<std::int32_t> assignment;  // for this rank's rows
  int iterations = 0;
  int empty_repairs = 0;
};

// k-means++ seeding then Lloyd iterations. `rows` are this rank's rows; the global row order is
// rank order (ranks own contiguous record ranges), which seeding relies on to be rank-count
// independent. `kernel` computes assignments.
KMeansResult distributed_kmeans(const Communicator& comm, const MatrixF& rows,
                                const NearestCentreKernel& kernel, const KMeansOptions& options);

}  // namespace secpe
