#pragma once
// The low-precision GEMMs behind the blas kernel's screens (compute/cpu/blas_kernel.hpp). X and C
// are rounded to a narrow type and multiplied fast; the products only pick candidates, within the
// rigorous bound of compute/search_bound.hpp, and every score comes from the exact rescoring.
//
// Two number formats, each with engines chosen at run time (per-function target attributes: the
// library builds for any x86-64 and runs anywhere) and a portable emulation that runs on any CPU:
// - bf16 (compute/cpu/bf16_gemm.hpp): float accumulation. AMX tiles (Intel Sapphire Rapids and
//   later), AVX512-BF16 (VDPBF16PS: Cooper Lake, AMD Zen 4 and later), emulated.
// - int8 (compute/cpu/int8_gemm.hpp): per-vector scales, products summed exactly in int32.
//   AVX512-VNNI (VPDPBUSD on zmm: Ice Lake, Zen 4 and later), AVX-VNNI (the same on ymm, for CPUs
//   without AVX-512: Alder Lake, Sierra Forest), emulated.
// What the bound needs from an engine: each vector's measured relative rounding error
// u = |v - v'| / |v| (v' the values the engine multiplies), and how many float roundings a
// product sum sees (`roundings`).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <vector>

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
std::string engine_name(Engine engine);  // e.g. "int8 (AVX512-VNNI)"
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

// A block of rows as an engine multiplies them: padded(rows) x padded(d) values, row-major.
struct RoundedRows {
  LineVector<std::uint16_t> bf16;
  LineVector<std::int8_t> int8;
  std::vector<float> scale;          // int8: row i is scale[i] * q_i
  std::vector<std::int32_t> offset;  // int8: 128 * sum_j q_ij (the bias of the unsigned centres)
  std::vector<double> errors;        // each row's relative rounding error (the bound's row unit)
};

// The centres of one search, rounded and packed for an engine, and the product of a block of
// rows with them.
class ScreenGemm {
 public:
  virtual ~ScreenGemm() = default;
  virtual Engine engine() const = 0;
  // Each centre's relative rounding error: its unit in the bound.
  virtual std::span<const double> centre_errors() const = 0;
  // Float roundings each product sum sees: d for float accumulation, 3 for int8 (exact sums).
  virtual long long roundings(Eigen::Index d) const = 0;
  // Rows [r0, r0 + rows) of x, rounded, into `out` (with their errors).
  virtual void round_rows(const MatrixF& x, Eigen::Index r0, Eigen::Index rows, RoundedRows& out) const = 0;
  // g (row-major, leading dimension nbp) = the rounded rows (mbp of them, a multiple of kPad) times
  // centres [c0, c0 + nbp) transposed, in float; c0 and nbp multiples of kPad within the padding.
  virtual void gemm(const RoundedRows& rows, Eigen::Index mbp, Eigen::Index c0, Eigen::Index nbp, float* g) const = 0;
};

// The centres packed for `engine` (which must be available), on up to `threads` threads.
std::unique_ptr<ScreenGemm> make_screen_gemm(Engine engine, const MatrixF& centres, int threads);

}  // namespace secpe::screen
