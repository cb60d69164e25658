#pragma once
// Public counter-based random numbers (Philox4x32-10, Salmon et al., SC'11), keyed by the public
// --seed. Every draw is a pure function of (seed, stream key, counter), so results do not depend on
// which rank computes them or in what order: the basis of byte-identical output across rank counts.
// These streams drive only what touches public data (the generator, k-means seeding on public
// records, demo corpora, simulations). The noise and the private sampling never use them: they
// draw from the secret key (core/secret_rng.hpp), since the seed is published in run.json.
#include <array>
#include <cstdint>
#include <initializer_list>

#include "core/random_draws.hpp"

namespace secpe {

// Purposes of public random streams; part of every stream key so that streams never overlap.
// (4 was the private sampling and is retired: private randomness is keyed by the secret key.)
enum class Stream : std::uint32_t {
  kCorpus = 1,          // demo corpus generator
  kSecretChoice = 2,    // random-word secret selection
  kKMeansInit = 3,      // k-means seeding (k-means||, k-means++, random)
  kSimulation = 5,      // simulated data in studies and tests (never a release's noise)
  kGeneration = 6,      // built-in generator: initial samples and variations
  kAudit = 7,           // secpe audit: per-trial seeds and the no-secret model simulation
  kEvaluation = 8,      // secpe eval: which synthetic and real records the sample-based metrics use
  kRandomSelection = 9, // --method random: the uniform selection of the no-private-data control
  kEmbedder = 10,       // the learned embedders' Gaussian test matrix (text/randomized_svd.hpp)
};

std::array<std::uint32_t, 4> philox4x32(std::array<std::uint32_t, 4> counter,
                                        std::array<std::uint32_t, 2> key);

// A stream of uniform and Gaussian draws identified by a seed and up to three 64-bit coordinates
// (for example label, iteration, record id). Draws are numbered; the n-th draw never changes.
class CounterRng : public RandomDraws<CounterRng> {
 public:
  CounterRng(std::uint64_t seed, Stream purpose, std::uint64_t a = 0, std::uint64_t b = 0,
             std::uint64_t c = 0);

  std::uint64_t next_u64();

 private:
  std::array<std::uint32_t, 2> key_;
  std::uint64_t stream_hi_;
  std::uint64_t counter_ = 0;
  std::array<std::uint32_t, 4> block_{};
  int used_ = 4;
};

// A single uniform draw in [0, 1) for (seed, purpose, a, b, c): a Bernoulli decision about public
// row c (k-means|| seeding) that does not depend on sharding.
double keyed_uniform(std::uint64_t seed, Stream purpose, std::uint64_t a, std::uint64_t b,
                     std::uint64_t c);

// A 64-bit public seed from the operating system, for runs without --seed.
std::uint64_t os_seed();

}  // namespace secpe
