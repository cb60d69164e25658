// The 16-accumulator loops are written so that the vectoriser only packs lanes (no reassociation):
// each accumulator is one lane, so SSE, AVX2 and AVX-512 clones give the same bits.
#include "compute/impl/fast_float.hpp"

#include <bit>

namespace secpe::fast {
namespace {

constexpr int kLanes = 16;

inline float combine(float (&acc)[kLanes]) {
  for (int w = kLanes / 2; w >= 1; w /= 2) {
    for (int t = 0; t < w; ++t) acc[t] += acc[t + w];
  }
  return acc[0];
}

}  // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SECPE_FAST_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SECPE_FAST_CLONES
#endif

SECPE_FAST_CLONES float dot(const float* __restrict a, const float* __restrict b, Eigen::Index d) {
  float acc[kLanes] = {};
  Eigen::Index j = 0;
  for (; j + kLanes <= d; j += kLanes) {
    for (int t = 0; t < kLanes; ++t) acc[t] += a[j + t] * b[j + t];
  }
  for (int t = 0; j + t < d; ++t) acc[t] += a[j + t] * b[j + t];
  return combine(acc);
}

SECPE_FAST_CLONES float squared_l2(const float* __restrict a, const float* __restrict b, Eigen::Index d) {
  float acc[kLanes] = {};
  Eigen::Index j = 0;
  for (; j + kLanes <= d; j += kLanes) {
    for (int t = 0; t < kLanes; ++t) {
      const float diff = a[j + t] - b[j + t];
      acc[t] += diff * diff;
    }
  }
  for (int t = 0; j + t < d; ++t) {
    const float diff = a[j + t] - b[j + t];
    acc[t] += diff * diff;
  }
  return combine(acc);
}

SECPE_FAST_CLONES float scaled_squared_l2(const float* __restrict a, float sa, const float* __restrict b, float sb,
                                          Eigen::Index d) {
  float acc[kLanes] = {};
  Eigen::Index j = 0;
  for (; j + kLanes <= d; j += kLanes) {
    for (int t = 0; t < kLanes; ++t) {
      const float diff = a[j + t] * sa - b[j + t] * sb;
      acc[t] += diff * diff;
    }
  }
  for (int t = 0; j + t < d; ++t) {
    const float diff = a[j + t] * sa - b[j + t] * sb;
    acc[t] += diff * diff;
  }
  return combine(acc);
}

// For |v| < 2^51, v + 1.5 * 2^52 lies in [2^52, 2^53), where doubles are the integers: the addition
// rounds v to the nearest integer (ties to even) and the low mantissa bits hold it, offset by the
// constant's own bits. Both steps are exact, so this equals std::llrint(v) there.
SECPE_FAST_CLONES void add_rounded(std::int64_t* __restrict sums, const float* __restrict x, Eigen::Index d,
                                   double scale) {
  constexpr double kMagic = 6755399441055744.0;  // 1.5 * 2^52
  const std::int64_t magic_bits = std::bit_cast<std::int64_t>(kMagic);
  for (Eigen::Index j = 0; j < d; ++j) {
    sums[j] += std::bit_cast<std::int64_t>(static_cast<double>(x[j]) * scale + kMagic) - magic_bits;
  }
}

SECPE_FAST_CLONES std::uint32_t max_abs_bits(const float* __restrict x, Eigen::Index d) {
  std::uint32_t m = 0;
  for (Eigen::Index j = 0; j < d; ++j) {
    const std::uint32_t b = std::bit_cast<std::uint32_t>(x[j]) & 0x7fffffffu;
    m = b > m ? b : m;
  }
  return m;
}

}  // namespace secpe::fast
