#include "privacy/blow_up.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "privacy/gaussian.hpp"

namespace secpe {
namespace {

constexpr double kEpsMach = std::numeric_limits<double>::epsilon();
constexpr int kMaxIterations = 100000;

[[noreturn]] void reject(const char* function, const std::string& quantity, const char* requirement,
                         double value) {
  std::ostringstream msg;
  msg.precision(17);
  msg << function << ": " << quantity << " must be " << requirement << ", got " << value;
  throw InputError(msg.str());
}

void check_pmf(const char* fn, const std::vector<double>& pi) {
  if (pi.empty()) throw InputError(std::string(fn) + ": the count PMF pi must not be empty");
  double sum = 0.0;
  for (std::size_t c = 0; c < pi.size(); ++c) {
    if (!(pi[c] >= 0.0 && std::isfinite(pi[c])))
      reject(fn, "pi[" + std::to_string(c) + "]", "finite and >= 0", pi[c]);
    sum += pi[c];
  }
  if (!(std::fabs(sum - 1.0) <= 1e-9)) reject(fn, "the sum of pi", "1 (within 1e-9)", sum);
}
void check_scale(const char* fn, double s) {
  if (!(s > 0.0 && std::isfinite(s))) reject(fn, "sensitivity scale", "finite and > 0", s);
}
void check_sigma(const char* fn, double sigma) {
  if (!(sigma > 0.0 && std::isfinite(sigma))) reject(fn, "sigma", "finite and > 0", sigma);
}
void check_iterations(const char* fn, int T) {
  if (!(T >= 1 && T <= kMaxIterations))
    reject(fn, "iterations T", "in [1, 100000]", static_cast<double>(T));
}
void check_unit(const char* fn, const char* name, double v) {
  if (!(v > 0.0 && v < 1.0)) reject(fn, name, "in (0, 1)", v);
}

// ---------------------------------------------------------------------------------------------
// The per-iteration pair in standardised coordinates z = x / sigma:
// P = sum_c w_c N(m_c, 1), Q = N(0, 1), all m_c >= 0, w_c > 0.
struct Mixture {
  std::vector<double> m, w, logw, half_m2;
  double w_zero = 0.0;  // weight of components with m_c == 0
  double m_min = 0.0, m_max = 0.0;

