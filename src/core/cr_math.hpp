#pragma once
// Correctly rounded exp and log (round to nearest, ties to even) for binary64, written once for
// the host and for CUDA devices (SECPE_HOST_DEVICE): the secret Gaussian noise's ziggurat
// (core/secret_normal.hpp) calls them, so a release gives the same bits on a GPU as on a CPU,
// whatever the C library's libm. Only IEEE operations rounded one at a time (core/ieee_ops.hpp),
// integer arithmetic and tables computed with mpmath (core/cr_math_tables.hpp).
//
// Ziv's strategy, in two phases:
// - fast: double-double arithmetic, tables of 64 (exp) and 91 (log) entries and short
//   polynomials, relative error below 2^-72 (measured on the test vectors; the rounding test
//   assumes 2^-68, kFastBound). When the interval of that radius around the result rounds to one
//   double, that double is the correctly rounded result; otherwise (about one call in 2^15) or
//   outside the fast phase's domain (results near overflow or subnormal, tiny arguments):
// - accurate: 256-bit fixed-point arithmetic (2^-240 resolution) and series without tables,
//   error below 2^-225 relative, rounded exactly at the result's precision (subnormal results
//   included). Lefevre and Muller's worst cases of binary64 need about 2^-120 (no double is
//   closer to a rounding boundary), so the result is the correctly rounded one.
// tests/unit/cr_math_test.cpp checks both phases against mpmath at 400 bits (committed vectors)
// and the rounding against long double on random arguments.
#include <cstdint>

#include "core/cr_math_tables.hpp"
#include "core/host_device.hpp"
#include "core/ieee_ops.hpp"

