// The last step of every fast kernel: its candidates rescored with the exact formula, so the
// answer is the reference's whatever found the candidates (compute/exact_score.hpp).
#include <algorithm>

#include "compute/exact_score.hpp"

namespace secpe::exact {

void best_k_of(Metric metric, const float* x, double row_norm, const MatrixF& centres, std::span<const double> centre_norms,
               std::span<const std::int32_t> ids, std::size_t k, std::vector<std::pair<double, std::int32_t>>& scratch,
               std::int32_t* nearest, double* score) {
  const Eigen::Index d = centres.cols();
  scratch.clear();
  std::size_t q = 0;
  for (; q + 4 <= ids.size(); q += 4) {
    const float* c[4];
    double cn[4], out[4];
    for (std::size_t t = 0; t < 4; ++t) {
      c[t] = centres.row(ids[q + t]).data();
      cn[t] = centre_norms[static_cast<std::size_t>(ids[q + t])];
    }
    pair_scores4(metric, x, c, d, row_norm, cn, out);
    for (std::size_t t = 0; t < 4; ++t) scratch.emplace_back(out[t], ids[q + t]);
  }
  for (; q < ids.size(); ++q) {
    const std::int32_t c = ids[q];
    scratch.emplace_back(pair_score(metric, x, centres.row(c).data(), d, row_norm, centre_norms[static_cast<std::size_t>(c)]), c);
  }
  const auto less = [](const std::pair<double, std::int32_t>& a, const std::pair<double, std::int32_t>& b) {
    return better(a.first, a.second, b.first, b.second);
  };
  std::partial_sort(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(k), scratch.end(), less);
  for (std::size_t j = 0; j < k; ++j) {
    nearest[j] = scratch[j].second;
    score[j] = scratch[j].first;
  }
}

}  // namespace secpe::exact
