#include "privacy/blow_up.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <numbers>
#include <span>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "privacy/gaussian.hpp"
#include "privacy/log_mgf.hpp"

namespace secpe {
namespace {

constexpr double kEpsMach = std::numeric_limits<double>::epsilon();
constexpr int kMaxIterations = 100000;
// What a ReleaseMemo entry costs beyond its numbers (map node, key, shared pointer, vector headers).
constexpr std::size_t kEntryBytes = 256;
// A ReleaseMemo's transforms of groups on the grid ladder (ladder_transform) start again once they
// hold this much: each is an FFT's worth of complex numbers (32 to 64 KB at Yelp scale).
constexpr std::size_t kLadderTransformBytes = std::size_t{256} << 20;

[[noreturn]] void reject(const char* function, const std::string& quantity, const char* requirement,
                         double value) {
  std::ostringstream msg;
  msg.precision(17);
  msg << function << ": " << quantity << " must be " << requirement << ", got " << value;
  throw InputError(msg.str());
}

void check_pmf(const char* fn, const std::vector<double>& pi, const std::string& name = "pi") {
  if (pi.empty()) throw InputError(std::string(fn) + ": the count PMF " + name + " must not be empty");
  double sum = 0.0;
  for (std::size_t c = 0; c < pi.size(); ++c) {
    if (!(pi[c] >= 0.0 && std::isfinite(pi[c])))
      reject(fn, name + "[" + std::to_string(c) + "]", "finite and >= 0", pi[c]);
    sum += pi[c];
  }
  if (!(std::fabs(sum - 1.0) <= 1e-9)) reject(fn, "the sum of " + name, "1 (within 1e-9)", sum);
}
void check_scale(const char* fn, double s) {
  if (!(s > 0.0 && std::isfinite(s))) reject(fn, "sensitivity scale", "finite and > 0", s);
}
void check_sigma(const char* fn, double sigma) {
  if (!(sigma > 0.0 && std::isfinite(sigma))) reject(fn, "sigma", "finite and > 0", sigma);
}
void check_iterations(const char* fn, int T, const std::string& name = "iterations T") {
  if (!(T >= 1 && T <= kMaxIterations))
    reject(fn, name, "in [1, 100000]", static_cast<double>(T));
}
// Release l is named "release first + l".
void check_releases(const char* fn, std::span<const MixtureRelease> releases, std::size_t first = 0) {
  for (std::size_t l = 0; l < releases.size(); ++l) {
    const std::string name = "release " + std::to_string(first + l);
    check_pmf(fn, releases[l].pi, name + " pi");
    if (!(releases[l].mean_step > 0.0 && std::isfinite(releases[l].mean_step)))
      reject(fn, name + " mean_step", "finite and > 0", releases[l].mean_step);
    check_iterations(fn, releases[l].repetitions, name + " repetitions");
  }
}
// pi[0] / sum(pi): the probability that the count is 0.
double zero_mass(const std::vector<double>& pi) {
  double sum = 0.0;
  for (double x : pi) sum += x;
  return pi[0] / sum;
}
void check_unit(const char* fn, const char* name, double v) {
  if (!(v > 0.0 && v < 1.0)) reject(fn, name, "in (0, 1)", v);
}

// ---------------------------------------------------------------------------------------------
// The per-iteration pair of one release in standardised coordinates z = x / sigma:
// P = sum_c w_c N(m_c, 1), Q = N(0, 1), m_c = step * c >= 0, w_c > 0.
struct Mixture {
  std::vector<double> m, w, logw, half_m2;
  double w_zero = 0.0;  // weight of components with m_c == 0
  double m_min = 0.0, m_max = 0.0;

  Mixture(const std::vector<double>& pi, double step) {
    for (std::size_t c = 0; c < pi.size(); ++c) {
      if (!(pi[c] > 0.0)) continue;
      const double mc = step * static_cast<double>(c);
      if (mc == 0.0) w_zero += pi[c];
      m.push_back(mc);
      w.push_back(pi[c]);
    }
    // Renormalise so that the weights sum to 1 exactly in intent (inputs may be off by 1e-9).
    double sum = 0.0;
    for (double x : w) sum += x;
    for (double& x : w) x /= sum;
    w_zero /= sum;
    for (std::size_t i = 0; i < m.size(); ++i) {
      logw.push_back(std::log(w[i]));
      half_m2.push_back(0.5 * m[i] * m[i]);
    }
    m_min = m.front();
    m_max = m.back();
  }
  bool trivial() const { return m_max == 0.0; }  // P == Q

  // Loss L(z) and its first two derivatives (L'' = the posterior variance of m, >= 0).
  // Components more than 50 below the largest exponent (relative weight < 2e-22) are skipped.
  void loss(double z, double& value, double& slope, double& curvature) const {
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < m.size(); ++i) top = std::max(top, logw[i] + m[i] * z - half_m2[i]);
    double sum = 0.0, sum_m = 0.0, sum_m2 = 0.0;
    for (std::size_t i = 0; i < m.size(); ++i) {
      const double t = logw[i] + m[i] * z - half_m2[i] - top;
      if (t < -50.0) continue;
      const double e = std::exp(t);
      sum += e;
      sum_m += e * m[i];
      sum_m2 += e * m[i] * m[i];
    }
    value = top + std::log(sum);
    slope = sum_m / sum;
    curvature = std::max(0.0, sum_m2 / sum - slope * slope);
  }
  void loss(double z, double& value, double& slope) const {
    double curvature;
    loss(z, value, slope, curvature);
  }
  double loss(double z) const {
    double v, s;
    loss(z, v, s);
    return v;
  }
  // The components a sum over z's neighbourhood needs: m sorted ascending, and a component whose
  // mean lies kFar or more from z adds an exact +0 (its tail, erfc(28.3) / 2, and its density,
  // exp(-800), both round to zero), which leaves the running sum's bits as they are. The
  // components of a secret with many holders can span much more than that.
  static constexpr double kFar = 40.0;
  std::size_t first_within(double z) const {
    return static_cast<std::size_t>(std::upper_bound(m.begin(), m.end(), z - kFar) - m.begin());
  }
  std::size_t end_within(double z) const {
    return static_cast<std::size_t>(std::lower_bound(m.begin(), m.end(), z + kFar) - m.begin());
  }
  // P(Z > z) and P(Z <= z). A component of mean 0 (the count 0) evaluates Q's own tail at z
  // (z - 0 is z, bit for bit): when it is summed, its value goes to *q_tail too.
  double sf(double z, double* q_tail = nullptr) const {
    double s = 0.0;
    for (std::size_t i = first_within(z); i < m.size(); ++i) {
      const double t = normal_sf(z - m[i]);
      if (m[i] == 0.0 && q_tail) *q_tail = t;
      s += w[i] * t;
    }
    return s;
  }
  double cdf(double z, double* q_tail = nullptr) const {
    double s = 0.0;
    for (std::size_t i = 0, end = end_within(z); i < end; ++i) {
      const double t = normal_cdf(z - m[i]);
      if (m[i] == 0.0 && q_tail) *q_tail = t;
      s += w[i] * t;
    }
    return s;
  }
  double pdf(double z) const {
    constexpr double kInvSqrt2Pi = 0.39894228040143267794;
    double s = 0.0;
    for (std::size_t i = first_within(z), end = end_within(z); i < end; ++i) {
      const double d = z - m[i];
      s += w[i] * std::exp(-0.5 * d * d);
    }
    return s * kInvSqrt2Pi;
  }
};

// Smallest z (to bisection accuracy `tolerance`, relative, returned on the safe side) with sf(z) <= tau.
double upper_cut(const Mixture& mix, double tau, double tolerance) {
  double hi = mix.m_max - normal_quantile(tau);  // sf(hi) <= Phi_bar(hi - m_max) = tau
  double step = 1.0, lo = hi - step;
  while (mix.sf(lo) <= tau) {
    hi = lo;
    step *= 2.0;
    lo = hi - step;
  }
  for (int i = 0; i < 100 && hi - lo > tolerance * (1.0 + std::fabs(hi)); ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mix.sf(mid) <= tau) hi = mid; else lo = mid;
  }
  return hi;
}
// Largest z with cdf(z) <= tau (to bisection accuracy `tolerance`, on the safe side).
double lower_cut(const Mixture& mix, double tau, double tolerance) {
  double lo = mix.m_min + normal_quantile(tau);  // cdf(lo) <= Phi(lo - m_min) = tau
  double step = 1.0, hi = lo + step;
  while (mix.cdf(hi) <= tau) {
    lo = hi;
    step *= 2.0;
    hi = lo + step;
  }
  for (int i = 0; i < 100 && hi - lo > tolerance * (1.0 + std::fabs(lo)); ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mix.cdf(mid) <= tau) lo = mid; else hi = mid;
  }
  return lo;
}

// A point on the loss curve with its derivatives.
struct LossPoint {
  double z, value, slope, curvature;
};
LossPoint loss_point(const Mixture& mix, double z) {
  LossPoint p{z, 0.0, 0.0, 0.0};
  mix.loss(z, p.value, p.slope, p.curvature);
  return p;
}

// Solves L(z) = t from a point `from` with L >= t (the previous, higher cut point). L is convex and
// increasing. The first guess solves the second-order Taylor expansion at `from`; Newton steps
// follow (from the left of the root the first one lands on its right, the tangent of a convex
// function lying below it; from the right they decrease monotonically to the root) until the
// residual is within a few ulp. A Newton step whose predicted residual (curvature * step^2 / 2,
// the step being ~1e-10 or less after the Taylor guess) is below a thousandth of that is taken
// without a further evaluation; the returned point then carries the slope extrapolated to it and
// value t (they only seed the next guess).
LossPoint invert_loss(const Mixture& mix, double t, const LossPoint& from) {
  const double tol = 2.0 * kEpsMach * (1.0 + std::fabs(t));
  const double gap0 = from.value - t;
  if (std::fabs(gap0) <= tol || !(from.slope > 0.0)) return from;
  // Taylor: value + slope d + curvature d^2 / 2 = t (the root of smaller magnitude).
  const double disc = from.slope * from.slope - 2.0 * from.curvature * gap0;
  const double d = disc > 0.0 ? -2.0 * gap0 / (from.slope + std::sqrt(disc)) : -gap0 / from.slope;
  LossPoint p = loss_point(mix, from.z + d);
  for (int it = 0; it < 100; ++it) {
    const double gap = p.value - t;
    if (std::fabs(gap) <= tol || !(p.slope > 0.0)) break;
    const double step = gap / p.slope;
    if (std::fabs(step) <= 1e-15 * (1.0 + std::fabs(p.z))) break;
    if (p.curvature * step * step <= 2e-3 * tol && std::fabs(step) <= 1e-6 * (1.0 + std::fabs(p.z))) {
      return {p.z - step, t, p.slope - p.curvature * step, p.curvature};
    }
    p = loss_point(mix, p.z - step);
  }
  return p;
}

