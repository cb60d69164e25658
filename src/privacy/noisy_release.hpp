#pragma once
// The one place where noise is added to a private statistic: value + N(0, noise_std^2) from a
// secret-keyed stream, snapped to the release grid. SecPE's cluster release and Aug-PE's histogram
// both call noisy_release, so the noise and its rounding cannot differ between them. Written once
// for the host and for CUDA devices (SecPE's release on a GPU: privacy/centre_release.hpp), each
// operation rounded on its own (core/ieee_ops.hpp).
//
// Released floating-point values are snapped to a grid before they leave rank 0. The low-order
// bits of a floating-point "value + noise" depend on the value in ways the Gaussian model does not
// capture (Mironov, "On Significance of the Least Significant Bits for Differential Privacy", CCS
// 2012); rounding to a grid much coarser than those bits removes them. Rounding is post-processing
// of the noisy value, so the accountant's guarantee is unchanged.
//
// The grid of a value whose noise has standard deviation s is the largest power of two not above
// s / 4096: at most 1/4096 of the noise, so utility is untouched, and a power of two, so the
// float32 centres stay on it. Values are rounded to the nearest grid point, ties to even.
#include <cstdint>

#include "core/host_device.hpp"
#include "core/ieee_ops.hpp"

namespace secpe {

inline constexpr double kReleaseGridFraction = 1.0 / 4096.0;

// The grid spacing for noise of standard deviation `noise_std` (0 when there is no noise): as
// std::ldexp(1, e - 1) with std::frexp(noise_std / 4096, &e), bit for bit.
SECPE_HOST_DEVICE inline double release_grid(double noise_std) {
  if (!(noise_std > 0) || !(noise_std < __builtin_huge_val())) return 0.0;
  const std::uint64_t b = ieee::bits_of(ieee::mul_rn(noise_std, kReleaseGridFraction));
  if (b == 0) return 0.5;                                          // frexp(0) gives e = 0
  if ((b >> 52) != 0) return ieee::from_bits(b & (std::uint64_t{0x7ff} << 52));  // normal: its exponent alone
  return ieee::from_bits(std::uint64_t{1} << (63 - ieee::leading_zeros(b)));   // subnormal: its leading bit
}

// x rounded to the nearest integer, ties to even: std::nearbyint in the default rounding mode,
// bit for bit (the sign of a zero result included), without its library call. Moving |x| < 2^52
// by 2^52 away from zero lands where the spacing of doubles is 1, so the sum is rounded to an
// integer, ties to even (2^52 is even); values of 2^52 and above are integers already.
SECPE_HOST_DEVICE inline double round_half_even(double x) {
  if (!(ieee::abs_of(x) < 0x1p52)) return x;
  const double shift = ieee::copy_sign(0x1p52, x);
  return ieee::copy_sign(ieee::sub_rn(ieee::add_rn(x, shift), shift), x);
}

// Releases of one noise scale: the grid is computed once for all of them, and since it is a power
// of two, dividing by it is the same as multiplying by its inverse (exact while the grid is a
// normal double; a subnormal grid, from noise below 1e-304, is divided by).
class GaussianRelease {
 public:
  SECPE_HOST_DEVICE explicit GaussianRelease(double noise_std)
      : noise_std_(noise_std), grid_(release_grid(noise_std)), inverse_(grid_ >= 0x1p-1022 ? ieee::div_rn(1.0, grid_) : 0.0) {}
  // `noisy` rounded to the release grid (unchanged without noise).
  SECPE_HOST_DEVICE double snap(double noisy) const {
    if (!(grid_ > 0)) return noisy;
    return ieee::mul_rn(round_half_even(inverse_ > 0 ? ieee::mul_rn(noisy, inverse_) : ieee::div_rn(noisy, grid_)), grid_);
  }
  // value + noise_std * N(0, 1), the normal drawn from `noise` (a SecretRng, or a device's
  // SecretNormals: core/secret_normal.hpp), snapped to the grid.
  template <typename Noise>
  SECPE_HOST_DEVICE double operator()(double value, Noise& noise) const {
    return snap(ieee::add_rn(value, ieee::mul_rn(noise_std_, noise.normal())));
  }
  // What a vectorised release repeats (compute/cpu/centre_lanes.cpp): the noise's standard
  // deviation, the grid, and its inverse (0 where the grid is 0 or subnormal).
  SECPE_HOST_DEVICE double noise_std() const { return noise_std_; }
  SECPE_HOST_DEVICE double grid() const { return grid_; }
  SECPE_HOST_DEVICE double inverse() const { return inverse_; }

 private:
  double noise_std_, grid_, inverse_;
};

// One value's release, as above.
SECPE_HOST_DEVICE inline double snap_to_release_grid(double noisy, double noise_std) { return GaussianRelease(noise_std).snap(noisy); }
template <typename Noise>
SECPE_HOST_DEVICE double noisy_release(double value, double noise_std, Noise& noise) {
  return GaussianRelease(noise_std)(value, noise);
}

}  // namespace secpe
