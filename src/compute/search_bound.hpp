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
// The bound. A float dot product of length d, summed in any order (with or without FMA), is off
// by at most gamma_d * sum_j |x_j c_j| <= gamma_d |x| |c|, gamma_d = d u / (1 - d u), u = 2^-24
// (2^-23 for sums that may truncate, as tensor cores' may),
// plus what underflow (or a flush-to-zero mode) loses: at most d 2^-126 (1 + |x|_inf + |c|_inf)
// per product sum, which we bound by d 2^-120 (1 + |x| + |c|). When the GEMM rounds its inputs
// first (TF32 tensor cores: 10 mantissa bits, rounded or truncated, so relative error up to
// input_unit = 2^-10 each), every product is further off by (2 input_unit + input_unit^2) |x_j c_j|.
// The CPU's bf16 screen (compute/cpu/bf16_gemm.hpp) passes a measured input_unit instead, per
// row: u = max(|x - x'| / |x|, max_c |c - c'| / |c|), x' and c' the bf16 values the hardware
// multiplies (subnormals read as zero included), since |x'.c' - x.c| <= |x - x'| |c'| + |x| |c - c'|
// <= (2u + u^2) |x| |c|; the products of two bf16 are exact in float.
// The norm terms and the reference itself are computed in double, off by at most
// (gamma_d(2^-53) + 4 2^-53) times their magnitude. Everything is then doubled for safety.
#include "compute/metric.hpp"

#if defined(__CUDACC__)
#define SECPE_HOST_DEVICE __host__ __device__
#else
#define SECPE_HOST_DEVICE
#endif

namespace secpe::bound {

// Input rounding unit of a TF32 GEMM (see above); 0 for a true float GEMM.
inline constexpr double kTf32InputUnit = 0x1p-10;
// Rounding unit of the float accumulation: 2^-24 when it rounds to nearest (a float GEMM on CUDA
// or CPU cores); tensor cores may truncate their float sums instead, whose unit is 2^-23.
inline constexpr double kFloatUnit = 0x1p-24;
inline constexpr double kTensorCoreAccumulationUnit = 0x1p-23;

// The constants of the error bound for one search.
struct ScoreBound {
  double rel = 0.0;  // times |x| |c|   (cosine: absolute)
  double sq = 0.0;   // times (|x|^2 + |c|^2)   (L2 only)
  double abs = 0.0;  // times (1 + |x| + |c|)   (cosine: divided by |x| |c| as well)
};

SECPE_HOST_DEVICE inline ScoreBound make_score_bound(Metric metric, long long d, double input_unit = 0.0,
                                                     double accumulation_unit = kFloatUnit) {
  const double dd = static_cast<double>(d);
  const double u = accumulation_unit, ud = 0x1p-53;
  const double gf = dd * u / (1.0 - dd * u) + (2.0 * input_unit + input_unit * input_unit) * (1.0 + dd * u / (1.0 - dd * u));
  const double gd = dd * ud / (1.0 - dd * ud) + 4.0 * ud;
  const double under = dd * 0x1p-120;
  const double safety = 2.0;
  ScoreBound b;
  switch (metric) {
    case Metric::kL2:  // A = |x|^2 + |c|^2 - 2g
      b.rel = safety * (2.0 * gf + 4.0 * gd);
      b.sq = safety * 2.0 * gd;
      b.abs = safety * 2.0 * under;
      break;
    case Metric::kInnerProduct:  // A = -g
      b.rel = safety * (gf + gd);
      b.abs = safety * under;
      break;
    case Metric::kCosine:  // A = -g / (|x| |c|); rel is then absolute
      b.rel = safety * (gf + gd);
      b.abs = safety * under;
      break;
  }
  return b;
}

// The approximate score from g = float(x . c): sq_x = |x|^2, sq_c = |c|^2 (L2), inv_x = 1 / |x|,
// inv_c = 1 / |c| (cosine); the other arguments are unused.
SECPE_HOST_DEVICE inline double approx_score(Metric metric, float g, double sq_x, double sq_c, double inv_x, double inv_c) {
  switch (metric) {
    case Metric::kL2: return (sq_x + sq_c) - 2.0 * static_cast<double>(g);
    case Metric::kInnerProduct: return -static_cast<double>(g);
    case Metric::kCosine: return -static_cast<double>(g) * (inv_x * inv_c);
  }
  return 0.0;
}

// E for a row of norm rx against a centre of norm rc (inv_rc = 1 / rc, cosine only). The terms
// grow with rc and inv_rc, so the largest of a block's norms bound a whole block.
SECPE_HOST_DEVICE inline double score_error(const ScoreBound& b, Metric metric, double rx, double rc, double inv_rc) {
  switch (metric) {
    case Metric::kL2: return b.rel * rx * rc + b.sq * (rx * rx + rc * rc) + b.abs * (1.0 + rx + rc);
    case Metric::kInnerProduct: return b.rel * rx * rc + b.abs * (1.0 + rx + rc);
    case Metric::kCosine: return b.rel + b.abs * (1.0 + rx + rc) * (1.0 / rx) * inv_rc;
  }
  return __builtin_huge_val();
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
