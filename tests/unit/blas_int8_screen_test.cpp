// The BLAS kernel's int8 screen: the quantisation and its measured error, the engines (AVX512-VNNI
// and AVX-VNNI where the CPU has them) against the portable emulation bit for bit, the bound on
// data whose rounding errors all point the same way, and searches bit-identical to the reference
// kernel. The general kernel tests (compute_kernel_test.cpp) run every screen too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "blas_test_util.hpp"
#include "compute/cpu/int8_gemm.hpp"
#include "compute/impl/exact_score.hpp"
#include "compute/impl/search_bound.hpp"

namespace secpe {
namespace {

using test::expect_agree;
using test::random_matrix;

// |v - s q| / |v| in long double, from the quantised values themselves.
long double true_error(const float* v, Eigen::Index d, const std::int8_t* q, float scale) {
  long double error = 0, norm = 0;
  for (Eigen::Index k = 0; k < d; ++k) {
    const long double e = (long double)v[k] - (long double)scale * q[k];
    error += e * e;
    norm += (long double)v[k] * v[k];
  }
  return norm > 0 ? std::sqrt(error / norm) : 0;
}

TEST(Int8Screen, QuantiseMeasuresItsError) {
  MatrixF v = random_matrix(20, 300, 3);
  v.row(1) *= 1e-12f;
  v.row(2) *= 1e12f;
  for (Eigen::Index k = 0; k < v.cols(); ++k) v(3, k) = k == 7 ? 100.0f : 1e-3f * v(3, k);  // one large coordinate
  for (Eigen::Index k = 0; k < v.cols(); ++k) v(4, k) = float(k % 255) - 127.0f;               // exact in int8
  for (Eigen::Index i = 0; i < v.rows(); ++i) {
    std::vector<std::int8_t> q(static_cast<std::size_t>(v.cols()));
    float scale = 0.0f;
    std::int32_t sum = 0;
    const double u = int8::quantise(v.row(i).data(), nullptr, v.cols(), q.data(), &scale, &sum).unit;
    float m = 0.0f;
    std::int32_t want_sum = 0;
    for (Eigen::Index k = 0; k < v.cols(); ++k) m = std::max(m, std::fabs(v(i, k))), want_sum += q[static_cast<std::size_t>(k)];
    EXPECT_EQ(scale, m / 127.0f) << i;
    EXPECT_EQ(sum, want_sum) << i;
    for (const std::int8_t x : q) ASSERT_GE(x, -127);
    const long double exact = true_error(v.row(i).data(), v.cols(), q.data(), scale);
    EXPECT_GE(u, exact) << i;
    EXPECT_LE(u, exact * (1 + 1e-12) + 1e-300) << i;  // rigorous, and not pessimistic
    if (i != 3 && i != 4) EXPECT_LT(u, 0x1p-6) << i;   // about 2^-7 for uniform coordinates
  }
  std::vector<std::int8_t> q(4);
  float scale = 1.0f;
  std::int32_t sum = 1;
  const float zeros[4] = {0.0f, -0.0f, 0.0f, 0.0f};
  EXPECT_EQ(int8::quantise(zeros, nullptr, 4, q.data(), &scale, &sum).unit, 0.0);
  EXPECT_EQ(scale, 0.0f);
  EXPECT_EQ(sum, 0);
}

// Rows and centres of every engine that runs here, against the emulation: the same floats bit
// for bit (the integers are exact, the epilogue the same three roundings), for shapes that need
// padding in every direction; and the emulation against the bound.
TEST(Int8Screen, EnginesMatchTheEmulationBitForBit) {
  const Eigen::Index m = 37, n = 70, d = 45;
  MatrixF x = random_matrix(m, d, 1), c = random_matrix(n, d, 2);
  x.row(5).setZero();
  c.row(9) *= 1e-9f;
  const int8::PackedCentres packed(c, screen::Shift{}, 2);
  screen::RoundedRows rows;
  int8::round_rows(x, 0, m, screen::Shift{}, rows);
  const Eigen::Index mbp = screen::padded(m), nbp = screen::padded(n);
  std::vector<float> emulated(static_cast<std::size_t>(mbp * nbp), -1.0f);
  int8::gemm(screen::Engine::kInt8Emulated, rows, mbp, packed, 0, nbp, emulated.data());
  const double gamma3 = 3 * 0x1p-24 / (1 - 3 * 0x1p-24);
  for (Eigen::Index i = 0; i < m; ++i) {
    const double ux = rows.errors[static_cast<std::size_t>(i)], uc = packed.max_relative_error();
    for (Eigen::Index j = 0; j < n; ++j) {
      const double exact = exact::dot(x.row(i).data(), c.row(j).data(), d);
      const double norms = exact::norm(x.row(i).data(), d) * exact::norm(c.row(j).data(), d);
      EXPECT_LE(std::fabs(double(emulated[i * nbp + j]) - exact), (ux + uc + ux * uc + gamma3 * (1 + ux) * (1 + uc)) * norms)
          << i << ", " << j;
    }
  }
  for (const screen::Engine engine : {screen::Engine::kInt8Avx512, screen::Engine::kInt8Avx}) {
    if (!screen::available(engine)) continue;
    std::vector<float> g(emulated.size(), -2.0f);
    int8::gemm(engine, rows, mbp, packed, 0, nbp, g.data());
    EXPECT_EQ(std::memcmp(g.data(), emulated.data(), g.size() * sizeof(float)), 0) << screen::engine_name(engine);
    // A block that starts inside the centres (c0 = 32) reads the right groups.
    std::vector<float> tail(static_cast<std::size_t>(mbp * 32)), want(tail.size());
    int8::gemm(engine, rows, mbp, packed, 32, 32, tail.data());
    int8::gemm(screen::Engine::kInt8Emulated, rows, mbp, packed, 32, 32, want.data());
    EXPECT_EQ(std::memcmp(tail.data(), want.data(), tail.size() * sizeof(float)), 0) << screen::engine_name(engine);
  }
}

// Rounding errors that all point the same way, the case the bound must cover in full: x' - x is
// parallel to c (every coordinate rounds down by almost half a step, c constant), so
// Cauchy-Schwarz is nearly an equality; the shared bound still holds, with little to spare.
TEST(Int8Screen, BoundIsNearlyTightOnAlignedErrors) {
  const Eigen::Index d = 64;
  MatrixF x(1, d), c = MatrixF::Constant(1, d, 127.0f);  // scale 1: exact in int8
  x(0, 0) = 127.0f;  // sets the scale to 1
  for (Eigen::Index k = 1; k < d; ++k) x(0, k) = 60.49f;
  screen::RoundedRows rows;
  int8::round_rows(x, 0, 1, screen::Shift{}, rows);
  const int8::PackedCentres packed(c, screen::Shift{});
  std::vector<float> g(32 * 32);
  int8::gemm(screen::Engine::kInt8Emulated, rows, 32, packed, 0, 32, g.data());
  const double rx = exact::norm(x.row(0).data(), d), rc = exact::norm(c.row(0).data(), d);
  const double r = exact::pair_score(Metric::kInnerProduct, x.row(0).data(), c.row(0).data(), d, rx, rc);
  const double a = bound::approx_score(Metric::kInnerProduct, g[0], rx * rx, rc * rc, 1 / rx, 1 / rc);
  const double input_term = (rows.errors[0] + packed.max_relative_error()) * rx * rc;
  const bound::ScoreBound b = bound::make_row_bound(Metric::kInnerProduct, d, rows.errors[0], 3);
  EXPECT_EQ(packed.max_relative_error(), 0.0);  // c is exact in int8
  EXPECT_GT(std::fabs(a - r), 0.95 * input_term);
  EXPECT_LE(std::fabs(a - r), bound::score_error(b, Metric::kInnerProduct, rx, rc, 1 / rc, packed.max_relative_error()));
}

// Centre A is the nearest by inner product, but every coordinate of A rounds down by almost half
// a step and B's round up: int8 ranks B first by about 60 steps. Only the rescoring saves A.
TEST(Int8Screen, AlignedRoundingErrorsAgree) {
  const Eigen::Index d = 64;
  MatrixF c(4, d);
  for (Eigen::Index k = 0; k < d; ++k) {
    c(0, k) = k == 0 ? 127.0f : 100.49f;                       // A: 6457.87 exactly (about), 6427 in int8
    c(1, k) = k == 0 ? 127.0f : (k == 1 ? 99.2f : 100.51f);    // B: 6457.82, 6488 in int8
    c(2, k) = 100.0f;
    c(3, k) = k % 2 ? 100.49f : 100.0f;
  }
  test::expect_aligned_rounding_agrees(c, BlasScreen::kInt8Emulated);
}

// Norms outside [2^-40, 2^40] (where the int8 epilogue could underflow or overflow in float) and
// a dimension beyond 65536 (where the int32 sums could overflow): the search screens in fp32,
// still exact; zero rows and centres are no obstacle.
TEST(Int8Screen, OutOfRangeSearchesFallBackAndAgree) {
  EXPECT_TRUE(screen::fits(screen::Engine::kInt8Emulated, 768, 0x1p-40, 0x1p40));
  EXPECT_FALSE(screen::fits(screen::Engine::kInt8Emulated, 768, 0x1p-41, 1.0));
  EXPECT_FALSE(screen::fits(screen::Engine::kInt8Emulated, 768, 1.0, 0x1p41));
  EXPECT_FALSE(screen::fits(screen::Engine::kInt8Emulated, 65537, 1.0, 1.0));
  EXPECT_TRUE(screen::fits(screen::Engine::kBf16Emulated, 65537, 1e-30, 1e37));
  MatrixF x = random_matrix(20, 12, 7), c = random_matrix(30, 12, 8);
  x.row(3) *= 1e15f;
  expect_agree(x, c);
  x.row(3) *= 1e-30f;
  expect_agree(x, c);
  x = random_matrix(20, 12, 9);
  x.row(2).setZero();
  c.row(4).setZero();
  for (const BlasKernel& kernel : test::blas_kernels()) {
    for (Metric m : {Metric::kL2, Metric::kInnerProduct}) {
      std::string report;
      EXPECT_TRUE(verify_against_reference(kernel, x, c, m, &report)) << report;
    }
  }
  const BlasKernel int8_kernel(BlasKernelOptions{.threads = 1, .screen = BlasScreen::kInt8Emulated});
  std::string report;
  EXPECT_TRUE(verify_against_reference(int8_kernel, random_matrix(2, 65537, 10), random_matrix(3, 65537, 11), Metric::kL2, &report))
      << report;
}

// Centres in a narrow cone, closer to each other than int8 (or bf16) can tell apart: most centres
// stay candidates, so after its first blocks the kernel screens the rest in fp32. Whichever blocks
// ran on which screen, the answers are the reference's.
TEST(Int8Screen, TooManyCandidatesFallBackToFp32AndAgree) {
  const Eigen::Index d = 64;
  const MatrixF base = random_matrix(1, d, 21), spread = random_matrix(40, d, 22), noise = random_matrix(600, d, 23);
  MatrixF c(40, d), x(600, d);
  for (Eigen::Index j = 0; j < c.rows(); ++j) c.row(j) = base.row(0) + 0.01f * spread.row(j);
  for (Eigen::Index i = 0; i < x.rows(); ++i) x.row(i) = c.row(i % c.rows()) + 0.05f * noise.row(i);
  for (const BlasScreen screen : {BlasScreen::kInt8, BlasScreen::kBf16}) {
    for (const int threads : {1, 2}) {
      const BlasKernel kernel(BlasKernelOptions{.threads = threads, .row_block = 50, .screen = screen});
      for (const Metric m : test::kMetrics) {
        std::string report;
        EXPECT_TRUE(verify_against_reference(kernel, x, c, m, &report)) << report;
        EXPECT_TRUE(verify_against_reference(kernel, x, c, m, &report, 3)) << report;
        test::expect_mutual_agrees(kernel, x, c, m);
      }
    }
  }
}

}  // namespace
}  // namespace secpe
