#include "compute/cpu/bf16_gemm.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "compute/cpu/screen_tiles.hpp"
#include "core/avx512.hpp"
#include "core/parallel.hpp"

#if defined(__x86_64__) && defined(__linux__)
#define SECPE_AMX 1
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace secpe::bf16 {
namespace {

// The value of a bf16 as the hardware multiplies it: subnormals count as zero (AMX treats denormal
// inputs as zero; relative_rounding_error counts what that loses).
float widen(std::uint16_t b) {
  if ((b & 0x7F80u) == 0) b &= 0x8000u;
  const std::uint32_t u = std::uint32_t{b} << 16;
  float v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

// Where a group's tiles hold dimensions (k, k + 1), k even, of its centre n (0 <= n < 16).
Eigen::Index pair_slot(Eigen::Index k, Eigen::Index n) { return k / 32 * 256 + (k % 32) / 2 * 16 + n; }

void gemm_emulated(const std::uint16_t* xb, Eigen::Index mbp, const PackedCentres& centres, Eigen::Index c0, Eigen::Index nbp,
                   float* g) {
  const Eigen::Index dp = centres.padded_dim();
  for (Eigen::Index i = 0; i < mbp; ++i) {
    const std::uint16_t* x = xb + i * dp;
    for (Eigen::Index j = 0; j < nbp; ++j) {
      const std::uint32_t* tiles = centres.group(c0 + j / 16 * 16);
      float s = 0.0f;
      for (Eigen::Index k = 0; k < dp; k += 2) {
        const std::uint32_t p = tiles[pair_slot(k, j % 16)];
        s += widen(x[k]) * widen(static_cast<std::uint16_t>(p & 0xFFFFu));
        s += widen(x[k + 1]) * widen(static_cast<std::uint16_t>(p >> 16));
      }
      g[i * nbp + j] = s;
    }
  }
}

#ifdef SECPE_AMX
constexpr int kArchReqXcompPerm = 0x1023;  // <asm/prctl.h>; not in every libc's headers
constexpr int kXfeatureXtiledata = 18;

struct TileConfig {
  std::uint8_t palette = 1;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};

// 2 x 2 tiles of 16 x 16 floats (tmm0-3) per step: tmm4-5 hold 16 rows of X by 32 dimensions,
// tmm6-7 32 dimensions of 16 centres each. The dimensions go in slices of kSlice x 32: a slice of
// 32 rows of X (16 KiB) stays in L1 while the centres' slices stream past it, and G's tiles are
// stored after each slice and reloaded for the next (measured on one core of this project's
// Sapphire Rapids machine: 1.15 to 1.4 TFLOP/s, against 0.93 to 1.15 without slices).
__attribute__((target("amx-tile,amx-bf16"))) void gemm_amx(const std::uint16_t* xb, Eigen::Index mbp,
                                                           const PackedCentres& centres, Eigen::Index c0,
                                                           Eigen::Index nbp, float* g) {
  constexpr Eigen::Index kSlice = 8;
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  _tile_loadconfig(&cfg);
  const Eigen::Index dp = centres.padded_dim(), chunks = dp / 32;
  const long x_stride = static_cast<long>(dp * 2), g_stride = static_cast<long>(nbp * 4);
  for (Eigen::Index q0 = 0; q0 < chunks; q0 += kSlice) {
    const Eigen::Index q1 = std::min(chunks, q0 + kSlice);
    for (Eigen::Index i = 0; i < mbp; i += 32) {
      const std::uint16_t* a0 = xb + i * dp;
      const std::uint16_t* a1 = a0 + 16 * dp;
      for (Eigen::Index j = 0; j < nbp; j += 32) {
        const std::uint32_t* b0 = centres.group(c0 + j);
        const std::uint32_t* b1 = centres.group(c0 + j + 16);
        float* out = g + i * nbp + j;
        if (q0 == 0) {
          _tile_zero(0);
          _tile_zero(1);
          _tile_zero(2);
          _tile_zero(3);
        } else {
          _tile_loadd(0, out, g_stride);
          _tile_loadd(1, out + 16, g_stride);
          _tile_loadd(2, out + 16 * nbp, g_stride);
          _tile_loadd(3, out + 16 * nbp + 16, g_stride);
        }
        for (Eigen::Index q = q0; q < q1; ++q) {
          _tile_loadd(4, a0 + q * 32, x_stride);
          _tile_loadd(5, a1 + q * 32, x_stride);
          _tile_loadd(6, b0 + q * 256, 64);
          _tile_loadd(7, b1 + q * 256, 64);
          _tile_dpbf16ps(0, 4, 6);
          _tile_dpbf16ps(1, 4, 7);
          _tile_dpbf16ps(2, 5, 6);
          _tile_dpbf16ps(3, 5, 7);
        }
        _tile_stored(0, out, g_stride);
        _tile_stored(1, out + 16, g_stride);
        _tile_stored(2, out + 16 * nbp, g_stride);
        _tile_stored(3, out + 16 * nbp + 16, g_stride);
      }
    }
  }
  _tile_release();
}

struct Operands {
  const std::uint16_t* x;  // the rows in bf16, padded
  Eigen::Index dp;
  const PackedCentres& centres;
  Eigen::Index c0;  // the block's first centre
  float* g;
  Eigen::Index ld;
};

// 8 rows x 16 Groups centres in zmm accumulators: per pair of dimensions, one load per group (pair
// p of 16 centres) and one broadcast per row (its pair p) feed 8 Groups VDPBF16PS.
struct Avx512Tiles {
  static constexpr int kRows = 8, kGroups = 2;
  template <int Groups>
  [[gnu::target("avx512f,avx512bf16")]] static void tile(const Operands& o, Eigen::Index i, Eigen::Index j) {
    __m512 acc[kRows][Groups];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 2
      for (int g = 0; g < Groups; ++g) acc[r][g] = _mm512_setzero_ps();
    const std::uint32_t* b = o.centres.group(o.c0 + j);
    const std::uint16_t* a = o.x + i * o.dp;
    const Eigen::Index pairs = o.dp / 2, group_pairs = 16 * pairs;
    for (Eigen::Index p = 0; p < pairs; ++p) {
      __m512bh bv[Groups];
#pragma GCC unroll 2
      for (int g = 0; g < Groups; ++g) bv[g] = (__m512bh)_mm512_load_si512(b + g * group_pairs + p * 16);
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        std::int32_t pair;
        std::memcpy(&pair, a + r * o.dp + 2 * p, sizeof pair);
        const __m512bh av = (__m512bh)_mm512_set1_epi32(pair);
#pragma GCC unroll 2
        for (int g = 0; g < Groups; ++g) acc[r][g] = _mm512_dpbf16_ps(acc[r][g], av, bv[g]);
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 2
      for (int g = 0; g < Groups; ++g) _mm512_storeu_ps(o.g + (i + r) * o.ld + j + 16 * g, acc[r][g]);
  }
};
#endif

}  // namespace

bool avx512_bf16_available() {
#ifdef SECPE_AMX
  static const bool available = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
  return available;
#else
  return false;
#endif
}

bool amx_available() {
#ifdef SECPE_AMX
  static const bool available = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    const bool amx_bf16 = (d >> 22) & 1u, amx_tile = (d >> 24) & 1u;
    return amx_bf16 && amx_tile && syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  }();
  return available;
#else
  return false;
#endif
}

namespace {

// v - shift (v without a shift) in bf16 into out[0, d), and its measured R and u
// (screen::measured_residual): one pass, scalar. Without a shift each difference is exact (v' is v
// rounded, or 0); with one, the residual is rounded to float first and the differences are taken in
// double from v and m.
screen::Measured round_and_measure_scalar(const float* v, const float* shift, Eigen::Index d, std::uint16_t* out) {
  double error = 0.0, norm = 0.0;  // squared
  for (Eigen::Index k = 0; k < d; ++k) {
    const float m = shift ? shift[k] : 0.0f;
    out[k] = round_to_bf16(v[k] - m);
    const double r = double(v[k]) - double(m), e = r - double(widen(out[k]));
    error += e * e;
    norm += r * r;
  }
  return screen::measured_residual(error, norm, d, shift != nullptr);
}

#ifdef SECPE_AMX
// The same on 16 coordinates at a time (AVX-512F): the same bf16 values, bit for bit, and the sums
// of squares in other orders, which the allowance of relative_error_bound covers. Every CPU with AMX has
// AVX-512F, so the screen never rounds its rows one coordinate at a time.
SECPE_AVX512_CODE_BEGIN  // GCC 12's headers warn wrongly here (core/avx512.hpp)
[[gnu::target("avx512f")]]
screen::Measured round_and_measure_avx512(const float* v, const float* shift, Eigen::Index d, std::uint16_t* out) {
  const __m512i bias = _mm512_set1_epi32(0x7FFF), one = _mm512_set1_epi32(1);
  const __m512i high = _mm512_set1_epi32(static_cast<int>(0xFFFF0000u)), exponent = _mm512_set1_epi32(0x7F800000);
  const __m512i sign = _mm512_set1_epi32(static_cast<int>(0x80000000u));
  __m512d error = _mm512_setzero_pd(), norm = _mm512_setzero_pd();
  Eigen::Index k = 0;
  for (; k + 16 <= d; k += 16) {
    const __m512 x = _mm512_loadu_ps(v + k), m = shift ? _mm512_loadu_ps(shift + k) : _mm512_setzero_ps();
    const __m512i u = _mm512_castps_si512(_mm512_sub_ps(x, m));
    // round_to_bf16: the rounded value's bits in the high half of each lane.
    __m512i r = _mm512_and_si512(_mm512_add_epi32(u, _mm512_add_epi32(bias, _mm512_and_si512(_mm512_srli_epi32(u, 16), one))), high);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k), _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16)));
    r = _mm512_mask_and_epi32(r, _mm512_testn_epi32_mask(r, exponent), r, sign);  // widen: subnormals read as zero
    const __m512 w = _mm512_castsi512_ps(r);
    for (int half = 0; half < 2; ++half) {
      const __m256 xs = _mm512_castps512_ps256(half ? _mm512_shuffle_f32x4(x, x, 0xEE) : x);
      const __m256 ms = _mm512_castps512_ps256(half ? _mm512_shuffle_f32x4(m, m, 0xEE) : m);
      const __m256 ws = _mm512_castps512_ps256(half ? _mm512_shuffle_f32x4(w, w, 0xEE) : w);
      const __m512d xd = _mm512_sub_pd(_mm512_cvtps_pd(xs), _mm512_cvtps_pd(ms)), e = _mm512_sub_pd(xd, _mm512_cvtps_pd(ws));
      error = _mm512_add_pd(error, _mm512_mul_pd(e, e));
      norm = _mm512_add_pd(norm, _mm512_mul_pd(xd, xd));
    }
  }
  double e = 0.0, n = 0.0;
  for (; k < d; ++k) {
    const float m = shift ? shift[k] : 0.0f;
    out[k] = round_to_bf16(v[k] - m);
    const double r = double(v[k]) - double(m), diff = r - double(widen(out[k]));
    e += diff * diff;
    n += r * r;
  }
  return screen::measured_residual(e + _mm512_reduce_add_pd(error), n + _mm512_reduce_add_pd(norm), d, shift != nullptr);
}
SECPE_AVX512_CODE_END
#endif

