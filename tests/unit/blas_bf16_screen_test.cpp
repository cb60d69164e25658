// The BLAS kernel's bf16 screen: the bf16 GEMM engines (AMX and AVX512-BF16 where the CPU has
// them, the portable emulation everywhere) and data that bf16 rounding cannot resolve, each search bit-identical to
// the reference kernel. The general kernel tests (compute_kernel_test.cpp) run every screen too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "blas_test_util.hpp"
#include "compute/cpu/bf16_gemm.hpp"
#include "compute/cpu/blas_kernel.hpp"
#include "core/error.hpp"

namespace secpe {
namespace {

using test::expect_agree;
using test::random_matrix;

double widened(std::uint16_t b) {  // a bf16 as the engines multiply it (subnormals as zero)
  if ((b & 0x7F80u) == 0) return 0.0;
  const std::uint32_t u = std::uint32_t{b} << 16;
  float v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

TEST(Bf16Screen, RoundsToNearestEven) {
  EXPECT_EQ(bf16::round_to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(bf16::round_to_bf16(-2.0f), 0xC000);
  EXPECT_EQ(bf16::round_to_bf16(0.0f), 0x0000);
  EXPECT_EQ(bf16::round_to_bf16(1.0f + 0x1p-8f), 0x3F80);              // halfway: to even (down)
  EXPECT_EQ(bf16::round_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3F81);   // above halfway: up
  EXPECT_EQ(bf16::round_to_bf16(1.0f + 0x3p-8f), 0x3F82);              // halfway: to even (up)
  for (float v : {0.3f, -7.77e-20f, 1.234e30f, 3e38f}) {
    EXPECT_LE(std::fabs(widened(bf16::round_to_bf16(v)) - double(v)), 0x1p-8 * std::fabs(double(v))) << v;
  }
}

// The measured input unit of the bound: a rigorous |v - v'| / |v| for the bf16 values the
// engines read, at most 2^-8 for normal coordinates, everything for subnormal ones.
TEST(Bf16Screen, RelativeRoundingErrorBoundsTheRounding) {
  const MatrixF v = random_matrix(50, 300, 3);
  for (Eigen::Index i = 0; i < v.rows(); ++i) {
    const float* row = v.row(i).data();
    double error = 0.0, norm = 0.0;
    for (Eigen::Index k = 0; k < v.cols(); ++k) {
      const double e = double(row[k]) - widened(bf16::round_to_bf16(row[k]));
      error += e * e;
      norm += double(row[k]) * double(row[k]);
    }
    const double u = bf16::relative_rounding_error(row, v.cols());
    EXPECT_GE(u, std::sqrt(error / norm));
    EXPECT_LE(u, 0x1p-8);
    EXPECT_GT(u, 0x1p-11);  // and not wildly pessimistic
  }
  const float zeros[3] = {0.0f, -0.0f, 0.0f}, subnormal[2] = {1e-39f, -3e-40f}, exact[2] = {1.0f, -0.5f};
  EXPECT_EQ(bf16::relative_rounding_error(zeros, 3), 0.0);
  EXPECT_GE(bf16::relative_rounding_error(subnormal, 2), 1.0);  // read as zero: all of it lost
  EXPECT_EQ(bf16::relative_rounding_error(exact, 2), 0.0);
  EXPECT_EQ(bf16::PackedCentres(v, screen::Shift{}).max_relative_error(), [&] {
    double m = 0.0;
    for (Eigen::Index i = 0; i < v.rows(); ++i) m = std::max(m, bf16::relative_rounding_error(v.row(i).data(), v.cols()));
    return m;
  }());
}

// round_rows (16 coordinates at a time where the CPU has AVX-512) writes exactly round_to_bf16's
// values and pads with zeros; its error bounds hold for rows with subnormal, huge and halfway
// coordinates in every lane.
TEST(Bf16Screen, RoundRowsMatchesTheScalarRounding) {
  MatrixF x = random_matrix(5, 37, 9);
  for (Eigen::Index k = 0; k < x.cols(); ++k) x(1, k) = k % 3 ? 0.0f : k % 2 ? 1e-39f : -3e-41f;  // subnormals only: all lost
  for (Eigen::Index k = 0; k < x.cols(); ++k) x(2, k) = (k % 2 ? -1.0f : 1.0f) * (1.0f + 0x1p-8f);  // halfway
  x(3, 20) = 3e38f;
  x.row(4).setZero();
  screen::RoundedRows rounded;
  bf16::round_rows(x, 0, x.rows(), screen::Shift{}, rounded);
  const bf16::LineVector<std::uint16_t>& out = rounded.bf16;
  const std::vector<double>& errors = rounded.errors;
  const Eigen::Index dp = bf16::padded(x.cols());
  ASSERT_EQ(out.size(), static_cast<std::size_t>(bf16::padded(x.rows()) * dp));
  for (Eigen::Index i = 0; i < bf16::padded(x.rows()); ++i) {
    for (Eigen::Index k = 0; k < dp; ++k) {
      const std::uint16_t want = i < x.rows() && k < x.cols() ? bf16::round_to_bf16(x(i, k)) : 0;
      ASSERT_EQ(out[static_cast<std::size_t>(i * dp + k)], want) << i << " " << k;
    }
  }
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    double error = 0.0, norm = 0.0;
    for (Eigen::Index k = 0; k < x.cols(); ++k) {
      const double e = double(x(i, k)) - widened(bf16::round_to_bf16(x(i, k)));
      error += e * e;
      norm += double(x(i, k)) * double(x(i, k));
    }
    const double u = errors[static_cast<std::size_t>(i)];
    EXPECT_GE(u, norm > 0 ? std::sqrt(error / norm) : 0.0) << i;
    EXPECT_LE(u, norm > 0 ? std::sqrt(error / norm) * (1 + 1e-12) : 0.0) << i;
  }
  EXPECT_GE(errors[1], 1.0);
}

// Every engine that runs here computes bf16(X) bf16(C)^T within float summation's bound, for
// shapes that need padding in every direction (which also checks the packed layout).
TEST(Bf16Screen, EnginesComputeTheProductOfTheRoundedInputs) {
  std::vector<screen::Engine> engines{screen::Engine::kBf16Emulated};
  for (const screen::Engine e : {screen::Engine::kBf16Amx, screen::Engine::kBf16Avx512})
    if (screen::available(e)) engines.push_back(e);
  const Eigen::Index m = 37, n = 70, d = 45;
  const MatrixF x = random_matrix(m, d, 1), c = random_matrix(n, d, 2);
  const bf16::PackedCentres packed(c, screen::Shift{});
  screen::RoundedRows rounded;
  bf16::round_rows(x, 0, m, screen::Shift{}, rounded);
  const bf16::LineVector<std::uint16_t>& xb = rounded.bf16;
  const std::vector<double>& errors = rounded.errors;
  ASSERT_EQ(errors.size(), std::size_t(m));
  for (Eigen::Index i = 0; i < m; ++i) EXPECT_EQ(errors[i], bf16::relative_rounding_error(x.row(i).data(), d));
  const Eigen::Index mbp = bf16::padded(m), nbp = bf16::padded(n);
  const double gamma = double(d) * 0x1p-24 / (1.0 - double(d) * 0x1p-24);
  for (screen::Engine engine : engines) {
    std::vector<float> g(static_cast<std::size_t>(mbp * nbp), -1.0f);
    bf16::gemm(engine, xb.data(), mbp, packed, 0, nbp, g.data());
    for (Eigen::Index i = 0; i < mbp; ++i) {
      for (Eigen::Index j = 0; j < nbp; ++j) {
        double exact = 0.0, magnitude = 0.0;
        for (Eigen::Index k = 0; i < m && j < n && k < d; ++k) {
          const double p = widened(bf16::round_to_bf16(x(i, k))) * widened(bf16::round_to_bf16(c(j, k)));
          exact += p;
          magnitude += std::fabs(p);
        }
        ASSERT_LE(std::fabs(double(g[i * nbp + j]) - exact), gamma * magnitude)
            << screen::engine_name(engine) << " at " << i << ", " << j;
      }
    }
  }
}

// Centres closer than bf16 or int8 can tell (relative differences of 2^-12 to 2^-9, below bf16's
// 2^-8 rounding and int8's step), exact duplicates, and rows equal to centres: only the exact
// rescoring separates them (expect_agree runs every screen).
TEST(Bf16Screen, NearTiesBelowBf16ResolutionAgree) {
  const Eigen::Index d = 96;
  const MatrixF base = random_matrix(3, d, 5);
  MatrixF c(3 * 16, d);
  for (Eigen::Index row = 0; row < c.rows(); ++row) {  // 16 variants v of each base
    const Eigen::Index v = row % 16;
    c.row(row) = base.row(row / 16);
    if (v % 5 == 4) continue;  // duplicates of the base
    for (Eigen::Index j = v; j < d; j += 7) c(row, j) *= 1.0f + std::ldexp(v % 2 ? 1.0f : -1.0f, -9 - int(v % 4));
  }
  MatrixF x(9, d);
  for (Eigen::Index i = 0; i < 9; ++i) {
    x.row(i) = base.row(i % 3);
    if (i >= 3) x.row(i) += 1e-4f * random_matrix(1, d, 60 + i);
  }
  expect_agree(x, c);
  expect_agree(x, c, 4);
}

// Rounding errors that all point the same way, the case the bound must cover in full: every
// coordinate of centre A rounds down by almost 2^-8, most of B's round up by almost as much, so
// bf16 ranks B first by about 2^-7 |x| |c| where the exact inner product ranks A first.
TEST(Bf16Screen, AlignedRoundingErrorsAgree) {
  const Eigen::Index d = 64;
  const float down = 1.0f + 0x1p-8f - 0x1p-20f, up = 1.0f + 0x1p-8f + 0x1p-20f;
  MatrixF c(4, d);
  for (Eigen::Index j = 0; j < d; ++j) {
    c(0, j) = down;                    // A: exactly d (1 + 2^-8 - 2^-20), in bf16 d
    c(1, j) = j % 10 == 9 ? 1.0f : up;  // B: exactly below A, in bf16 0.9 d 2^-7 above it
    c(2, j) = 1.0f;
    c(3, j) = j % 2 ? down : 1.0f;
  }
  test::expect_aligned_rounding_agrees(c, BlasScreen::kBf16Emulated);
}

// Norms from 1e-30 to 1e30 within one search, coordinates that are float subnormals (which bf16
// engines read as zero), zero rows and centres (L2 and IP only: cosine refuses them).
TEST(Bf16Screen, ExtremeMagnitudesAgree) {
  MatrixF x = random_matrix(24, 40, 7), c = random_matrix(50, 40, 8);
  for (Eigen::Index i = 0; i < x.rows(); ++i) x.row(i) *= std::pow(10.0f, float(i % 7) * 10.0f - 30.0f);
  for (Eigen::Index j = 0; j < c.rows(); ++j) c.row(j) *= std::pow(10.0f, float(j % 5) * 2.0f - 4.0f);
  expect_agree(x, c);
  MatrixF tiny = random_matrix(12, 40, 9, -1e-38f, 1e-38f);  // subnormal and barely normal coordinates
  tiny.row(0) *= 1e-5f;                                       // all subnormal
  expect_agree(tiny, random_matrix(30, 40, 10, -1e-38f, 1e-38f));
  expect_agree(tiny, c);
  MatrixF zeros = random_matrix(10, 40, 11);
  zeros.row(4).setZero();
  c.row(7).setZero();
  for (const BlasKernel& kernel : test::blas_kernels()) {
    for (Metric m : {Metric::kL2, Metric::kInnerProduct}) {
      std::string report;
      EXPECT_TRUE(verify_against_reference(kernel, zeros, c, m, &report)) << report;
    }
  }
}

// Norms of 1e38 and more, where bf16 rounding would overflow, while |x| |c| stays far from float
// overflow: the search screens in fp32 instead, still exact.
TEST(Bf16Screen, NormsNearFloatMaxFallBackAndAgree) {
  MatrixF x = random_matrix(16, 8, 12, -3e38f, 3e38f), c = random_matrix(40, 8, 13, -1e-8f, 1e-8f);
  expect_agree(x, c);
  expect_agree(c, x);
}

}  // namespace
}  // namespace secpe
