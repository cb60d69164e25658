#pragma once
// The secret streams' standard normal, version 2 (kSecretNoiseVersion, recorded in run.json):
// Doornik's 128-layer ziggurat exactly as core/random_draws.hpp draws it, but with the correctly
// rounded exp and log of core/cr_math.hpp (in the wedges, the tail and the tables) and every
// operation rounded on its own (core/ieee_ops.hpp), written once for the host and for CUDA
// devices. So a secret stream gives the same normals on a CPU (SecretRng::normal) and on a GPU
// (SecPE's release on the device, compute/cuda), whatever the C library. Version 1 took exp and
// log from the C library (glibc's are not correctly rounded: a handful of noise values in a
// million may differ between the versions). The public streams (core/rng.hpp) are unchanged.
#include <cstdint>

#include "core/cr_math.hpp"
#include "core/host_device.hpp"
#include "core/ieee_ops.hpp"

namespace secpe {

// The noise's version: 2 since the correctly rounded exp and log (1: the C library's).
inline constexpr int kSecretNoiseVersion = 2;

struct SecretZiggurat {
  static constexpr int kLayers = 128;
  static constexpr double kR = 3.442619855899;        // start of the tail
  static constexpr double kV = 9.91256303526217e-3;   // area of each layer
  double x[kLayers + 1];
  double ratio[kLayers];
};

// The tables, as detail::build_ziggurat_tables builds them, with cr::exp, cr::log and a correctly
// rounded square root.
SECPE_HOST_DEVICE inline SecretZiggurat build_secret_ziggurat() {
  using namespace ieee;
  constexpr int n = SecretZiggurat::kLayers;
  constexpr double r = SecretZiggurat::kR, v = SecretZiggurat::kV;
  SecretZiggurat t{};
  double f = cr::exp(mul_rn(mul_rn(-0.5, r), r));
  t.x[0] = div_rn(v, f);
  t.x[1] = r;
  t.x[n] = 0.0;
  for (int i = 2; i < n; ++i) {
    t.x[i] = sqrt_rn(mul_rn(-2.0, cr::log(add_rn(div_rn(v, t.x[i - 1]), f))));
    f = cr::exp(mul_rn(mul_rn(-0.5, t.x[i]), t.x[i]));
  }
  for (int i = 0; i < n; ++i) t.ratio[i] = div_rn(t.x[i + 1], t.x[i]);
  return t;
}

// The host's copy (built once; inline, so that a draw pays a guard check rather than a call).
inline const SecretZiggurat& secret_ziggurat() {
  static const SecretZiggurat tables = build_secret_ziggurat();
  return tables;
}

SECPE_HOST_DEVICE inline double secret_uniform_of(std::uint64_t bits) { return ieee::mul_rn(static_cast<double>(bits >> 11), 0x1.0p-53); }
SECPE_HOST_DEVICE inline double secret_uniform_open_of(std::uint64_t bits) {
  return ieee::mul_rn(ieee::add_rn(static_cast<double>(bits >> 12), 0.5), 0x1.0p-52);
}

// The rare part of a draw (about 1.5% of them): the tail beyond R (i = 0) or the wedge of layer i,
// for the draw's u. True with the normal in *out, false when the draw is rejected. Kept out of
// line on the host, so that the common case stays small enough to inline.
template <typename Words>
#if !defined(__CUDACC__)
[[gnu::noinline]]
#endif
SECPE_HOST_DEVICE bool secret_normal_edge(Words& words, const SecretZiggurat& z, double u, int i, double* out) {
  using namespace ieee;
  if (i == 0) {  // the tail beyond R
    double t, y;
    do {
      t = div_rn(cr::log(secret_uniform_open_of(words.next_u64())), SecretZiggurat::kR);
      y = cr::log(secret_uniform_open_of(words.next_u64()));
    } while (mul_rn(-2.0, y) < mul_rn(t, t));
    *out = u < 0 ? sub_rn(t, SecretZiggurat::kR) : sub_rn(SecretZiggurat::kR, t);
    return true;
  }
  // The wedge: accepted when f1 + v (f0 - f1) < 1, f0 and f1 the correctly rounded exp of the two
  // arguments below. Their double estimates (error below 2^-50 of values below 2.2) decide it
  // whenever the estimate is more than 2^-40 away from 1; only then are they computed exactly.
  const double x = mul_rn(u, z.x[i]);
  const double xx = mul_rn(x, x);
  const double a0 = mul_rn(-0.5, sub_rn(mul_rn(z.x[i], z.x[i]), xx));
  const double a1 = mul_rn(-0.5, sub_rn(mul_rn(z.x[i + 1], z.x[i + 1]), xx));
  const double v = secret_uniform_of(words.next_u64());
  *out = x;
  const double e0 = cr::detail::exp_double(a0), e1 = cr::detail::exp_double(a1);
  const double estimate = add_rn(e1, mul_rn(v, sub_rn(e0, e1)));
  if (abs_of(sub_rn(estimate, 1.0)) > 0x1p-40) return estimate < 1.0;
  const double f0 = cr::exp(a0), f1 = cr::exp(a1);
  return add_rn(f1, mul_rn(v, sub_rn(f0, f1))) < 1.0;
}

// A standard normal from `words` (anything with next_u64(): SecretRng, chacha20::BlockStream),
// drawing the words in the order RandomDraws::normal draws them.
template <typename Words>
SECPE_HOST_DEVICE inline double secret_normal(Words& words, const SecretZiggurat& z) {
  using namespace ieee;
  for (;;) {
    const std::uint64_t bits = words.next_u64();
    const double u = sub_rn(mul_rn(2.0, secret_uniform_of(bits)), 1.0);  // [-1, 1), top 53 bits
    const int i = static_cast<int>(bits & (SecretZiggurat::kLayers - 1));  // low 7 bits
    if (abs_of(u) < z.ratio[i]) return mul_rn(u, z.x[i]);                 // inside the rectangle
    double x;
    if (secret_normal_edge(words, z, u, i, &x)) return x;
  }
}

}  // namespace secpe
