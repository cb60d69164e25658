#include "compute/cpu/int8_gemm.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "compute/cpu/screen_tiles.hpp"
#include "compute/impl/fast_float.hpp"
#include "core/avx512.hpp"
#include "core/parallel.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#define SECPE_VNNI 1
#include <cpuid.h>
#include <immintrin.h>
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SECPE_QUANTISE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SECPE_QUANTISE_CLONES
#endif

namespace secpe::int8 {

bool avx512_vnni_available() {
#ifdef SECPE_VNNI
  static const bool available = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                                __builtin_cpu_supports("avx512vnni");
  return available;
#else
  return false;
#endif
}

bool avx_vnni_available() {
#ifdef SECPE_VNNI
  // AVX-VNNI is CPUID leaf 7, sub-leaf 1, EAX bit 4 (not every compiler's __builtin_cpu_supports
  // knows it); it uses the ymm state that the AVX2 check confirms the OS saves.
  static const bool available = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __builtin_cpu_supports("avx2") && __get_cpuid_count(7, 1, &a, &b, &c, &d) && ((a >> 4) & 1u);
  }();
  return available;
#else
  return false;
#endif
}

namespace {

constexpr int kLanes = 16;
constexpr float kLevels = 127.0f;
constexpr std::uint8_t kBias = 128;

}  // namespace

namespace {

using F16 = float __attribute__((vector_size(64)));
using F8 = float __attribute__((vector_size(32)));
using D8 = double __attribute__((vector_size(64)));
using I16 = std::int32_t __attribute__((vector_size(64)));
using C16 = std::int8_t __attribute__((vector_size(16)));

// t rounded to the nearest integer, ties to even, for |t| < 2^22, and clamped to [-127, 127]:
// t + 1.5 * 2^23 lies where floats are the integers, so the addition rounds (the library keeps
// floating-point contraction off, so nothing fuses it with the product that made t).
constexpr float kMagic = 12582912.0f;
inline float level(float t) {
  const float r = (t + kMagic) - kMagic;
  return r > kLevels ? kLevels : (r < -kLevels ? -kLevels : r);
}

}  // namespace

// The largest |v_j - m_j| in float (|v_j| without a shift), sixteen lanes at a time.
[[gnu::always_inline]] inline float max_abs_residual(const float* __restrict v, const float* __restrict m, Eigen::Index d) {
  if (!m) return std::bit_cast<float>(fast::max_abs_bits(v, d));
  F16 best = {};
  Eigen::Index j = 0;
  for (; j + 16 <= d; j += 16) {
    F16 x, y;
    std::memcpy(&x, v + j, sizeof x);
    std::memcpy(&y, m + j, sizeof y);
    F16 w = x - y;
    w = w < 0 ? -w : w;
    best = w > best ? w : best;
  }
  float out = 0.0f;
  for (int t = 0; t < 16; ++t) out = std::max(out, best[t]);
  for (; j < d; ++j) out = std::max(out, std::fabs(v[j] - m[j]));
  return out;
}

