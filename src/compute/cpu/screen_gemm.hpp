#pragma once
// The low-precision GEMMs behind the blas kernel's screens (compute/cpu/blas_kernel.hpp). X and C
// are rounded to a narrow type and multiplied fast; the products only pick candidates, within the
// rigorous bound of compute/impl/search_bound.hpp, and every score comes from the exact rescoring.
//
// Two number formats, each with engines chosen at run time (per-function target attributes: the
// library builds for any x86-64 and runs anywhere) and a portable emulation that runs on any CPU:
// - bf16 (compute/cpu/bf16_gemm.hpp): float accumulation. AMX tiles (Intel Sapphire Rapids and
//   later), AVX512-BF16 (VDPBF16PS: Cooper Lake, AMD Zen 4 and later), emulated.
// - int8 (compute/cpu/int8_gemm.hpp): per-vector scales, products summed exactly in int32.
//   AVX512-VNNI (VPDPBUSD on zmm: Ice Lake, Zen 4 and later), AVX-VNNI (the same on ymm, for CPUs
//   without AVX-512: Alder Lake, Sierra Forest), emulated.
// What the bound needs from an engine: each vector's measured residual norm R and relative rounding
// error u (|V - V'| <= u R, V the residual it rounds and V' the values the engine multiplies), and
// how many float roundings a product sum sees (`roundings`).
//
// Shift. Text embeddings share a large common component: their centres lie in a narrow cone, and
// rounding them loses u |c| where the centres differ by much less. A screen may therefore round
// residuals: each centre as c - m, each row as x - m where that is shorter than x, m being the
// centres' mean in float (choose_shift); the bound (compute/impl/search_bound.hpp, "Shifted screens")
// adds x.m and m.c back in double. The residual V = v - m is rounded from fl(v - m) in float, and
// its error is measured in double from v and m themselves: with V^_j = fl(v_j - m_j) (double,
// within ud = 2^-53 of V_j relatively; a difference of two floats never underflows in double) and
// e^_j = fl(V^_j - V'_j), relative_error_bound(sum e^^2, sum V^^2, d) = r bounds |e^| / |V^|, and
// since V - V' = (V^ - V') + (V - V^) with |V^ - V'| <= |e^| / (1 - ud), |V^| <= (1 + ud)|V|,
//   |V - V'| <= (r (1 + 2.1 ud) + ud) R,   R = sqrt(sum V^^2)(1 + (d + 6) 2^-51) >= |V|,
// which u = r (1 + 2^-50) + 2^-52 covers (measured_residual). Without a shift V^ = v exactly and
// each e^_j is exact (the engines' own notes), so u = r.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "core/matrix.hpp"

namespace secpe::screen {

// Cache-line-aligned storage for the operands: the engines move whole 64-byte rows, and a row
// that straddles two lines costs two.
template <typename T>
struct LineAllocator {
  using value_type = T;
  LineAllocator() = default;
  template <typename U>
  LineAllocator(const LineAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64})); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t{64}); }
  friend bool operator==(const LineAllocator&, const LineAllocator&) { return true; }
};
template <typename T>
using LineVector = std::vector<T, LineAllocator<T>>;

// Operands are padded with zeros to multiples of kPad rows, centres and dimensions (zeros add
// nothing); the engines read whole groups of 16 centres.
inline constexpr Eigen::Index kPad = 32;
inline Eigen::Index padded(Eigen::Index n) { return (n + kPad - 1) / kPad * kPad; }

enum class Engine { kBf16Amx, kBf16Avx512, kBf16Emulated, kInt8Avx512, kInt8Avx, kInt8Emulated };

bool available(Engine engine);         // the CPU (and, for AMX, Linux) lets it run here
inline constexpr EnumNames<Engine, 6> kEngineNames{{{Engine::kBf16Amx, "bf16 (AMX)"},
                                                    {Engine::kBf16Avx512, "bf16 (AVX512-BF16)"},
                                                    {Engine::kBf16Emulated, "bf16 (emulated)"},
                                                    {Engine::kInt8Avx512, "int8 (AVX512-VNNI)"},
                                                    {Engine::kInt8Avx, "int8 (AVX-VNNI)"},
                                                    {Engine::kInt8Emulated, "int8 (emulated)"}}};
inline std::string engine_name(Engine engine) { return std::string(name_of(kEngineNames, engine)); }
bool is_int8(Engine engine);

// Whether the engine can screen vectors of dimension d whose norms are `min_norm` (the smallest
// non-zero one) to `max_norm`: bf16 rounds values near FLT_MAX to infinity (norms below 1e38);
// the int8 epilogue must neither underflow nor overflow in float (non-zero norms within
// [2^-40, 2^40]), and its int32 sums must not overflow (d <= 65536). Others screen in fp32.
bool fits(Engine engine, Eigen::Index d, double min_norm, double max_norm);

