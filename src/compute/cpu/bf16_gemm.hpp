#pragma once
// The bf16 GEMM behind the blas kernel's bf16 screen (compute/cpu/screen_gemm.hpp): X and C are
// rounded to bf16 (to nearest, ties to even: relative error at most 2^-8 per coordinate) and
// multiplied with float accumulation, G = bf16(X) bf16(C)^T. The products of two bf16 are exact in
// float, so G's error is the float summation's plus the input rounding's, which the shared bound
// (compute/impl/search_bound.hpp) covers with each vector's measured rounding error
// (relative_rounding_error); the scores themselves always come from the exact path.
//
// Three engines compute it. AMX (Sapphire Rapids and later: 16x16 float tiles, TDPBF16PS) where
// the CPU has AMX-BF16 and Linux grants the process the tile state; AVX512-BF16 (VDPBF16PS on
// zmm registers, 8 rows x 32 centres at a time: Cooper Lake, AMD Zen 4 and later); and a portable
// scalar emulation, the same arithmetic one product at a time, for tests and checks on any CPU
// (far too slow to search with). Both instructions read bf16 subnormals as zero (DAZ), which the
// measured error counts as lost; a CPU that read them as they are would be closer still, since
// a value rounded to nearest is no farther from v than zero is.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "compute/cpu/screen_gemm.hpp"

namespace secpe::bf16 {

using screen::Engine;
using screen::LineVector;
using screen::padded;

// Whether the AMX engine runs here: the CPU has AMX-TILE and AMX-BF16, and the kernel granted this
// process the tile data state (arch_prctl ARCH_REQ_XCOMP_PERM, asked once).
bool amx_available();
bool avx512_bf16_available();  // AVX512F and AVX512-BF16

// float -> bf16, to nearest, ties to even (finite inputs; values beyond bf16's largest finite
// value, about 3.39e38, round to infinity: callers keep norms below 1e38).
inline std::uint16_t round_to_bf16(float v) {
  std::uint32_t u;
  __builtin_memcpy(&u, &v, sizeof u);
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// An upper bound on |v - v'| / |v|, v' being v in bf16 as the engines read it (0 for v = 0): the
// input rounding unit of the search bound (compute/impl/search_bound.hpp) for this vector. At most 2^-8
// (plus a hair for the double arithmetic of the estimate) unless v has subnormal coordinates; for
// typical data about 2^-9.3, which is why the bf16 screen measures it instead of assuming 2^-8.
double relative_rounding_error(const float* v, Eigen::Index d);

// The centres in bf16, in the layout the engines read: per group of 16 centres and per 32
// dimensions, a 16 x 16 tile of 32-bit pairs (dimensions 2p, 2p+1 of centre n at row p, column n),
// which is AMX's B-operand ("VNNI") layout; pair p of a group's 16 centres is one zmm vector.
// Built once per search, on up to `threads` threads.
class PackedCentres {
 public:
  // Each centre c rounded as c - shift.m (c itself without a shift; screen::Measured).
  PackedCentres(const MatrixF& centres, const screen::Shift& shift, int threads = 1);
  Eigen::Index padded_dim() const { return dim_; }
  std::span<const double> relative_errors() const { return errors_; }  // each centre's u (relative_rounding_error unshifted)
  std::span<const double> residuals() const { return residuals_; }     // and its R
  double max_relative_error() const { return max_error_; }
  // The tiles of centres [c0, c0 + 16) (c0 a multiple of 16): padded_dim() / 32 tiles of 256 pairs.
  const std::uint32_t* group(Eigen::Index c0) const { return data_.data() + c0 / 16 * dim_ * 8; }

 private:
  Eigen::Index dim_;
  std::vector<double> errors_, residuals_;
  double max_error_ = 0.0;
  LineVector<std::uint32_t> data_;
};

// Rows [r0, r0 + rows) of x in bf16, each as x - shift.m where out.shifted says so
// (RoundedRows::shift_rows, called first), row-major, padded to padded(rows) x padded(cols) into
// out.bf16, and each row's measured u and R into out.errors and out.residuals.
void round_rows(const MatrixF& x, Eigen::Index r0, Eigen::Index rows, const screen::Shift& shift, screen::RoundedRows& out);

// g (row-major, ld = nbp) = xb (mbp x padded_dim, from round_rows) times centres [c0, c0 + nbp)
// transposed, on a bf16 engine; mbp, nbp and c0 multiples of kPad, and the centres exist (padded)
// up to c0 + nbp.
void gemm(Engine engine, const std::uint16_t* xb, Eigen::Index mbp, const PackedCentres& centres, Eigen::Index c0,
          Eigen::Index nbp, float* g);

}  // namespace secpe::bf16
