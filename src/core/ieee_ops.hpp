#pragma once
// IEEE binary64 operations that give the same bits on the host and on a CUDA device: each
// addition, subtraction, multiplication, division and square root rounded to nearest on its own.
// On the device every one is an explicit round-to-nearest intrinsic, which nvcc never fuses into
// a multiply-add whatever its flags; the host is built with -ffp-contract=off (CMakeLists.txt).
// Also the error-free transformations of double-double arithmetic (Dekker, Knuth), from these
// operations alone (no FMA), and bit access.
#include <cstdint>
#include <cstring>

#include "core/host_device.hpp"

namespace secpe::ieee {

SECPE_HOST_DEVICE inline double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
SECPE_HOST_DEVICE inline double sub_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
SECPE_HOST_DEVICE inline double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
SECPE_HOST_DEVICE inline double div_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
SECPE_HOST_DEVICE inline double sqrt_rn(double a) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(a);
#else
  return __builtin_sqrt(a);
#endif
}

SECPE_HOST_DEVICE inline std::uint64_t bits_of(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
SECPE_HOST_DEVICE inline double from_bits(std::uint64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}
// |x| and |magnitude| with the sign bit of `sign` (std::fabs, std::copysign): bit operations, exact.
SECPE_HOST_DEVICE inline double abs_of(double x) {
#if defined(__CUDA_ARCH__)
  return fabs(x);
#else
  return __builtin_fabs(x);
#endif
}
SECPE_HOST_DEVICE inline double copy_sign(double magnitude, double sign) {
#if defined(__CUDA_ARCH__)
  return copysign(magnitude, sign);
#else
  return __builtin_copysign(magnitude, sign);
#endif
}
// 2^e for -1022 <= e <= 1023 (a normal double), exactly.
SECPE_HOST_DEVICE inline double pow2(int e) { return from_bits(static_cast<std::uint64_t>(e + 1023) << 52); }
// The number of leading zero bits of x != 0.
SECPE_HOST_DEVICE inline int leading_zeros(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(x));
#else
  return __builtin_clzll(x);
#endif
}
// x rounded to the nearest 64-bit integer, ties to even (std::llrint in the default rounding mode).
SECPE_HOST_DEVICE inline long long to_int64_rn(double x) {
#if defined(__CUDA_ARCH__)
  return __double2ll_rn(x);
#else
  return __builtin_llrint(x);
#endif
}
// x rounded to an integer, ties to even, for |x| < 2^51 (moved by 1.5 2^52, where the spacing of doubles is 1).
SECPE_HOST_DEVICE inline double round_to_int(double x) { return sub_rn(add_rn(x, 0x1.8p52), 0x1.8p52); }

// s + e = a + b exactly, s = RN(a + b) (Knuth's TwoSum: any a, b).
struct Pair {
  double hi, lo;
};
SECPE_HOST_DEVICE inline Pair two_sum(double a, double b) {
  const double s = add_rn(a, b);
  const double bb = sub_rn(s, a);
  return {s, add_rn(sub_rn(a, sub_rn(s, bb)), sub_rn(b, bb))};
}
// The same when |a| >= |b| (or a = 0) (Dekker's FastTwoSum).
SECPE_HOST_DEVICE inline Pair fast_two_sum(double a, double b) {
  const double s = add_rn(a, b);
  return {s, sub_rn(b, sub_rn(s, a))};
}
// p + e = a b exactly, p = RN(a b) (Dekker's product with Veltkamp's splitting; |a|, |b| < 2^995
// and no underflow of the parts, as everywhere it is used).
SECPE_HOST_DEVICE inline Pair split(double a) {
  const double t = mul_rn(134217729.0, a);  // 2^27 + 1
  const double hi = sub_rn(t, sub_rn(t, a));
  return {hi, sub_rn(a, hi)};
}
SECPE_HOST_DEVICE inline Pair two_prod(double a, double b) {
  const double p = mul_rn(a, b);
  const Pair x = split(a), y = split(b);
  const double err = add_rn(add_rn(add_rn(sub_rn(mul_rn(x.hi, y.hi), p), mul_rn(x.hi, y.lo)), mul_rn(x.lo, y.hi)), mul_rn(x.lo, y.lo));
  return {p, err};
}

}  // namespace secpe::ieee
