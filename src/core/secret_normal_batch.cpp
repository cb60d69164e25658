#include "core/secret_normal_batch.hpp"

#include <stdexcept>

#include "core/avx512.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace secpe {
namespace {

// secret_normal's rectangle test on words w[k ..], one at a time (the scalar path, and every
// path's last few words): the index of the first draw outside, or n.
std::size_t rectangle_scalar(const std::uint64_t* w, std::size_t k, std::size_t n, const SecretZiggurat& z, double* out) {
  for (; k < n; ++k) {
    const double u = ieee::sub_rn(ieee::mul_rn(2.0, secret_uniform_of(w[k])), 1.0);
    const int i = static_cast<int>(w[k] & (SecretZiggurat::kLayers - 1));
    if (!(ieee::abs_of(u) < z.ratio[i])) return k;
    out[k] = ieee::mul_rn(u, z.x[i]);
  }
  return n;
}

#if defined(__x86_64__)
SECPE_AVX512_CODE_BEGIN  // GCC 12's headers warn wrongly here (core/avx512.hpp)
// Eight words a register: the top 53 bits converted exactly (VCVTUQQ2PD), the layer's tables
// gathered, the rectangle compared; the products are stored for all eight, and the count stops
// at the first lane outside.
__attribute__((target("avx512f,avx512dq"))) std::size_t rectangle_avx512(const std::uint64_t* w, std::size_t n, const SecretZiggurat& z,
                                                                          double* out) {
  const __m512i layers = _mm512_set1_epi64(SecretZiggurat::kLayers - 1);
  std::size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    const __m512i bits = _mm512_loadu_si512(w + k);
    const __m512d uniform = _mm512_mul_pd(_mm512_cvtepu64_pd(_mm512_srli_epi64(bits, 11)), _mm512_set1_pd(0x1.0p-53));
    const __m512d u = _mm512_sub_pd(_mm512_mul_pd(_mm512_set1_pd(2.0), uniform), _mm512_set1_pd(1.0));
    const __m512i layer = _mm512_and_si512(bits, layers);
    const __m512d ratio = _mm512_i64gather_pd(layer, z.ratio, 8), x = _mm512_i64gather_pd(layer, z.x, 8);
    const __mmask8 inside = _mm512_cmp_pd_mask(_mm512_abs_pd(u), ratio, _CMP_LT_OQ);
    _mm512_storeu_pd(out + k, _mm512_mul_pd(u, x));
    if (inside != 0xFF) return k + static_cast<std::size_t>(__builtin_ctz(~inside & 0xFFu));
  }
  return rectangle_scalar(w, k, n, z, out);
}

// Four words a register. AVX2 converts no 64-bit integers, so the top 53 bits m are converted as
// two exact halves, m = 2 (m >> 1) + (m & 1), each below 2^52 and so exactly 2^52 + h - 2^52 when
// written into the mantissa of 2^52 (0x4330000000000000); their sum is an integer below 2^53, exact as well.
__attribute__((target("avx2"))) inline __m256d exact_below_2_52(__m256i h) {
  return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(h, _mm256_set1_epi64x(0x4330000000000000LL))), _mm256_set1_pd(0x1.0p52));
}

__attribute__((target("avx2"))) std::size_t rectangle_avx2(const std::uint64_t* w, std::size_t n, const SecretZiggurat& z, double* out) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256i one = _mm256_set1_epi64x(1), layers = _mm256_set1_epi64x(SecretZiggurat::kLayers - 1);
  std::size_t k = 0;
  for (; k + 4 <= n; k += 4) {
    const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + k));
    const __m256i top = _mm256_srli_epi64(bits, 11);
    const __m256d m = _mm256_add_pd(_mm256_mul_pd(exact_below_2_52(_mm256_srli_epi64(top, 1)), _mm256_set1_pd(2.0)), exact_below_2_52(_mm256_and_si256(top, one)));
    const __m256d uniform = _mm256_mul_pd(m, _mm256_set1_pd(0x1.0p-53));
    const __m256d u = _mm256_sub_pd(_mm256_mul_pd(_mm256_set1_pd(2.0), uniform), _mm256_set1_pd(1.0));
    const __m256i layer = _mm256_and_si256(bits, layers);
    const __m256d ratio = _mm256_i64gather_pd(z.ratio, layer, 8), x = _mm256_i64gather_pd(z.x, layer, 8);
    const int inside = _mm256_movemask_pd(_mm256_cmp_pd(_mm256_andnot_pd(sign, u), ratio, _CMP_LT_OQ));
    _mm256_storeu_pd(out + k, _mm256_mul_pd(u, x));
    if (inside != 0xF) return k + static_cast<std::size_t>(__builtin_ctz(~inside & 0xFu));
  }
  return rectangle_scalar(w, k, n, z, out);
}
SECPE_AVX512_CODE_END
#endif

}  // namespace

bool runs_here(NormalPath path) {
#if defined(__x86_64__)
  if (path == NormalPath::kAvx512) return avx512dq_runs_here();
  if (path == NormalPath::kAvx2) return __builtin_cpu_supports("avx2");
#endif
  return path == NormalPath::kScalar;
}

NormalPath fastest_normal_path() {
  for (NormalPath p : {NormalPath::kAvx512, NormalPath::kAvx2})
    if (runs_here(p)) return p;
  return NormalPath::kScalar;
}

std::size_t rectangle_normals(NormalPath path, const std::uint64_t* w, std::size_t n, const SecretZiggurat& z, double* out) {
  if (!runs_here(path)) throw std::logic_error("rectangle_normals: this CPU does not run the path asked for");
#if defined(__x86_64__)
  if (path == NormalPath::kAvx512) return rectangle_avx512(w, n, z, out);
  if (path == NormalPath::kAvx2) return rectangle_avx2(w, n, z, out);
#endif
  return rectangle_scalar(w, 0, n, z, out);
}

}  // namespace secpe