// ---------------------------------------------------------------------------------------------
// Iterative radix-2 complex FFT for one size n (a power of two, at least 2), twiddles computed
// once, directly (std::polar-like cos/sin, not by recurrence), so errors stay at a few ulp times
// log2(n), and stored stage by stage so that every stage reads them contiguously. inverse:
// conjugate twiddles, no 1/n scaling. Real and imaginary parts live in separate arrays so that a
// stage's butterflies vectorise; with no fused multiply-add (none is enabled in any clone), the
// result is bit for bit the same on every CPU.
//
// One butterfly: (u, x) <- (u + w x, u - w x) with w = c + i s. Every stage below does exactly
// these operations on each pair, so the ways of running them differ only in speed.
[[gnu::always_inline]] inline void butterfly(double& ur, double& ui, double& xr, double& xi, double c, double s) {
  const double vr = xr * c - xi * s;
  const double vi = xr * s + xi * c;
  const double ar = ur, ai = ui;
  ur = ar + vr;
  ui = ai + vi;
  xr = ar - vr;
  xi = ai - vi;
}
// The butterflies of one block of a stage with half-length `half` (its twiddles at c, s). The
// pointers are __restrict (the halves are disjoint): without that GCC 12 does not vectorise the
// loop at all (it cannot prove six pointers apart), and every clone ran one double at a time. With
// it and short_stage, a transform of 4,096 points takes 13 to 14 us on an EPYC, against 29 to 37 us
// (docs/performance.md, 'The FFT stages vectorised').
[[gnu::always_inline]] inline void block_stage(double* __restrict lr, double* __restrict li, double* __restrict hr, double* __restrict hi,
                                               const double* __restrict c, const double* __restrict s, std::size_t half, double sign) {
  for (std::size_t k = 0; k < half; ++k) butterfly(lr[k], li[k], hr[k], hi[k], c[k], sign * s[k]);
}
// A stage with H < 8 (shorter blocks than a vector): its H twiddles held, and the loop over blocks
// is the one that vectorises.
template <std::size_t H>
[[gnu::always_inline]] inline void short_stage(double* __restrict re, double* __restrict im, const double* wr, const double* wi, std::size_t n,
                                               double sign) {
  double c[H], s[H];
  for (std::size_t k = 0; k < H; ++k) {
    c[k] = wr[H - 1 + k];
    s[k] = sign * wi[H - 1 + k];
  }
  for (std::size_t i = 0; i < n; i += 2 * H)
    for (std::size_t k = 0; k < H; ++k) butterfly(re[i + k], im[i + k], re[i + H + k], im[i + H + k], c[k], s[k]);
}
[[gnu::target_clones("avx512f", "avx2", "default")]]
void fft_stages(double* re, double* im, const double* wr, const double* wi, std::size_t n, double sign,
                std::size_t first_len) {
  std::size_t len = first_len;
  for (; len <= n && len <= 8; len <<= 1) {
    if (len == 2) short_stage<1>(re, im, wr, wi, n, sign);
    if (len == 4) short_stage<2>(re, im, wr, wi, n, sign);
    if (len == 8) short_stage<4>(re, im, wr, wi, n, sign);
  }
  for (; len <= n; len <<= 1) {
    const std::size_t half = len / 2;
    for (std::size_t i = 0; i < n; i += len) block_stage(re + i, im + i, re + i + half, im + i + half, wr + (half - 1), wi + (half - 1), half, sign);
  }
}

class Fft {
 public:
  explicit Fft(std::size_t n) : n_(n), wr_(n), wi_(n), reversed_(n) {
    const double base = -2.0 * std::numbers::pi / static_cast<double>(n);
    for (std::size_t len = 2; len <= n; len <<= 1) {
      const std::size_t half = len / 2, stride = n / len;
      for (std::size_t k = 0; k < half; ++k) {  // stage len at offset half - 1
        wr_[half - 1 + k] = std::cos(base * static_cast<double>(k * stride));
        wi_[half - 1 + k] = std::sin(base * static_cast<double>(k * stride));
      }
    }
    for (std::size_t i = 1, j = 0; i < n; ++i) {
      std::size_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      reversed_[i] = j;
    }
  }
  std::size_t size() const { return n_; }

  // The transform of the real sequence a + i b (each at most n long, zero-padded) into re, im:
  // the inputs are scattered straight into bit-reversed order, so the sparse inputs of the
  // accountant never pay for a full permutation. Inputs shorter than n / 2^s land on multiples of
  // 2^s, so the first s stages only copy each input across its block of 2^s (a butterfly with a
  // zero partner returns its input exactly): the copy replaces them, with the same result.
  void forward_real_pair(std::span<const double> a, std::span<const double> b, std::vector<double>& re,
                         std::vector<double>& im) const {
    const std::size_t len = std::max<std::size_t>(1, std::max(a.size(), b.size()));
    std::size_t block = 1;
    while (2 * block * len <= n_) block *= 2;
    for (std::size_t p = 0; p < n_; p += block) re[p] = im[p] = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) re[reversed_[i]] = a[i];
    for (std::size_t i = 0; i < b.size(); ++i) im[reversed_[i]] = b[i];
    for (std::size_t p = 0; block > 1 && p < n_; p += block) {
      std::fill(re.begin() + static_cast<std::ptrdiff_t>(p + 1), re.begin() + static_cast<std::ptrdiff_t>(p + block), re[p]);
      std::fill(im.begin() + static_cast<std::ptrdiff_t>(p + 1), im.begin() + static_cast<std::ptrdiff_t>(p + block), im[p]);
    }
    fft_stages(re.data(), im.data(), wr_.data(), wi_.data(), n_, 1.0, 2 * block);
  }
  // The unscaled inverse transform of re + i im, in place.
  void inverse(std::vector<double>& re, std::vector<double>& im) const {
    for (std::size_t i = 1; i < n_; ++i) {
      const std::size_t j = reversed_[i];
      if (i < j) {
        std::swap(re[i], re[j]);
        std::swap(im[i], im[j]);
      }
    }
    fft_stages(re.data(), im.data(), wr_.data(), wi_.data(), n_, -1.0, 2);
  }

 private:
  std::size_t n_;
  std::vector<double> wr_, wi_;
  std::vector<std::size_t> reversed_;  // bit reversal of each index
};

// The FFT of size n. The bulk of a calibration or a ledger composes thousands of small windows,
// where computing the twiddles (n sines and cosines) costs several percent: sizes up to 2^17 are
// built once per thread (the pool's threads live as long as the process; 6 MB of tables at most),
// larger ones, rare and dominated by their transforms, for the call.
std::shared_ptr<const Fft> fft_of_size(std::size_t n) {
  constexpr int kCachedBits = 17;
  const int bits = std::bit_width(n) - 1;
  if (bits > kCachedBits) return std::make_shared<const Fft>(n);
  thread_local std::array<std::shared_ptr<const Fft>, kCachedBits + 1> built;
  auto& slot = built[static_cast<std::size_t>(bits)];
  if (!slot) slot = std::make_shared<const Fft>(n);
  return slot;
}

// p *= A_k, then p *= B_k for every k, where X = fft(a + i b) gives the transforms of the real
// sequences a and b as A_k = (X_k + conj X_{-k}) / 2, B_k = (X_k - conj X_{-k}) / 2i. The same
// arithmetic as multiply_each twice, written for vectorisation (the common case: every release
// repeats T times, so one running product takes both).
[[gnu::target_clones("avx512f", "avx2", "default")]]
void multiply_by_pair(double* __restrict pr, double* __restrict pi, const double* __restrict xr,
                      const double* __restrict xi, std::size_t n) {
  auto step = [&](std::size_t k, std::size_t m) {
    const double ar = 0.5 * (xr[k] + xr[m]), ai = 0.5 * (xi[k] - xi[m]);
    const double br = 0.5 * (xi[k] + xi[m]), bi = -0.5 * (xr[k] - xr[m]);
    double r = pr[k] * ar - pi[k] * ai;
    double i = pr[k] * ai + pi[k] * ar;
    pr[k] = r * br - i * bi;
    pi[k] = r * bi + i * br;
  };
  step(0, 0);
  for (std::size_t k = 1; k < n; ++k) step(k, n - k);
}

// x_k^e for every k, in place, by repeated squaring (plain real arithmetic: no NaN/inf recovery
// branches needed). Every k takes the same steps, so they run in blocks across k: the arithmetic of
// each k is that of the scalar loop, and without fused multiply-add the bits are those of any CPU.
[[gnu::target_clones("avx512f", "avx2", "default")]]
void raise_each(double* __restrict re, double* __restrict im, int e, std::size_t n) {
  constexpr std::size_t kBlock = 256;  // four arrays of a block stay in L1
  double rr[kBlock], ri[kBlock], xr[kBlock], xi[kBlock];
  for (std::size_t b = 0; b < n; b += kBlock) {
    const std::size_t m = std::min(kBlock, n - b);
    for (std::size_t k = 0; k < m; ++k) {
      rr[k] = 1.0;
      ri[k] = 0.0;
      xr[k] = re[b + k];
      xi[k] = im[b + k];
    }
    for (int f = e; f > 0; f >>= 1) {
      if (f & 1) {
        for (std::size_t k = 0; k < m; ++k) {
          const double t = rr[k] * xr[k] - ri[k] * xi[k];
          ri[k] = rr[k] * xi[k] + ri[k] * xr[k];
          rr[k] = t;
        }
      }
      if (f == 1) break;  // the last square would go unused
      for (std::size_t k = 0; k < m; ++k) {
        const double t = xr[k] * xr[k] - xi[k] * xi[k];
        xi[k] = 2.0 * xr[k] * xi[k];
        xr[k] = t;
      }
    }
    std::copy_n(rr, m, re + b);
    std::copy_n(ri, m, im + b);
  }
}
// x_k *= y_k for every k: (a + ib)(c + id) = (ac - bd) + i(ad + bc), no inf/NaN branches.
[[gnu::target_clones("avx512f", "avx2", "default")]]
void multiply_each(double* __restrict xr, double* __restrict xi, const double* __restrict yr, const double* __restrict yi,
                   std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    const double r = xr[k] * yr[k] - xi[k] * yi[k];
    xi[k] = xr[k] * yi[k] + xi[k] * yr[k];
    xr[k] = r;
  }
}

// Spread (standard deviation) of the per-iteration loss under P, by a midpoint rule of `points`
// points on [lo, hi].
double loss_spread(const Mixture& mix, double lo, double hi, int points) {
  const double dz = (hi - lo) / points;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  for (int i = 0; i < points; ++i) {
    const double z = lo + (i + 0.5) * dz;
    const double wgt = mix.pdf(z);
    const double l = mix.loss(z);
    s0 += wgt;
    s1 += wgt * l;
    s2 += wgt * l * l;
  }
  if (!(s0 > 0.0)) return 0.0;
  const double mean = s1 / s0;
  return std::sqrt(std::max(0.0, s2 / s0 - mean * mean));
}

// ---------------------------------------------------------------------------------------------
// One release, prepared: its mixture, the range of z kept and the loss range it spans.
struct Prepared {
  Mixture mix;
  int reps = 1;
  double z_lo = 0.0, z_hi = 0.0;  // P-mass above z_hi goes to loss +infinity, below z_lo rounded up
  double l_lo = 0.0, l_hi = 0.0, l_inf = 0.0;  // losses at z_lo, z_hi, z -> -infinity
  double spread = 0.0;            // standard deviation of the per-iteration loss
  double range() const { return std::max(l_hi - l_lo, 1e-300); }
};