namespace secpe::cr {
namespace detail {

using ieee::Pair;

inline constexpr double kFastBound = 0x1p-68;

// Double-double: hi + lo, normalised (hi = RN(hi + lo)).
SECPE_HOST_DEVICE inline Pair dd_add(Pair a, Pair b) {
  Pair s = ieee::two_sum(a.hi, b.hi);
  const Pair t = ieee::two_sum(a.lo, b.lo);
  s = ieee::fast_two_sum(s.hi, ieee::add_rn(s.lo, t.hi));
  return ieee::fast_two_sum(s.hi, ieee::add_rn(s.lo, t.lo));
}
SECPE_HOST_DEVICE inline Pair dd_mul(Pair a, Pair b) {
  const Pair p = ieee::two_prod(a.hi, b.hi);
  const double cross = ieee::add_rn(ieee::mul_rn(a.hi, b.lo), ieee::mul_rn(a.lo, b.hi));
  return ieee::fast_two_sum(p.hi, ieee::add_rn(p.lo, cross));
}

// Ziv's rounding test: the double that every value within rel |hi| of hi + lo rounds to, if
// there is one (true, in *out).
SECPE_HOST_DEVICE inline bool rounds_to(Pair v, double rel, double* out) {
  const double e = ieee::mul_rn(ieee::abs_of(v.hi), rel);
  const double up = ieee::add_rn(v.hi, ieee::add_rn(v.lo, e));
  const double down = ieee::add_rn(v.hi, ieee::sub_rn(v.lo, e));
  if (up != down) return false;
  *out = up;
  return true;
}

// x = m 2^e with m in [1, 2), for finite x > 0 (subnormals included).
SECPE_HOST_DEVICE inline double decompose(double x, int* e) {
  std::uint64_t b = ieee::bits_of(x);
  int bias = 1023;
  if ((b >> 52) == 0) {  // subnormal: scaled by 2^54 first (exact)
    b = ieee::bits_of(ieee::mul_rn(x, 0x1p54));
    bias += 54;
  }
  *e = static_cast<int>(b >> 52) - bias;
  return ieee::from_bits((b & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1023} << 52));
}

// ---- the fast phase ----

// exp(x) 2^-k as hi + lo, for 2^-54 <= |x|, -708 < x < 709.7.
SECPE_HOST_DEVICE inline Pair exp_fast_pair(double x, int* k_out) {
  using namespace ieee;
  namespace t = tables;
  const double nd = round_to_int(mul_rn(x, t::kExpInvStep));  // x 64 / ln2, |n| < 2^16
  const int n = static_cast<int>(nd);
  const int j = n & 63;  // n = 64 k + j, 0 <= j < 64
  *k_out = (n - j) / 64;
  // r = x - n ln2/64, |r| <= ln2/128 (1 + 2^-40): n kExpC0 is exact, the rest error-free.
  const Pair a = two_sum(x, -mul_rn(nd, t::kExpC0));
  const Pair p = two_prod(nd, t::kExpC1);
  Pair r = dd_add(a, {-p.hi, -p.lo});
  r = fast_two_sum(r.hi, sub_rn(r.lo, mul_rn(nd, t::kExpC2)));
  // exp(r) = 1 + r + r^2/2 + r^3 q(r), the last term in double (|r^3/6| < 2^-25).
  const double rh = r.hi;
  double q = 1.0 / 40320.0;
  q = add_rn(1.0 / 5040.0, mul_rn(rh, q));
  q = add_rn(1.0 / 720.0, mul_rn(rh, q));
  q = add_rn(1.0 / 120.0, mul_rn(rh, q));
  q = add_rn(1.0 / 24.0, mul_rn(rh, q));
  q = add_rn(1.0 / 6.0, mul_rn(rh, q));
  q = mul_rn(q, mul_rn(rh, mul_rn(rh, rh)));
  Pair sq = two_prod(rh, rh);
  sq.lo = add_rn(sq.lo, mul_rn(2.0, mul_rn(rh, r.lo)));
  const Pair one_r = fast_two_sum(1.0, rh);
  const Pair rest = fast_two_sum(mul_rn(0.5, sq.hi), add_rn(add_rn(mul_rn(0.5, sq.lo), q), r.lo));
  return dd_mul(dd_add(one_r, rest), {t::exp_hi(j), t::exp_lo(j)});
}

// exp(x) in exp_fast_pair's domain; false when undecided.
SECPE_HOST_DEVICE inline bool exp_fast(double x, double* out) {
  int k;
  double h;
  if (!rounds_to(exp_fast_pair(x, &k), kFastBound, &h)) return false;
  *out = ieee::mul_rn(h, ieee::pow2(k));  // exact: the result is a normal double
  return true;
}

// log(x) as hi + lo, for finite x > 0, x != 1.
SECPE_HOST_DEVICE inline Pair log_fast_pair(double x) {
  using namespace ieee;
  namespace t = tables;
  int e;
  double m = decompose(x, &e);
  if (m > 0x1.6a09e667f3bcdp+0) m = mul_rn(m, 0.5), ++e;  // m in [1/sqrt2, sqrt2]
  const int j = static_cast<int>(round_to_int(mul_rn(m, 128.0)));  // 91 .. 181
  // r = m c - 1 exactly (c ~ 128/j, so |r| < 0.0056): m c - 1 is exact by Sterbenz's lemma.
  const Pair mc = two_prod(m, t::log_c(j));
  const Pair r = two_sum(sub_rn(mc.hi, 1.0), mc.lo);
  // log1p(r) = r - r^2/2 + r^3/3 + r^4 q(r): the first three terms in double-double, the last in
  // double (|r^4/4| < 2^-32 |r|).
  const double rh = r.hi;
  double q = 1.0 / 11.0;
  q = add_rn(-1.0 / 10.0, mul_rn(rh, q));
  q = add_rn(1.0 / 9.0, mul_rn(rh, q));
  q = add_rn(-1.0 / 8.0, mul_rn(rh, q));
  q = add_rn(1.0 / 7.0, mul_rn(rh, q));
  q = add_rn(-1.0 / 6.0, mul_rn(rh, q));
  q = add_rn(1.0 / 5.0, mul_rn(rh, q));
  q = add_rn(-1.0 / 4.0, mul_rn(rh, q));
  q = mul_rn(q, mul_rn(mul_rn(rh, rh), mul_rn(rh, rh)));
  Pair sq = two_prod(rh, rh);
  sq.lo = add_rn(sq.lo, mul_rn(2.0, mul_rn(rh, r.lo)));
  const Pair cube_third = dd_mul(dd_mul(sq, {rh, r.lo}), {0x1.5555555555555p-2, 0x1.5555555555555p-56});  // r^3 / 3
  const Pair rest = dd_add({mul_rn(-0.5, sq.hi), mul_rn(-0.5, sq.lo)}, fast_two_sum(cube_third.hi, add_rn(cube_third.lo, q)));
  const Pair log1p = dd_add(r, rest);
  // e ln2 - log(c) + log1p(r); e kLn2Hi is exact (|e| < 2^11, kLn2Hi has 42 bits).
  const double ed = static_cast<double>(e);
  Pair sum = dd_add({mul_rn(ed, t::kLn2Hi), 0.0}, two_prod(ed, t::kLn2Mid));
  sum = dd_add(sum, {mul_rn(ed, t::kLn2Lo), 0.0});
  sum = dd_add(sum, {t::log_hi(j), t::log_lo(j)});
  return dd_add(sum, log1p);
}

// log(x) for finite x > 0, x != 1; false when undecided.
SECPE_HOST_DEVICE inline bool log_fast(double x, double* out) { return rounds_to(log_fast_pair(x), kFastBound, out); }

// exp(x) in double alone (not correctly rounded): relative error below 2^-50 (kDoubleBound; the
// test measures it against mpmath), for results in the normal range (-708 < x < 709.7). For
// decisions that only compare exp with something far enough away (core/secret_normal.hpp).
inline constexpr double kDoubleBound = 0x1p-50;
SECPE_HOST_DEVICE inline double exp_double(double x) {
  using namespace ieee;
  namespace t = tables;
  const double nd = round_to_int(mul_rn(x, t::kExpInvStep));
  const int n = static_cast<int>(nd);
  const int j = n & 63;
  const double r = sub_rn(sub_rn(x, mul_rn(nd, t::kExpC0)), mul_rn(nd, t::kExpC1));  // |r| <= ln2/128 (1 + 2^-40)
  double p = 1.0 / 120.0;  // 1 + r + ... + r^5/120 (r^6/720 < 2^-54)
  p = add_rn(1.0 / 24.0, mul_rn(r, p));
  p = add_rn(1.0 / 6.0, mul_rn(r, p));
  p = add_rn(0.5, mul_rn(r, p));
  p = add_rn(1.0, mul_rn(r, p));
  p = add_rn(1.0, mul_rn(r, p));
  return mul_rn(mul_rn(t::exp_hi(j), p), pow2((n - j) / 64));
}

// ---- the accurate phase: 256-bit fixed point ----

// sign and magnitude w (least significant word first) of the value w 2^-240.
struct Fixed {
  std::uint64_t w[4];
  bool neg;
};
inline constexpr int kFracBits = 240;

SECPE_HOST_DEVICE inline Fixed fixed_one() { return {{0, 0, 0, std::uint64_t{1} << 48}, false}; }

SECPE_HOST_DEVICE inline bool mag_less(const Fixed& a, const Fixed& b) {
  for (int i = 3; i >= 0; --i)
    if (a.w[i] != b.w[i]) return a.w[i] < b.w[i];
  return false;
}

SECPE_HOST_DEVICE inline Fixed fixed_add(const Fixed& a, const Fixed& b) {
  Fixed r{{0, 0, 0, 0}, a.neg};
  if (a.neg == b.neg) {
    unsigned __int128 carry = 0;
    for (int i = 0; i < 4; ++i) {
      carry += static_cast<unsigned __int128>(a.w[i]) + b.w[i];
      r.w[i] = static_cast<std::uint64_t>(carry);
      carry >>= 64;
    }
    return r;
  }
  const bool swap = mag_less(a, b);
  const Fixed& big = swap ? b : a;
  const Fixed& small = swap ? a : b;
  r.neg = big.neg;
  std::uint64_t borrow = 0;
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t s = small.w[i] + borrow;
    const bool over = s < borrow;  // small.w[i] + borrow wrapped
    r.w[i] = big.w[i] - s;
    borrow = (over || big.w[i] < s) ? 1 : 0;
  }
  return r;
}