// Sixteen coordinates at a time in GCC vector types (one zmm, two ymm or four xmm, as the clone
// allows), the tail one at a time with the same operations: every clone computes the same q,
// scale and sum. The squares are summed in double in lanes, an order relative_error_bound allows
// for. Without a shift each difference v_j - s q_j is exact: s q_j (24 bits times 8) is exact in
// double, and when q_j != 0, |v_j| >= s / 2 roughly, so both lie within 2^33 of each other's last
// bit. With one, the residual fl(v_j - m_j) and the differences are rounded in double, which
// screen::measured_residual allows for. A residual whose largest coordinate is below 2^-48 (or 0)
// is rounded to q = 0 with scale 0, its whole norm counted as error: larger scales keep the
// epilogue's product of two scales above 2^-110, clear of float underflow (an unshifted vector
// within screen::fits never comes near that: its largest coordinate is at least 2^-40 / 256).
SECPE_QUANTISE_CLONES screen::Measured quantise(const float* __restrict v, const float* __restrict shift, Eigen::Index d,
                                                std::int8_t* __restrict q, float* scale, std::int32_t* sum) {
  const float m = max_abs_residual(v, shift, d);
  const bool lost = !(m >= 0x1p-48f);
  const float s = lost ? 0.0f : m / kLevels, inv = lost ? 0.0f : kLevels / m;
  const F16 vinv = F16{} + inv, magic = F16{} + kMagic, top = F16{} + kLevels, bottom = F16{} - kLevels;
  const D8 ds = D8{} + double(s);
  D8 error = {}, norm = {};
  I16 sums = {};
  Eigen::Index j = 0;
  for (; j + 16 <= d; j += 16) {
    F16 x, y = {};
    std::memcpy(&x, v + j, sizeof x);
    if (shift) std::memcpy(&y, shift + j, sizeof y);
    F16 r = ((x - y) * vinv + magic) - magic;
    r = r > top ? top : r;
    r = r < bottom ? bottom : r;
    const I16 qi = __builtin_convertvector(r, I16);
    const C16 qc = __builtin_convertvector(qi, C16);
    std::memcpy(q + j, &qc, sizeof qc);
    sums += qi;
    for (int half = 0; half < 2; ++half) {
      const F8 xh = half ? __builtin_shufflevector(x, x, 8, 9, 10, 11, 12, 13, 14, 15) : __builtin_shufflevector(x, x, 0, 1, 2, 3, 4, 5, 6, 7);
      const F8 yh = half ? __builtin_shufflevector(y, y, 8, 9, 10, 11, 12, 13, 14, 15) : __builtin_shufflevector(y, y, 0, 1, 2, 3, 4, 5, 6, 7);
      const F8 rh = half ? __builtin_shufflevector(r, r, 8, 9, 10, 11, 12, 13, 14, 15) : __builtin_shufflevector(r, r, 0, 1, 2, 3, 4, 5, 6, 7);
      const D8 xd = __builtin_convertvector(xh, D8) - __builtin_convertvector(yh, D8), e = xd - ds * __builtin_convertvector(rh, D8);
      error += e * e;
      norm += xd * xd;
    }
  }
  double e = 0.0, n = 0.0;
  std::int32_t total = 0;
  for (; j < d; ++j) {
    const float y = shift ? shift[j] : 0.0f;
    const float r = level((v[j] - y) * inv);
    q[j] = static_cast<std::int8_t>(r);
    total += static_cast<std::int32_t>(r);
    const double xd = double(v[j]) - double(y), diff = xd - double(s) * double(r);
    e += diff * diff;
    n += xd * xd;
  }
  for (int t = 0; t < 8; ++t) e += error[t], n += norm[t];
  for (int t = 0; t < 16; ++t) total += sums[t];
  *scale = s;
  *sum = total;
  return screen::measured_residual(e, n, d, shift != nullptr);
}

PackedCentres::PackedCentres(const MatrixF& centres, const screen::Shift& shift, int threads) : dim_(screen::padded(centres.cols())) {
  const Eigen::Index n = centres.rows(), d = centres.cols(), groups = screen::padded(n) / 16;
  const float* m = shift.m.empty() ? nullptr : shift.m.data();
  data_.assign(static_cast<std::size_t>(screen::padded(n) * dim_), kBias);  // q = 0: the padding
  scale_.assign(static_cast<std::size_t>(screen::padded(n)), 0.0f);
  errors_.assign(static_cast<std::size_t>(n), 0.0);
  residuals_.assign(static_cast<std::size_t>(n), 0.0);
  run_chunks(chunk_count(threads, static_cast<std::size_t>(groups), double(16 * d)), static_cast<std::size_t>(groups),
             [&](int, std::size_t g0, std::size_t g1) {
               std::vector<std::int8_t> q(static_cast<std::size_t>(dim_), 0);  // zeros beyond d: the padding
               const Eigen::Index c1 = std::min<Eigen::Index>(n, static_cast<Eigen::Index>(g1) * 16);
               for (Eigen::Index c = static_cast<Eigen::Index>(g0) * 16; c < c1; ++c) {
                 std::int32_t sum = 0;
                 const auto k = static_cast<std::size_t>(c);
                 const screen::Measured r = quantise(centres.row(c).data(), m, d, q.data(), &scale_[k], &sum);
                 errors_[k] = r.unit;
                 residuals_[k] = r.residual;
                 // Four dimensions at a time, biased: q + 128 flips the sign bit of each byte.
                 std::uint8_t* slot = data_.data() + c / 16 * 16 * dim_ + c % 16 * 4;
                 for (Eigen::Index k = 0; k < dim_; k += 4, slot += 64) {
                   std::uint32_t word;
                   std::memcpy(&word, q.data() + k, sizeof word);
                   word ^= 0x80808080u;
                   std::memcpy(slot, &word, sizeof word);
                 }
               }
             });
  for (const double e : errors_) max_error_ = std::max(max_error_, e);
}