Prepared prepare(Mixture mix, int reps, double tau, const AccountantOptions& opt) {
  Prepared r{std::move(mix), reps};
  r.z_hi = upper_cut(r.mix, tau, opt.cut_tolerance);
  r.z_lo = std::min(lower_cut(r.mix, tau, opt.cut_tolerance), r.z_hi - 1e-3);
  r.l_hi = r.mix.loss(r.z_hi);
  r.l_lo = r.mix.loss(r.z_lo);
  r.l_inf = r.mix.w_zero > 0.0 ? std::log(r.mix.w_zero) : -std::numeric_limits<double>::infinity();
  r.spread = loss_spread(r.mix, r.z_lo, r.z_hi, opt.spread_points);
  return r;
}

// The per-iteration discrete loss of one release on the grid t_k = k h: P-masses of the finite
// atoms k_lo, k_lo + 1, ... and of the +infinity atom.
struct DiscreteLoss {
  std::int64_t k_lo = 0;
  std::vector<double> omega;
  double w_inf = 0.0;
};

DiscreteLoss discretise(const Prepared& r, double h, const AccountantOptions& opt) {
  const Mixture& mix = r.mix;
  std::int64_t k_hi = static_cast<std::int64_t>(std::ceil(r.l_hi / h));
  std::int64_t k_lo = static_cast<std::int64_t>(std::floor(r.l_lo / h));
  if (static_cast<double>(k_lo) * h <= r.l_inf) k_lo = static_cast<std::int64_t>(std::floor(r.l_inf / h)) + 1;
  if (k_lo > k_hi) k_lo = k_hi;
  const std::size_t K = static_cast<std::size_t>(k_hi - k_lo + 1);

  // Cut points z_k = L^{-1}(k h), k = k_lo..k_hi, from the top down.
  std::vector<double> z(K);
  {
    double start = r.z_hi, step = 1.0;
    while (mix.loss(start) < static_cast<double>(k_hi) * h) {
      start += step;
      step *= 2.0;
    }
    LossPoint from = loss_point(mix, start);
    for (std::size_t i = K; i-- > 0;) {
      const double t = static_cast<double>(k_lo + static_cast<std::int64_t>(i)) * h;
      from = invert_loss(mix, t, from);
      z[i] = from.z;
    }
  }

  // P- and Q-masses: survival functions above the median, distribution functions below, so that
  // every difference is taken between numbers of the size of the mass itself.
  std::vector<double> g(K);        // P: sf(z_k) if upper[k], else cdf(z_k)
  std::vector<char> upper(K, 0);
  // Q's distribution and survival functions at z_k, evaluated once each: two neighbouring cells
  // share each cut point, and P's component of mean 0 evaluates Q's at z_k already.
  constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> q_cdf(K, kUnset), q_sf(K, kUnset);
  {
    bool in_upper = true;
    for (std::size_t i = K; i-- > 0;) {
      if (in_upper) {
        const double s = mix.sf(z[i], &q_sf[i]);
        if (s <= 0.5) {
          g[i] = s;
          upper[i] = 1;
          continue;
        }
        in_upper = false;
      }
      g[i] = mix.cdf(z[i], &q_cdf[i]);
    }
  }
  auto p_mass = [&](std::size_t i) {  // P((z_i, z_{i+1}])
    if (upper[i]) return g[i] - g[i + 1];
    if (!upper[i + 1]) return g[i + 1] - g[i];
    return 1.0 - g[i] - g[i + 1];
  };
  auto p_scale = [&](std::size_t i) { return upper[i] ? g[i] : (upper[i + 1] ? 1.0 : g[i + 1]); };
  auto q_cdf_at = [&](std::size_t k) { return std::isnan(q_cdf[k]) ? (q_cdf[k] = normal_cdf(z[k])) : q_cdf[k]; };
  auto q_sf_at = [&](std::size_t k) { return std::isnan(q_sf[k]) ? (q_sf[k] = normal_sf(z[k])) : q_sf[k]; };
  auto q_mass = [&](std::size_t i) {  // Q((z_i, z_{i+1}])
    if (z[i + 1] <= 0.0) return q_cdf_at(i + 1) - q_cdf_at(i);
    if (z[i] >= 0.0) return q_sf_at(i) - q_sf_at(i + 1);
    return 1.0 - q_cdf_at(i) - q_sf_at(i + 1);
  };

  // The lowest cell (-inf, z_{k_lo}] holds the losses in (l_inf, t_{k_lo}]. When the grid point
  // below, t_{k_lo} - h, lies under the asymptote l_inf, they are all within one step, and the cell
  // is connected to the dots t_{k_lo} - h and t_{k_lo} like any other. Rounding it up instead (a
  // first-order error) moves the loss of every count-0 draw, most of the mass, up by up to h, and
  // T compositions add that up: for a rare holder far above the budget (rho = 0.05, T = 20,
  // B / alpha ~ 10^3) it alone made the bound 0.1% to 0.4% too high.
  const bool connect = opt.discretisation == LossDiscretisation::kConnectDots;
  const std::size_t first = connect && static_cast<double>(k_lo - 1) * h < r.l_inf ? 1 : 0;
  DiscreteLoss out;
  out.k_lo = k_lo - static_cast<std::int64_t>(first);
  out.omega.assign(K + first, 0.0);
  std::vector<double>& omega = out.omega;
  out.w_inf = upper[K - 1] ? g[K - 1] : 1.0 - g[K - 1];
  const double one_minus_eh = -std::expm1(-h);
  // Connect the dots: the P-mass of a cell with losses in [t_a, t_a + h] that goes to t_a + h
  // (keeping its P- and Q-masses), plus a bound on its round-off; `scale` is the size of the
  // numbers P was differenced from.
  auto upper_share = [&](double P, double Q, double t_a, double scale) {
    const double qe = Q * std::exp(t_a);
    const double raw = (P - qe) / one_minus_eh;
    const double err = 8.0 * kEpsMach * (scale + qe + P) / one_minus_eh;
    return std::min(P, std::max(0.0, raw) + err);
  };
  const double lowest = upper[0] ? 1.0 - g[0] : g[0];  // (-inf, z_{k_lo}]: loss <= t_{k_lo}
  const double lowest_up = first ? upper_share(lowest, q_cdf_at(0), static_cast<double>(k_lo - 1) * h, lowest) : lowest;
  omega[0] = lowest - lowest_up;
  omega[first] += lowest_up;
  for (std::size_t i = 0; i + 1 < K; ++i) {
    const double P = std::max(0.0, p_mass(i));
    if (P == 0.0) continue;
    const double t_a = static_cast<double>(k_lo + static_cast<std::int64_t>(i)) * h;
    const double pb = connect ? upper_share(P, std::max(0.0, q_mass(i)), t_a, p_scale(i)) : P;
    omega[first + i] += P - pb;
    omega[first + i + 1] += pb;
  }
  return out;
}

// Log-MGFs at the grid ladder's rungs lambda = +-2^(k/4) that windows have asked for, sorted by
// the key 2 k + (lambda < 0): each computed once, and read back by later windows.
class RungCache {
 public:
  // The value at `key`, computed by compute() the first time; `grown` counts the bytes added.
  template <class F>
  double at(int key, F&& compute, std::size_t* grown) const {
    auto it = std::lower_bound(values_.begin(), values_.end(), std::pair{key, -std::numeric_limits<double>::infinity()});
    if (it == values_.end() || it->first != key) {
      it = values_.insert(it, {key, compute()});
      *grown += sizeof *it;
    }
    return it->second;
  }

 private:
  mutable std::vector<std::pair<int, double>> values_;
};

// A release's discrete loss as the Chernoff window reads it (below): the masses of its atoms (atom i
// lies at i - mean), the mean, variance and last index; off the ladder, also every atom's log mass
// (-infinity without mass) and a coarse summary (blocks' centres and log masses), on the grid ladder
// the log-MGF of the atoms at the rungs.
struct WindowTerms {
  std::span<const double> w;  // the discrete loss's omega, which outlives the terms
  std::vector<double> logw, cx, clogw;
  double mean = 0.0, var = 0.0, last = 0.0;
  RungCache rungs;
};
WindowTerms window_terms(const DiscreteLoss& d, bool ladder) {
  WindowTerms t;
  const auto& w = d.omega;
  t.w = w;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const double x = static_cast<double>(i);
    s0 += w[i];
    s1 += w[i] * x;
    s2 += w[i] * x * x;
  }
  t.mean = s1 / s0;
  t.var = std::max(s2 / s0 - t.mean * t.mean, 1e-4);
  t.last = static_cast<double>(w.size() - 1);
  if (ladder) return t;
  t.logw.resize(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) t.logw[i] = w[i] > 0.0 ? std::log(w[i]) : -std::numeric_limits<double>::infinity();
  const std::size_t block = (w.size() + 127) / 128;
  for (std::size_t b0 = 0; b0 < w.size(); b0 += block) {
    double m = 0.0, mx = 0.0;
    for (std::size_t i = b0; i < std::min(w.size(), b0 + block); ++i) {
      if (!(w[i] > 0.0)) continue;
      m += w[i];
      mx += w[i] * static_cast<double>(i);
    }
    if (m > 0.0) {
      t.cx.push_back(mx / m - t.mean);
      t.clogw.push_back(std::log(m));
    }
  }
  return t;
}

double summary_log_mgf(const WindowTerms& t, double lambda) {
  return log_mgf(t.cx.size(), [&t](std::size_t i) { return t.cx[i]; }, t.clogw.data(), lambda);
}

// A release on the grid ladder, as the memo keeps it per grid spacing.
struct LadderRelease {
  DiscreteLoss loss;
  WindowTerms terms;
};

// The sums over releases that the composition reads, each release counted with its repetitions R:
// atoms, the first and last composed loss index (R k_lo, R (atoms - 1)), log prod (1 - w_inf)^R, and
// the window's centre, variance and last index (R mean, R var, R last). Every sum starts at 0 and
// adds the releases in order, so a release alone gives its own numbers, bit for bit.
struct LossSums {
  std::int64_t atoms = 0, base = 0, span = 0;
  std::size_t max_atoms = 0;
  double log_no_inf = 0.0, centre = 0.0, var = 0.0, last = 0.0;
  void add(const DiscreteLoss& d, const WindowTerms* t, int reps) {
    const double R = static_cast<double>(reps);
    const std::size_t K = d.omega.size();
    atoms += static_cast<std::int64_t>(K);
    max_atoms = std::max(max_atoms, K);
    base += static_cast<std::int64_t>(reps) * d.k_lo;
    span += static_cast<std::int64_t>(reps) * static_cast<std::int64_t>(K - 1);
    log_no_inf += R * std::log1p(-std::min(d.w_inf, 1.0));
    if (!t) return;
    centre += R * t->mean;
    var += R * t->var;
    last += R * t->last;
  }
  void add(const LossSums& o) {
    atoms += o.atoms;
    max_atoms = std::max(max_atoms, o.max_atoms);
    base += o.base;
    span += o.span;
    log_no_inf += o.log_no_inf;
    centre += o.centre;
    var += o.var;
    last += o.last;
  }
};

