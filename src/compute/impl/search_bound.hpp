#pragma once
// The candidate-selection rules every fast kernel shares, CPU (compute/cpu/blas_kernel.cpp) and
// GPU (compute/cuda/) alike, so both select with the same rigorous bound and order results the
// same way. Plain inline functions on doubles: host and device code (nvcc) compile this header.
//
// A kernel computes G = X C^T in float (sgemm), turns each entry into an approximate score A
// (approx_score) and bounds |A - R| by E (score_error), R being the exact score
// (compute/impl/exact_score.hpp). Any centre whose lower bound A - E exceeds the k-th smallest upper
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
#include "core/host_device.hpp"

// offset_score_of and its kin return lanes of eight doubles (a 64-byte GCC vector type) from inline
// functions: GCC warns that returning one depends on AVX-512, which concerns no call made between
// separately compiled code. Silenced here, where they are defined, so that it holds in whichever
// file (or unity batch) includes this first.
#if defined(__GNUC__) && !defined(__CUDACC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#if defined(__CUDACC__)
#define SECPE_LANES_INLINE
#else
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

// Shifted screens (the CPU's int8 and bf16 screens). Where the vectors share a large common part,
// as text embeddings do (centres in a narrow cone), rounding x and c themselves leaves an error
// of u |x| |c| that swamps the differences between centres. A shifted screen rounds the residuals
// instead: m is a float vector (the centres' mean), each centre is rounded as c - m, and each row
// as x - m where that is shorter than x (else as x itself), so that
//   x.c = (x - m).(c - m) + x.m + (m.c - m.m)      (row shifted)
//   x.c =  x.(c - m)       + x.m                   (row not shifted),
// the GEMM multiplying the rounded residuals and x.m, m.c, m.m computed once per row or centre
// in double. The input term is then u times the residuals' norms, not the vectors'.
//
// The bound. Write V for the residual a vector is rounded as (v - m, or v), V' for what the engine
// multiplies, R >= |V| and u with |V - V'| <= u R, both measured rigorously by the rounding (in
// double from v and m themselves: compute/cpu/screen_gemm.hpp), and g for the engine's float
// product of V'_x and V'_c: with n float roundings of unit e (and an underflow allowance, as
// above),
//   |g - V_x.V_c| <= (u_x + u_c + u_x u_c) R_x R_c + gamma_n (1 + u_x)(1 + u_c) R_x R_c,
// since V'_x.V'_c - V_x.V_c = (V'_x - V_x).V'_c + V_x.(V'_c - V_c) and |V'_c| <= (1 + u_c) R_c.
// The approximate score adds per-row and per-centre offsets in double:
//   a = fl(x.m), h = fl(fl(m.c) - fl(m.m)) (sums of exact products, any order),
//   P = -a, Q = -h (inner product, cosine);  P = fl(|x|^2 - 2a), Q = fl(|c|^2 - 2h) (L2; the
//   squares from the exact kernel's norms), Q left out (and for L2 |c|^2 in its place) for a row
//   not shifted, and
//   A = fl(fl(P + Q) - g)  (inner product),  fl(fl(P + Q) - 2g)  (L2),
//   A = fl(fl(fl(P + Q) - g) fl(fl(1 / |x|) fl(1 / |c|)))  (cosine).
// With ud = 2^-53 and gd = d ud / (1 - d ud) + 4 ud (as above), |m| <= M and every |c| <= C:
// |a - x.m| <= gd |x| M, |h - (m.c - m.m)| <= gd (M |c| + M^2), each square within gd of |x|^2
// or |c|^2, the reference's own sum within gd |x| |c| (inner product; for L2 gd (|x| + |c|)^2),
// and the additions that assemble A within ud of their results, the part of it from g counted as
// one more float rounding of the product sum (n + 1 below). Summed up (|c| <= C for the inner
// product's, so that its terms are the row's alone):
//   inner product: |A - R| <= screen + 3 gd (|x| + M)(M + C)
//   L2:            |A - R| <= 2 screen + 5 gd (|x| + M + |c|)^2 <= 2 screen + 15 gd (|x|^2 + M^2 + |c|^2)
//   cosine:        |A - R| <= (inner product's) / (|x| |c|) (1 + 6 ud) + 8 ud
// (cosine: the reference divides its sum by the product of the same norms; both sides' roundings
// of the quotient and of the reciprocals are a few ud of |x.c| / (|x| |c|) <= 1 + gd), where
// screen = (u_x + u_c + u_x u_c + gamma_{n+1} (1 + u_x)(1 + u_c)) R_x R_c + underflow. The terms
// in gd and ud are doubled for safety, as above; the screen term is make_row_bound's with n + 1
// roundings. A row not shifted gives a subset of these terms. The CPU kernel evaluates the bound
// as RowTerms and CentreTerms (shifted_row_terms, shifted_centre_terms), so its lanes loop serves
// shifted and plain screens alike.
struct ShiftedScreen {
  long long d = 0;
  long long roundings = 0;                 // n: float roundings of the engine's product sum
  double accumulation_unit = kFloatUnit;   // of those roundings
  double shift_norm = 0.0;                 // M >= |m| (0: no shift)
  double max_centre_norm = 0.0;            // C >= every |c|
};