// A rigorous upper bound on sqrt(error / norm) (0 for norm = 0), error and norm being sums of the
// squares of d exact differences (or values), each square rounded once and summed in any order in
// double: such a sum is within (d + 1) 2^-53 of its value relatively, the quotient of two within
// 2 (d + 2) 2^-53 + 2^-53, its root within half of that plus 2^-53, and (d + 4) 2^-51 covers all of
// it with room to spare.
double relative_error_bound(double error, double norm, Eigen::Index d);

// A vector's rounding as the bound needs it: u and R above.
struct Measured {
  double unit = 0.0;      // u: |V - V'| <= unit * norm
  double residual = 0.0;  // R >= |V|
};
// From the sums of squares of the measured differences e^ and of the residual V^ (above); shifted:
// whether V^ came from v - m (and so the roundings' slack is added).
Measured measured_residual(double error, double norm, Eigen::Index d, bool shifted);

// The common vector subtracted before rounding (empty: none), with what the bound reads of it.
struct Shift {
  std::vector<float> m;
  double sq = 0.0;    // fl(m.m) (double, exact products)
  double norm = 0.0;  // an upper bound on |m|
};

// The centres' mean as a shift when it pays: when the centres' mean square residual
// mean |c - m|^2 = mean |c|^2 - |m|^2 is at most 0.9 of their mean square norm, i.e. they share a
// common part; and when the residuals stay where a float GEMM of them cannot overflow
// ((max_row_norm + |m|)(max centre norm + |m|) < 1e36). Else no shift. `centre_norms`: the exact
// kernel's norms of the centres.
Shift choose_shift(const MatrixF& centres, std::span<const double> centre_norms, double max_row_norm, int threads);

// x.m in double (exact products summed in lanes: any order, as the bound allows); 0 without a shift.
double shift_dot(const Shift& shift, const float* x, Eigen::Index d);
// Whether a row with x.m = dot is rounded as x - m: where |x - m|^2 = |x|^2 - 2 x.m + m.m < |x|^2.
inline bool shift_row(const Shift& shift, double dot) { return !shift.m.empty() && 2.0 * dot > shift.sq; }

// A block of rows as an engine multiplies them: padded(rows) x padded(d) values, row-major.
struct RoundedRows {
  LineVector<std::uint16_t> bf16;
  LineVector<std::int8_t> int8;
  std::vector<float> scale;          // int8: row i is scale[i] * q_i
  std::vector<std::int32_t> offset;  // int8: 128 * sum_j q_ij (the bias of the unsigned centres)
  std::vector<double> errors;        // each row's relative rounding error u (the bound's row unit)
  std::vector<double> residuals;     // each row's R (an upper bound on |x - m|, or |x| not shifted)
  std::vector<double> shift_dots;    // x.m (shift_dot; 0 without a shift)
  std::vector<std::uint8_t> shifted; // whether the row was rounded as x - m (shift_row)
  // The per-row shift decision and dot for rows [r0, r0 + rows) (and the vectors sized).
  void shift_rows(const Shift& shift, const MatrixF& x, Eigen::Index r0, Eigen::Index rows);
};

// The centres of one search, rounded and packed for an engine, and the product of a block of
// rows with them.
class ScreenGemm {
 public:
  virtual ~ScreenGemm() = default;
  virtual Engine engine() const = 0;
  // Each centre's relative rounding error u and residual norm R (of c - m, or of c): its unit
  // and norm in the bound.
  virtual std::span<const double> centre_errors() const = 0;
  virtual std::span<const double> centre_residuals() const = 0;
  // The shift the centres were rounded with, which the rows are rounded with too.
  virtual const Shift& shift() const = 0;
  // Float roundings each product sum sees: d for float accumulation, 3 for int8 (exact sums).
  virtual long long roundings(Eigen::Index d) const = 0;
  // Rows [r0, r0 + rows) of x, each shifted or not (RoundedRows::shift_rows), rounded, into `out`
  // (with their errors and residuals).
  virtual void round_rows(const MatrixF& x, Eigen::Index r0, Eigen::Index rows, RoundedRows& out) const = 0;
  // g (row-major, leading dimension nbp) = the rounded rows (mbp of them, a multiple of kPad) times
  // centres [c0, c0 + nbp) transposed, in float; c0 and nbp multiples of kPad within the padding.
  virtual void gemm(const RoundedRows& rows, Eigen::Index mbp, Eigen::Index c0, Eigen::Index nbp, float* g) const = 0;
};

// The centres packed for `engine` (which must be available) as c - m (shift.m; c itself without
// one), on up to `threads` threads.
std::unique_ptr<ScreenGemm> make_screen_gemm(Engine engine, const MatrixF& centres, const Shift& shift, int threads);

}  // namespace secpe::screen