// On the grid ladder, the releases of one count PMF in a bound (a label's in runs at other noise)
// on one grid, as the memo keeps them: their discretisations, their sums, and the sum of R times
// their log-MGFs at the rungs.
struct LadderGroup {
  std::vector<std::shared_ptr<const LadderRelease>> members;
  std::vector<int> reps;
  LossSums sums;
  RungCache rungs;
};

// What the Chernoff window sums (below): a release alone (terms, reps) or a group, with its sums.
struct WindowPart {
  const WindowTerms* terms = nullptr;
  int reps = 0;
  const LadderGroup* group = nullptr;
  LossSums sums;
};

// Chernoff window of the composed index (the sum over releases l of reps_l independent draws of
// the local atom index of release l, each a sub-probability vector): the composed mass below lo and
// above hi is each at most tau. Any lambda > 0 gives a valid bound. Off the ladder, lambda is
// searched on the releases' coarse summaries, then the exact bound is evaluated at the best few; on
// the grid ladder, lambda is searched over the rungs 2^(k/4) with the exact bound, each release's
// and each group's log-MGF at a rung computed once (RungCache), a release's by Horner's rule.
struct Window {
  std::int64_t lo, hi;
};
// `grown`: on the ladder, counts the bytes of the log-MGFs added to the terms and groups.
Window chernoff_window(const std::vector<WindowPart>& parts, double tau, bool ladder, std::size_t* grown) {
  double centre = 0.0, var = 0.0, max_index = 0.0;
  for (const WindowPart& part : parts) {
    centre += part.sums.centre;
    var += part.sums.var;
    max_index += part.sums.last;
  }
  const double sd = std::sqrt(var);
  const double log_tau = std::log(tau);
  // Distance from the centre beyond which at most tau remains, for lambda of either sign
  // (sign = +1: upper tail; -1: lower tail, as a positive distance).
  auto bound = [&](double lambda, double sign, bool coarse) {
    double sum = 0.0;
    for (const WindowPart& part : parts) {
      const WindowTerms& t = *part.terms;
      sum += static_cast<double>(part.reps) * (coarse ? summary_log_mgf(t, sign * lambda) : atoms_log_mgf_reference(t.logw, t.mean, sign * lambda));
    }
    // P(sign (S - centre) >= a) <= exp(-lambda a + sum) <= tau.
    return (sum - log_tau) / lambda;
  };
  auto bound_at_rung = [&](int k, double sign) {
    const double lambda = std::exp2(0.25 * k);
    const int key = 2 * k + (sign < 0 ? 1 : 0);
    const auto release_at = [&](const WindowTerms& t) { return t.rungs.at(key, [&] { return atoms_log_mgf(t.w, t.mean, sign * lambda); }, grown); };
    double sum = 0.0;
    for (const WindowPart& part : parts) {
      if (!part.group) {
        sum += static_cast<double>(part.reps) * release_at(*part.terms);
        continue;
      }
      const LadderGroup& g = *part.group;
      sum += g.rungs.at(key, [&] {
        double s = 0.0;
        for (std::size_t m = 0; m < g.members.size(); ++m) s += static_cast<double>(g.reps[m]) * release_at(g.members[m]->terms);
        return s;
      }, grown);
    }
    return (sum - log_tau) / lambda;
  };
  // A search stops once a value exceeds the best so far by more than kClearRise (relative): it
  // returns the first smallest value of its whole grid all the same. Why: a bound (L(lambda) + a) /
  // lambda, with L convex (a sum of log-MGFs) and a = -log tau > 0, has derivative (lambda L' - L - a)
  // / lambda^2 whose numerator is non-decreasing (its derivative is lambda L'' >= 0): it falls, then
  // rises. The computed values are within E ~ 1e-13 (relative: a few thousand terms, no cancellation,
  // since L >= -tiny for these sub-probability masses) of the true ones, so a computed rise of more
  // than kClearRise >> 2 E is a true rise, past which the true bound never falls again, and no later
  // computed value can fall below the best. Rises within round-off (a flat stretch) do not stop it.
  constexpr double kClearRise = 1e-9;
  double reach[2];
  for (int side = 0; side < 2; ++side) {
    const double sign = side == 0 ? 1.0 : -1.0;
    if (ladder) {
      // Rungs for c = lambda sd from 0.25 to 512, as below, walked from c = 1 the way the bound falls.
      const int k_first = static_cast<int>(std::floor(4.0 * std::log2(0.25 / sd))), k_last = k_first + 44;
      int k = std::clamp(static_cast<int>(std::lround(4.0 * std::log2(1.0 / sd))), k_first, k_last - 1);
      double best = bound_at_rung(k, sign);
      const double next = bound_at_rung(k + 1, sign);
      const int dir = next < best ? 1 : -1;
      if (dir == 1) {
        best = next;
        ++k;
      }
      for (int j = k + dir; j >= k_first && j <= k_last; j += dir) {
        const double v = bound_at_rung(j, sign);
        if (v < best) best = v;
        else if (v > best * (1.0 + kClearRise)) break;
      }
      reach[side] = best;
      continue;
    }
    // The coarse search over c = 0.25 * 1.5^k <= 512.
    double best_c = 1.0, best = std::numeric_limits<double>::infinity();
    for (double c = 0.25; c <= 512.0; c *= 1.5) {
      const double v = bound(c / sd, sign, true);
      if (v < best) {
        best = v;
        best_c = c;
      } else if (v > best * (1.0 + kClearRise)) {
        break;
      }
    }
    reach[side] = std::numeric_limits<double>::infinity();
    for (double f : {0.8, 1.0, 1.25}) reach[side] = std::min(reach[side], bound(best_c * f / sd, sign, false));
  }
  Window out;
  out.lo = static_cast<std::int64_t>(std::floor(std::max(0.0, centre - reach[1])));
  out.hi = static_cast<std::int64_t>(std::ceil(std::min(max_index, centre + reach[0])));
  return out;
}

// Step 2 of the bound: the loss grid spacing, common to all releases.
double grid_spacing(const std::vector<const Prepared*>& rel, const AccountantOptions& opt) {
  std::int64_t total_reps = 0;
  double var = 0.0, max_range = 0.0, sum_range = 0.0;
  for (const Prepared* r : rel) {
    const double R = static_cast<double>(r->reps);
    total_reps += r->reps;
    var += R * r->spread * r->spread;
    max_range = std::max(max_range, r->range());
    sum_range += r->range();
  }
  double h = opt.grid;
  if (!(h > 0.0)) {
    const double spread = std::sqrt(var);
    // Connect-the-dots errors are second order in h / spread; rounding up is first order.
    // Their accumulation over the compositions grows faster than sqrt(T), hence the T^{-1/4}
    // (T = all repetitions of all releases).
    const double g = (opt.discretisation == LossDiscretisation::kConnectDots
                          ? std::sqrt(opt.slack_target) * 0.5
                          : opt.slack_target * 0.5) /
                     std::sqrt(std::sqrt(static_cast<double>(total_reps)));
    h = g * spread;
    h = std::min(h, max_range / 8.0);
    if (!(h > 0.0)) h = max_range / 8.0;
  }
  h = std::max(h, max_range / 262144.0);   // bounded per-iteration work
  h = std::max(h, sum_range / 2097152.0);  // and in all
  return opt.grid_ladder ? std::exp2(std::floor(8.0 * std::log2(h)) / 8.0) : h;
}

}  // namespace

// Prepared releases by their exact bits: the PMF (by its number in pmf_number), the step, the
// repetitions, the cut's tail mass and the options of step 1's precision (everything prepare() reads); with grid_ladder, their
// discretisations by (prepared release, grid spacing), groups (LadderGroup) by (prepared releases,
// grid spacing) and groups' transforms by (prepared releases, grid spacing, FFT size). Each is held as
// const void so that this class, which the header declares, need not name a type of this file's
// anonymous namespace.
struct ReleaseMemo::Impl {
  std::unordered_map<std::string, std::uint64_t> pmf_number;  // a count PMF's bits -> its number here
  std::unordered_map<std::string, std::shared_ptr<const void>> prepared, discretised, groups, transforms;
  // Shared releases by id (SharedRelease): checked once, and prepared at a few (tail mass,
  // repetitions) each.
  struct Form {
    double tau;
    int reps;
    double cut_tolerance;
    int spread_points;
    std::shared_ptr<const void> prepared;
  };
  struct Shared {
    bool checked = false;
    std::vector<Form> forms;
  };
  std::vector<Shared> by_id;
  std::size_t bytes = 0;            // roughly what the prepared releases hold
  std::size_t ladder_bytes = 0;     // and the discretisations and groups
  std::size_t transform_bytes = 0;  // and the transforms (capped apart: kLadderTransformBytes)
};

namespace {

// Every release's discrete loss on one grid, and the FFT that composes them.
struct Discretised {
  std::vector<std::shared_ptr<const DiscreteLoss>> d;  // per release (on the ladder, the memo's)
  std::vector<int> reps;
  std::vector<std::vector<std::size_t>> groups;  // on the ladder: the releases of each count PMF (pmf_groups)
  double h = 0.0;
  double log_no_inf = 0.0;         // log prod_l (1 - w_inf_l)^{reps_l}
  std::int64_t base = 0;           // loss index of composed index 0
  std::int64_t len_full = 1;       // composed support: indices 0 .. len_full - 1
  std::int64_t j_lo = 0, n = 0;    // first composed index the FFT holds, FFT size (0: one shot)
  std::int64_t atoms = 0;
};

// The releases of each count PMF, in order of first appearance. A secret's releases of one label
// in runs at different noise share their count PMF (the label's holders) and differ in step, and
// every secret with the same holders in that label meets the same releases: on the grid ladder the
// memo keeps such a group's sums, log-MGFs and transforms as it keeps a release's.
std::vector<std::vector<std::size_t>> pmf_groups(const std::vector<const Prepared*>& rel) {
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t l = 0; l < rel.size(); ++l) {
    const auto same = std::find_if(groups.begin(), groups.end(), [&](const std::vector<std::size_t>& g) { return rel[g[0]]->mix.w == rel[l]->mix.w; });
    if (same == groups.end()) groups.push_back({l});
    else same->push_back(l);
  }
  return groups;
}

// A memo key: the prepared releases `which` of rel (their addresses) and the grid spacing.
std::string ladder_key(const std::vector<const Prepared*>& rel, std::span<const std::size_t> which, double h) {
  std::string key;
  for (const std::size_t l : which) key.append(reinterpret_cast<const char*>(&rel[l]), sizeof rel[l]);
  key.append(reinterpret_cast<const char*>(&h), sizeof h);
  return key;
}

// On the ladder, release l's discretisation on grid h and its window terms, found in the memo or made.
std::shared_ptr<const LadderRelease> ladder_release(const std::vector<const Prepared*>& rel, std::size_t l, double h,
                                                    const AccountantOptions& opt, ReleaseMemo::Impl& memo) {
  std::string key = ladder_key(rel, {&l, 1}, h);
  auto it = memo.discretised.find(key);
  if (it == memo.discretised.end()) {
    auto made = std::make_shared<LadderRelease>();
    made->loss = discretise(*rel[l], h, opt);
    made->terms = window_terms(made->loss, true);
    memo.ladder_bytes += kEntryBytes + 2 * sizeof(double) * made->loss.omega.size();
    it = memo.discretised.emplace(std::move(key), std::move(made)).first;
  }
  return std::static_pointer_cast<const LadderRelease>(it->second);
}

