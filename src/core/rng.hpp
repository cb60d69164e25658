#pragma once
// Counter-based random numbers (Philox4x32-10, Salmon et al., SC'11).
// Every random draw is a pure function of (seed, stream key, counter), so results do not depend on
// which rank computes them or in what order: the basis of byte-identical output across rank counts.
#include <array>
#include <cstdint>
#include <initializer_list>

namespace secpe {

// Purposes of random streams; part of every stream key so that streams never overlap.
enum class Stream : std::uint32_t {
  kCorpus = 1,          // demo corpus generator
  kSecretChoice = 2,    // random-word secret selection
  kKMeansInit = 3,      // k-means seeding (k-means||, k-means++, random)
  kSampling = 4,        // per-record private sampling (keyed by record id)
  kNoise = 5,           // calibrated Gaussian noise (rank 0 only)
  kGeneration = 6,      // built-in generator: initial samples and variations
  kAudit = 7,           // secpe audit: per-trial seeds and the no-secret model simulation
};

std::array<std::uint32_t, 4> philox4x32(std::array<std::uint32_t, 4> counter,
                                        std::array<std::uint32_t, 2> key);

// A stream of uniform and Gaussian draws identified by a seed and up to three 64-bit coordinates
// (for example label, iteration, record id). Draws are numbered; the n-th draw never changes.
class CounterRng {
 public:
  CounterRng(std::uint64_t seed, Stream purpose, std::uint64_t a = 0, std::uint64_t b = 0,
             std::uint64_t c = 0);

  std::uint64_t next_u64();
  double uniform();                       // in [0, 1), 53 random bits
  double uniform_open();                  // in (0, 1)
  double normal();                        // standard normal (exact ziggurat, see rng.cpp)
  std::uint64_t below(std::uint64_t n);   // uniform integer in [0, n), unbiased

 private:
  std::array<std::uint32_t, 2> key_;
  std::uint64_t stream_hi_;
  std::uint64_t counter_ = 0;
  std::array<std::uint32_t, 4> block_{};
  int used_ = 4;
};

// A single uniform draw in [0, 1) for (seed, purpose, a, b, c): used for Bernoulli sampling of
// record c at iteration b of label a, independent of sharding.
double keyed_uniform(std::uint64_t seed, Stream purpose, std::uint64_t a, std::uint64_t b,
                     std::uint64_t c);

// A 64-bit seed from the operating system, for runs without --seed.
std::uint64_t os_seed();

}  // namespace secpe
