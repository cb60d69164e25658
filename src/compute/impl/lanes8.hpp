#pragma once
// Eight exact sums in the lanes of one AVX-512 register: each lane adds one vector's terms one at
// a time in index order, so each lane gives the bits of the sequential double sum it stands for
// (exact::norm, exact::pair_score), while eight sums share every conversion, product and addition.
// The terms come eight coordinates of each of eight vectors at a time and are transposed, so that
// lane q of vector k holds vector q's term j + k. Used by exact::norms and exact::pair_scores, with
// per-function target attributes (the library builds for any x86-64 and checks the CPU at run time).
#if defined(__x86_64__) && defined(__linux__)
#define SECPE_LANES8 1
#include <immintrin.h>

#include "core/avx512.hpp"

namespace secpe::lanes8 {

SECPE_AVX512_CODE_BEGIN  // GCC 12's headers warn wrongly here (core/avx512.hpp)

// sum += term k of every lane's vector, k = 0 .. 7 in order, t[q] holding vector q's eight terms:
// an 8 x 8 transpose (pairs, then quads, then halves) and eight additions.
[[gnu::target("avx512f"), gnu::always_inline]] inline __m512d add_transposed(__m512d sum, const __m512d t[8]) {
  __m512d u[8];
  for (int q = 0; q < 8; q += 2) {
    u[q] = _mm512_unpacklo_pd(t[q], t[q + 1]);
    u[q + 1] = _mm512_unpackhi_pd(t[q], t[q + 1]);
  }
  const __m512i lo4 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), hi4 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  __m512d w[8];
  for (int q = 0; q < 8; q += 4) {
    w[q] = _mm512_permutex2var_pd(u[q], lo4, u[q + 2]);
    w[q + 1] = _mm512_permutex2var_pd(u[q + 1], lo4, u[q + 3]);
    w[q + 2] = _mm512_permutex2var_pd(u[q], hi4, u[q + 2]);
    w[q + 3] = _mm512_permutex2var_pd(u[q + 1], hi4, u[q + 3]);
  }
  const __m512i lo8 = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0), hi8 = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
  const __m512d c[8] = {_mm512_permutex2var_pd(w[0], lo8, w[4]), _mm512_permutex2var_pd(w[1], lo8, w[5]),
                        _mm512_permutex2var_pd(w[2], lo8, w[6]), _mm512_permutex2var_pd(w[3], lo8, w[7]),
                        _mm512_permutex2var_pd(w[0], hi8, w[4]), _mm512_permutex2var_pd(w[1], hi8, w[5]),
                        _mm512_permutex2var_pd(w[2], hi8, w[6]), _mm512_permutex2var_pd(w[3], hi8, w[7])};
  for (int k = 0; k < 8; ++k) sum = _mm512_add_pd(sum, c[k]);
  return sum;
}

// Eight floats from p as doubles.
[[gnu::target("avx512f"), gnu::always_inline]] inline __m512d widen(const float* p) { return _mm512_cvtps_pd(_mm256_loadu_ps(p)); }

SECPE_AVX512_CODE_END

}  // namespace secpe::lanes8
#endif