// On the ladder, the group g of releases on grid h, found in the memo or made from its releases'.
const LadderGroup& ladder_group(const std::vector<const Prepared*>& rel, const std::vector<std::size_t>& g, double h,
                                const AccountantOptions& opt, ReleaseMemo::Impl& memo) {
  std::string key = ladder_key(rel, g, h);
  auto it = memo.groups.find(key);
  if (it == memo.groups.end()) {
    auto made = std::make_shared<LadderGroup>();
    for (const std::size_t l : g) {
      made->members.push_back(ladder_release(rel, l, h, opt, memo));
      made->reps.push_back(rel[l]->reps);
      made->sums.add(made->members.back()->loss, &made->members.back()->terms, rel[l]->reps);
    }
    memo.ladder_bytes += kEntryBytes + key.size() + g.size() * (sizeof(made->members[0]) + sizeof(int));
    it = memo.groups.emplace(std::move(key), std::move(made)).first;
  }
  return *static_cast<const LadderGroup*>(it->second.get());
}

// Every release's discrete loss on grid h into out.d, and their sums. On the ladder they come from
// the memo, a group at a time, and `parts` receives what the Chernoff window sums; a combination
// without groups sums its releases in the same order as off the ladder.
LossSums discretise_releases(const std::vector<const Prepared*>& rel, double h, const AccountantOptions& opt, ReleaseMemo::Impl& memo,
                             Discretised& out, std::vector<WindowPart>& parts) {
  LossSums sums;
  out.d.assign(rel.size(), nullptr);
  parts.clear();
  if (!opt.grid_ladder) {
    for (std::size_t l = 0; l < rel.size(); ++l) {
      out.d[l] = std::make_shared<const DiscreteLoss>(discretise(*rel[l], h, opt));
      sums.add(*out.d[l], nullptr, rel[l]->reps);
    }
    return sums;
  }
  for (const std::vector<std::size_t>& g : out.groups) {
    WindowPart part;
    if (g.size() == 1) {
      const std::shared_ptr<const LadderRelease> kept = ladder_release(rel, g[0], h, opt, memo);
      out.d[g[0]] = std::shared_ptr<const DiscreteLoss>(kept, &kept->loss);
      part.terms = &kept->terms;
      part.reps = rel[g[0]]->reps;
      part.sums.add(kept->loss, part.terms, part.reps);
    } else {
      const LadderGroup& group = ladder_group(rel, g, h, opt, memo);
      for (std::size_t m = 0; m < g.size(); ++m) out.d[g[m]] = std::shared_ptr<const DiscreteLoss>(group.members[m], &group.members[m]->loss);
      part.group = &group;
      part.sums = group.sums;
    }
    sums.add(part.sums);
    parts.push_back(part);
  }
  return sums;
}

// Discretises on the grid h; if the FFT that the composition needs would exceed max_fft_size,
// coarsens the grid and starts again (this ends: once h exceeds every range, each release has at
// most 2 atoms and the full support, at most total_reps + 1 <= max_fft_size / 4 + 1 points, fits).
// The FFT covers the window [j_lo, j_hi] of the composed index that holds all but tau_w of the
// mass on each side (Chernoff bounds); it then wraps only that much mass around, which the margin
// of step 3 covers.
Discretised discretise_all(const std::vector<const Prepared*>& rel, double h, double tau_w, bool one_shot, const AccountantOptions& opt,
                           ReleaseMemo::Impl& memo) {
  Discretised out;
  if (opt.grid_ladder) out.groups = pmf_groups(rel);
  for (const Prepared* r : rel) out.reps.push_back(r->reps);
  for (int attempt = 0;; ++attempt) {
    std::vector<WindowPart> parts;
    const LossSums sums = discretise_releases(rel, h, opt, memo, out, parts);
    out.h = h;
    out.atoms = sums.atoms;
    out.log_no_inf = sums.log_no_inf;
    out.base = sums.base;
    out.len_full = 1 + sums.span;
    out.j_lo = 0;
    if (one_shot) return out;
    std::int64_t j_hi = out.len_full - 1;
    if (out.len_full > 4096) {
      std::vector<WindowTerms> own;  // off the ladder, made for this window alone
      if (!opt.grid_ladder) {
        own.reserve(rel.size());
        for (std::size_t l = 0; l < rel.size(); ++l) {
          own.push_back(window_terms(*out.d[l], false));
          parts.push_back({.terms = &own.back(), .reps = out.reps[l], .group = nullptr, .sums = {}});
          parts.back().sums.add(*out.d[l], &own.back(), out.reps[l]);
        }
      }
      const Window win = chernoff_window(parts, tau_w, opt.grid_ladder, &memo.ladder_bytes);
      out.j_lo = std::max<std::int64_t>(0, win.lo);
      j_hi = std::min<std::int64_t>(out.len_full - 1, win.hi);
      if (j_hi < out.j_lo) j_hi = out.j_lo;
    }
    const std::int64_t need = std::max<std::int64_t>(j_hi - out.j_lo + 1, static_cast<std::int64_t>(sums.max_atoms));
    out.n = 2;
    while (out.n < need) out.n <<= 1;
    if (out.n >= out.len_full) {  // the full support fits: no wrap-around at all
      out.j_lo = 0;
      while (out.n / 2 >= out.len_full && out.n > 2) out.n >>= 1;
    }
    if (out.n <= opt.max_fft_size || attempt >= 200) return out;
    h *= std::max(1.25, static_cast<double>(need) / static_cast<double>(opt.max_fft_size));
  }
}

// The transform of the composed P-masses of releases `which` of dl (all when empty) into (re, im):
// the releases' transforms, two real inputs per complex FFT (x = a + i b: A_k = (X_k + conj
// X_{-k}) / 2, B_k = (X_k - conj X_{-k}) / 2i), multiplied per distinct repetition count; each
// product raised to that count; all multiplied.
void composed_transform(const Fft& fft, const Discretised& dl, std::span<const std::size_t> which, std::vector<double>& are,
                        std::vector<double>& aim) {
  const std::size_t N = fft.size();
  std::vector<const DiscreteLoss*> d;
  std::vector<int> reps;
  for (std::size_t i = 0; i < (which.empty() ? dl.d.size() : which.size()); ++i) {
    const std::size_t l = which.empty() ? i : which[i];
    d.push_back(dl.d[l].get());
    reps.push_back(dl.reps[l]);
  }
  std::vector<int> distinct(reps);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  auto group = [&](std::size_t l) {
    return static_cast<std::size_t>(std::lower_bound(distinct.begin(), distinct.end(), reps[l]) - distinct.begin());
  };
  // Per group, the running product of the transforms (real and imaginary parts apart).
  std::vector<std::vector<double>> prod_re(distinct.size(), std::vector<double>(N, 1.0));
  std::vector<std::vector<double>> prod_im(distinct.size(), std::vector<double>(N, 0.0));
  auto accumulate = [](double& pr, double& pi, double xr, double xi) {  // p *= x, as multiply_each does
    const double r = pr * xr - pi * xi;
    pi = pr * xi + pi * xr;
    pr = r;
  };
  for (std::size_t l = 0; l < d.size(); l += 2) {
    const bool pair = l + 1 < d.size();
    fft.forward_real_pair(d[l]->omega, pair ? std::span<const double>(d[l + 1]->omega) : std::span<const double>(), are, aim);
    double* pr = prod_re[group(l)].data();
    double* pi = prod_im[group(l)].data();
    if (!pair) {
      for (std::size_t k = 0; k < N; ++k) accumulate(pr[k], pi[k], are[k], aim[k]);
      continue;
    }
    if (group(l) == group(l + 1)) {
      multiply_by_pair(pr, pi, are.data(), aim.data(), N);
      continue;
    }
    double* qr = prod_re[group(l + 1)].data();
    double* qi = prod_im[group(l + 1)].data();
    for (std::size_t k = 0; k < N; ++k) {
      const std::size_t m = (N - k) & (N - 1);  // X_k and conj X_{-k} give A_k and B_k
      accumulate(pr[k], pi[k], 0.5 * (are[k] + are[m]), 0.5 * (aim[k] - aim[m]));
      accumulate(qr[k], qi[k], 0.5 * (aim[k] + aim[m]), -0.5 * (are[k] - are[m]));
    }
  }
  for (std::size_t gi = 0; gi < distinct.size(); ++gi) {
    raise_each(prod_re[gi].data(), prod_im[gi].data(), distinct[gi], N);
    if (gi > 0) multiply_each(prod_re[0].data(), prod_im[0].data(), prod_re[gi].data(), prod_im[gi].data(), N);
  }
  are.swap(prod_re[0]);
  aim.swap(prod_im[0]);
}

// A group's transform as the memo keeps it (ladder_transform).
struct GroupTransform {
  std::vector<double> re, im;
};

// composed_transform on the grid ladder: each group of releases of one count PMF (pmf_groups) has
// its transform, raised to its repetitions, kept in the memo by (its prepared releases, grid, FFT
// size), and a bound multiplies the groups' transforms: at Yelp scale with 10 earlier runs at other
// noise, 94 % are found (20,466 made). Releases alone in their group are composed first, as
// composed_transform does (paired). The bits are a function of the releases and the grid alone,
// found or made.
void ladder_transform(const Fft& fft, const Discretised& dl, const std::vector<const Prepared*>& rel, ReleaseMemo::Impl& memo,
                      std::vector<double>& are, std::vector<double>& aim) {
  const std::vector<std::vector<std::size_t>>& groups = dl.groups;
  std::vector<std::size_t> alone;
  for (const std::vector<std::size_t>& g : groups)
    if (g.size() == 1) alone.push_back(g[0]);
  if (alone.size() == rel.size()) return composed_transform(fft, dl, {}, are, aim);
  if (alone.empty()) {
    std::fill(are.begin(), are.end(), 1.0);
    std::fill(aim.begin(), aim.end(), 0.0);
  } else {
    composed_transform(fft, dl, alone, are, aim);
  }
  const std::size_t N = fft.size();
  for (const std::vector<std::size_t>& g : groups) {
    if (g.size() == 1) continue;
    std::string key = ladder_key(rel, g, dl.h);
    key.append(reinterpret_cast<const char*>(&N), sizeof N);
    if (memo.transform_bytes > kLadderTransformBytes) {
      memo.transforms.clear();
      memo.transform_bytes = 0;
    }
    auto it = memo.transforms.find(key);
    if (it == memo.transforms.end()) {
      auto made = std::make_shared<GroupTransform>();
      made->re.resize(N);
      made->im.resize(N);
      composed_transform(fft, dl, g, made->re, made->im);
      memo.transform_bytes += kEntryBytes + key.size() + 2 * sizeof(double) * N;
      it = memo.transforms.emplace(std::move(key), std::move(made)).first;
    }
    const auto* t = static_cast<const GroupTransform*>(it->second.get());
    multiply_each(are.data(), aim.data(), t->re.data(), t->im.data(), N);
  }
}

