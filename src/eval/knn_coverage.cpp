// Whether a query lies in some ball is not a nearest-centre question, but it becomes one: with the
// balls' centres lifted to c'_j = (c_j, a_j), a_j = sqrt(M - r_j), M = max_j r_j, and queries to
// q' = (q, 0), |q' - c'_j|^2 = |q - c_j|^2 - r_j + M, so the nearest lifted centre is the ball the
// query is deepest in. a_j is a float, so the lift is off by at most E = max_j |a_j^2 + r_j - M|;
// the nearest lifted centre is then checked exactly, and a query whose best lifted score is within
// E of the boundary (rare) is checked against every ball exactly.
#include "eval/knn_coverage.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compute/impl/exact_score.hpp"
#include "core/error.hpp"

namespace secpe {

namespace {

MatrixF rows_of(const MatrixF& m, std::int64_t begin, std::int64_t end) { return m.middleRows(begin, end - begin); }

}  // namespace

std::vector<double> knn_ball_radii(const MatrixF& points, std::int64_t begin, std::int64_t end, int k,
                                   const NearestCentreKernel& kernel) {
  if (k < 1 || k >= points.rows()) {
    throw InputError("k-NN balls: k = " + std::to_string(k) + " needs more than k points (have " +
                     std::to_string(points.rows()) + ")");
  }
  const MatrixF mine = rows_of(points, begin, end);
  const auto n = static_cast<std::size_t>(end - begin), kk = static_cast<std::size_t>(k) + 1;
  std::vector<std::int32_t> nearest(n * kk);
  std::vector<double> score(n * kk);
  // The k + 1 nearest include the point itself (or a duplicate at distance 0, which is as near):
  // the (k + 1)-th smallest distance of the whole set is the k-th smallest of the others.
  kernel.search_k(mine, points, Metric::kL2, k + 1, nearest, score);
  std::vector<double> radii(n);
  for (std::size_t i = 0; i < n; ++i) radii[i] = score[i * kk + kk - 1];
  return radii;
}

std::int64_t count_in_balls(const MatrixF& queries, std::int64_t begin, std::int64_t end, const MatrixF& centres,
                            std::span<const double> radii, const NearestCentreKernel& kernel) {
  if (begin == end || centres.rows() == 0) return 0;
  const Eigen::Index d = centres.cols();
  const double top = *std::max_element(radii.begin(), radii.end());
  MatrixF lifted(centres.rows(), d + 1);
  lifted.leftCols(d) = centres;
  double lift_error = 0.0;
  for (Eigen::Index j = 0; j < centres.rows(); ++j) {
    const auto a = static_cast<float>(std::sqrt(top - radii[static_cast<std::size_t>(j)]));
    lifted(j, d) = a;
    lift_error = std::max(lift_error, std::abs(double(a) * a + radii[static_cast<std::size_t>(j)] - top));
  }
  MatrixF q = MatrixF::Zero(end - begin, d + 1);
  q.leftCols(d) = rows_of(queries, begin, end);
  std::vector<std::int32_t> nearest(static_cast<std::size_t>(q.rows()));
  std::vector<double> lifted_score(nearest.size());
  kernel.search(q, lifted, Metric::kL2, nearest, lifted_score);

  constexpr double u = std::numeric_limits<double>::epsilon();
  auto inside = [&](const float* x, Eigen::Index j) {
    return exact::squared_l2(x, centres.row(j).data(), d) <= radii[static_cast<std::size_t>(j)];
  };
  std::int64_t count = 0;
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    const float* x = queries.row(begin + i).data();
    if (inside(x, nearest[static_cast<std::size_t>(i)])) {
      ++count;
      continue;
    }
    // Every ball j has |q - c_j|^2 - r_j >= lifted score - M - E (up to the double rounding of the
    // scores, covered by the 8u terms): when that is positive no ball holds q.
    const double best = lifted_score[static_cast<std::size_t>(i)];
    const double slack = 2.0 * lift_error + 8.0 * u * (best + top);
    if (best - top > slack) continue;
    for (Eigen::Index j = 0; j < centres.rows(); ++j) {
      if (inside(x, j)) {
        ++count;
        break;
      }
    }
  }
  return count;
}

}  // namespace secpe
