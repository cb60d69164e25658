// The narrow screens' shift (compute/cpu/screen_gemm.hpp, "Shift"; the bound in
// compute/impl/search_bound.hpp, "Shifted screens") and the cascade of screens
// (compute/cpu/screen_cascade.hpp): the shift is chosen where centres share a common part, the
// rounding of residuals is measured rigorously, the shifted bound holds and is nearly tight when
// every rounding error points the same way, and searches on narrow-cone data (all vectors near
// one direction, as text embeddings are) stay on the narrow screen and agree with the reference
// bit for bit, as do searches that step through every screen of the cascade.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "blas_test_util.hpp"
#include "compute/cpu/bf16_gemm.hpp"
#include "compute/cpu/int8_gemm.hpp"
#include "compute/cpu/screen_cascade.hpp"
#include "compute/impl/exact_score.hpp"
#include "compute/impl/search_bound.hpp"

namespace secpe {
namespace {

using test::random_matrix;

// Rows near one direction: base + spread * (a random direction), the base of norm 1. With
// spread 0.15 the cosine between two of them is about 0.98.
MatrixF cone(Eigen::Index rows, Eigen::Index d, float spread, std::uint64_t seed) {
  MatrixF base = random_matrix(1, d, 1000);
  base.row(0).normalize();
  MatrixF v = random_matrix(rows, d, seed);
  for (Eigen::Index i = 0; i < rows; ++i) v.row(i) = base.row(0) + spread * v.row(i).normalized();
  return v;
}

std::vector<double> norms_of(const MatrixF& v) {
  std::vector<double> n(static_cast<std::size_t>(v.rows()));
  for (Eigen::Index i = 0; i < v.rows(); ++i) n[static_cast<std::size_t>(i)] = exact::norm(v.row(i).data(), v.cols());
  return n;
}

screen::Shift constant_shift(Eigen::Index d, float value) {
  screen::Shift s;
  s.m.assign(static_cast<std::size_t>(d), value);
  s.sq = exact::dot(s.m.data(), s.m.data(), d);
  s.norm = std::sqrt(s.sq) * (1.0 + 0x1p-40);
  return s;
}

TEST(ScreenShift, ChosenWhereTheCentresShareACommonPart) {
  const MatrixF narrow = cone(50, 64, 0.15f, 1), centred = random_matrix(50, 64, 2);
  const screen::Shift s = screen::choose_shift(narrow, norms_of(narrow), 2.0, 2);
  ASSERT_EQ(s.m.size(), 64u);
  EXPECT_EQ(s.sq, exact::dot(s.m.data(), s.m.data(), 64));
  EXPECT_GE(s.norm, std::sqrt(s.sq));
  // The same mean on 1 and 2 threads (the sums' order does not depend on them).
  EXPECT_EQ(screen::choose_shift(narrow, norms_of(narrow), 2.0, 1).m, s.m);
  EXPECT_TRUE(screen::choose_shift(centred, norms_of(centred), 2.0, 2).m.empty());
  EXPECT_TRUE(screen::choose_shift(narrow.topRows(1), norms_of(narrow.topRows(1)), 2.0, 1).m.empty());  // one centre
  EXPECT_TRUE(screen::choose_shift(narrow * 1e19f, norms_of(narrow * 1e19f), 2e19, 1).m.empty());     // a GEMM could overflow
  // A row is shifted where that shortens it.
  EXPECT_TRUE(screen::shift_row(s, screen::shift_dot(s, narrow.row(3).data(), 64)));
  EXPECT_FALSE(screen::shift_row(s, screen::shift_dot(s, (-narrow.row(3)).eval().data(), 64)));
  EXPECT_EQ(screen::shift_dot(screen::Shift{}, narrow.row(3).data(), 64), 0.0);
}

// |V - V'| <= u R and |V| <= R for the residual V = v - m, from the values the engines multiply,
// in long double: int8 (q times the scale) and bf16.
TEST(ScreenShift, ResidualRoundingIsMeasuredRigorously) {
  const Eigen::Index d = 300;
  const MatrixF v = cone(12, d, 0.1f, 3);
  const screen::Shift s = screen::choose_shift(v, norms_of(v), 1e4, 1);
  ASSERT_FALSE(s.m.empty());
  MatrixF w = v;
  w.row(5) *= 1e3f;  // a residual far longer than the others
  w.row(7) = Eigen::Map<const Eigen::RowVectorXf>(s.m.data(), d);  // residual zero
  screen::RoundedRows rows;
  rows.shift_rows(s, w, 0, w.rows());
  for (std::size_t i = 0; i < rows.shifted.size(); ++i) rows.shifted[i] = 1;  // every row as v - m
  int8::round_rows(w, 0, w.rows(), s, rows);
  screen::RoundedRows brows = rows;
  bf16::round_rows(w, 0, w.rows(), s, brows);
  const Eigen::Index dp = screen::padded(d);
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    long double e8 = 0, eb = 0, norm = 0;
    for (Eigen::Index k = 0; k < d; ++k) {
      const long double r = (long double)w(i, k) - (long double)s.m[static_cast<std::size_t>(k)];
      const long double q = (long double)rows.scale[static_cast<std::size_t>(i)] * rows.int8[static_cast<std::size_t>(i * dp + k)];
      const std::uint32_t bits = std::uint32_t{brows.bf16[static_cast<std::size_t>(i * dp + k)]} << 16;
      float b;
      std::memcpy(&b, &bits, sizeof b);
      e8 += (r - q) * (r - q);
      eb += (r - b) * (r - b);
      norm += r * r;
    }
    SCOPED_TRACE(i);
    EXPECT_LE(std::sqrt(norm), (long double)rows.residuals[static_cast<std::size_t>(i)]);
    EXPECT_LE(std::sqrt(e8), (long double)rows.errors[static_cast<std::size_t>(i)] * rows.residuals[static_cast<std::size_t>(i)]);
    EXPECT_LE(std::sqrt(eb), (long double)brows.errors[static_cast<std::size_t>(i)] * brows.residuals[static_cast<std::size_t>(i)]);
  }
  EXPECT_EQ(rows.residuals[7], 0.0);
  EXPECT_LE(rows.errors[7], 0x1p-51);  // the shifted rounding's slack alone
}

// The shifted bound where it is nearly an equality: the shift m is constant 1000, one side's
// residual rounds (scale 1) by 0.49 in every coordinate, all in the direction of the other side's
// residual (exact in int8), the row's or the centre's. |A - R| is then within 1 % of the input
// term u R_x R_c, which the bound must still cover, for each metric: a bound that undercounted
// either side's rounding (or used the vectors' norms where the residuals' belong) fails here.
TEST(ScreenShift, BoundIsNearlyTightOnAlignedResidualErrors) {
  const Eigen::Index d = 64;
  const screen::Shift s = constant_shift(d, 1000.0f);
  MatrixF inexact = MatrixF::Constant(1, d, 1000.0f + 60.49f), exact = MatrixF::Constant(1, d, 1000.0f + 127.0f);
  inexact(0, 0) = 1127.0f;  // residual 127: scale 1
  for (const bool row_inexact : {true, false}) {
    const MatrixF& x = row_inexact ? inexact : exact;
    const MatrixF& c = row_inexact ? exact : inexact;
    screen::RoundedRows rows;
    rows.shift_rows(s, x, 0, 1);
    ASSERT_EQ(rows.shifted[0], 1);
    int8::round_rows(x, 0, 1, s, rows);
    const int8::PackedCentres packed(c, s);
    EXPECT_LE(std::min(rows.errors[0], packed.relative_errors()[0]), 0x1p-51);  // exact in int8: the shifted rounding's slack alone
    std::vector<float> g(32 * 32);
    int8::gemm(screen::Engine::kInt8Emulated, rows, 32, packed, 0, 32, g.data());
    const double rx = exact::norm(x.row(0).data(), d), rc = exact::norm(c.row(0).data(), d);
    const bound::ShiftedScreen shifted{d, 3, bound::kFloatUnit, s.norm, rc};
    const double input = (rows.errors[0] + packed.relative_errors()[0]) * rows.residuals[0] * packed.residuals()[0];
    for (const Metric m : test::kMetrics) {
      SCOPED_TRACE(std::string(metric_name(m)) + (row_inexact ? ", row inexact" : ", centre inexact"));
      const double r = exact::pair_score(m, x.row(0).data(), c.row(0).data(), d, rx, rc);
      const double p = bound::row_offset(m, rx * rx, rows.shift_dots[0]);
      const double q = bound::centre_offset(m, rc * rc, screen::shift_dot(s, c.row(0).data(), d), s.sq);
      const double a = bound::offset_score_of<double>(m, double(g[0]), p, q, 1 / rx, 1 / rc);
      const bound::RowTerms t = bound::shifted_row_terms(shifted, m, rows.errors[0], rows.residuals[0], rx);
      const bound::CentreTerms ct = bound::shifted_centre_terms(m, packed.relative_errors()[0], packed.residuals()[0], rc, 1 / rc);
      const double scale = m == Metric::kL2 ? 2.0 : m == Metric::kCosine ? 1 / (rx * rc) : 1.0;
      EXPECT_GT(std::fabs(a - r), 0.99 * scale * input);
      EXPECT_LE(std::fabs(a - r), bound::terms_error<double>(t, ct.p, ct.q, ct.r));
    }
  }
}

// Narrow-cone data with near ties (centre pairs a float step apart) and a row pointing the other
// way (rounded unshifted, beside shifted ones in its block): with the shift, int8
// keeps a handful of candidates per row where without it the screen cannot tell the centres apart;
// with and without, on every engine, every metric, 1 and 2 threads, k = 1 and 3 and search_mutual,
// the answers are the reference's.
TEST(ScreenShift, NarrowConeSearchesKeepFewCandidatesAndAgree) {
  const Eigen::Index d = 96, n = 256;
  MatrixF c = cone(n, d, 0.15f, 4);
  for (Eigen::Index j = 1; j < n; j += 8) c.row(j) = c.row(j - 1), c(j, j % d) = std::nextafter(c(j, j % d), 2.0f);
  MatrixF x = cone(300, d, 0.15f, 5);
  const MatrixF noise = random_matrix(x.rows(), d, 6);
  for (Eigen::Index i = 0; i < x.rows(); i += 3) x.row(i) = c.row(i % n) + 0.001f * noise.row(i);
  x.row(4) = -x.row(4);  // a row the shift would lengthen: rounded as itself
  for (const BlasScreen screen : {BlasScreen::kInt8Emulated, BlasScreen::kInt8, BlasScreen::kBf16Emulated, BlasScreen::kBf16}) {
    for (const bool shift : {true, false}) {
      for (const int threads : {1, 2}) {
        ScreenStats stats;
        const BlasKernel kernel(BlasKernelOptions{.threads = threads, .row_block = 64, .screen = screen, .stats = &stats, .screen_shift = shift});
        for (const Metric m : test::kMetrics) {
          SCOPED_TRACE(std::string(blas_screen_name(screen)) + (shift ? " shifted " : " ") + metric_name(m));
          std::string report;
          EXPECT_TRUE(verify_against_reference(kernel, x, c, m, &report)) << report;
          EXPECT_TRUE(verify_against_reference(kernel, x, c, m, &report, 3)) << report;
          test::expect_mutual_agrees(kernel, x, c, m);
        }
        if (screen != BlasScreen::kInt8Emulated) continue;  // the emulation never leaves int8: its counts are the screen's own
        const double kept = double(stats.kept[0]) / double(stats.rows[0]);
        SCOPED_TRACE(kept);
        EXPECT_EQ(stats.rows[1] + stats.rows[2], 0u);
        EXPECT_TRUE(shift ? kept < 8.0 : kept > 0.5 * double(n));
      }
    }
  }
}

// A limit below one candidate per row: each block hands the search on, so that with one thread
// the first block screens in int8, the second in bf16, the rest in fp32; the answers are the
// reference's for every metric.
TEST(ScreenCascade, StepsThroughEveryScreenAndAgrees) {
  const Eigen::Index d = 48;
  const MatrixF c = cone(100, d, 0.2f, 7), x = cone(64, d, 0.2f, 8);
  for (const BlasScreen screen : {BlasScreen::kInt8Emulated, BlasScreen::kInt8}) {
    if (screen == BlasScreen::kInt8 && !(screen::available(screen::Engine::kInt8Avx512) || screen::available(screen::Engine::kInt8Avx)))
      continue;
    for (const Metric m : test::kMetrics) {
      SCOPED_TRACE(std::string(blas_screen_name(screen)) + " " + metric_name(m));
      ScreenStats stats;
      const BlasKernel kernel(
          BlasKernelOptions{.threads = 1, .row_block = 16, .screen = screen, .stats = &stats, .cascade_limit = 1e-9});
      std::string report;
      EXPECT_TRUE(verify_against_reference(kernel, x, c, m, &report)) << report;
      const bool bf16_runs = screen == BlasScreen::kInt8Emulated || screen_engine(BlasScreen::kBf16).has_value();
      EXPECT_EQ(stats.rows[0], 16u);
      EXPECT_EQ(stats.rows[1], bf16_runs ? 16u : 0u);
      EXPECT_EQ(stats.rows[2], bf16_runs ? 32u : 48u);
    }
  }
  // Every screen's limit: the emulations never give up; a faster screen gives up sooner.
  EXPECT_TRUE(std::isinf(screen::level_limit(screen::Engine::kInt8Emulated, std::nullopt, 1000)));
  EXPECT_LT(screen::level_limit(screen::Engine::kInt8Avx512, screen::Engine::kBf16Avx512, 35000),
            screen::level_limit(screen::Engine::kInt8Avx512, std::nullopt, 35000));
  // A screen measured slower than the estimate gives up sooner.
  EXPECT_LT(screen::level_limit(screen::Engine::kInt8Avx512, std::nullopt, 600, {.int8 = 1.6}),
            screen::level_limit(screen::Engine::kInt8Avx512, std::nullopt, 600));
}

// A bf16 engine measured no faster than sgemm (blas-check's speedups in SECPE_BLAS_SCREEN_AUTO) is
// no step of the cascade: int8 hands the search to fp32. Measured faster, it is one. The answers
// are the reference's either way.
TEST(ScreenCascade, LeavesOutAStepMeasuredSlowerThanSgemm) {
  if (!screen_engine(BlasScreen::kInt8) || !screen_engine(BlasScreen::kBf16)) GTEST_SKIP() << "needs native int8 and bf16 engines";
  const Eigen::Index d = 48;
  const MatrixF c = cone(100, d, 0.2f, 7), x = cone(64, d, 0.2f, 8);
  for (const double bf16 : {0.56, 3.0}) {
    SCOPED_TRACE(bf16);
    ScreenStats stats;
    const AutoScreen measured{
        .tiers = {{BlasScreen::kInt8, 0}}, .source = "test", .speedups = {{BlasScreen::kInt8, 2.0}, {BlasScreen::kBf16, bf16}}};
    const BlasKernel kernel(BlasKernelOptions{
        .threads = 1, .row_block = 16, .screen = BlasScreen::kAuto, .auto_choice = measured, .stats = &stats, .cascade_limit = 1e-9});
    std::string report;
    EXPECT_TRUE(verify_against_reference(kernel, x, c, Metric::kCosine, &report)) << report;
    EXPECT_EQ(stats.rows[0], 16u);
    EXPECT_EQ(stats.rows[1], bf16 > 1.0 ? 16u : 0u);
    EXPECT_EQ(stats.rows[2], bf16 > 1.0 ? 32u : 48u);
  }
}

}  // namespace
}  // namespace secpe