// The composed P-masses: v[j] at loss index base + j, with the FFT's round-off floor `noise` and
// the margin for the mass the window wraps around.
struct Composed {
  std::vector<double> v;
  std::int64_t base = 0;
  double noise = 0.0, window_margin = 0.0;
  std::int64_t fft_size = 0;
};

// Step 3: composition by one FFT over the window.
Composed compose_fft(const Discretised& dl, const std::vector<const Prepared*>& rel, double tau_w, const AccountantOptions& opt,
                     ReleaseMemo::Impl& memo) {
  Composed c;
  const std::int64_t n = dl.n;
  if (n < dl.len_full) c.window_margin = 3.0 * tau_w;  // tau_w below + tau_w above wrapped in, tau_w missed on top
  c.fft_size = n;
  const std::size_t N = static_cast<std::size_t>(n);
  const std::shared_ptr<const Fft> fft = fft_of_size(N);
  std::vector<double> are(N), aim(N);
  if (opt.grid_ladder) ladder_transform(*fft, dl, rel, memo, are, aim);
  else composed_transform(*fft, dl, {}, are, aim);
  fft->inverse(are, aim);
  const std::int64_t len = std::min<std::int64_t>(n, dl.len_full - dl.j_lo);
  c.v.resize(static_cast<std::size_t>(len));
  double vmin = 0.0, vmax = 0.0;
  const double inv_n = 1.0 / static_cast<double>(n);
  const std::int64_t shift = dl.j_lo % n;  // composed index j_lo + j sits at position (shift + j) mod n
  for (std::int64_t p = 0; p < n; ++p) {
    const double x = are[static_cast<std::size_t>(p)] * inv_n;
    vmin = std::min(vmin, x);
    vmax = std::max(vmax, x);
    const std::int64_t j = p >= shift ? p - shift : p - shift + n;
    if (j < len) c.v[static_cast<std::size_t>(j)] = x;
  }
  std::int64_t total_reps = 0;
  for (const int r : dl.reps) total_reps += r;
  c.noise = std::max(-vmin, 4.0 * kEpsMach * std::log2(static_cast<double>(n)) * static_cast<double>(total_reps) * vmax);
  // Negative round-off is clamped to zero. Nothing is rescaled: rescaling down would lower the
  // top atoms; the round-off of every atom is covered by the margin in step 4 instead.
  for (double& x : c.v) x = std::max(0.0, x);
  c.base = dl.base + dl.j_lo;
  return c;
}

// Step 4: the Neyman-Pearson reading of B(alpha): the +infinity mass, then the atoms from the
// highest loss down, each with Q-mass P e^{-loss}, until the Q-mass reaches alpha (the last atom
// fractionally); then the round-off and window margins.
void read_blow_up(const Composed& c, double h, double inf_T, double alpha, BlowUpBound& out) {
  double B = inf_T, q_taken = 0.0;
  std::size_t taken = 0;
  bool reached = false;
  for (std::size_t j = c.v.size(); j-- > 0;) {
    const double pj = c.v[j];
    if (!(pj > 0.0)) continue;
    const double loss = static_cast<double>(c.base + static_cast<std::int64_t>(j)) * h;
    const double qj = pj * std::exp(-loss);
    ++taken;
    if (q_taken + qj >= alpha) {
      B += pj * ((alpha - q_taken) / qj);
      reached = true;
      break;
    }
    q_taken += qj;
    B += pj;
  }
  if (!reached) B = 1.0;
  out.roundoff_margin = 2.0 * c.noise * static_cast<double>(taken + 1);
  B += out.roundoff_margin + c.window_margin;
  out.value = std::min(1.0, std::max(alpha, B));
}

// The bound for prepared (non-trivial) releases (steps as in blow_up.hpp).
BlowUpBound compose_unchecked(const std::vector<const Prepared*>& rel, double alpha, const AccountantOptions& opt, ReleaseMemo::Impl& memo) {
  BlowUpBound out;
  if (rel.empty()) {  // P == Q: B(alpha) = alpha
    out.value = alpha;
    return out;
  }
  const double tau_w = std::max(opt.window_share * alpha, 1e-300);  // window tail, see discretise_all
  const bool one_shot = rel.size() == 1 && rel[0]->reps == 1;
  const Discretised dl = discretise_all(rel, grid_spacing(rel, opt), tau_w, one_shot, opt, memo);
  out.grid = dl.h;
  out.atoms = dl.atoms;
  out.infinity_mass = -std::expm1(dl.log_no_inf);
  Composed c;
  if (one_shot) {
    c.v = dl.d[0]->omega;
    c.base = dl.base;
  } else {
    c = compose_fft(dl, rel, tau_w, opt, memo);
  }
  out.fft_size = c.fft_size;
  read_blow_up(c, dl.h, out.infinity_mass, alpha, out);
  return out;
}

}  // namespace

ReleaseMemo::ReleaseMemo() : impl_(std::make_unique<Impl>()) {}
ReleaseMemo::~ReleaseMemo() = default;
ReleaseMemo::ReleaseMemo(ReleaseMemo&&) noexcept = default;
ReleaseMemo& ReleaseMemo::operator=(ReleaseMemo&&) noexcept = default;
std::size_t ReleaseMemo::size() const {
  std::size_t n = impl_->prepared.size();
  for (const Impl::Shared& s : impl_->by_id) n += s.forms.size();
  return n;
}
std::size_t ReleaseMemo::bytes() const { return impl_->bytes + impl_->ladder_bytes; }
void ReleaseMemo::forget_grids() {
  impl_->discretised.clear();
  impl_->groups.clear();
  impl_->transforms.clear();
  impl_->ladder_bytes = 0;
  impl_->transform_bytes = 0;
}

namespace {

// A release is trivial (P == Q: it releases nothing) when its largest count with mass, times the
// step, is 0: Mixture's m_max, computed alike.
bool trivial_release(const std::vector<double>& pi, double step) {
  std::size_t top = pi.size();
  while (top > 0 && !(pi[top - 1] > 0.0)) --top;
  return top == 0 || step * static_cast<double>(top - 1) == 0.0;
}

// A release of a list as step 1 reads it: its count PMF, its step (divided by the caller's
// divisor), its repetitions, and its id when the caller shares it among bounds (SharedRelease).
struct ReleaseView {
  const std::vector<double>* pi;
  double step;
  int reps;
  std::size_t id = kNoId;
  static constexpr std::size_t kNoId = std::numeric_limits<std::size_t>::max();
};

// Release `r` prepared at tail mass tau, its memory counted in memo.bytes.
std::shared_ptr<const void> make_prepared(ReleaseMemo::Impl& memo, const ReleaseView& r, double tau, const AccountantOptions& opt) {
  memo.bytes += kEntryBytes + 4 * sizeof(double) * r.pi->size();  // the mixture's four numbers per count
  return std::make_shared<const Prepared>(prepare(Mixture(*r.pi, r.step), r.reps, tau, opt));
}

// Prepares the non-trivial releases (pi not a point mass at 0) of validated input, or finds them in
// `memo`: a shared release by its id, another by its bits. The P-mass cut to +infinity is at most
// tau = cut_share alpha / (all repetitions) per iteration and release.
std::vector<const Prepared*> prepare_all(std::span<const ReleaseView> releases, double alpha, const AccountantOptions& opt, const char* fn,
                                         ReleaseMemo::Impl& memo) {
  std::vector<const ReleaseView*> kept;
  std::int64_t total = 0;
  for (const ReleaseView& r : releases) {
    if (trivial_release(*r.pi, r.step)) continue;
    kept.push_back(&r);
    total += r.reps;
  }
  if (static_cast<double>(total) > static_cast<double>(opt.max_fft_size) / 4.0)
    reject(fn, "the total number of repetitions", "at most max_fft_size / 4", static_cast<double>(total));
  double tau = std::max(opt.cut_share * alpha / static_cast<double>(std::max<std::int64_t>(total, 1)), 1e-300);
  // On the ladder, down to a power of 2^8: bounds whose budgets and repetitions differ up to 256-fold
  // meet the same prepared releases (at Yelp scale, a sixth of those a power of 2 leaves).
  if (opt.grid_ladder) tau = std::exp2(8.0 * std::floor(std::log2(tau) / 8.0));
  std::vector<const Prepared*> out;
  out.reserve(kept.size());
  // A list holds few distinct PMFs (a label's, once per run): each is looked up by its bits once
  // per list, and its releases by its number in the memo.
  std::vector<std::pair<const std::vector<double>*, std::uint64_t>> pmfs;
  std::string key;
  for (const ReleaseView* r : kept) {
    if (r->id != ReleaseView::kNoId) {  // by id (shared_views made its slot)
      auto& forms = memo.by_id[r->id].forms;
      auto form = std::find_if(forms.begin(), forms.end(), [&](const auto& f) {
        return f.tau == tau && f.reps == r->reps && f.cut_tolerance == opt.cut_tolerance && f.spread_points == opt.spread_points;
      });
      if (form == forms.end()) form = forms.insert(forms.end(), {tau, r->reps, opt.cut_tolerance, opt.spread_points, make_prepared(memo, *r, tau, opt)});
      out.push_back(static_cast<const Prepared*>(form->prepared.get()));
      continue;
    }
    auto pmf = std::find_if(pmfs.begin(), pmfs.end(), [r](const auto& known) { return *known.first == *r->pi; });
    if (pmf == pmfs.end()) {
      key.assign(reinterpret_cast<const char*>(r->pi->data()), r->pi->size() * sizeof(double));
      const auto [number, fresh] = memo.pmf_number.try_emplace(key, memo.pmf_number.size());
      if (fresh) memo.bytes += kEntryBytes + key.size();
      pmf = pmfs.insert(pmfs.end(), {r->pi, number->second});
    }
    key.assign(reinterpret_cast<const char*>(&pmf->second), sizeof pmf->second);
    key.append(reinterpret_cast<const char*>(&r->step), sizeof(double));
    key.append(reinterpret_cast<const char*>(&tau), sizeof(double));
    key.append(reinterpret_cast<const char*>(&r->reps), sizeof(int));
    key.append(reinterpret_cast<const char*>(&opt.cut_tolerance), sizeof(double));
    key.append(reinterpret_cast<const char*>(&opt.spread_points), sizeof(int));
    auto it = memo.prepared.find(key);
    if (it == memo.prepared.end()) it = memo.prepared.emplace(key, make_prepared(memo, *r, tau, opt)).first;
    out.push_back(static_cast<const Prepared*>(it->second.get()));
  }
  return out;
}

// The views of shared releases, each checked (as check_releases does) the first time the memo
// meets it, its repetitions every time.
std::vector<ReleaseView> shared_views(const char* fn, std::span<const SharedRelease> releases, ReleaseMemo::Impl& memo) {
  std::vector<ReleaseView> out;
  out.reserve(releases.size());
  for (std::size_t l = 0; l < releases.size(); ++l) {
    const SharedRelease& r = releases[l];
    if (r.id >= memo.by_id.size()) {
      memo.bytes += (r.id + 1 - memo.by_id.size()) * sizeof(memo.by_id[0]);
      memo.by_id.resize(r.id + 1);
    }
    if (!memo.by_id[r.id].checked) {
      check_releases(fn, {r.release, 1}, l);
      memo.by_id[r.id].checked = true;
    }
    check_iterations(fn, r.repetitions, "release " + std::to_string(l) + " repetitions");
    out.push_back({.pi = &r.release->pi, .step = r.release->mean_step, .reps = r.repetitions, .id = r.id});
  }
  return out;
}

// The views of plain releases, each step divided by step_divisor.
std::vector<ReleaseView> views_of(std::span<const MixtureRelease> releases, double step_divisor) {
  std::vector<ReleaseView> out;
  out.reserve(releases.size());
  for (const MixtureRelease& r : releases) out.push_back({.pi = &r.pi, .step = r.mean_step / step_divisor, .reps = r.repetitions});
  return out;
}

// The smallest x > 0 (to ~1e-6 relative) with f(x) <= 0, for f decreasing through 0: f(x) > 0
// below the answer, <= 0 at and above it. Brackets by doubling or halving from `guess`, then
// Illinois regula falsi in log x, every fourth step a bisection so that the bracket always
// shrinks. The returned x is one at which f <= 0 was evaluated (or the limit 0 is never reached:
// halving stops when lo underflows and returns the last passing x). Doubling beyond 1e6 * guess
// means r cannot be certified (InputError naming `fn` and r).
template <class F>
double smallest_passing(F&& f, double guess, const char* fn, double r) {
  if (!(guess > 0.0 && std::isfinite(guess))) guess = 1.0;
  double lo = guess, hi = guess;
  double f_lo = f(lo), f_hi = f_lo;
  int steps = 0;
  if (f_lo > 0.0) {
    while (f_hi > 0.0) {
      lo = hi;
      f_lo = f_hi;
      hi *= 2.0;
      f_hi = f(hi);
      // B cannot go below its round-off floor (~1e-13 absolute for T <= 100): r that close to p
      // (or to 0) cannot be certified.
      if (++steps > 2000 || !(hi < 1e6 * guess))
        reject(fn, "bound r", "far enough above p for the accountant's round-off floor", r);
    }
  } else {
    while (f_lo <= 0.0) {
      hi = lo;
      f_hi = f_lo;
      lo *= 0.5;
      f_lo = f(lo);
      if (++steps > 2000 || !(lo > 0.0)) return hi;
    }
  }
  double a = std::log(lo), b = std::log(hi), fa = f_lo, fb = f_hi;
  double x_ok = hi;
  int side = 0;
  for (int it = 0; it < 200 && b - a > 1e-6; ++it) {
    double c = (it % 4 == 3) ? 0.5 * (a + b) : b - fb * (b - a) / (fb - fa);
    if (!(c > a + 1e-9 && c < b - 1e-9)) c = 0.5 * (a + b);
    const double x_c = std::exp(c);
    const double fc = f(x_c);
    if (fc > 0.0) {
      a = c;
      fa = fc;
      if (side == -1) fb *= 0.5;
      side = -1;
    } else {
      b = c;
      fb = fc;
      x_ok = x_c;
      if (side == 1) fa *= 0.5;
      side = 1;
    }
  }
  return x_ok;
}

// The single release {pi, scale / sigma, T}.
BlowUpBound bound_unchecked(const std::vector<double>& pi, double scale, double sigma, int T,
                            double alpha, const AccountantOptions& opt) {
  const MixtureRelease release{pi, scale / sigma, T};
  ReleaseMemo memo;
  return compose_unchecked(prepare_all(views_of({&release, 1}, 1.0), alpha, opt, "blow_up_upper", memo.impl()), alpha, opt, memo.impl());
}

}  // namespace

