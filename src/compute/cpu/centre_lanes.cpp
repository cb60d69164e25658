#include "compute/cpu/centre_lanes.hpp"

#include "core/avx512.hpp"
#include "privacy/centre_release.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace secpe {
namespace {

// Normals drawn beforehand, handed out in order.
struct DrawnNormals {
  const double* next;
  double normal() { return *next++; }
};

#if defined(__x86_64__)
SECPE_AVX512_CODE_BEGIN  // GCC 12's headers warn wrongly here (core/avx512.hpp)
// Coordinates [0, d - d % 8) of the release: centre_mean, the noise (value + std x normal) and
// GaussianRelease::snap with a normal grid (round_half_even as there: |y| below 2^52 moved by 2^52
// with y's sign and back, the sign kept; larger values and NaN as they are), then to float. Every
// conversion rounds to nearest, as the scalar casts do.
__attribute__((target("avx512f,avx512dq"))) long long release_lanes(const CentreCoordinates& c, const double* normals,
                                                                    const std::int64_t* sum, const float* public_row, long long d,
                                                                    float* out) {
  const __m512d n_pub = _mm512_set1_pd(c.n_pub), inv = _mm512_set1_pd(c.inv_members), scale = _mm512_set1_pd(0x1.0p-32);
  const __m512d std_dev = _mm512_set1_pd(c.noise.noise_std()), inverse = _mm512_set1_pd(c.noise.inverse());
  const __m512d grid = _mm512_set1_pd(c.noise.grid()), two52 = _mm512_set1_pd(0x1.0p52);
  const __m512i sign = _mm512_set1_epi64(static_cast<long long>(std::uint64_t{1} << 63));
  long long j = 0;
  for (; j + 8 <= d; j += 8) {
    // sum / 2^32 is sum x 2^-32 exactly (a power of two, and the quotient is never subnormal).
    const __m512d fixed_sum = _mm512_mul_pd(_mm512_cvtepi64_pd(_mm512_loadu_si512(sum + j)), scale);
    const __m512d pub = _mm512_cvtps_pd(_mm256_loadu_ps(public_row + j));
    const __m512d mean = _mm512_mul_pd(_mm512_add_pd(_mm512_mul_pd(n_pub, pub), fixed_sum), inv);
    const __m512d y = _mm512_mul_pd(_mm512_add_pd(mean, _mm512_mul_pd(std_dev, _mm512_loadu_pd(normals + j))), inverse);
    const __m512i y_sign = _mm512_and_si512(_mm512_castpd_si512(y), sign);
    const __m512d shift = _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(two52), y_sign));
    const __m512d moved = _mm512_sub_pd(_mm512_add_pd(y, shift), shift);
    const __m512d rounded = _mm512_castsi512_pd(_mm512_or_si512(_mm512_andnot_si512(sign, _mm512_castpd_si512(moved)), y_sign));
    const __mmask8 small = _mm512_cmp_pd_mask(_mm512_abs_pd(y), two52, _CMP_LT_OQ);
    _mm256_storeu_ps(out + j, _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_mask_blend_pd(small, y, rounded), grid)));
  }
  return j;
}
SECPE_AVX512_CODE_END
#endif

}  // namespace

double release_centre_drawn_reference(const double* normals, const std::int64_t* sum, const float* public_row, long long d,
                                      double n_pub, double m_pri, double sigma, double clip_radius, float* out) {
  DrawnNormals noise{normals};
  return release_centre(noise, [sum](long long j) { return sum[j]; }, public_row, d, n_pub, m_pri, sigma, clip_radius, out);
}

double release_centre_drawn(const double* normals, const std::int64_t* sum, const float* public_row, long long d, double n_pub,
                            double m_pri, double sigma, double clip_radius, float* out) {
  const CentreCoordinates c = centre_coordinates(n_pub, m_pri, sigma, clip_radius);
  if (!avx512dq_runs_here() || !(c.noise.inverse() > 0))
    return release_centre_drawn_reference(normals, sum, public_row, d, n_pub, m_pri, sigma, clip_radius, out);
  DrawnNormals noise{normals};
  const double size = noisy_release(ieee::add_rn(n_pub, m_pri), sigma, noise);  // normals[0], as release_centre
#if defined(__x86_64__)
  const long long done = release_lanes(c, normals + 1, sum, public_row, d, out);
#else
  const long long done = 0;
#endif
  noise.next = normals + 1 + done;
  for (long long j = done; j < d; ++j) out[j] = static_cast<float>(c.noise(centre_mean(c, sum[j], public_row[j]), noise));
  return size;
}

}  // namespace secpe
