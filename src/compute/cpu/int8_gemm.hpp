#pragma once
// The int8 GEMM behind the blas kernel's int8 screen (compute/cpu/screen_gemm.hpp). Each vector v
// (a row of X or a centre) is quantised with its own scale: s = max_j |v_j| / 127 and
// q_j = round(v_j / s) in [-127, 127], so that v' = s q is the vector the screen multiplies, and
// the error |v - v'| is measured exactly (see quantise). The products q_x . q_c are summed exactly
// in int32 (|q_x . q_c| <= 127^2 d, and the biased sum below <= 255 * 127 d < 2^31 for d <= 65536),
// then g = float(q_x . q_c) * (s_x * s_c): three float roundings (the conversion, the product of
// the scales, the product), with no underflow or overflow while the non-zero norms lie within
// [2^-40, 2^40] (screen::fits). Hence, u_x and u_c being the measured relative errors,
//   |g - x.c| <= |g - x'.c'| + |x'.c' - x.c|
//             <= gamma_3 |x'| |c'| + (u_x + u_c + u_x u_c) |x| |c|,
// since x'.c' - x.c = (x' - x).c' + x.(c' - c) and |c'| <= (1 + u_c) |c|: the shared bound of
// compute/impl/search_bound.hpp with 3 roundings instead of d.
//
// VPDPBUSD multiplies unsigned bytes by signed ones, four pairs per 32-bit lane. The centres are
// stored unsigned, q_c + 128, and the rows signed, so the engines sum q_c . q_x + 128 sum_j q_xj
// and subtract the row's offset 128 sum_j q_xj: still exact integers.
//
// Engines: AVX512-VNNI (zmm), AVX-VNNI (ymm; CPUs without AVX-512), and a portable emulation
// whose integers, and so whose every float, are the engines' bit for bit.
#include <cstdint>
#include <span>

#include "compute/cpu/screen_gemm.hpp"

namespace secpe::int8 {

using screen::Engine;
using screen::LineVector;

bool avx512_vnni_available();
bool avx_vnni_available();

// v - shift (v itself for a null shift) quantised (above): q[0, d) and its scale; returns R and u
// with |V - s q| <= u R, V = v - shift (screen::Measured; 0 and 0 for V = 0, whose scale is 0).
// *sum receives sum_j q_j.
screen::Measured quantise(const float* v, const float* shift, Eigen::Index d, std::int8_t* q, float* scale, std::int32_t* sum);

// The centres quantised, in the layout the engines read: per group of 16 centres and per 4
// dimensions, 64 bytes holding 4 biased bytes (q + 128) of each centre in turn, i.e. one zmm
// vector (two ymm vectors: centres 0-7, then 8-15) per step of VPDPBUSD.
class PackedCentres {
 public:
  // Each centre c quantised as c - shift.m (c itself without a shift).
  PackedCentres(const MatrixF& centres, const screen::Shift& shift, int threads = 1);
  Eigen::Index padded_dim() const { return dim_; }
  std::span<const double> relative_errors() const { return errors_; }  // quantise's u of each centre
  std::span<const double> residuals() const { return residuals_; }     // and its R
  double max_relative_error() const { return max_error_; }
  // The bytes of centres [c0, c0 + 16) (c0 a multiple of 16): padded_dim() / 4 vectors of 64.
  const std::uint8_t* group(Eigen::Index c0) const { return data_.data() + c0 * dim_; }
  const float* scales(Eigen::Index c0) const { return scale_.data() + c0; }  // 0 for padding

 private:
  Eigen::Index dim_;
  std::vector<double> errors_, residuals_;
  double max_error_ = 0.0;
  LineVector<std::uint8_t> data_;
  std::vector<float> scale_;
};

// Rows [r0, r0 + rows) of x quantised into `out` (int8, scale, offset, errors, residuals), each as
// x - shift.m where out.shifted says so (RoundedRows::shift_rows, called first), padded to
// padded(rows) x padded(cols) with zero rows and zero scales.
void round_rows(const MatrixF& x, Eigen::Index r0, Eigen::Index rows, const screen::Shift& shift, screen::RoundedRows& out);

// g (row-major, ld = nbp) = the rows (mbp of them) times centres [c0, c0 + nbp) transposed, as
// described above; mbp, nbp and c0 multiples of screen::kPad.
void gemm(Engine engine, const screen::RoundedRows& rows, Eigen::Index mbp, const PackedCentres& centres, Eigen::Index c0,
          Eigen::Index nbp, float* g);

}  // namespace secpe::int8
