// The reference kernel (HPCG's plain kernel beside the optimised ones): every other kernel is
// checked against it (compute/verify.hpp).
#include <algorithm>
#include <limits>
#include <numeric>

#include "compute/cpu/reference_kernel.hpp"
#include "compute/impl/exact_score.hpp"

namespace secpe {

void ReferenceKernel::search(const MatrixF& x, const MatrixF& centres, Metric metric,
                             std::span<std::int32_t> nearest, std::span<double> score) const {
  if (x.rows() == 0) return;
  const exact::Prepared p = exact::prepare(x, centres, metric, 1, nearest.size(), score.size());
  const Eigen::Index d = x.cols();
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const float* xi = x.row(i).data();
    double best = std::numeric_limits<double>::infinity();
    std::int32_t best_k = 0;
    for (Eigen::Index k = 0; k < centres.rows(); ++k) {
      const double s = exact::pair_score(metric, xi, centres.row(k).data(), d, p.row_norms[i], p.centre_norms[k]);
      if (s < best) {  // strict: ties keep the lowest index
        best = s;
        best_k = static_cast<std::int32_t>(k);
      }
    }
    nearest[i] = best_k;
    score[i] = best;
  }
}

void ReferenceKernel::search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                               std::span<std::int32_t> nearest, std::span<double> score) const {
  if (x.rows() == 0) return;
  const auto kk = static_cast<std::size_t>(std::max(k, 0));
  const exact::Prepared p = exact::prepare(x, centres, metric, kk, nearest.size(), score.size());
  const Eigen::Index d = x.cols();
  const auto n = static_cast<std::size_t>(centres.rows());
  std::vector<double> s(n);
  std::vector<std::int32_t> order(n);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const float* xi = x.row(i).data();
    for (std::size_t c = 0; c < n; ++c) {
      s[c] = exact::pair_score(metric, xi, centres.row(static_cast<Eigen::Index>(c)).data(), d, p.row_norms[i],
                               p.centre_norms[c]);
    }
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kk), order.end(),
                      [&](std::int32_t a, std::int32_t b) { return exact::better(s[a], a, s[b], b); });
    for (std::size_t j = 0; j < kk; ++j) {
      nearest[i * kk + j] = order[j];
      score[i * kk + j] = s[order[j]];
    }
  }
}

}  // namespace secpe