void round_rows(const MatrixF& x, Eigen::Index r0, Eigen::Index rows, const screen::Shift& shift, screen::RoundedRows& out) {
  const Eigen::Index d = x.cols(), dp = screen::padded(d), mbp = screen::padded(rows);
  out.int8.assign(static_cast<std::size_t>(mbp * dp), 0);
  out.scale.assign(static_cast<std::size_t>(mbp), 0.0f);
  out.offset.assign(static_cast<std::size_t>(mbp), 0);
  out.errors.resize(static_cast<std::size_t>(rows));
  out.residuals.resize(static_cast<std::size_t>(rows));
  out.shifted.resize(static_cast<std::size_t>(rows), 0);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const auto r = static_cast<std::size_t>(i);
    std::int32_t sum = 0;
    const float* m = out.shifted[r] ? shift.m.data() : nullptr;
    const screen::Measured measured = quantise(x.row(r0 + i).data(), m, d, out.int8.data() + i * dp, &out.scale[r], &sum);
    out.errors[r] = measured.unit;
    out.residuals[r] = measured.residual;
    out.offset[r] = std::int32_t{kBias} * sum;
  }
}

namespace {

struct Operands {
  const std::int8_t* x;  // the rows, padded
  const float* x_scale;
  const std::int32_t* x_offset;
  Eigen::Index dp;
  const PackedCentres& centres;
  Eigen::Index c0;  // the block's first centre
  float* g;
  Eigen::Index ld;
};

// The epilogue every engine shares, one value at a time here: float(v) (s_c s_x), v = q_x . q_c.
inline float scaled(std::int64_t v, float centre_scale, float row_scale) {
  return static_cast<float>(v) * (centre_scale * row_scale);
}

void gemm_emulated(const Operands& o, Eigen::Index mbp, Eigen::Index nbp) {
  for (Eigen::Index i = 0; i < mbp; ++i) {
    const std::int8_t* x = o.x + i * o.dp;
    for (Eigen::Index j = 0; j < nbp; ++j) {
      const Eigen::Index c = o.c0 + j;
      const std::uint8_t* group = o.centres.group(c / 16 * 16);
      std::int64_t v = 0;
      for (Eigen::Index k = 0; k < o.dp; ++k) v += std::int64_t{x[k]} * (std::int64_t{group[k / 4 * 64 + c % 16 * 4 + k % 4]} - kBias);
      o.g[i * o.ld + j] = scaled(v, *o.centres.scales(c), o.x_scale[i]);
    }
  }
}

#ifdef SECPE_VNNI
SECPE_AVX512_CODE_BEGIN  // GCC 12's headers warn wrongly here (core/avx512.hpp)
inline std::int32_t load32(const std::int8_t* p) {
  std::int32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// 8 rows x 16 Groups centres in zmm accumulators (24 of the 32 registers for 3 groups): per 4
// dimensions, one load per group and one broadcast per row feed 8 Groups VPDPBUSD.
struct Avx512Tiles {
  static constexpr int kRows = 8, kGroups = 3;
  template <int Groups>
  [[gnu::target("avx512f,avx512bw,avx512vnni")]] static void tile(const Operands& o, Eigen::Index i, Eigen::Index j) {
    __m512i acc[kRows][Groups];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 3
      for (int g = 0; g < Groups; ++g) acc[r][g] = _mm512_setzero_si512();
    const std::uint8_t* b = o.centres.group(o.c0 + j);
    const std::int8_t* a = o.x + i * o.dp;
    const Eigen::Index quads = o.dp / 4, group_bytes = 16 * o.dp;
    for (Eigen::Index q = 0; q < quads; ++q) {
      __m512i bv[Groups];
#pragma GCC unroll 3
      for (int g = 0; g < Groups; ++g) bv[g] = _mm512_load_si512(b + g * group_bytes + q * 64);
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        const __m512i av = _mm512_set1_epi32(load32(a + r * o.dp + 4 * q));
#pragma GCC unroll 3
        for (int g = 0; g < Groups; ++g) acc[r][g] = _mm512_dpbusd_epi32(acc[r][g], bv[g], av);
      }
    }
    // The sums leave the registers before the epilogue, which would otherwise compete for them.
    alignas(64) std::int32_t sums[kRows][Groups * 16];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 3
      for (int g = 0; g < Groups; ++g) _mm512_store_si512(sums[r] + 16 * g, acc[r][g]);
    for (int r = 0; r < kRows; ++r) {
      const __m512 sx = _mm512_set1_ps(o.x_scale[i + r]);
      const __m512i off = _mm512_set1_epi32(o.x_offset[i + r]);
      for (int g = 0; g < Groups; ++g) {
        const __m512 v = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_load_si512(sums[r] + 16 * g), off));
        const __m512 sc = _mm512_loadu_ps(o.centres.scales(o.c0 + j + 16 * g));
        _mm512_storeu_ps(o.g + (i + r) * o.ld + j + 16 * g, _mm512_mul_ps(v, _mm512_mul_ps(sc, sx)));
      }
    }
  }
};

