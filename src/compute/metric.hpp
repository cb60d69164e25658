#pragma once
// The similarity of a nearest-centre search, in a header of its own so that device code (nvcc)
// can use it without the Eigen-based interface in compute/nearest.hpp.
namespace secpe {

enum class Metric { kL2, kInnerProduct, kCosine };

}  // namespace secpe