  Mixture(const std::vector<double>& pi, double scale, double sigma) {
    for (std::size_t c = 0; c < pi.size(); ++c) {
      if (!(pi[c] > 0.0)) continue;
      const double mc = scale * static_cast<double>(c) / sigma;
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

  // Loss L(z) and its derivative.
  void loss(double z, double& value, double& slope) const {
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < m.size(); ++i) top = std::max(top, logw[i] + m[i] * z - half_m2[i]);
    double sum = 0.0, sum_m = 0.0;
    for (std::size_t i = 0; i < m.size(); ++i) {
      const double t = logw[i] + m[i] * z - half_m2[i] - top;
      if (t < -745.0) continue;
      const double e = std::exp(t);
      sum += e;
      sum_m += e * m[i];
    }
    value = top + std::log(sum);
    slope = sum_m / sum;
  }
  double loss(double z) const {
    double v, s;
    loss(z, v, s);
    return v;
  }
  double sf(double z) const {  // P(Z > z)
    double s = 0.0;
    for (std::size_t i = 0; i < m.size(); ++i) s += w[i] * normal_sf(z - m[i]);
    return s;
  }
  double cdf(double z) const {  // P(Z <= z)
    double s = 0.0;
    for (std::size_t i = 0; i < m.size(); ++i) s += w[i] * normal_cdf(z - m[i]);
    return s;
  }
  double pdf(double z) const {
    constexpr double kInvSqrt2Pi = 0.39894228040143267794;
    double s = 0.0;
    for (std::size_t i = 0; i < m.size(); ++i) {
      const double d = z - m[i];
      s += w[i] * std::exp(-0.5 * d * d);
    }
    return s * kInvSqrt2Pi;
  }
};

// Smallest z (to bisection accuracy, returned on the safe side) with sf(z) <= tau.
double upper_cut(const Mixture& mix, double tau) {
  double hi = mix.m_max - normal_quantile(tau);  // sf(hi) <= Phi_bar(hi - m_max) = tau
  double step = 1.0, lo = hi - step;
  while (mix.sf(lo) <= tau) {
    hi = lo;
    step *= 2.0;
    lo = hi - step;
  }
  for (int i = 0; i < 100 && hi - lo > 1e-12 * (1.0 + std::fabs(hi)); ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mix.sf(mid) <= tau) hi = mid; else lo = mid;
  }
  return hi;
}
// Largest z with cdf(z) <= tau.
double lower_cut(const Mixture& mix, double tau) {
  double lo = mix.m_min + normal_quantile(tau);  // cdf(lo) <= Phi(lo - m_min) = tau
  double step = 1.0, hi = lo + step;
  while (mix.cdf(hi) <= tau) {
    lo = hi;
    step *= 2.0;
    hi = lo + step;
  }
  for (int i = 0; i < 100 && hi - lo > 1e-12 * (1.0 + std::fabs(lo)); ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mix.cdf(mid) <= tau) lo = mid; else hi = mid;
  }
  return lo;
}

// Newton for L(z) = t from a start z0 with L(z0) >= t. L is convex and increasing, so the iterates
// decrease monotonically towards the root and stay on its right (L(z) >= t).
double invert_loss(const Mixture& mix, double t, double z0) {
  double z = z0;
  for (int it = 0; it < 200; ++it) {
    double v, s;
    mix.loss(z, v, s);
    const double gap = v - t;
    if (gap <= 2.0 * kEpsMach * (1.0 + std::fabs(t)) || !(s > 0.0)) break;
    const double step = gap / s;
    const double next = z - step;
    if (!(next < z)) break;
    z = next;
    if (step <= 1e-15 * (1.0 + std::fabs(z))) break;
  }
  return z;
}

// ---------------------------------------------------------------------------------------------
// Iterative radix-2 complex FFT (n a power of two, at least 2). inverse: conjugate twiddles, no
// 1/n scaling. Twiddles are computed directly (std::polar), not by recurrence, so errors stay at
// a few ulp times log2(n).
void fft(std::vector<std::complex<double>>& data, bool inverse) {
  const std::size_t n = data.size();
  double* a = reinterpret_cast<double*>(data.data());  // interleaved re, im (guaranteed layout)
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(data[i], data[j]);
  }
  std::vector<double> wr(n / 2), wi(n / 2);
  const double base = (inverse ? 2.0 : -2.0) * std::numbers::pi / static_cast<double>(n);
  for (std::size_t k = 0; k < n / 2; ++k) {
    wr[k] = std::cos(base * static_cast<double>(k));
    wi[k] = std::sin(base * static_cast<double>(k));
  }
  std::vector<double> cr(n / 2), ci(n / 2);  // the current stage's twiddles, contiguous
  for (std::size_t len = 2; len <= n; len <<= 1) {
    const std::size_t half = len / 2;
    const std::size_t stride = n / len;
    for (std::size_t k = 0; k < half; ++k) {
      cr[k] = wr[k * stride];
      ci[k] = wi[k * stride];
    }
    for (std::size_t i = 0; i < n; i += len) {
      double* lo = a + 2 * i;
      double* hi = a + 2 * (i + half);
      for (std::size_t k = 0; k < half; ++k) {
        const double xr = hi[2 * k], xi = hi[2 * k + 1];
        const double vr = xr * cr[k] - xi * ci[k];
        const double vi = xr * ci[k] + xi * cr[k];
        const double ur = lo[2 * k], ui = lo[2 * k + 1];
        lo[2 * k] = ur + vr;
        lo[2 * k + 1] = ui + vi;
        hi[2 * k] = ur - vr;
        hi[2 * k + 1] = ui - vi;
      }
    }
  }
}

// x^e by repeated squaring (plain real arithmetic: no NaN/inf recovery branches needed).
std::complex<double> power(std::complex<double> x, int e) {
  double rr = 1.0, ri = 0.0, xr = x.real(), xi = x.imag();
  while (e > 0) {
    if (e & 1) {
      const double t = rr * xr - ri * xi;
      ri = rr * xi + ri * xr;
      rr = t;
    }
    const double t = xr * xr - xi * xi;
    xi = 2.0 * xr * xi;
    xr = t;
    e >>= 1;
  }
  return {rr, ri};
}

