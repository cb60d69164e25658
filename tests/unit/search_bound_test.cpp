// The shared candidate bound (compute/impl/search_bound.hpp), checked against what it bounds: the
// approximate score from a float dot product (any summation order) and from TF32-rounded inputs
// (as tensor cores round them, their sums possibly truncated) never differs from the exact score
// by more than score_error.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "compute/impl/exact_score.hpp"
#include "compute/impl/search_bound.hpp"

namespace secpe {
namespace {

// x with its mantissa cut to TF32's 10 bits (truncation: the larger of the two roundings' errors).
float tf32(float x) { return std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) & 0xffffe000u); }

// g = x . c in float, summed in reverse (an order unlike the exact score's), inputs optionally TF32.
float float_dot(const float* x, const float* c, int d, bool round_inputs) {
  float g = 0.0f;
  for (int j = d - 1; j >= 0; --j) g += (round_inputs ? tf32(x[j]) * tf32(c[j]) : x[j] * c[j]);
  return g;
}

TEST(SearchBound, ApproximateScoresStayWithinTheBound) {
  std::mt19937_64 gen(5);
  for (const int d : {1, 3, 64, 768}) {
    for (const bool tensor : {false, true}) {
      for (const Metric metric : {Metric::kL2, Metric::kInnerProduct, Metric::kCosine}) {
        const bound::ScoreBound b = bound::make_score_bound(metric, d, tensor ? bound::kTf32InputUnit : 0.0);
        std::uniform_real_distribution<float> value(-2.0f, 2.0f);
        MatrixF x(40, d), c(40, d);
        for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = value(gen), c.data()[i] = value(gen);
        c.row(1) = x.row(1);  // a centre equal to the row: cancellation in L2
        for (Eigen::Index i = 0; i < 40; ++i) {
          const double rx = exact::norm(x.row(i).data(), d), rc = exact::norm(c.row(i).data(), d);
          const float g = float_dot(x.row(i).data(), c.row(i).data(), d, tensor);
          const double a = bound::approx_score(metric, g, rx * rx, rc * rc, 1.0 / rx, 1.0 / rc);
          const double r = exact::pair_score(metric, x.row(i).data(), c.row(i).data(), d, rx, rc);
          EXPECT_LE(std::fabs(a - r), bound::score_error(b, metric, rx, rc, 1.0 / rc))
              << "d " << d << ", tf32 " << tensor << ", metric " << metric_name(metric) << ", row " << i;
          if (tensor && metric == Metric::kL2 && i == 1 && d == 768) {  // TF32 needs its wider bound
            EXPECT_GT(std::fabs(a - r), bound::score_error(bound::make_score_bound(metric, d), metric, rx, rc, 1.0 / rc));
          }
        }
      }
    }
  }
}

// The narrow screens' form: measured units for the row and the centres, and 3 roundings (int8's
// exact sums, then the conversion and two products): the bound holds when x and c are replaced by
// their rounded copies (each coordinate pushed by up to 2^-7 relative, the same way for a row, so
// that the errors add up).
TEST(SearchBound, MeasuredUnitsBoundRoundedInputs) {
  std::mt19937_64 gen(9);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  for (const int d : {1, 7, 768}) {
    MatrixF x(30, d), c(30, d), xr(30, d), cr(30, d);
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      x.data()[i] = value(gen), c.data()[i] = value(gen);
      xr.data()[i] = x.data()[i] * (1.0f + 0x1p-7f);                       // aligned errors
      cr.data()[i] = c.data()[i] * (1.0f - (i % 3 ? 0x1p-8f : -0x1p-8f));  // mixed
    }
    for (const Metric metric : {Metric::kL2, Metric::kInnerProduct, Metric::kCosine}) {
      for (Eigen::Index i = 0; i < 30; ++i) {
        const double rx = exact::norm(x.row(i).data(), d), rc = exact::norm(c.row(i).data(), d);
        double ex = 0, ec = 0;
        for (int k = 0; k < d; ++k) {
          ex += std::pow(double(xr(i, k)) - x(i, k), 2);
          ec += std::pow(double(cr(i, k)) - c(i, k), 2);
        }
        const double ux = std::sqrt(ex) / rx * (1 + 1e-12), uc = std::sqrt(ec) / rc * (1 + 1e-12);
        const float g = static_cast<float>(exact::dot(xr.row(i).data(), cr.row(i).data(), d));  // exact, then one rounding
        const double a = bound::approx_score(metric, g, rx * rx, rc * rc, 1.0 / rx, 1.0 / rc);
        const double r = exact::pair_score(metric, x.row(i).data(), c.row(i).data(), d, rx, rc);
        const bound::ScoreBound b = bound::make_row_bound(metric, d, ux, 3);
        EXPECT_LE(std::fabs(a - r), bound::score_error(b, metric, rx, rc, 1.0 / rc, uc)) << d << " " << metric_name(metric) << " " << i;
      }
    }
  }
}

