#pragma once
// Nearest-centre search: for each row of X, the nearest row of C. One interface (FAISS-style
// Index), several kernels behind it; every kernel must agree with the reference kernel,
// ties going to the lowest centre index.
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/matrix.hpp"

namespace secpe {

enum class Metric { kL2, kInnerProduct, kCosine };

Metric parse_metric(const std::string& name);  // "l2" | "ip" | "cosine"; InputError otherwise
std::string metric_name(Metric metric);

class NearestCentreKernel {
 public:
  virtual ~NearestCentreKernel() = default;
  virtual std::string name() const = 0;
  // nearest[i] = argmin_k score(X_i, C_k), with score the squared L2 distance (kL2), the
  // negated inner product (kInnerProduct) or the negated cosine (kCosine); score[i] its value.
  // Cosine with a zero row is an InputError naming the row.
  virtual void search(const MatrixF& x, const MatrixF& centres, Metric metric,
                      std::span<std::int32_t> nearest, std::span<double> score) const = 0;
};

// The plain reference kernel: one dot product at a time, accumulated in double in a fixed order,
// so each result depends only on the two vectors involved (never on blocking or threads).
class ReferenceKernel final : public NearestCentreKernel {
 public:
  std::string name() const override { return "reference"; }
  void search(const MatrixF& x, const MatrixF& centres, Metric metric,
              std::span<std::int32_t> nearest, std::span<double> score) const override;
};

std::unique_ptr<NearestCentreKernel> make_kernel(const std::string& name);  // "reference"

}  // namespace secpe