// Spread (standard deviation) of the per-iteration loss under P, by a midpoint rule on [lo, hi].
double loss_spread(const Mixture& mix, double lo, double hi) {
  constexpr int kPoints = 256;
  const double dz = (hi - lo) / kPoints;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  for (int i = 0; i < kPoints; ++i) {
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

// Chernoff window of the T-fold convolution of the sub-probability vector w (index i = atom i):
// the composed mass below lo and above hi is each at most tau.
struct Window {
  std::int64_t lo, hi;
};
Window chernoff_window(const std::vector<double>& w, int T, double tau) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const double x = static_cast<double>(i);
    s0 += w[i];
    s1 += w[i] * x;
    s2 += w[i] * x * x;
  }
  const double mean = s1 / s0;
  const double sd = std::sqrt(std::max(s2 / s0 - mean * mean, 1e-4));
  const double Td = static_cast<double>(T);
  // log sum_i w_i e^{lambda i}, shifted by lambda * mean to avoid overflow.
  auto log_mgf = [&](double lambda) {
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < w.size(); ++i)
      if (w[i] > 0.0) top = std::max(top, std::log(w[i]) + lambda * (static_cast<double>(i) - mean));
    double sum = 0.0;
    for (std::size_t i = 0; i < w.size(); ++i)
      if (w[i] > 0.0) sum += std::exp(std::log(w[i]) + lambda * (static_cast<double>(i) - mean) - top);
    return top + std::log(sum);  // of the centred variable
  };
  const double log_tau = std::log(tau);
  double hi = std::numeric_limits<double>::infinity(), lo = -std::numeric_limits<double>::infinity();
  for (double c = 0.25; c <= 512.0; c *= 1.25) {
    const double lambda = c / (std::sqrt(Td) * sd);
    // P(S - T mean >= a) <= exp(-lambda a + T log M(lambda)) <= tau.
    hi = std::min(hi, (Td * log_mgf(lambda) - log_tau) / lambda);
    lo = std::max(lo, (log_tau - Td * log_mgf(-lambda)) / lambda);
  }
  const double centre = Td * mean;
  const double max_index = Td * static_cast<double>(w.size() - 1);
  Window out;
  out.lo = static_cast<std::int64_t>(std::floor(std::max(0.0, centre + lo)));
  out.hi = static_cast<std::int64_t>(std::ceil(std::min(max_index, centre + hi)));
  return out;
}

