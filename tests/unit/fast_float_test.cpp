// The fast deterministic float routines (compute/impl/fast_float.hpp): the documented summation
// order bit for bit, independence of alignment, agreement with the exact double scores within the
// float error bound, and exact fixed-point accumulation.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "compute/impl/exact_score.hpp"
#include "compute/impl/fast_float.hpp"

namespace secpe {
namespace {

std::vector<float> random_vector(std::size_t n, std::uint64_t seed, float scale = 1.0f) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

// The documented order, written out one lane at a time: element j goes to lane j mod 16, then the
// lanes are folded 8, 4, 2, 1 apart.
template <typename Term>
float model_sum(Eigen::Index d, Term term) {
  float acc[16] = {};
  for (Eigen::Index j = 0; j < d; ++j) {
    volatile float t = term(j);  // no contraction into a fused multiply-add
    acc[j % 16] += t;
  }
  for (int w = 8; w >= 1; w /= 2)
    for (int t = 0; t < w; ++t) acc[t] += acc[t + w];
  return acc[0];
}

TEST(FastFloat, FollowsTheDocumentedOrderBitForBit) {
  for (Eigen::Index d : {0, 1, 5, 15, 16, 17, 31, 33, 100, 768, 1001}) {
    SCOPED_TRACE(d);
    const auto a = random_vector(static_cast<std::size_t>(d), 1 + d), b = random_vector(static_cast<std::size_t>(d), 2 + d);
    const float dot = model_sum(d, [&](Eigen::Index j) { return a[j] * b[j]; });
    const float l2 = model_sum(d, [&](Eigen::Index j) {
      volatile float diff = a[j] - b[j];
      return diff * diff;
    });
    const float sa = 0.75f, sb = 1.3f;
    const float scaled = model_sum(d, [&](Eigen::Index j) {
      volatile float x = a[j] * sa;
      volatile float y = b[j] * sb;
      volatile float diff = x - y;
      return diff * diff;
    });
    EXPECT_EQ(std::bit_cast<std::uint32_t>(fast::dot(a.data(), b.data(), d)), std::bit_cast<std::uint32_t>(dot));
    EXPECT_EQ(std::bit_cast<std::uint32_t>(fast::squared_l2(a.data(), b.data(), d)), std::bit_cast<std::uint32_t>(l2));
    EXPECT_EQ(std::bit_cast<std::uint32_t>(fast::scaled_squared_l2(a.data(), sa, b.data(), sb, d)),
              std::bit_cast<std::uint32_t>(scaled));
  }
}

TEST(FastFloat, SameBitsWhateverTheAlignment) {
  const Eigen::Index d = 777;
  const auto a = random_vector(d, 3), b = random_vector(d, 4);
  const float dot = fast::dot(a.data(), b.data(), d), l2 = fast::squared_l2(a.data(), b.data(), d);
  for (std::size_t shift = 1; shift < 16; ++shift) {
    std::vector<float> a2(d + shift), b2(d + 16 - shift);
    std::copy(a.begin(), a.end(), a2.begin() + static_cast<std::ptrdiff_t>(shift));
    std::copy(b.begin(), b.end(), b2.begin() + static_cast<std::ptrdiff_t>(16 - shift));
    EXPECT_EQ(fast::dot(a2.data() + shift, b2.data() + 16 - shift, d), dot);
    EXPECT_EQ(fast::squared_l2(a2.data() + shift, b2.data() + 16 - shift, d), l2);
    EXPECT_EQ(fast::dot(a2.data() + shift, b2.data() + 16 - shift, d), dot);  // and again: no state
  }
}

TEST(FastFloat, AgreesWithTheExactScoresWithinTheFloatBound) {
  for (Eigen::Index d : {1, 7, 64, 768, 4096}) {
    SCOPED_TRACE(d);
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
      const auto a = random_vector(static_cast<std::size_t>(d), 10 * seed + 1, 3.0f);
      const auto b = random_vector(static_cast<std::size_t>(d), 10 * seed + 2, 0.5f);
      double abs_dot = 0.0, l2_ref = 0.0;
      for (Eigen::Index j = 0; j < d; ++j) {
        abs_dot += std::abs(double(a[j]) * double(b[j]));
        l2_ref += (double(a[j]) - double(b[j])) * (double(a[j]) - double(b[j]));
      }
      const double gamma = double(d + 2) * 0x1p-24 / (1.0 - double(d + 2) * 0x1p-24);
      EXPECT_NEAR(fast::dot(a.data(), b.data(), d), exact::dot(a.data(), b.data(), d), gamma * abs_dot);
      // each difference is off by one rounding, each square by ~two more, then the sum
      EXPECT_NEAR(fast::squared_l2(a.data(), b.data(), d), exact::squared_l2(a.data(), b.data(), d),
                  (gamma + 4 * 0x1p-24) * l2_ref);
      // unit vectors: half the squared distance is 1 - cos
      const float ia = 1.0f / std::sqrt(fast::dot(a.data(), a.data(), d));
      const float ib = 1.0f / std::sqrt(fast::dot(b.data(), b.data(), d));
      const double cos = exact::dot(a.data(), b.data(), d) / (exact::norm(a.data(), d) * exact::norm(b.data(), d));
      EXPECT_NEAR(0.5 * fast::scaled_squared_l2(a.data(), ia, b.data(), ib, d), 1.0 - cos, 1e-5 * (1.0 + double(d) / 64));
    }
  }
}

TEST(FastFloat, ScaledDistanceOfADuplicateIsExactlyZero) {
  const auto a = random_vector(768, 9);
  const auto b = a;
  const float ia = 1.0f / std::sqrt(fast::dot(a.data(), a.data(), 768));
  EXPECT_EQ(fast::scaled_squared_l2(a.data(), ia, b.data(), ia, 768), 0.0f);
  EXPECT_EQ(fast::squared_l2(a.data(), b.data(), 768), 0.0f);
}

TEST(FastFloat, AddRoundedEqualsLlrint) {
  const double scale = 4294967296.0;  // 2^32, the fixed-point scale of the k-means sums
  std::vector<float> x = random_vector(1000, 5, 2.0f);
  // ties (x 2^32 = m + 1/2), tiny values, signed zeros, and the largest values allowed (< 2^19)
  for (int m : {0, 1, 2, 3, 5, -1, -2, -3}) x.push_back(std::ldexp(float(2 * m + 1), -33));
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-12f, 524287.97f, -524287.97f, 0.1f, -0.1f, 1.0f}) x.push_back(v);
  std::vector<std::int64_t> sums(x.size(), 7), expect(x.size(), 7);
  for (int rep = 0; rep < 3; ++rep) {
    fast::add_rounded(sums.data(), x.data(), static_cast<Eigen::Index>(x.size()), scale);
    for (std::size_t j = 0; j < x.size(); ++j) expect[j] += std::llrint(double(x[j]) * scale);
  }
  EXPECT_EQ(sums, expect);
  // nearest, ties to even: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> 0, -1.5 -> -2
  std::vector<float> ties{std::ldexp(1.0f, -33), std::ldexp(3.0f, -33), std::ldexp(5.0f, -33), -std::ldexp(1.0f, -33),
                          -std::ldexp(3.0f, -33)};
  std::vector<std::int64_t> t(ties.size(), 0);
  fast::add_rounded(t.data(), ties.data(), static_cast<Eigen::Index>(ties.size()), scale);
  EXPECT_EQ(t, (std::vector<std::int64_t>{0, 2, 2, 0, -2}));
}

TEST(FastFloat, MaxAbsBits) {
  std::vector<float> x = random_vector(100, 6);
  x[37] = -600000.0f;
  EXPECT_EQ(fast::max_abs_bits(x.data(), 100), std::bit_cast<std::uint32_t>(600000.0f));
  EXPECT_EQ(fast::max_abs_bits(x.data(), 0), 0u);
  const float z[3] = {-0.0f, 0.0f, -0.0f};
  EXPECT_EQ(fast::max_abs_bits(z, 3), 0u);
}

}  // namespace
}  // namespace secpe