// The same on ymm (AVX-VNNI, 16 registers): 4 rows x 16 centres (two halves of a group).
struct AvxTiles {
  static constexpr int kRows = 4, kGroups = 1;
  template <int Groups>
  [[gnu::target("avx2,avxvnni")]] static void tile(const Operands& o, Eigen::Index i, Eigen::Index j) {
    static_assert(Groups == 1);
    __m256i acc[kRows][2];
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
    const std::uint8_t* b = o.centres.group(o.c0 + j);
    const std::int8_t* a = o.x + i * o.dp;
    const Eigen::Index quads = o.dp / 4;
    for (Eigen::Index q = 0; q < quads; ++q) {
      const __m256i b0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(b + q * 64));
      const __m256i b1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(b + q * 64 + 32));
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) {
        const __m256i av = _mm256_set1_epi32(load32(a + r * o.dp + 4 * q));
        acc[r][0] = _mm256_dpbusd_avx_epi32(acc[r][0], b0, av);
        acc[r][1] = _mm256_dpbusd_avx_epi32(acc[r][1], b1, av);
      }
    }
    const __m256 sc[2] = {_mm256_loadu_ps(o.centres.scales(o.c0 + j)), _mm256_loadu_ps(o.centres.scales(o.c0 + j + 8))};
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      const __m256 sx = _mm256_set1_ps(o.x_scale[i + r]);
      const __m256i off = _mm256_set1_epi32(o.x_offset[i + r]);
      for (int h = 0; h < 2; ++h) {
        const __m256 v = _mm256_cvtepi32_ps(_mm256_sub_epi32(acc[r][h], off));
        _mm256_storeu_ps(o.g + (i + r) * o.ld + j + 8 * h, _mm256_mul_ps(v, _mm256_mul_ps(sc[h], sx)));
      }
    }
  }
};
SECPE_AVX512_CODE_END
#endif

}  // namespace

void gemm(Engine engine, const screen::RoundedRows& rows, Eigen::Index mbp, const PackedCentres& centres, Eigen::Index c0,
          Eigen::Index nbp, float* g) {
  const Operands o{rows.int8.data(), rows.scale.data(), rows.offset.data(), centres.padded_dim(), centres, c0, g, nbp};
#ifdef SECPE_VNNI
  if (engine == Engine::kInt8Avx512) return screen::run_tiles<Avx512Tiles>(o, mbp, nbp);
  if (engine == Engine::kInt8Avx) return screen::run_tiles<AvxTiles>(o, mbp, nbp);
#endif
  gemm_emulated(o, mbp, nbp);
}

}  // namespace secpe::int8
