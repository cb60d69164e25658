#include "eval/mauve.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "cluster/kmeans.hpp"
#include "compute/nearest.hpp"
#include "core/error.hpp"
#include "comms/communicator.hpp"

namespace secpe {
namespace {

// KL(a || b) in nats over the entries where a > 0 (b > 0 there: b mixes a in).
double kl(std::span<const double> a, std::span<const double> b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] > 0) sum += a[i] * std::log(a[i] / b[i]);
  return sum;
}

// The trapezoid area under the polyline through `points`, taken in the order of their first
// coordinate.
double area(std::vector<std::pair<double, double>> points) {
  std::stable_sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double sum = 0;
  for (std::size_t i = 1; i < points.size(); ++i)
    sum += (points[i].first - points[i - 1].first) * (points[i].second + points[i - 1].second) / 2;
  return sum;
}

}  // namespace

std::vector<double> mauve_weights() {
  std::vector<double> w;
  constexpr double kEnd = 1e-6;
  for (int i = 0; i < kMauveCurvePoints; ++i) w.push_back(kEnd + (1 - 2 * kEnd) * i / (kMauveCurvePoints - 1));
  return w;
}

double mauve_of_histograms(std::span<const double> p, std::span<const double> q, std::span<const double> weights, double scaling) {
  if (p.size() != q.size()) throw std::invalid_argument("mauve_of_histograms: histograms of different lengths");
  std::vector<std::pair<double, double>> curve = {{1.0, 0.0}, {0.0, 1.0}};  // exp(-c (0, inf)), exp(-c (inf, 0))
  std::vector<double> r(p.size());
  for (const double w : weights) {
    for (std::size_t i = 0; i < p.size(); ++i) r[i] = w * p[i] + (1 - w) * q[i];
    curve.emplace_back(std::exp(-scaling * kl(q, r)), std::exp(-scaling * kl(p, r)));
  }
  std::vector<std::pair<double, double>> swapped;
  for (const auto& [x, y] : curve) swapped.emplace_back(y, x);
  return (area(curve) + area(std::move(swapped))) / 2;
}

MauveScore mauve(const MatrixF& synthetic, const MatrixF& real, const MauveOptions& options) {
  if (synthetic.rows() == 0 || real.rows() == 0) throw InputError("MAUVE needs a record on each side");
  if (synthetic.cols() != real.cols()) throw InputError("MAUVE: embeddings of different widths");
  const auto smaller = std::min(synthetic.rows(), real.rows());
  const int k = options.clusters > 0 ? options.clusters : std::max(2, static_cast<int>(std::lround(static_cast<double>(smaller) / 10)));
  MatrixF both(synthetic.rows() + real.rows(), real.cols());
  both << synthetic, real;
  const auto kernel = make_kernel(options.kernel, options.threads);
  KMeansOptions quantiser;
  quantiser.k = k;
  quantiser.max_iterations = options.max_iterations;
  quantiser.metric = Metric::kL2;
  quantiser.seed = options.seed;
  quantiser.init = KMeansInit::kPlusPlus;
  quantiser.threads = options.threads;
  const KMeansResult clusters = distributed_kmeans(LocalCommunicator(), both, *kernel, quantiser);
  const auto centres = static_cast<std::size_t>(clusters.centres.rows());
  std::vector<double> p(centres, 0.0), q(centres, 0.0);
  for (Eigen::Index i = 0; i < both.rows(); ++i) {
    const auto c = static_cast<std::size_t>(clusters.assignment[static_cast<std::size_t>(i)]);
    (i < synthetic.rows() ? q : p)[c] += 1;
  }
  for (double& x : q) x /= static_cast<double>(synthetic.rows());
  for (double& x : p) x /= static_cast<double>(real.rows());
  return {.mauve = mauve_of_histograms(p, q, mauve_weights()), .clusters = static_cast<int>(centres)};
}

}  // namespace secpe