// a b, truncated to 2^-240 (the magnitudes here stay below 2^15).
SECPE_HOST_DEVICE inline Fixed fixed_mul(const Fixed& a, const Fixed& b) {
  std::uint64_t p[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 4; ++i) {
    unsigned __int128 carry = 0;
    for (int j = 0; j < 4; ++j) {
      carry += static_cast<unsigned __int128>(a.w[i]) * b.w[j] + p[i + j];
      p[i + j] = static_cast<std::uint64_t>(carry);
      carry >>= 64;
    }
    p[i + 4] = static_cast<std::uint64_t>(carry);
  }
  Fixed r{{0, 0, 0, 0}, a.neg != b.neg};
  for (int i = 0; i < 4; ++i) r.w[i] = (p[i + 3] >> 48) | (p[i + 4] << 16);  // bits 240 .. 495
  return r;
}

SECPE_HOST_DEVICE inline Fixed fixed_mul_small(const Fixed& a, std::uint64_t k) {
  Fixed r{{0, 0, 0, 0}, a.neg};
  unsigned __int128 carry = 0;
  for (int i = 0; i < 4; ++i) {
    carry += static_cast<unsigned __int128>(a.w[i]) * k;
    r.w[i] = static_cast<std::uint64_t>(carry);
    carry >>= 64;
  }
  return r;
}