BlowUpBound blow_up_bound(const std::vector<double>& pi, double sensitivity_scale, double sigma,
                          int T, double alpha, const AccountantOptions& options) {
  constexpr const char* kFn = "blow_up_upper";
  check_pmf(kFn, pi);
  check_scale(kFn, sensitivity_scale);
  check_sigma(kFn, sigma);
  check_iterations(kFn, T);
  check_unit(kFn, "alpha", alpha);
  return bound_unchecked(pi, sensitivity_scale, sigma, T, alpha, options);
}

double blow_up_upper(const std::vector<double>& pi, double sensitivity_scale, double sigma, int T,
                     double alpha) {
  return blow_up_bound(pi, sensitivity_scale, sigma, T, alpha).value;
}

double achieved_r_exact(const std::vector<double>& pi, double sensitivity_scale, double sigma,
                        int T, double p) {
  constexpr const char* kFn = "achieved_r_exact";
  check_pmf(kFn, pi);
  check_scale(kFn, sensitivity_scale);
  check_sigma(kFn, sigma);
  check_iterations(kFn, T);
  check_unit(kFn, "prior p", p);
  return bound_unchecked(pi, sensitivity_scale, sigma, T, p, {}).value;
}

double calibrate_sigma_exact(const std::vector<double>& pi, double sensitivity_scale, int T,
                             double p, double r) {
  constexpr const char* kFn = "calibrate_sigma_exact";
  check_pmf(kFn, pi);
  check_scale(kFn, sensitivity_scale);
  check_iterations(kFn, T);
  check_unit(kFn, "prior p", p);
  if (!(r > p && r < 1.0)) reject(kFn, "bound r", "in (p, 1)", r);
  // As sigma -> 0 the counts are revealed: B -> 1 - P0 (1 - p) with P0 = pi[0]^T the chance that
  // no iteration samples a holder. If that is <= r, every sigma > 0 works.
  const double pi0 = zero_mass(pi);
  if (-std::expm1(static_cast<double>(T) * std::log(pi0)) * (1.0 - p) + p <= r) return 0.0;

  const AccountantOptions opt;
  // f(sigma) = log B(sigma) - log r: > 0 below the answer, <= 0 at and above it.
  auto f = [&](double sigma) {
    return std::log(bound_unchecked(pi, sensitivity_scale, sigma, T, p, opt).value) - std::log(r);
  };
  // Start from the single-Gaussian guess with the mean count.
  double mean = 0.0, pi_sum = 0.0;
  for (double x : pi) pi_sum += x;
  for (std::size_t c = 0; c < pi.size(); ++c) mean += static_cast<double>(c) * pi[c] / pi_sum;
  const double eta = normal_quantile(r) - normal_quantile(p);
  return smallest_passing(f, std::sqrt(static_cast<double>(T)) * sensitivity_scale * mean / eta, kFn, r);
}

BlowUpBound blow_up_bound_composed(std::span<const MixtureRelease> releases, double alpha,
                                   const AccountantOptions& options, ReleaseMemo* memo) {
  constexpr const char* kFn = "blow_up_upper_composed";
  check_releases(kFn, releases);
  check_unit(kFn, "alpha", alpha);
  ReleaseMemo local;
  ReleaseMemo::Impl& kept = (memo ? *memo : local).impl();
  return compose_unchecked(prepare_all(views_of(releases, 1.0), alpha, options, kFn, kept), alpha, options, kept);
}

BlowUpBound blow_up_bound_shared(std::span<const SharedRelease> releases, double alpha, const AccountantOptions& options,
                                 ReleaseMemo& memo) {
  constexpr const char* kFn = "blow_up_bound_shared";
  check_unit(kFn, "alpha", alpha);
  return compose_unchecked(prepare_all(shared_views(kFn, releases, memo.impl()), alpha, options, kFn, memo.impl()), alpha, options,
                           memo.impl());
}

double composed_grid(std::span<const SharedRelease> releases, double alpha, const AccountantOptions& options, ReleaseMemo& memo) {
  constexpr const char* kFn = "composed_grid";
  check_unit(kFn, "alpha", alpha);
  const std::vector<const Prepared*> rel = prepare_all(shared_views(kFn, releases, memo.impl()), alpha, options, kFn, memo.impl());
  return rel.empty() ? 0.0 : grid_spacing(rel, options);
}

double blow_up_upper_composed(std::span<const MixtureRelease> releases, double alpha,
                              const AccountantOptions& options, ReleaseMemo* memo) {
  return blow_up_bound_composed(releases, alpha, options, memo).value;
}

double calibrate_scale_composed(std::span<const MixtureRelease> releases, double p, double r) {
  constexpr const char* kFn = "calibrate_scale_composed";
  check_releases(kFn, releases);
  check_unit(kFn, "prior p", p);
  if (!(r > p && r < 1.0)) reject(kFn, "bound r", "in (p, 1)", r);
  // As lambda -> 0 every count is revealed: B -> 1 - P0 (1 - p), P0 = prod_l pi_l[0]^{reps_l}.
  double log_p0 = 0.0, mu2 = 0.0;
  for (const MixtureRelease& rel : releases) {
    log_p0 += static_cast<double>(rel.repetitions) * std::log(zero_mass(rel.pi));
    double mean = 0.0, pi_sum = 0.0;
    for (double x : rel.pi) pi_sum += x;
    for (std::size_t c = 0; c < rel.pi.size(); ++c) mean += static_cast<double>(c) * rel.pi[c] / pi_sum;
    mu2 += static_cast<double>(rel.repetitions) * (rel.mean_step * mean) * (rel.mean_step * mean);
  }
  if (-std::expm1(log_p0) * (1.0 - p) + p <= r) return 0.0;

  const AccountantOptions opt;
  auto f = [&](double lambda) {
    ReleaseMemo memo;  // each lambda has its own steps
    return std::log(compose_unchecked(prepare_all(views_of(releases, lambda), p, opt, kFn, memo.impl()), p, opt, memo.impl()).value) - std::log(r);
  };
  // Start from the single-Gaussian guess with the mean counts: mu(lambda) = sqrt(mu2) / lambda.
  const double eta = normal_quantile(r) - normal_quantile(p);
  return smallest_passing(f, std::sqrt(mu2) / eta, kFn, r);
}