// The regrouped form a vector loop evaluates (RowTerms, CentreTerms) is score_error itself, up to
// the last bits of a double.
TEST(SearchBound, TermsRegroupScoreError) {
  for (const Metric metric : {Metric::kL2, Metric::kInnerProduct, Metric::kCosine}) {
    for (const double ux : {0.0, 0x1p-9, 0x1p-7}) {
      const bound::ScoreBound b = bound::make_row_bound(metric, 768, ux, 3);
      for (const double rx : {1e-6, 0.7, 3.0, 1e9}) {
        for (const double rc : {1e-3, 1.0, 2.5e4}) {
          for (const double uc : {0.0, 0x1p-8, 0.3}) {
            const bound::CentreTerms c = bound::centre_terms(metric, rc, 1.0 / rc, uc);
            const double e = bound::terms_error(bound::row_terms(b, metric, rx), c.p, c.q, c.r);
            const double want = bound::score_error(b, metric, rx, rc, 1.0 / rc, uc);
            EXPECT_NEAR(e, want, 1e-14 * want) << metric_name(metric) << " " << rx << " " << rc << " " << uc;
          }
        }
      }
    }
  }
}

// g = x . c as tensor cores may compute it: TF32 inputs (truncated), products exact in float,
// each partial sum truncated toward zero instead of rounded to nearest.
float truncating_dot(const float* x, const float* c, int d) {
  float g = 0.0f;
  for (int j = 0; j < d; ++j) {
    const double sum = double(g) + double(tf32(x[j]) * tf32(c[j]));  // exact: two floats' sum fits a double here
    float f = static_cast<float>(sum);
    if (std::fabs(double(f)) > std::fabs(sum)) f = std::nextafter(f, 0.0f);
    g = f;
  }
  return g;
}

TEST(SearchBound, Tf32BoundCoversTruncatingAccumulation) {
  std::mt19937_64 gen(6);
  for (const int d : {64, 768, 4096}) {
    for (const Metric metric : {Metric::kL2, Metric::kInnerProduct, Metric::kCosine}) {
      const bound::ScoreBound b = bound::make_score_bound(metric, d, bound::kTf32InputUnit, bound::kTensorCoreAccumulationUnit);
      // Positive values: every truncation errs the same way, the worst case for a long sum.
      std::uniform_real_distribution<float> value(0.5f, 1.0f);
      MatrixF x(20, d), c(20, d);
      for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = value(gen), c.data()[i] = value(gen);
      for (Eigen::Index i = 0; i < 20; ++i) {
        const double rx = exact::norm(x.row(i).data(), d), rc = exact::norm(c.row(i).data(), d);
        const float g = truncating_dot(x.row(i).data(), c.row(i).data(), d);
        const double a = bound::approx_score(metric, g, rx * rx, rc * rc, 1.0 / rx, 1.0 / rc);
        const double r = exact::pair_score(metric, x.row(i).data(), c.row(i).data(), d, rx, rc);
        EXPECT_LE(std::fabs(a - r), bound::score_error(b, metric, rx, rc, 1.0 / rc)) << "d " << d << ", metric " << metric_name(metric);
      }
    }
  }
  const bound::ScoreBound rounded = bound::make_score_bound(Metric::kL2, 768, bound::kTf32InputUnit);
  const bound::ScoreBound truncated = bound::make_score_bound(Metric::kL2, 768, bound::kTf32InputUnit, bound::kTensorCoreAccumulationUnit);
  EXPECT_GT(truncated.rel, rounded.rel);
}

TEST(SearchBound, WiderForTf32AndGrowingWithTheNorms) {
  const bound::ScoreBound f = bound::make_score_bound(Metric::kL2, 768), t = bound::make_score_bound(Metric::kL2, 768, bound::kTf32InputUnit);
  EXPECT_GT(t.rel, f.rel);
  EXPECT_LT(bound::score_error(f, Metric::kL2, 1.0, 1.0, 1.0), bound::score_error(f, Metric::kL2, 1.0, 2.0, 1.0));
  EXPECT_TRUE(bound::exact_only(1e20, 1e20, 100, 1));  // a float GEMM could overflow
  EXPECT_TRUE(bound::exact_only(1.0, 1.0, 3, 2));      // at most k + 1 centres
  EXPECT_FALSE(bound::exact_only(1.0, 1.0, 4, 2));
  EXPECT_TRUE(bound::better(1.0, 5, 2.0, 1));
  EXPECT_TRUE(bound::better(1.0, 1, 1.0, 2));  // ties to the lower index
  EXPECT_FALSE(bound::better(1.0, 2, 1.0, 2));
}

}  // namespace
}  // namespace secpe
