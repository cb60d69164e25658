#pragma once
// The candidate-selection rules every fast kernel shares, CPU (compute/cpu/blas_kernel.cpp) and
// GPU (compute/cuda/) alike, so both select with the same rigorous bound and order results the
// same way. Plain inline functions on doubles: host and device code (nvcc) compile this header.
//
// A kernel computes G = X C^T in float (sgemm), turns each entry into an approximate score A
// (approx_score) and bounds |A - R| by E (score_error), R being the exact score
// (compute/exact_score.hpp). Any centre whose lower bound A - E exceeds the k-th smallest upper
// bound A + E of its row cannot be among the k best, nor tie with them; the others are rescored
// exactly.
//
// The bound. Let x' and c' be the vectors the GEMM multiplies (x and c themselves for a float GEMM;
// x and c rounded for a low-precision screen or TF32 tensor cores) with |x - x'| <= u_x |x| and
// |c - c'| <= u_c |c|. Then x'.c' - x.c = (x' - x).c' + x.(c' - c) and |c'| <= (1 + u_c) |c| give
//   |x'.c' - x.c| <= (u_x + u_c + u_x u_c) |x| |c|                                   (input term)
// (Cauchy-Schwarz; TF32 rounds each coordinate to 10 mantissa bits, u = input_unit = 2^-10; the
// CPU's bf16 and int8 screens measure u per vector: compute/cpu/screen_gemm.hpp). The GEMM's own
// arithmetic adds, for a float dot product of length d summed in any order (with or without FMA),
// at most gamma_n sum_j |x'_j c'_j| <= gamma_n (1 + u_x)(1 + u_c) |x| |c|, gamma_n = n u / (1 - n u),
// u = 2^-24 (2^-23 for sums that may truncate, as tensor cores' may) and n = d roundings (an int8
// screen sums exactly and rounds 3 times: n = 3), plus what
// underflow (or a flush-to-zero mode) loses: at most d 2^-126 (1 + |x|_inf + |c|_inf) per product
// sum, which we bound by d 2^-120 (1 + |x| + |c|). The norm terms and the reference itself are
// computed in double, off by at most (gamma_d(2^-53) + 4 2^-53) times their magnitude.
// The input term is a proven bound on a measured (or, for TF32, a priori) quantity, used as is
// (times 1 + 2^-30, for the double arithmetic that computes the bound and the comparisons); the
// rounding terms are doubled for safety. A wider input term only costs candidates, never answers.
#include "compute/metric.hpp"

#if defined(__CUDACC__)
#define SECPE_HOST_DEVICE __host__ __device__
#define SECPE_LANES_INLINE
#else
#define SECPE_HOST_DEVICE
// The forms that the CPU kernel also evaluates in lanes of a GCC vector type: always inlined, so
// that no copy passes vectors by value to a caller compiled for narrower registers.
#define SECPE_LANES_INLINE [[gnu::always_inline]]
#endif

