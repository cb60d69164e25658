#pragma once
// Uniform, Gaussian and bounded-integer draws on top of any generator of 64-bit words, shared by
// the public counter-based generator (core/rng.hpp) and the secret-keyed one (core/secret_rng.hpp)
// so that both turn random bits into values in exactly the same way.
#include <cmath>
#include <cstdint>

namespace secpe {

namespace detail {
// Tables of the 128-layer ziggurat (random_draws.cpp).
struct ZigguratTables {
  static constexpr int kLayers = 128;
  static constexpr double kR = 3.442619855899;  // start of the tail
  double x[kLayers + 1];
  double ratio[kLayers];
};
ZigguratTables build_ziggurat_tables();
// Inline, so that a draw pays a guard check rather than a call (the noise draws millions).
inline const ZigguratTables& ziggurat_tables() {
  static const ZigguratTables tables = build_ziggurat_tables();
  return tables;
}
inline double uniform_of(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }
inline double uniform_open_of(std::uint64_t bits) { return (static_cast<double>(bits >> 12) + 0.5) * 0x1.0p-52; }
}  // namespace detail

// CRTP mix-in: Derived provides `std::uint64_t next_u64()`.
template <typename Derived>
class RandomDraws {
 public:
  double uniform() { return detail::uniform_of(self().next_u64()); }            // [0, 1), 53 bits
  double uniform_open() { return detail::uniform_open_of(self().next_u64()); }  // (0, 1)

  // Standard normal by the ziggurat method in Doornik's form ("An Improved Ziggurat Method to
  // Generate Normal Random Samples", 2005): 128 layers of equal area, the base layer extending to
  // the tail beyond R. It is exact (rejection sampling, no approximation): a draw lands in a
  // layer's rectangle (about 99% of draws: one multiply and compare), in its wedge (accepted
  // against the density), or in the tail (Marsaglia's exact tail method). The layer index and the
  // uniform come from disjoint bits of one 64-bit draw, avoiding the correlation of Marsaglia and
  // Tsang's original.
  double normal() {
    using Z = detail::ZigguratTables;
    const Z& z = detail::ziggurat_tables();
    for (;;) {
      const std::uint64_t bits = self().next_u64();
      const double u = 2.0 * detail::uniform_of(bits) - 1.0;                  // [-1, 1), top 53 bits
      const int i = static_cast<int>(bits & (Z::kLayers - 1));                // low 7 bits
      if (std::fabs(u) < z.ratio[i]) return u * z.x[i];                       // inside the rectangle
      if (i == 0) {                                                           // the tail beyond R
        double t, y;
        do {
          t = std::log(uniform_open()) / Z::kR;
          y = std::log(uniform_open());
        } while (-2.0 * y < t * t);
        return u < 0 ? t - Z::kR : Z::kR - t;
      }
      const double x = u * z.x[i];                                            // the wedge
      const double f0 = std::exp(-0.5 * (z.x[i] * z.x[i] - x * x));
      const double f1 = std::exp(-0.5 * (z.x[i + 1] * z.x[i + 1] - x * x));
      if (f1 + uniform() * (f0 - f1) < 1.0) return x;
    }
  }

  std::uint64_t below(std::uint64_t n) {  // uniform integer in [0, n), unbiased
    if (n <= 1) return 0;
    const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
    for (;;) {
      const std::uint64_t v = self().next_u64();
      if (v < limit) return v % n;
    }
  }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

}  // namespace secpe