screen::Measured round_and_measure(const float* v, const float* shift, Eigen::Index d, std::uint16_t* out) {
#ifdef SECPE_AMX
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512) return round_and_measure_avx512(v, shift, d, out);
#endif
  return round_and_measure_scalar(v, shift, d, out);
}

}  // namespace

double relative_rounding_error(const float* v, Eigen::Index d) {
  std::vector<std::uint16_t> rounded(static_cast<std::size_t>(d));
  return round_and_measure(v, nullptr, d, rounded.data()).unit;
}

PackedCentres::PackedCentres(const MatrixF& centres, const screen::Shift& shift, int threads) : dim_(padded(centres.cols())) {
  const Eigen::Index n = centres.rows(), d = centres.cols(), groups = padded(n) / 16;
  const float* m = shift.m.empty() ? nullptr : shift.m.data();
  data_.resize(static_cast<std::size_t>(padded(n) * dim_ / 2));  // zeros: the padding
  errors_.assign(static_cast<std::size_t>(n), 0.0);
  residuals_.assign(static_cast<std::size_t>(n), 0.0);
  // Groups of 16 centres are independent: each chunk packs its own.
  run_chunks(chunk_count(threads, static_cast<std::size_t>(groups), double(16 * d)), static_cast<std::size_t>(groups),
             [&](int, std::size_t g0, std::size_t g1) {
               std::vector<std::uint16_t> rounded(static_cast<std::size_t>(d) + 1, 0);  // + 1: the pair of an odd last one
               const Eigen::Index c1 = std::min<Eigen::Index>(n, static_cast<Eigen::Index>(g1) * 16);
               for (Eigen::Index c = static_cast<Eigen::Index>(g0) * 16; c < c1; ++c) {
                 std::uint32_t* tiles = data_.data() + c / 16 * dim_ * 8;
                 const screen::Measured r = round_and_measure(centres.row(c).data(), m, d, rounded.data());
                 errors_[static_cast<std::size_t>(c)] = r.unit;
                 residuals_[static_cast<std::size_t>(c)] = r.residual;
                 for (Eigen::Index k = 0; k < d; k += 2)
                   tiles[pair_slot(k, c % 16)] = std::uint32_t{rounded[static_cast<std::size_t>(k)]} |
                                                 (std::uint32_t{rounded[static_cast<std::size_t>(k + 1)]} << 16);
               }
             });
  for (const double e : errors_) max_error_ = std::max(max_error_, e);
}