BlowUpBound bound_unchecked(const std::vector<double>& pi, double scale, double sigma, int T,
                            double alpha, const AccountantOptions& opt) {
  BlowUpBound out;
  const Mixture mix(pi, scale, sigma);
  if (mix.trivial()) {  // P == Q: B(alpha) = alpha
    out.value = alpha;
    return out;
  }
  const double Td = static_cast<double>(T);

  // 1. Range of z kept: the P-mass above z_hi goes to loss +infinity, below z_lo is rounded up.
  const double tau = std::max(1e-7 * alpha / Td, 1e-300);
  const double z_hi = upper_cut(mix, tau);
  const double z_lo = std::min(lower_cut(mix, tau), z_hi - 1e-3);
  const double l_hi = mix.loss(z_hi);
  const double l_lo = mix.loss(z_lo);
  const double l_inf = mix.w_zero > 0.0 ? std::log(mix.w_zero) : -std::numeric_limits<double>::infinity();
  const double range = std::max(l_hi - l_lo, 1e-300);

  // 2. Grid spacing.
  double h = opt.grid;
  if (!(h > 0.0)) {
    const double spread = std::sqrt(Td) * loss_spread(mix, z_lo, z_hi);
    // Connect-the-dots errors are second order in h / spread; rounding up is first order.
    // Their accumulation over T compositions grows faster than sqrt(T), hence the T^{-1/4}.
    const double g = (opt.discretisation == LossDiscretisation::kConnectDots
                          ? std::sqrt(opt.slack_target) * 0.5
                          : opt.slack_target * 0.5) /
                     std::sqrt(std::sqrt(Td));
    h = g * spread;
    h = std::min(h, range / 8.0);
    if (!(h > 0.0)) h = range / 8.0;
  }
  const double max_points = static_cast<double>(opt.max_fft_size);
  h = std::max(h, Td * range / (max_points - 1.0 - Td));  // full composed support fits the FFT
  h = std::max(h, range / 262144.0);                       // bounded per-iteration work
  out.grid = h;

  std::int64_t k_hi = static_cast<std::int64_t>(std::ceil(l_hi / h));
  std::int64_t k_lo = static_cast<std::int64_t>(std::floor(l_lo / h));
  if (static_cast<double>(k_lo) * h <= l_inf) k_lo = static_cast<std::int64_t>(std::floor(l_inf / h)) + 1;
  if (k_lo > k_hi) k_lo = k_hi;
  const std::size_t K = static_cast<std::size_t>(k_hi - k_lo + 1);
  out.atoms = static_cast<std::int64_t>(K);

  // Cut points z_k = L^{-1}(k h), k = k_lo..k_hi, from the top down.
  std::vector<double> z(K);
  {
    double start = z_hi, step = 1.0;
    while (mix.loss(start) < static_cast<double>(k_hi) * h) {
      start += step;
      step *= 2.0;
    }
    for (std::size_t i = K; i-- > 0;) {
      const double t = static_cast<double>(k_lo + static_cast<std::int64_t>(i)) * h;
      z[i] = invert_loss(mix, t, start);
      start = z[i];
    }
  }

  // P- and Q-masses: survival functions above the median, distribution functions below, so that
  // every difference is taken between numbers of the size of the mass itself.
  std::vector<double> g(K);        // P: sf(z_k) if upper[k], else cdf(z_k)
  std::vector<char> upper(K, 0);
  {
    bool in_upper = true;
    for (std::size_t i = K; i-- > 0;) {
      if (in_upper) {
        const double s = mix.sf(z[i]);
        if (s <= 0.5) {
          g[i] = s;
          upper[i] = 1;
          continue;
        }
        in_upper = false;
      }
      g[i] = mix.cdf(z[i]);
    }
  }
  auto p_mass = [&](std::size_t i) {  // P((z_i, z_{i+1}])
    if (upper[i]) return g[i] - g[i + 1];
    if (!upper[i + 1]) return g[i + 1] - g[i];
    return 1.0 - g[i] - g[i + 1];
  };
  auto p_scale = [&](std::size_t i) { return upper[i] ? g[i] : (upper[i + 1] ? 1.0 : g[i + 1]); };
  auto q_mass = [&](std::size_t i) {  // Q((z_i, z_{i+1}])
    const double a = z[i], b = z[i + 1];
    if (b <= 0.0) return normal_cdf(b) - normal_cdf(a);
    if (a >= 0.0) return normal_sf(a) - normal_sf(b);
    return 1.0 - normal_cdf(a) - normal_sf(b);
  };

  std::vector<double> omega(K, 0.0);
  double w_inf = upper[K - 1] ? g[K - 1] : 1.0 - g[K - 1];
  omega[0] = upper[0] ? 1.0 - g[0] : g[0];  // (-inf, z_{k_lo}]: loss <= t_{k_lo}
  const double one_minus_eh = -std::expm1(-h);
  for (std::size_t i = 0; i + 1 < K; ++i) {
    const double P = std::max(0.0, p_mass(i));
    if (P == 0.0) continue;
    double pb = P;
    if (opt.discretisation == LossDiscretisation::kConnectDots) {
      const double t_a = static_cast<double>(k_lo + static_cast<std::int64_t>(i)) * h;
      const double Q = std::max(0.0, q_mass(i));
      const double qe = Q * std::exp(t_a);
      const double raw = (P - qe) / one_minus_eh;
      // Round-off bound of raw: a few ulp of the numbers differenced, over 1 - e^{-h}.
      const double err = 8.0 * kEpsMach * (p_scale(i) + qe + P) / one_minus_eh;
      pb = std::min(P, std::max(0.0, raw) + err);
    }
    omega[i] += P - pb;
    omega[i + 1] += pb;
  }

  // 3. Compose.
  std::vector<double> v;
  double noise = 0.0, window_margin = 0.0;
  double inf_T = -std::expm1(Td * std::log1p(-std::min(w_inf, 1.0)));
  std::int64_t base = static_cast<std::int64_t>(T) * k_lo;  // loss index of v[0]
  if (T == 1) {
    v = omega;
  } else {
    const std::int64_t len_full = static_cast<std::int64_t>(T) * static_cast<std::int64_t>(K - 1) + 1;
    // Window [j_lo, j_hi] of the composed index that holds all but tau_w of the mass on each side
    // (Chernoff bounds); the FFT then wraps only that much mass around, which the margin covers.
    const double tau_w = std::max(1e-10 * alpha, 1e-300);
    std::int64_t j_lo = 0, j_hi = len_full - 1;
    if (len_full > 4096) {
      const Window win = chernoff_window(omega, T, tau_w);
      j_lo = std::max<std::int64_t>(0, win.lo);
      j_hi = std::min<std::int64_t>(len_full - 1, win.hi);
      if (j_hi < j_lo) j_hi = j_lo;
    }
    const std::int64_t need = std::max<std::int64_t>(j_hi - j_lo + 1, static_cast<std::int64_t>(K));
    std::int64_t n = 2;
    while (n < need) n <<= 1;
    if (n >= len_full) {  // the full support fits: no wrap-around at all
      j_lo = 0;
      while (n / 2 >= len_full && n > 2) n >>= 1;
    } else {
      window_margin = 3.0 * tau_w;  // tau_w below + tau_w above wrapped in, tau_w missed on top
    }
    out.fft_size = n;
    std::vector<std::complex<double>> a(static_cast<std::size_t>(n), 0.0);
    for (std::size_t i = 0; i < K; ++i) a[i] = omega[i];
    fft(a, false);
    for (auto& x : a) x = power(x, T);
    fft(a, true);
    const std::int64_t len = std::min<std::int64_t>(n, len_full - j_lo);
    v.resize(static_cast<std::size_t>(len));
    double vmin = 0.0, vmax = 0.0;
    const double inv_n = 1.0 / static_cast<double>(n);
    for (std::int64_t p = 0; p < n; ++p) {
      const double x = a[static_cast<std::size_t>(p)].real() * inv_n;
      vmin = std::min(vmin, x);
      vmax = std::max(vmax, x);
      const std::int64_t j = (p - j_lo % n + n) % n;  // composed index j_lo + j sits at position p
      if (j < len) v[static_cast<std::size_t>(j)] = x;
    }
    noise = std::max(-vmin, 4.0 * kEpsMach * std::log2(static_cast<double>(n)) * Td * vmax);
    // Negative round-off is clamped to zero. Nothing is rescaled: rescaling down would lower the
    // top atoms; the round-off of every atom is covered by the margin in step 4 instead.
    for (double& x : v) x = std::max(0.0, x);
    base += j_lo;
  }
  out.infinity_mass = inf_T;

  // 4. Neyman-Pearson reading.
  double B = inf_T, q_taken = 0.0;
  std::size_t taken = 0;
  bool reached = false;
  for (std::size_t j = v.size(); j-- > 0;) {
    const double pj = v[j];
    if (!(pj > 0.0)) continue;
    const double loss = static_cast<double>(base + static_cast<std::int64_t>(j)) * h;
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
  out.roundoff_margin = 2.0 * noise * static_cast<double>(taken + 1);
  B += out.roundoff_margin + window_margin;
  out.value = std::min(1.0, std::max(alpha, B));
  return out;
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
  double pi_sum = 0.0;
  for (double x : pi) pi_sum += x;
  const double pi0 = pi[0] / pi_sum;
  if ((1.0 - pi0) + pi0 * p <= r) return 0.0;  // even revealed counts are safe

  const AccountantOptions opt;
  // f(sigma) = log B(sigma) - log r: > 0 below the answer, <= 0 at and above it.
  auto f = [&](double sigma) { return std::log(bound_unchecked(pi, sensitivity_scale, sigma, T, p, opt).value) - std::log(r); };

  // Start from the single-Gaussian guess with the mean count and bracket by doubling/halving.
  double mean = 0.0;
  for (std::size_t c = 0; c < pi.size(); ++c) mean += static_cast<double>(c) * pi[c] / pi_sum;
  const double eta = normal_quantile(r) - normal_quantile(p);
  double guess = std::sqrt(static_cast<double>(T)) * sensitivity_scale * mean / eta;
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
        reject(kFn, "bound r", "far enough above p for the accountant's round-off floor", r);
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
  // Illinois (regula falsi) in log sigma, every fourth step a bisection so that the bracket
  // always shrinks. The returned sigma is one at which B <= r was evaluated.
  double a = std::log(lo), b = std::log(hi), fa = f_lo, fb = f_hi;
  double sigma_ok = hi;
  int side = 0;
  for (int it = 0; it < 200 && b - a > 1e-6; ++it) {
    double c = (it % 4 == 3) ? 0.5 * (a + b) : b - fb * (b - a) / (fb - fa);
    if (!(c > a + 1e-9 && c < b - 1e-9)) c = 0.5 * (a + b);
    const double sigma_c = std::exp(c);
    const double fc = f(sigma_c);
    if (fc > 0.0) {
      a = c;
      fa = fc;
      if (side == -1) fb *= 0.5;
      side = -1;
    } else {
      b = c;
      fb = fc;
      sigma_ok = sigma_c;
      if (side == 1) fa *= 0.5;
      side = 1;
    }
  }
  return sigma_ok;
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