namespace secpe::bound {

// Input rounding unit of a TF32 GEMM (see above); 0 for a true float GEMM.
inline constexpr double kTf32InputUnit = 0x1p-10;
// Rounding unit of the float accumulation: 2^-24 when it rounds to nearest (a float GEMM on CUDA
// or CPU cores); tensor cores may truncate their float sums instead, whose unit is 2^-23.
inline constexpr double kFloatUnit = 0x1p-24;
inline constexpr double kTensorCoreAccumulationUnit = 0x1p-23;

// The constants of the error bound for one row (or one search). The input term is linear in the
// centre's unit u_c, so that a kernel can give each centre its own: rel + u_c rel_centre.
struct ScoreBound {
  double rel = 0.0;         // times |x| |c|   (cosine: absolute), for u_c = 0
  double rel_centre = 0.0;  // times u_c |x| |c|   (cosine: u_c)
  double sq = 0.0;          // times (|x|^2 + |c|^2)   (L2 only)
  double abs = 0.0;         // times (1 + |x| + |c|)   (cosine: divided by |x| |c| as well)
};

// row_unit: u_x above; roundings: n above; accumulation_unit: u above. Each centre's u_c enters
// score_error. Expanding the terms, with m = 2^-30 and s the safety factor:
//   input = u_x (1 + m) + u_c (1 + u_x)(1 + m),   arith = gamma (1 + u_x) + u_c gamma (1 + u_x).
SECPE_HOST_DEVICE inline ScoreBound make_row_bound(Metric metric, long long d, double row_unit, long long roundings,
                                                   double accumulation_unit = kFloatUnit) {
  const double dd = static_cast<double>(d), n = static_cast<double>(roundings);
  const double u = accumulation_unit, ud = 0x1p-53, margin = 0x1p-30;
  const double gamma = n * u / (1.0 - n * u);
  const double gd = dd * ud / (1.0 - dd * ud) + 4.0 * ud;
  const double under = dd * 0x1p-120;
  const double safety = 2.0;
  // rel = input + safety (arith + gd) (times 2, and 4 gd, for L2), split into its part without
  // u_c and its part per unit of u_c.
  const double rel = row_unit * (1.0 + margin) + safety * gamma * (1.0 + row_unit);
  const double per_centre_unit = (1.0 + row_unit) * (1.0 + margin + safety * gamma);
  ScoreBound b;
  switch (metric) {
    case Metric::kL2:  // A = |x|^2 + |c|^2 - 2g
      b.rel = 2.0 * rel + safety * 4.0 * gd;
      b.rel_centre = 2.0 * per_centre_unit;
      b.sq = safety * 2.0 * gd;
      b.abs = safety * 2.0 * under;
      break;
    case Metric::kInnerProduct:  // A = -g
    case Metric::kCosine:        // A = -g / (|x| |c|); rel is then absolute
      b.rel = rel + safety * gd;
      b.rel_centre = per_centre_unit;
      b.abs = safety * under;
      break;
  }
  return b;
}

// A GEMM of d float roundings of unit accumulation_unit whose inputs, rows and centres alike, are
// rounded by at most input_unit each (TF32; 0: a float GEMM). The centres' unit is counted in rel.
SECPE_HOST_DEVICE inline ScoreBound make_score_bound(Metric metric, long long d, double input_unit = 0.0,
                                                     double accumulation_unit = kFloatUnit) {
  ScoreBound b = make_row_bound(metric, d, input_unit, d, accumulation_unit);
  b.rel += input_unit * b.rel_centre;
  b.rel_centre = 0.0;
  return b;
}

// The approximate score from g = float(x . c): sq_x = |x|^2, sq_c = |c|^2 (L2), inv_x = 1 / |x|,
// inv_c = 1 / |c| (cosine); the other arguments are unused. approx_score_of computes it for g
// widened to double already, in doubles or in lanes of them (a GCC vector type: the CPU kernel).
template <class T>
SECPE_LANES_INLINE SECPE_HOST_DEVICE inline T approx_score_of(Metric metric, const T& g, const T& sq_x, const T& sq_c, const T& inv_x,
                                                              const T& inv_c) {
  switch (metric) {
    case Metric::kL2: return (sq_x + sq_c) - 2.0 * g;
    case Metric::kInnerProduct: return -g;
    case Metric::kCosine: return -g * (inv_x * inv_c);
  }
  return g;
}

SECPE_HOST_DEVICE inline double approx_score(Metric metric, float g, double sq_x, double sq_c, double inv_x, double inv_c) {
  return approx_score_of<double>(metric, static_cast<double>(g), sq_x, sq_c, inv_x, inv_c);
}

// E for a row of norm rx against a centre of norm rc (inv_rc = 1 / rc, cosine only) whose
// measured unit is centre_unit (0 where rel counts the centres already). The terms grow with rc,
// inv_rc and centre_unit, so the largest of a block's bound a whole block.
SECPE_HOST_DEVICE inline double score_error(const ScoreBound& b, Metric metric, double rx, double rc, double inv_rc,
                                            double centre_unit = 0.0) {
  const double rel = b.rel + centre_unit * b.rel_centre;
  switch (metric) {
    case Metric::kL2: return rel * rx * rc + b.sq * (rx * rx + rc * rc) + b.abs * (1.0 + rx + rc);
    case Metric::kInnerProduct: return rel * rx * rc + b.abs * (1.0 + rx + rc);
    case Metric::kCosine: return rel + b.abs * (1.0 + rx + rc) * (1.0 / rx) * inv_rc;
  }
  return __builtin_huge_val();
}

// score_error of one row against many centres in the form E = a p + b q + c r + d, which a vector
// loop evaluates: p, q, r per centre (CentreTerms), a, b, c, d per row (RowTerms). The same sum
// regrouped (the terms of 1 + rx + rc split; cosine uses rc inv_rc = 1), equal to score_error up to
// the last bits of a double, which the bound's margins cover.
struct CentreTerms {
  double p, q, r;
};
struct RowTerms {
  double a, b, c, d;
};

// E from the two, in doubles or in lanes of them (r and c are 0 but for L2).
template <class T>
SECPE_LANES_INLINE SECPE_HOST_DEVICE inline T terms_error(const RowTerms& t, const T& p, const T& q, const T& r) {
  return ((t.a * p + t.b * q) + t.c * r) + t.d;
}

SECPE_HOST_DEVICE inline CentreTerms centre_terms(Metric metric, double rc, double inv_rc, double centre_unit) {
  switch (metric) {
    case Metric::kL2: return {rc, centre_unit * rc, rc * rc};
    case Metric::kInnerProduct: return {rc, centre_unit * rc, 0.0};
    case Metric::kCosine: return {inv_rc, centre_unit, 0.0};
  }
  return {0.0, 0.0, 0.0};
}

SECPE_HOST_DEVICE inline RowTerms row_terms(const ScoreBound& b, Metric metric, double rx) {
  switch (metric) {
    case Metric::kL2: return {b.rel * rx + b.abs, b.rel_centre * rx, b.sq, b.sq * rx * rx + b.abs * (1.0 + rx)};
    case Metric::kInnerProduct: return {b.rel * rx + b.abs, b.rel_centre * rx, 0.0, b.abs * (1.0 + rx)};
    case Metric::kCosine: {
      const double inv_rx = 1.0 / rx;
      return {b.abs * inv_rx * (1.0 + rx), b.rel_centre, 0.0, b.rel + b.abs * inv_rx};
    }
  }
  return {0.0, 0.0, 0.0, __builtin_huge_val()};
}

// Whether a search must score every pair exactly: when a float could overflow (|partial sums| <=
// (1 + gamma) |x| |c| must stay below FLT_MAX), the GEMM's values mean nothing; with at most
// k + 1 centres most would be rescored anyway.
SECPE_HOST_DEVICE inline bool exact_only(double max_row_norm, double max_centre_norm, long long centres, long long k) {
  return !(max_row_norm * max_centre_norm < 1e37) || centres <= k + 1;
}

// The order of results: lower score first, ties to the lower centre index.
SECPE_HOST_DEVICE inline bool better(double score_a, long long index_a, double score_b, long long index_b) {
  return score_a < score_b || (score_a == score_b && index_a < index_b);
}

}  // namespace secpe::bound
