#include "core/rng.hpp"

#include <cmath>
#include <random>

namespace secpe {
namespace {

constexpr std::uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr std::uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

std::array<std::uint32_t, 4> philox4x32(std::array<std::uint32_t, 4> ctr,
                                        std::array<std::uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = std::uint64_t{kMul0} * ctr[0];
    const std::uint64_t p1 = std::uint64_t{kMul1} * ctr[2];
    ctr = {static_cast<std::uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0], static_cast<std::uint32_t>(p1),
           static_cast<std::uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1], static_cast<std::uint32_t>(p0)};
    key[0] += kWeyl0;
    key[1] += kWeyl1;
  }
  return ctr;
}

CounterRng::CounterRng(std::uint64_t seed, Stream purpose, std::uint64_t a, std::uint64_t b,
                       std::uint64_t c) {
  // Key from the seed; the 64-bit high half of the counter from a hash of the coordinates.
  const std::uint64_t k = splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(purpose)));
  key_ = {static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(k >> 32)};
  stream_hi_ = splitmix64(splitmix64(splitmix64(a) ^ b) ^ c);
}

std::uint64_t CounterRng::next_u64() {
  if (used_ >= 4) {
    block_ = philox4x32({static_cast<std::uint32_t>(counter_), static_cast<std::uint32_t>(counter_ >> 32),
                         static_cast<std::uint32_t>(stream_hi_), static_cast<std::uint32_t>(stream_hi_ >> 32)},
                        key_);
    ++counter_;
    used_ = 0;
  }
  const std::uint64_t v = (std::uint64_t{block_[used_]} << 32) | block_[used_ + 1];
  used_ += 2;
  return v;
}

double CounterRng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double CounterRng::uniform_open() { return (static_cast<double>(next_u64() >> 12) + 0.5) * 0x1.0p-52; }

// Standard normal by the ziggurat method in Doornik's form ("An Improved Ziggurat Method to
// Generate Normal Random Samples", 2005): 128 layers of equal area V, the base layer extending to
// the tail beyond R. It is exact (rejection sampling, no approximation): a draw lands in a layer's
// rectangle (about 99% of draws: one multiply and compare), in its wedge (accepted against the
// density), or in the tail (Marsaglia's exact tail method). The layer index and the uniform come
// from disjoint bits of one 64-bit draw, avoiding the correlation of Marsaglia and Tsang's original.
namespace {

constexpr int kZigLayers = 128;
constexpr double kZigR = 3.442619855899;          // start of the tail
constexpr double kZigV = 9.91256303526217e-3;     // area of each layer

struct ZigguratTables {
  double x[kZigLayers + 1];
  double ratio[kZigLayers];
  ZigguratTables() {
    double f = std::exp(-0.5 * kZigR * kZigR);
    x[0] = kZigV / f;  // the base layer as a rectangle of area V
    x[1] = kZigR;
    x[kZigLayers] = 0.0;
    for (int i = 2; i < kZigLayers; ++i) {
      x[i] = std::sqrt(-2.0 * std::log(kZigV / x[i - 1] + f));
      f = std::exp(-0.5 * x[i] * x[i]);
    }
    for (int i = 0; i < kZigLayers; ++i) ratio[i] = x[i + 1] / x[i];
  }
};

const ZigguratTables& ziggurat() {
  static const ZigguratTables tables;
  return tables;
}

}  // namespace

double CounterRng::normal() {
  const ZigguratTables& z = ziggurat();
  for (;;) {
    const std::uint64_t bits = next_u64();
    const double u = 2.0 * (static_cast<double>(bits >> 11) * 0x1.0p-53) - 1.0;  // [-1, 1), top 53 bits
    const int i = static_cast<int>(bits & (kZigLayers - 1));                     // low 7 bits
    if (std::fabs(u) < z.ratio[i]) return u * z.x[i];                            // inside the rectangle
    if (i == 0) {                                                                // the tail beyond R
      double t, y;
      do {
        t = std::log(uniform_open()) / kZigR;
        y = std::log(uniform_open());
      } while (-2.0 * y < t * t);
      return u < 0 ? t - kZigR : kZigR - t;
    }
    const double x = u * z.x[i];                                                 // the wedge
    const double f0 = std::exp(-0.5 * (z.x[i] * z.x[i] - x * x));
    const double f1 = std::exp(-0.5 * (z.x[i + 1] * z.x[i + 1] - x * x));
    if (f1 + uniform() * (f0 - f1) < 1.0) return x;
  }
}

std::uint64_t CounterRng::below(std::uint64_t n) {
  if (n <= 1) return 0;
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
  for (;;) {
    const std::uint64_t v = next_u64();
    if (v < limit) return v % n;
  }
}

double keyed_uniform(std::uint64_t seed, Stream purpose, std::uint64_t a, std::uint64_t b,
                     std::uint64_t c) {
  return CounterRng(seed, purpose, a, b, c).uniform();
}

std::uint64_t os_seed() {
  std::random_device rd;
  return (std::uint64_t{rd()} << 32) ^ rd();
}

}  // namespace secpe
