#pragma once
// The exact score of compute/impl/exact_score.hpp written once for the host and the device: nvcc
// compiles it into the CUDA rescoring kernel (compute/cuda/kernels.cu), the C++ compiler into the
// unit test that emulates that kernel on the CPU (tests/unit/exact_order_test.cpp), which checks
// it against exact::pair_score and exact::best_k_of bit for bit. The same terms in the same order,
// each operation rounded to nearest on its own (core/ieee_ops.hpp: explicit round-to-nearest
// intrinsics on the device, which nvcc never fuses into a multiply-add), so the bits are the host's.
// A float converted to double is exact, and so is the product of two such doubles (48 significant
// bits), so only the additions (and the L2 difference) round, as they do on the host.
//
// Also the selection the device makes among a row's rescored candidates: 32 lanes, lane q taking
// candidates q, q + 32, ..., each keeping its best after the previous round's winner in the order
// of bound::better, the lanes then combined pairwise (any tree: the order is total).
#include <climits>
#include <cstdint>

#include "compute/impl/search_bound.hpp"
#include "core/ieee_ops.hpp"

namespace secpe::exact_order {

using ieee::add_rn;
using ieee::div_rn;
using ieee::mul_rn;
using ieee::sub_rn;

// exact::pair_score(metric, x, c, d, row_norm, centre_norm), bit for bit.
SECPE_HOST_DEVICE inline double pair_score(Metric metric, const float* x, const float* c, long long d, double row_norm,
                                           double centre_norm) {
  double s = 0.0;
  if (metric == Metric::kL2) {
    for (long long j = 0; j < d; ++j) {
      const double diff = sub_rn(static_cast<double>(x[j]), static_cast<double>(c[j]));
      s = add_rn(s, mul_rn(diff, diff));
    }
    return s;
  }
  for (long long j = 0; j < d; ++j) s = add_rn(s, mul_rn(static_cast<double>(x[j]), static_cast<double>(c[j])));
  return metric == Metric::kCosine ? div_rn(-s, mul_rn(row_norm, centre_norm)) : -s;
}

inline constexpr int kLanes = 32;  // a warp

struct Scored {
  double score;
  long long index;
};

// Nothing yet: the start of every lane's search.
SECPE_HOST_DEVICE inline Scored none() { return {__builtin_huge_val(), LLONG_MAX}; }
// Before everything: the `last` of the first round.
SECPE_HOST_DEVICE inline Scored before_all() { return {-__builtin_huge_val(), -1}; }

// Lane `lane`'s best candidate coming after `last` in the order of bound::better, among
// candidates lane, lane + kLanes, ... < found (scores[q] the exact score of centre ids[q]).
SECPE_HOST_DEVICE inline Scored lane_best(const double* scores, const std::int32_t* ids, int found, int lane, Scored last) {
  Scored mine = none();
  for (int q = lane; q < found; q += kLanes) {
    const Scored s{scores[q], static_cast<long long>(ids[q])};
    if (bound::better(last.score, last.index, s.score, s.index) && bound::better(s.score, s.index, mine.score, mine.index)) {
      mine = s;
    }
  }
  return mine;
}

// The better of two lanes' choices.
SECPE_HOST_DEVICE inline Scored combine(Scored a, Scored b) { return bound::better(b.score, b.index, a.score, a.index) ? b : a; }

}  // namespace secpe::exact_order
