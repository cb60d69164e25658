#pragma once
// Fast deterministic float distances, for work where an approximate value is enough but every rank
// must compute the same one (k-means seeding weights). Each function sums in float with 16
// independent accumulators: element j goes to accumulator j mod 16 (in index order), and the 16
// are then combined in one fixed order (a pairwise tree). No reassociation is left to the
// compiler and the library is built without FMA contraction, so the result depends only on the
// inputs (for a given binary, whatever the vector width the CPU offers), never on the rank or the
// thread that computes it. Accuracy: the usual float bound, about d 2^-24 times sum |a_j b_j|.
// Unlike exact::dot these are not the kernels' scores; never mix the two in one comparison.
#include <cstdint>

#include "core/matrix.hpp"

namespace secpe::fast {

// sum_j a_j b_j
float dot(const float* a, const float* b, Eigen::Index d);
// sum_j (a_j - b_j)^2
float squared_l2(const float* a, const float* b, Eigen::Index d);
// sum_j (a_j sa - b_j sb)^2, e.g. with sa = 1 / |a|, sb = 1 / |b| the squared distance of the unit
// vectors (2 - 2 cos, without the cancellation of 1 - dot): exactly 0 when a = b and sa = sb.
float scaled_squared_l2(const float* a, float sa, const float* b, float sb, Eigen::Index d);

// Fixed-point accumulation: sums[j] += round(x[j] * scale) for j < d, rounded to the nearest
// integer with ties to even (as std::llrint in the default rounding mode), exactly, PROVIDED every
// |x[j] * scale| < 2^51 (the caller checks; see max_abs_bits). Vectorised (1.5 * 2^52 trick).
void add_rounded(std::int64_t* sums, const float* x, Eigen::Index d, double scale);

// The largest |x[j]| as its IEEE bit pattern without the sign (monotone in |x[j]| for finite
// values, so compare it with std::bit_cast<std::uint32_t>(limit)); vectorised.
std::uint32_t max_abs_bits(const float* x, Eigen::Index d);

}  // namespace secpe::fast
