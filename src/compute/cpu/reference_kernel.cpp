#include <cmath>
#include <limits>

#include "compute/nearest.hpp"
#include "core/error.hpp"

namespace secpe {
namespace {

double dot(const float* a, const float* b, Eigen::Index d) {
  double s = 0.0;
  for (Eigen::Index j = 0; j < d; ++j) s += double(a[j]) * double(b[j]);
  return s;
}

double squared_l2(const float* a, const float* b, Eigen::Index d) {
  double s = 0.0;
  for (Eigen::Index j = 0; j < d; ++j) {
    const double diff = double(a[j]) - double(b[j]);
    s += diff * diff;
  }
  return s;
}

}  // namespace

void ReferenceKernel::search(const MatrixF& x, const MatrixF& centres, Metric metric,
                             std::span<std::int32_t> nearest, std::span<double> score) const {
  const Eigen::Index d = x.cols();
  if (x.rows() == 0) return;
  if (centres.rows() == 0) throw InputError("nearest-centre search: no centres");
  if (centres.cols() != d) {
    throw InputError("nearest-centre search: dimension mismatch (rows have " + std::to_string(d) +
                     ", centres have " + std::to_string(centres.cols()) + ")");
  }
  std::vector<double> centre_norms(static_cast<std::size_t>(centres.rows()), 1.0);
  if (metric == Metric::kCosine) {
    for (Eigen::Index k = 0; k < centres.rows(); ++k) {
      centre_norms[k] = std::sqrt(dot(centres.row(k).data(), centres.row(k).data(), d));
      if (centre_norms[k] == 0.0) throw InputError("cosine metric: centre " + std::to_string(k) + " is a zero vector");
    }
  }
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const float* xi = x.row(i).data();
    const double row_norm = std::sqrt(dot(xi, xi, d));
    if (!std::isfinite(row_norm)) throw InputError("row " + std::to_string(i) + " has a NaN or infinite value");
    if (metric == Metric::kCosine && row_norm == 0.0) {
      throw InputError("cosine metric: row " + std::to_string(i) + " is a zero vector");
    }
    double best = std::numeric_limits<double>::infinity();
    std::int32_t best_k = 0;
    for (Eigen::Index k = 0; k < centres.rows(); ++k) {
      const float* ck = centres.row(k).data();
      double s = 0.0;
      switch (metric) {
        case Metric::kL2: s = squared_l2(xi, ck, d); break;
        case Metric::kInnerProduct: s = -dot(xi, ck, d); break;
        case Metric::kCosine: s = -dot(xi, ck, d) / (row_norm * centre_norms[k]); break;
      }
      if (s < best) {  // strict: ties keep the lowest index
        best = s;
        best_k = static_cast<std::int32_t>(k);
      }
    }
    nearest[i] = best_k;
    score[i] = best;
  }
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

std::unique_ptr<NearestCentreKernel> make_kernel(const std::string& name) {
  if (name == "reference") return std::make_unique<ReferenceKernel>();
  throw InputError("unknown compute kernel '" + name + "' (expected reference)");
}

}  // namespace secpe
