#include "privacy/gaussian.hpp"

#include <cmath>
#include <sstream>

#include "core/error.hpp"

namespace secpe {
namespace {

constexpr double kInvSqrt2 = 0.70710678118654752440;      // 1/sqrt(2), rounded to double
constexpr double kInvSqrt2Lo = -4.8336466567264565186e-17;  // 1/sqrt(2) - kInvSqrt2
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;   // 2/sqrt(pi)

// Q(x) = 1 - Phi(x) = erfc(x/sqrt(2))/2. Rounding x/sqrt(2) to z costs erfc a relative error of
// about 2 z^2 ulp in the far tail (1e-13 at x = 38); the rounding residual e = x/sqrt(2) - z is
// recovered with an fma and applied as a first-order correction, erfc(z + e) ~ erfc(z) - e *
// 2/sqrt(pi) exp(-z^2), which keeps the result within a few ulp.
double upper_tail(double x) {
  const double z = x * kInvSqrt2;
  const double e = std::fma(x, kInvSqrt2, -z) + x * kInvSqrt2Lo;
  const double v = std::erfc(z);
  if (!(v > 0.0) || !std::isfinite(z)) return 0.5 * v;
  // 2/sqrt(pi) exp(-z^2) / erfc(z); beyond z = 26 exp(-z^2) underflows, use its asymptote.
  const double ratio = z < 26.0 ? kTwoOverSqrtPi * std::exp(-z * z) / v : 2.0 * z + 1.0 / z;
  return 0.5 * v * (1.0 - e * ratio);
}

// Horner evaluation of c[0] + c[1] x + ... + c[7] x^7.
double horner8(const double (&c)[8], double x) {
  double acc = c[7];
  for (int k = 6; k >= 0; --k) acc = acc * x + c[k];
  return acc;
}

// Wichura (1988), Algorithm AS 241 (PPND16), ascending powers; denominators lead with 1.
constexpr double kA[8] = {3.3871328727963666080e0,  1.3314166789178437745e+2, 1.9715909503065514427e+3,
                          1.3731693765509461125e+4, 4.5921953931549871457e+4, 6.7265770927008700853e+4,
                          3.3430575583588128105e+4, 2.5090809287301226727e+3};
constexpr double kB[8] = {1.0,
                          4.2313330701600911252e+1, 6.8718700749205790830e+2, 5.3941960214247511077e+3,
                          2.1213794301586595867e+4, 3.9307895800092710610e+4, 2.8729085735721942674e+4,
                          5.2264952788528545610e+3};
constexpr double kC[8] = {1.42343711074968357734e0,  4.63033784615654529590e0,  5.76949722146069140550e0,
                          3.64784832476320460504e0,  1.27045825245236838258e0,  2.41780725177450611770e-1,
                          2.27238449892691845833e-2, 7.74545014278341407640e-4};
constexpr double kD[8] = {1.0,
                          2.05319162663775882187e0,  1.67638483018380384940e0,  6.89767334985100004550e-1,
                          1.48103976427480074590e-1, 1.51986665636164571966e-2, 5.47593808499534494600e-4,
                          1.05075007164441684324e-9};
constexpr double kE[8] = {6.65790464350110377720e0,  5.46378491116411436990e0,  1.78482653991729133580e0,
                          2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
                          2.71155556874348757815e-5, 2.01033439929228813265e-7};
constexpr double kF[8] = {1.0,
                          5.99832206555887937690e-1, 1.36929880922735805310e-1, 1.48753612908506148525e-2,
                          7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7,
                          2.04426310338993978564e-15};

}  // namespace

double normal_cdf(double x) { return upper_tail(-x); }

double normal_sf(double x) { return upper_tail(x); }

double normal_logcdf(double x) {
  if (x > 0.0) return std::log1p(-normal_sf(x));
  if (x > -30.0) return std::log(normal_cdf(x));
  // Asymptotic expansion Phi(x) = phi(x)/|x| * (1 - 1/x^2 + 3/x^4 - 15/x^6 + ...); at x <= -30
  // the first omitted term is below 1e-16.
  const double inv2 = 1.0 / (x * x);
  double series = 1.0, term = 1.0;
  for (int k = 1; k <= 6; ++k) {
    term *= -(2.0 * k - 1.0) * inv2;
    series += term;
  }
  constexpr double kHalfLog2Pi = 0.91893853320467274178;  // log(sqrt(2 pi))
  return -0.5 * x * x - std::log(-x) - kHalfLog2Pi + std::log(series);
}

double normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) {  // also rejects NaN
    std::ostringstream msg;
    msg.precision(17);
    msg << "normal quantile: probability must lie in (0, 1), got " << p;
    throw InputError(msg.str());
  }
  const double q = p - 0.5;
  if (std::fabs(q) <= 0.425) {
    const double r = 0.180625 - q * q;
    return q * horner8(kA, r) / horner8(kB, r);
  }
  // Tails: r = sqrt(-log(min(p, 1-p))); 1 - p is exact for p >= 0.5 (Sterbenz), so both tails
  // are handled symmetrically.
  const double tail = q < 0.0 ? p : 1.0 - p;
  double r = std::sqrt(-std::log(tail));
  double z;
  if (r <= 5.0) {
    r -= 1.6;
    z = horner8(kC, r) / horner8(kD, r);
  } else {
    r -= 5.0;
    z = horner8(kE, r) / horner8(kF, r);
  }
  return q < 0.0 ? -z : z;
}

}  // namespace secpe
