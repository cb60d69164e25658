#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "compute/exact_score.hpp"
#include "compute/cpu/blas_kernel.hpp"
#include "compute/cpu/reference_kernel.hpp"
#include "compute/cuda_backend.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace secpe {

namespace exact {

Prepared prepare(const MatrixF& x, const MatrixF& centres, Metric metric, std::size_t k, std::size_t nearest_size,
                 std::size_t score_size, int threads) {
  const Eigen::Index d = x.cols();
  if (centres.rows() == 0) throw InputError("nearest-centre search: no centres");
  if (centres.cols() != d) {
    throw InputError("nearest-centre search: dimension mismatch (rows have " + std::to_string(d) +
                     ", centres have " + std::to_string(centres.cols()) + ")");
  }
  if (k < 1 || k > static_cast<std::size_t>(centres.rows())) {
    throw InputError("nearest-centre search: cannot return " + std::to_string(k) + " nearest of " +
                     std::to_string(centres.rows()) + " centres");
  }
  const std::size_t need = static_cast<std::size_t>(x.rows()) * k;
  if (nearest_size < need || score_size < need) {
    throw std::invalid_argument("nearest-centre search: output spans hold fewer than rows * k entries");
  }
  Prepared p;
  p.centre_norms.resize(static_cast<std::size_t>(centres.rows()));
  for (Eigen::Index c = 0; c < centres.rows(); ++c) {
    const double n = norm(centres.row(c).data(), d);
    if (!std::isfinite(n)) throw InputError("centre " + std::to_string(c) + " has a NaN or infinite value");
    if (metric == Metric::kCosine && n == 0.0) {
      throw InputError("cosine metric: centre " + std::to_string(c) + " is a zero vector");
    }
    p.centre_norms[c] = n;
  }
  // Row norms in chunks; each chunk stops at its first invalid row, and the lowest of those is
  // reported, so the error is the one a single pass would throw.
  const auto rows = static_cast<std::size_t>(x.rows());
  const auto invalid = [&](double n) { return !std::isfinite(n) || (metric == Metric::kCosine && n == 0.0); };
  p.row_norms.resize(rows);
  const int chunks = chunk_count(threads, rows, 2.0 * double(d));
  std::vector<std::size_t> first_bad(static_cast<std::size_t>(chunks), rows);
  run_chunks(chunks, rows, [&](int chunk, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      p.row_norms[i] = norm(x.row(static_cast<Eigen::Index>(i)).data(), d);
      if (invalid(p.row_norms[i])) {
        first_bad[static_cast<std::size_t>(chunk)] = i;
        return;
      }
    }
  });
  const std::size_t bad = *std::min_element(first_bad.begin(), first_bad.end());
  if (bad < rows) {
    if (!std::isfinite(p.row_norms[bad])) throw InputError("row " + std::to_string(bad) + " has a NaN or infinite value");
    throw InputError("cosine metric: row " + std::to_string(bad) + " is a zero vector");
  }
  return p;
}

}  // namespace exact

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

void NearestCentreKernel::search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                                   std::span<std::int32_t> nearest, std::span<double> score) const {
  ReferenceKernel().search_k(x, centres, metric, k, nearest, score);
}

Metric parse_metric(const std::string& name) {
  if (name == "l2") return Metric::kL2;
  if (name == "ip") return Metric::kInnerProduct;
  if (name == "cosine") return Metric::kCosine;
  throw InputError("unknown metric '" + name + "' (expected l2, ip or cosine)");
}

std::string metric_name(Metric metric) {
  switch (metric) {
    case Metric::kL2: return "l2";
    case Metric::kInnerProduct: return "ip";
    case Metric::kCosine: return "cosine";
  }
  return "?";
}

std::unique_ptr<NearestCentreKernel> make_kernel(const std::string& name, int threads, Device device) {
  if (name != "reference" && name != "blas") throw InputError("unknown compute kernel '" + name + "' (expected reference or blas)");
  if (resolve_device(device) == Device::kCuda) return make_cuda_kernel(CudaKernelOptions{.threads = threads});
  if (name == "reference") return std::make_unique<ReferenceKernel>();
  return std::make_unique<BlasKernel>(BlasKernelOptions{.threads = threads});
}

}  // namespace secpe
