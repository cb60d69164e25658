#pragma once
// The two halves of k-NN precision and recall (Kynkaanniemi et al., NeurIPS 2019): each set's
// k-NN balls (a ball around each point reaching its k-th nearest other point of the same set), and
// how many points of the other set fall in at least one ball. Distances are squared L2 scores of
// the exact nearest-centre kernels (compute/nearest.hpp), so the answers are the same for any
// kernel, blocking, thread count or split of the rows over ranks.
#include <cstdint>
#include <span>
#include <vector>

#include "compute/nearest.hpp"

namespace secpe {

// The squared radius of the k-NN ball of points[begin, end): the exact squared distance to the
// k-th nearest of the other points (duplicates count as points at distance 0). Needs k < points.rows().
std::vector<double> knn_ball_radii(const MatrixF& points, std::int64_t begin, std::int64_t end, int k,
                                   const NearestCentreKernel& kernel);

// How many of queries[begin, end) lie in at least one ball (centre centres_j, squared radius
// radii[j]): |q - c_j|^2 <= radii[j], both sides exact.
std::int64_t count_in_balls(const MatrixF& queries, std::int64_t begin, std::int64_t end, const MatrixF& centres,
                            std::span<const double> radii, const NearestCentreKernel& kernel);

}  // namespace secpe
