#pragma once
#include "compute/nearest.hpp"

namespace secpe {

// The plain reference kernel: one dot product at a time, accumulated in double in a fixed order,
// so each result depends only on the two vectors involved (never on blocking or threads).
class ReferenceKernel final : public NearestCentreKernel {
 public:
  std::string name() const override { return "reference"; }
  void search(const MatrixF& x, const MatrixF& centres, Metric metric,
              std::span<std::int32_t> nearest, std::span<double> score) const override;
  void search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                std::span<std::int32_t> nearest, std::span<double> score) const override;
};

}  // namespace secpe