namespace {

// One release as the screen sees it: per count c, tail[c] = P(C > c) (normalised PMF, summed
// from the top), and log pi_c and (step c)^2 over the counts with pi_c > 0.
struct Tails {
  std::vector<double> tail;
  double step;
  int reps;
  std::vector<double> logpi, sq;
};

// The releases that release something (point masses at 0 skipped), and their total repetitions.
std::vector<Tails> screen_tails(std::span<const MixtureRelease> releases, double& total_reps) {
  std::vector<Tails> rel;
  total_reps = 0.0;
  for (const MixtureRelease& r : releases) {
    std::size_t top = r.pi.size();
    while (top > 1 && !(r.pi[top - 1] > 0.0)) --top;
    if (top == 1) continue;  // point mass at 0: nothing released
    double sum = 0.0;
    for (double x : r.pi) sum += x;
    Tails t{std::vector<double>(top, 0.0), r.mean_step, r.repetitions, {}, {}};
    double acc = 0.0;
    for (std::size_t c = top; c-- > 0;) {
      t.tail[c] = acc / sum;
      acc += r.pi[c];
    }
    for (std::size_t c = 0; c < top; ++c) {
      if (!(r.pi[c] > 0.0)) continue;
      const double m = r.mean_step * static_cast<double>(c);
      t.logpi.push_back(std::log(r.pi[c] / sum));
      t.sq.push_back(m * m);
    }
    rel.push_back(std::move(t));
    total_reps += static_cast<double>(r.repetitions);
  }
  return rel;
}

// The first screening bound, (1 - eps) B_gauss(alpha; mu) + eps for count thresholds, minimised
// over a few tail levels and then a few rounds of per-release refinement (see blow_up_screen).
double threshold_bound(const std::vector<Tails>& rel, double alpha, double total_reps) {
  const double z_alpha = -normal_quantile(alpha);  // Phi^{-1}(1 - alpha)
  std::vector<std::size_t> cut(rel.size());
  // The bound for thresholds `cut`, and its sensitivities: d/d(mu^2) and d/d(reps_l t_l).
  struct Eval {
    double value, d_mu2, d_tail;
  };
  auto evaluate = [&]() {
    double mu2 = 0.0, log_keep = 0.0;
    for (std::size_t l = 0; l < rel.size(); ++l) {
      const double m = rel[l].step * static_cast<double>(cut[l]);
      mu2 += static_cast<double>(rel[l].reps) * m * m;
      log_keep += static_cast<double>(rel[l].reps) * std::log1p(-rel[l].tail[cut[l]]);
    }
    const double eps = -std::expm1(log_keep);
    const double mu = std::sqrt(mu2);
    const double gauss = normal_sf(z_alpha - mu);
    constexpr double kInvSqrt2Pi = 0.39894228040143267794;
    const double x = mu - z_alpha;
    const double density = kInvSqrt2Pi * std::exp(-0.5 * x * x);
    return Eval{((1.0 - eps) * gauss + eps) * (1.0 + 1e-12),
                mu > 0.0 ? (1.0 - eps) * density / (2.0 * mu) : 1e300, 1.0 - gauss};
  };
  double best = 1.0;
  Eval at_best{1.0, 0.0, 0.0};
  // Tail levels: the per-(release, repetition) tail allowed is level * alpha / total repetitions;
  // level 0 puts every threshold at the largest count (eps = 0).
  for (double level : {0.0, 1e-12, 1e-9, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0}) {
    const double per = level * alpha / total_reps;
    for (std::size_t l = 0; l < rel.size(); ++l) {
      std::size_t c = 0;
      while (rel[l].tail[c] > per) ++c;  // tail[top - 1] = 0, so this stops
      cut[l] = c;
    }
    const Eval e = evaluate();
    if (e.value < best) {
      best = e.value;
      at_best = e;
    }
  }
  // Refinement: with the sensitivities at the best point, each threshold minimises the linearised
  // bound d_mu2 * (m_l c)^2 + d_tail * t_l(c) (per repetition); a few rounds.
  for (int round = 0; round < 6 && at_best.value < 1.0; ++round) {
    for (std::size_t l = 0; l < rel.size(); ++l) {
      double best_c = std::numeric_limits<double>::infinity();
      for (std::size_t c = 0; c < rel[l].tail.size(); ++c) {
        const double m = rel[l].step * static_cast<double>(c);
        const double cost = at_best.d_mu2 * m * m + at_best.d_tail * rel[l].tail[c];
        if (cost < best_c) {
          best_c = cost;
          cut[l] = c;
        }
      }
    }
    const Eval e = evaluate();
    if (!(e.value < best)) break;
    best = e.value;
    at_best = e;
  }
  return best;
}

// The second screening bound: B <= E f(X), f(x) = B_gauss(alpha; sqrt(x)), X = sum_{l,k}
// (m_l C_{l,k})^2, with Chernoff bounds on the tails of X (see blow_up_screen); +infinity when X
// does not vary.
double averaged_bound(const std::vector<Tails>& rel, double alpha) {
  const double z_alpha = -normal_quantile(alpha);  // Phi^{-1}(1 - alpha)
  double mean_x = 0.0, var_x = 0.0, max_x = 0.0;
  for (const Tails& t : rel) {
    double s1 = 0.0, s2 = 0.0, top = 0.0;
    for (std::size_t i = 0; i < t.sq.size(); ++i) {
      const double w = std::exp(t.logpi[i]);
      s1 += w * t.sq[i];
      s2 += w * t.sq[i] * t.sq[i];
      top = std::max(top, t.sq[i]);
    }
    mean_x += t.reps * s1;
    var_x += t.reps * std::max(0.0, s2 - s1 * s1);
    max_x += t.reps * top;
  }
  const double sd_x = std::sqrt(var_x);
  if (!(sd_x > 0.0)) return std::numeric_limits<double>::infinity();
  // Cumulant generating function of X at a grid of theta.
  std::vector<double> theta, cgf;
  for (double u = 0.02; u <= 200.0; u *= 1.3) {
    const double th = u / sd_x;
    double k = 0.0;
    for (const Tails& t : rel) {
      double hi = -std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < t.sq.size(); ++i) hi = std::max(hi, t.logpi[i] + th * t.sq[i]);
      double sum = 0.0;
      for (std::size_t i = 0; i < t.sq.size(); ++i) sum += std::exp(t.logpi[i] + th * t.sq[i] - hi);
      k += t.reps * (hi + std::log(sum));
    }
    theta.push_back(th);
    cgf.push_back(k);
  }
  // E f(X) = f(x_0) + sum_j E[(f(x_{j+1}) - f(x_j)) 1{X > x_j}] + E[(f(X) - f(x_J)) 1{X > x_J}]
  // <= f(x_0) + sum_j (f(x_{j+1}) - f(x_j)) P(X > x_j) for any grid 0 = x_0 < ... < x_J = max X
  // (f is increasing), and each P(X > x_j) <= min(1, Chernoff).
  std::vector<double> grid = {0.0};
  for (double v = -4.0; v <= 60.0; v += 0.25) {
    const double x = mean_x + v * sd_x;
    if (x > grid.back() && x < max_x) grid.push_back(x);
  }
  while (grid.back() * 1.1 < max_x) grid.push_back(grid.back() * 1.1);
  grid.push_back(max_x);
  double value = 0.0, f_prev = normal_sf(z_alpha);  // f(0) = alpha
  value = f_prev;
  for (std::size_t j = 0; j + 1 < grid.size(); ++j) {
    double log_tail = 0.0;
    for (std::size_t i = 0; i < theta.size(); ++i) log_tail = std::min(log_tail, cgf[i] - theta[i] * grid[j]);
    const double f_next = normal_sf(z_alpha - std::sqrt(grid[j + 1]));
    value += std::max(0.0, f_next - f_prev) * std::exp(log_tail);
    f_prev = f_next;
  }
  // Round-off: relative errors of a few ulp in f, of about eps * |cgf| in the tails, and of the
  // differences of f (each at most a few ulp of f, summed over at most ~400 terms).
  return value * (1.0 + 1e-10) + 1e-13 * f_prev;
}

}  // namespace

// Screening bound. Proof. Fix thresholds c*_l and let t_l = P(C_l > c*_l). Each per-iteration
// P_l = (1 - t_l) P_l^low + t_l P_l^high, with P_l^low the mixture of N(m_l c, 1) over c <= c*_l
// (renormalised) and P_l^high the rest. Expanding the product of all the (release, repetition)
// factors, P = (1 - eps) P' + eps P'' with P' = prod_l (P_l^low)^{reps_l}, 1 - eps =
// prod_l (1 - t_l)^{reps_l} and P'' some distribution. For an event E with Q(E) <= alpha,
// P(E) <= (1 - eps) P'(E) + eps <= (1 - eps) B'(alpha) + eps.
// P' is a mixture, over count vectors (c_{l,k}) with every c_{l,k} <= c*_l, of product Gaussians
// N(mu_vec, I) against Q = N(0, I), and B of a mixture is at most the maximum of the components'
// B: sup_{Q(E) <= alpha} sum_i w_i P_i(E) <= sum_i w_i sup_{Q(E) <= alpha} P_i(E). A component's
// B is the Gaussian 1 - Phi(Phi^{-1}(1 - alpha) - |mu_vec|), increasing in
// |mu_vec|^2 = sum_{l,k} (m_l c_{l,k})^2 <= sum_l reps_l (m_l c*_l)^2 = mu^2. Hence
// B(alpha) <= (1 - eps) B_gauss(alpha; mu) + eps.
// Second bound (much tighter for many repetitions). The same mixture argument applied to P itself,
// a mixture over all count vectors with weights prod pi_l(c_{l,k}), with the average in place of
// the maximum, gives B(alpha) <= E f(X), f(x) = B_gauss(alpha; sqrt(x)) increasing and <= 1,
// X = sum_{l,k} (m_l C_{l,k})^2 a sum of independent terms. For any x0,
// increasing grid 0 = x_0 < ... < x_J = max X, E f(X) <= f(0) + sum_j (f(x_{j+1}) - f(x_j)) P(X > x_j)
// (summation by parts), and P(X > x) <= exp(-theta x) E e^{theta X} =
// exp(-theta x + sum_l reps_l log E e^{theta (m_l C_l)^2}) for every theta > 0 (Chernoff),
// minimised over a grid of theta. The screen returns the smaller of the two bounds. Round-off: the tails are summed directly (no
// differences) and every term carries a relative error of a few ulp; a relative margin of 1e-12
// covers it.
double blow_up_screen(std::span<const MixtureRelease> releases, double alpha) {
  constexpr const char* kFn = "blow_up_screen";
  check_releases(kFn, releases);
  check_unit(kFn, "alpha", alpha);
  double total_reps = 0.0;
  const std::vector<Tails> rel = screen_tails(releases, total_reps);
  if (rel.empty()) return alpha;
  const double best = std::min(threshold_bound(rel, alpha, total_reps), averaged_bound(rel, alpha));
  return std::min(1.0, std::max(alpha, best));
}

double blow_up_gaussian(double delta, double sigma, int T, double alpha) {
  constexpr const char* kFn = "blow_up_gaussian";
  if (!(delta >= 0.0 && std::isfinite(delta))) reject(kFn, "delta", "finite and >= 0", delta);
  check_sigma(kFn, sigma);
  check_iterations(kFn, T);
  check_unit(kFn, "alpha", alpha);
  // 1 - Phi(Phi^{-1}(1 - alpha) - mu) with Phi^{-1}(1 - alpha) = -Phi^{-1}(alpha).
  const double mu = std::sqrt(static_cast<double>(T)) * delta / sigma;
  return normal_sf(-normal_quantile(alpha) - mu);
}

double blow_up_mixture_one_shot(const std::vector<double>& pi, double sensitivity_scale,
                                double sigma, double alpha) {
  constexpr const char* kFn = "blow_up_mixture_one_shot";
  check_pmf(kFn, pi);
  check_scale(kFn, sensitivity_scale);
  check_sigma(kFn, sigma);
  check_unit(kFn, "alpha", alpha);
  const double z = -normal_quantile(alpha);  // Phi^{-1}(1 - alpha)
  double B = 0.0;
  for (std::size_t c = 0; c < pi.size(); ++c)
    if (pi[c] > 0.0) B += pi[c] * normal_cdf(sensitivity_scale * static_cast<double>(c) / sigma - z);
  return B;
}

}  // namespace secpe
