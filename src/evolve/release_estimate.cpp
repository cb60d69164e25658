#include "evolve/release_estimate.hpp"

#include <algorithm>
#include <cmath>

namespace secpe {

namespace {
constexpr double kStandardErrors = 2.0;  // how far below its estimate a signal variance is taken
}  // namespace

NoisyClusters shrink_release(const Communicator& comm, const NoisyClusters& released, const MatrixF& public_centres,
                             std::span<const std::int64_t> public_sizes, double sigma, double clip_radius,
                             ReleaseShrinkage* shrinkage) {
  const auto k = static_cast<Eigen::Index>(released.sizes.size());
  const Eigen::Index rows = released.centres.rows(), d = public_centres.cols(), first = released.first;
  NoisyClusters out{MatrixF(rows, d), std::vector<double>(static_cast<std::size_t>(k)), first, nullptr};
  if (k == 0) return out;
  const double noise_var = sigma * sigma;
  // Sizes: the residual r_k = released - n_k is m_k plus noise; its spread beyond sigma^2 is the
  // private counts' variance tau^2, and r_k is shrunk towards the mean residual.
  double mean_r = 0.0, mean_r2 = 0.0;
  for (Eigen::Index c = 0; c < k; ++c) {
    const double r = released.sizes[c] - double(public_sizes[c]);
    mean_r += r / double(k);
    mean_r2 += r * r / double(k);
  }
  // Conservative: the variance estimate less two of its standard errors (about sigma^2 sqrt(2/K)
  // when the noise dominates), so that a noise-only release keeps nothing of its private counts.
  const double tau2 = std::max(0.0, mean_r2 - mean_r * mean_r - noise_var - kStandardErrors * noise_var * std::sqrt(2.0 / double(k)));
  const double w_size = tau2 + noise_var > 0 ? tau2 / (tau2 + noise_var) : 1.0;
  for (Eigen::Index c = 0; c < k; ++c) {
    const double r = released.sizes[c] - double(public_sizes[c]);
    out.sizes[c] = double(public_sizes[c]) + std::max(0.0, mean_r + w_size * (r - mean_r));
  }
  // Centres: the shift from the public part has squared norm |delta_k|^2 + d s_k^2, with s_k the
  // release's noise scale; the excess per coordinate, averaged over the clusters with weights
  // 1 / s_k^4 (its variance is about 2 s_k^4 / d), less two standard errors, is the private signal.
  auto noise_scale2 = [&](Eigen::Index c) {
    const double s = 2.0 * clip_radius / std::max(1.0, double(public_sizes[c])) * sigma;
    return s * s;
  };
  // Each rank measures its own centres' shifts; every rank then sums all K in centre order.
  std::vector<double> shift(static_cast<std::size_t>(rows));
  for (Eigen::Index i = 0; i < rows; ++i) {
    shift[static_cast<std::size_t>(i)] = (released.centres.row(i) - public_centres.row(first + i)).cast<double>().squaredNorm() / double(d);
  }
  const std::vector<double> shifts = comm.allgather(std::span<const double>(shift));
  double excess = 0.0, weights = 0.0;
  for (Eigen::Index c = 0; c < k; ++c) {
    const double s2 = noise_scale2(c), w = s2 > 0 ? 1.0 / (s2 * s2) : 0.0;
    if (w == 0.0) continue;  // sigma = 0: nothing to shrink
    excess += w * (shifts[static_cast<std::size_t>(c)] - s2);
    weights += w;
  }
  const double signal = weights > 0 ? std::max(0.0, excess / weights - kStandardErrors * std::sqrt(2.0 / double(d) / weights)) : 0.0;
  for (Eigen::Index i = 0; i < rows; ++i) {
    const Eigen::Index c = first + i;
    const double w = signal + noise_scale2(c) > 0 ? signal / (signal + noise_scale2(c)) : 1.0;
    out.centres.row(i) = public_centres.row(c) + static_cast<float>(w) * (released.centres.row(i) - public_centres.row(c));
  }
  if (shrinkage) *shrinkage = {.size_weight = w_size, .centre_signal = signal};
  return out;
}

}  // namespace secpe