// (a + top 2^256) / d, truncated, for d > 0 (top: a fifth word above a's four, for dividends
// that do not fit in 256 bits; the quotient must).
SECPE_HOST_DEVICE inline Fixed fixed_div_small(const Fixed& a, std::uint64_t d, std::uint64_t top = 0) {
  Fixed r{{0, 0, 0, 0}, a.neg};
  unsigned __int128 rem = top % d;
  for (int i = 3; i >= 0; --i) {
    const unsigned __int128 cur = (rem << 64) | a.w[i];
    r.w[i] = static_cast<std::uint64_t>(cur / d);
    rem = cur % d;
  }
  return r;
}

// |x| < 2^15 with no bit below 2^-240, exactly.
SECPE_HOST_DEVICE inline Fixed fixed_of(double x) {
  const std::uint64_t b = ieee::bits_of(x);
  Fixed r{{0, 0, 0, 0}, (b >> 63) != 0};
  const int biased = static_cast<int>((b >> 52) & 0x7ff);
  if (biased == 0) return r;  // zero (no subnormal reaches here)
  const std::uint64_t m = (b & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
  const int shift = biased - 1075 + kFracBits;  // x = m 2^(biased - 1075)
  const int word = shift / 64, bit = shift % 64;
  r.w[word] = m << bit;
  if (bit > 0 && word + 1 < 4) r.w[word + 1] = m >> (64 - bit);
  return r;
}

// a 2^k rounded to the nearest double, ties to even, with subnormal results and overflow.
SECPE_HOST_DEVICE inline double fixed_round(const Fixed& a, int k) {
  int top = -1;  // the highest set bit of the magnitude
  for (int i = 3; i >= 0 && top < 0; --i)
    if (a.w[i] != 0) top = 64 * i + 63 - ieee::leading_zeros(a.w[i]);
  const double sign = a.neg ? -1.0 : 1.0;
  if (top < 0) return ieee::mul_rn(sign, 0.0);
  // Keep the bits from q up: 53 of them, fewer when the result is subnormal (weight 2^-1074 or more).
  int q = top - 52;
  const int lowest = -1074 + kFracBits - k;  // the bit of weight 2^-1074
  if (q < lowest) q = lowest;
  const auto bit = [&](int i) { return i >= 0 && i < 256 && ((a.w[i / 64] >> (i % 64)) & 1) != 0; };
  std::uint64_t m = 0;
  for (int i = top; i >= q && i >= 0; --i) m = (m << 1) | (bit(i) ? 1 : 0);
  const bool round = bit(q - 1);
  bool sticky = false;
  for (int i = q - 2; i >= 0 && !sticky; --i) sticky = bit(i);
  if (round && (sticky || (m & 1) != 0)) ++m;
  if (m == (std::uint64_t{1} << 53)) m >>= 1, ++q;
  const int e2 = q + k - kFracBits;  // the result is m 2^e2
  if (m >= (std::uint64_t{1} << 52)) {
    const int biased = e2 + 1075;
    if (biased > 2046) return ieee::mul_rn(sign, __builtin_huge_val());
    return ieee::mul_rn(sign, ieee::from_bits((static_cast<std::uint64_t>(biased) << 52) | (m - (std::uint64_t{1} << 52))));
  }
  return ieee::mul_rn(sign, ieee::from_bits(m));  // subnormal: e2 = -1074
}

// exp(x) for 2^-60 <= |x| <= 746.
SECPE_HOST_DEVICE inline double exp_accurate(double x) {
  const double kd = ieee::round_to_int(ieee::mul_rn(x, 0x1.71547652b82fep+0));  // x / ln2
  const int k = static_cast<int>(kd);
  Fixed ln2{{tables::ln2_fixed(0), tables::ln2_fixed(1), tables::ln2_fixed(2), tables::ln2_fixed(3)}, k > 0};
  const Fixed r = fixed_add(fixed_of(x), fixed_mul_small(ln2, static_cast<std::uint64_t>(k < 0 ? -k : k)));  // |r| < 0.35
  Fixed p = fixed_one();  // Horner: p = 1 + r p / n, n = 46 .. 1 (r^47/47! < 2^-250)
  for (std::uint64_t n = 46; n >= 1; --n) p = fixed_add(fixed_one(), fixed_div_small(fixed_mul(r, p), n));
  return fixed_round(p, k);
}

// log(x) for finite x > 0, x != 1.
SECPE_HOST_DEVICE inline double log_accurate(double x) {
  int e;
  double m = decompose(x, &e);
  if (m > 0x1.6a09e667f3bcdp+0) m = ieee::mul_rn(m, 0.5), ++e;
  // m = M 2^-53 exactly; s = (m - 1) / (m + 1) = (M - 2^53) / (M + 2^53), |s| < 0.172.
  const auto big = static_cast<std::int64_t>(ieee::mul_rn(m, 0x1p53));
  const std::int64_t num = big - (std::int64_t{1} << 53), den = big + (std::int64_t{1} << 53);
  const std::uint64_t mag = static_cast<std::uint64_t>(num < 0 ? -num : num);
  // |num| 2^240 / den: |num| < 2^53 sits at bit 240 (word 3, bit 48) and spills into a fifth word.
  const Fixed dividend{{0, 0, 0, mag << 48}, num < 0};
  const Fixed s = fixed_div_small(dividend, static_cast<std::uint64_t>(den), mag >> 16);
  // log(m) = 2 atanh(s) = 2 s sum_i s^(2i) / (2i + 1), i = 0 .. 48 (s^99 / 99 < 2^-255).
  const Fixed s2 = fixed_mul(s, s);
  Fixed p = fixed_div_small(fixed_one(), 97);
  for (std::uint64_t i = 48; i >= 1; --i) p = fixed_add(fixed_div_small(fixed_one(), 2 * i - 1), fixed_mul(s2, p));
  const Fixed log_m = fixed_mul_small(fixed_mul(s, p), 2);
  Fixed ln2{{tables::ln2_fixed(0), tables::ln2_fixed(1), tables::ln2_fixed(2), tables::ln2_fixed(3)}, e < 0};
  return fixed_round(fixed_add(fixed_mul_small(ln2, static_cast<std::uint64_t>(e < 0 ? -e : e)), log_m), 0);
}

}  // namespace detail

SECPE_HOST_DEVICE inline double exp(double x) {
  if (x != x) return x + x;                  // NaN
  if (x > 709.8) return __builtin_huge_val();  // overflows (exp(709.79) > DBL_MAX); +inf too
  if (x < -745.2) return 0.0;                  // below half the least subnormal; -inf too
  const double ax = ieee::abs_of(x);
  if (ax < 0x1p-54) return 1.0;  // 1 + x is within a quarter ulp of 1
  double out;
  if (x > -708.0 && x < 709.7 && detail::exp_fast(x, &out)) return out;
  return detail::exp_accurate(x);
}

SECPE_HOST_DEVICE inline double log(double x) {
  if (x != x) return x + x;                      // NaN
  if (x < 0.0) return ieee::from_bits(0x7ff8000000000000ull);  // NaN
  if (x == 0.0) return -__builtin_huge_val();
  if (x == __builtin_huge_val()) return x;
  if (x == 1.0) return 0.0;
  double out;
  if (detail::log_fast(x, &out)) return out;
  return detail::log_accurate(x);
}

}  // namespace secpe::cr