void round_rows(const MatrixF& x, Eigen::Index r0, Eigen::Index rows, const screen::Shift& shift, screen::RoundedRows& out) {
  const Eigen::Index d = x.cols(), dp = padded(d);
  const auto n = static_cast<std::size_t>(rows);
  out.bf16.assign(static_cast<std::size_t>(padded(rows) * dp), 0);
  out.errors.resize(n);
  out.residuals.resize(n);
  out.shifted.resize(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const float* m = out.shifted[i] ? shift.m.data() : nullptr;
    const auto row = static_cast<Eigen::Index>(i);
    const screen::Measured r = round_and_measure(x.row(r0 + row).data(), m, d, out.bf16.data() + row * dp);
    out.errors[i] = r.unit;
    out.residuals[i] = r.residual;
  }
}

void gemm(Engine engine, const std::uint16_t* xb, Eigen::Index mbp, const PackedCentres& centres, Eigen::Index c0,
          Eigen::Index nbp, float* g) {
#ifdef SECPE_AMX
  if (engine == Engine::kBf16Amx) return gemm_amx(xb, mbp, centres, c0, nbp, g);
  if (engine == Engine::kBf16Avx512) return screen::run_tiles<Avx512Tiles>(Operands{xb, centres.padded_dim(), centres, c0, g, nbp}, mbp, nbp);
#endif
  gemm_emulated(xb, mbp, centres, c0, nbp, g);
}

}  // namespace secpe::bf16