// The row's coefficients: u_x and R_x as the rounding measured them, row_norm the exact kernel's |x|.
SECPE_HOST_DEVICE inline RowTerms shifted_row_terms(const ShiftedScreen& s, Metric metric, double row_unit, double row_residual,
                                                    double row_norm) {
  const ScoreBound b = make_row_bound(Metric::kInnerProduct, s.d, row_unit, s.roundings + 1, s.accumulation_unit);
  const double dd = static_cast<double>(s.d), ud = 0x1p-53, safety = 2.0;
  const double gd = dd * ud / (1.0 - dd * ud) + 4.0 * ud;
  const double m = s.shift_norm, c = s.max_centre_norm, rx = row_residual;
  switch (metric) {
    case Metric::kL2: {
      const double arith = safety * 15.0 * gd;
      return {2.0 * (b.rel * rx + b.abs), 2.0 * b.rel_centre * rx, arith, 2.0 * b.abs * (1.0 + rx) + arith * (row_norm * row_norm + m * m)};
    }
    case Metric::kInnerProduct:
      return {b.rel * rx + b.abs, b.rel_centre * rx, 0.0, b.abs * (1.0 + rx) + safety * 3.0 * gd * (row_norm + m) * (m + c)};
    case Metric::kCosine: {
      const double inv_x = 1.0 / row_norm;
      return {(b.rel * rx + b.abs) * inv_x, b.rel_centre * rx * inv_x,
              inv_x * (b.abs * (1.0 + rx) + safety * 3.0 * gd * (row_norm + m) * (m + c)), safety * 8.0 * ud};
    }
  }
  return {0.0, 0.0, 0.0, __builtin_huge_val()};
}

// The centre's: u_c and R_c as measured, centre_norm |c| and inv_centre_norm 1 / |c| (cosine).
SECPE_HOST_DEVICE inline CentreTerms shifted_centre_terms(Metric metric, double centre_unit, double centre_residual,
                                                          double centre_norm, double inv_centre_norm) {
  switch (metric) {
    case Metric::kL2: return {centre_residual, centre_unit * centre_residual, centre_norm * centre_norm};
    case Metric::kInnerProduct: return {centre_residual, centre_unit * centre_residual, 0.0};
    case Metric::kCosine:
      return {centre_residual * inv_centre_norm, centre_unit * centre_residual * inv_centre_norm, inv_centre_norm};
  }
  return {0.0, 0.0, 0.0};
}

// P and Q above, from sq = |x|^2 or |c|^2 (L2 only), a = fl(x.m), and for a centre fl(m.c) and fl(m.m).
SECPE_HOST_DEVICE inline double row_offset(Metric metric, double sq_x, double shift_dot) {
  return metric == Metric::kL2 ? sq_x - 2.0 * shift_dot : -shift_dot;
}
SECPE_HOST_DEVICE inline double centre_offset(Metric metric, double sq_c, double shift_dot, double shift_sq) {
  const double h = shift_dot - shift_sq;
  return metric == Metric::kL2 ? sq_c - 2.0 * h : -h;
}

// A from g and the offsets (q: Q, or 0 where it is left out, which adds exactly nothing but the
// sign of a zero), in doubles or in lanes of them. With P = |x|^2 and q = |c|^2 (L2), or P = q = 0,
// this is approx_score_of's value.
template <class T>
SECPE_LANES_INLINE SECPE_HOST_DEVICE inline T offset_score_of(Metric metric, const T& g, const T& p, const T& q, const T& inv_x,
                                                              const T& inv_c) {
  switch (metric) {
    case Metric::kL2: return (p + q) - 2.0 * g;
    case Metric::kInnerProduct: return (p + q) - g;
    case Metric::kCosine: return ((p + q) - g) * (inv_x * inv_c);
  }
  return g;
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
