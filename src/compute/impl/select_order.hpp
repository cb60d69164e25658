#pragma once
// The GPU's candidate selection for one nearest centre (k = 1), in one read of each row of the
// distance tile G = X C^T, written once for the device (compute/cuda/kernels.cu) and for the unit
// test that emulates it on the CPU (tests/unit/select_order_test.cpp).
//
// The bound of compute/impl/search_bound.hpp with one error E for the whole row: E = score_error at the
// largest centre norm (and largest inverse norm), which bounds every centre's error (the terms
// grow with both). With A_j the approximate score of centre j and M = min_j A_j, the centres that
// can be the nearest, or tie with it, are among those with A_j <= M + 2E (`width` = 2E): the
// nearest j* has A_j* <= R_j* + E <= R_j + E <= A_j + 2E for every j. This is a superset of what
// the per-centre bound selects (A_j - E_j <= min_i (A_i + E_i)), so exact rescoring still decides.
//
// Each thread of the row's group scans its stripe of centres once, keeping its smallest A and up
// to kHeld centres within `width` of its smallest so far; the group's minimum gives the threshold
// M + width, and the held centres under it are the candidates. A thread whose held list fills up
// with centres still within reach marks the row, and the group scans the row a second time,
// collecting every centre under the threshold (a tie among many: rare).
#include <cstdint>

#include "compute/impl/search_bound.hpp"
#include "core/host_device.hpp"
#include "core/ieee_ops.hpp"

namespace secpe::select_order {

inline constexpr int kHeld = 4;

// The row's width 2E: score_error at the largest norm and inverse norm of the centres.
SECPE_HOST_DEVICE inline double row_width(const bound::ScoreBound& b, Metric metric, double row_norm, double max_centre_norm,
                                          double max_inv_centre_norm) {
  return ieee::mul_rn(2.0, bound::score_error(b, metric, row_norm, max_centre_norm, max_inv_centre_norm));
}

// One thread's scan of its stripe.
struct Scan {
  double best = __builtin_huge_val();  // the smallest A seen
  int held = 0;
  bool overflow = false;
  double value[kHeld] = {};
  std::int32_t index[kHeld] = {};

  SECPE_HOST_DEVICE void see(double a, std::int32_t j, double width) {
    if (a < best) best = a;
    if (!(a <= ieee::add_rn(best, width))) return;  // beyond reach for good: best only decreases
    if (held == kHeld) {  // drop those the new best has put beyond reach
      int kept = 0;
      for (int h = 0; h < kHeld; ++h) {
        if (value[h] <= ieee::add_rn(best, width)) value[kept] = value[h], index[kept] = index[h], ++kept;
      }
      held = kept;
    }
    if (held == kHeld) {
      overflow = true;
      return;
    }
    value[held] = a, index[held] = j, ++held;
  }
};

// The approximate score of centre j for the row (bound::approx_score with the row's terms).
struct RowTerms {
  double sq_x, inv_x;
};
SECPE_HOST_DEVICE inline RowTerms row_terms(Metric metric, double row_norm) {
  return {ieee::mul_rn(row_norm, row_norm), metric == Metric::kCosine ? ieee::div_rn(1.0, row_norm) : 0.0};
}

}  // namespace secpe::select_order
