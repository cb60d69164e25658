#pragma once
// Fixed-point encoding of sums of floats, so per-centre sums are exact 64-bit integers: they add
// up the same way in any order, on any thread, rank or device, and reduce exactly over MPI.
// 2^-32 resolution; |sum| up to 2^31 (two billion unit vectors) fits.
#include <cstdint>

#include "core/matrix.hpp"

namespace secpe {

inline constexpr double kFixedPointScale = 4294967296.0;
inline double from_fixed(std::int64_t x) { return static_cast<double>(x) / kFixedPointScale; }
// x in fixed point, rounded half away from zero (for sums made in double, e.g. moment sums).
inline std::int64_t to_fixed(double x) { return static_cast<std::int64_t>(x * kFixedPointScale + (x >= 0 ? 0.5 : -0.5)); }

// sums[j] += x[j] in fixed point for j < d, each rounded to the nearest integer multiple of 2^-32,
// ties to even, exactly as std::llrint(x[j] * kFixedPointScale) (vectorised; compute/cpu/centre_sums.cpp).
void add_fixed_point(std::int64_t* sums, const float* x, Eigen::Index d);

}  // namespace secpe
