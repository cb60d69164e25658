#pragma once
// Private random numbers: the noise of every release and the private sampling draw from ChaCha20
// keyed by the 256-bit secret noise key (core/secret_key.hpp), never from the public --seed.
// Like the public streams they are counter-based, so every value is a pure function of
// (key, purpose, coordinates, position) and results do not depend on the rank count:
//   stream (purpose, a, b, c) is XChaCha20 with the nonce (purpose << 56 | a, b, c), i.e. the
//   ChaCha20 keystream under the subkey HChaCha20(key, purpose << 56 | a, b) and nonce c.
// A family (purpose, a, b) derives its subkey once (libsodium's HChaCha20); stream c of it then
// costs one ChaCha20 block per 64 bytes, computed sixteen at a time (core/chacha20.hpp: checked
// against libsodium's ChaCha20 at first use and in the tests).
#include <array>
#include <cstdint>
#include <span>

#include "core/random_draws.hpp"
#include "core/secret_key.hpp"
#include "core/secret_normal.hpp"

namespace secpe {

// Purposes of private streams (a is below 2^56: the label).
enum class SecretStream : std::uint8_t {
  kSampling = 1,  // per-record Bernoulli sampling: family (label, iteration), stream = record id
  kNoise = 2,     // Gaussian noise: family (label, iteration), stream = centre or histogram
};

class SecretRng : public RandomDraws<SecretRng> {
 public:
  // Inline: the noise of a release draws millions of these, and the keystream costs ~3 ns each.
  std::uint64_t next_u64() {
    if (used_ == buffer_.size()) refill();
    return buffer_[used_++];
  }
  // The noise's normal: the secret ziggurat (core/secret_normal.hpp, kSecretNoiseVersion), the same
  // bits on a GPU; it hides RandomDraws::normal, which the public streams keep.
  double normal() { return secret_normal(*this, secret_ziggurat()); }
  // out.size() normals, exactly as that many calls of normal() give them, several words at a time
  // (the rectangle test on vector registers, the rare edge one draw at a time): a release's noise.
  void normals(std::span<double> out);

 private:
  friend class SecretStreamFamily;
  SecretRng(const std::array<unsigned char, 32>& subkey, std::uint64_t stream);
  void refill();

  static constexpr std::size_t kBlocks = 16;  // ChaCha20 blocks per refill: one batch of chacha20::blocks
  std::array<unsigned char, 32> subkey_;
  std::uint64_t stream_;
  std::uint64_t block_ = 0;                  // next ChaCha20 block counter
  std::array<std::uint64_t, kBlocks * 8> buffer_{};
  std::size_t used_ = kBlocks * 8;
};

class SecretStreamFamily {
 public:
  SecretStreamFamily(const NoiseKey& key, SecretStream purpose, std::uint64_t a, std::uint64_t b);
  SecretRng stream(std::uint64_t c) const { return SecretRng(subkey_, c); }
  // The first uniform in [0, 1) of stream streams[i] into out[i] for every i (one Bernoulli
  // decision about each record streams[i]), sixteen streams per ChaCha20 batch.
  void uniforms(std::span<const std::uint64_t> streams, std::span<double> out) const;
  // The family's subkey as eight little-endian words, for a device that draws its streams itself
  // (chacha20::BlockStream; SecPE's release on a GPU): a key of this (purpose, a, b) alone, never
  // the noise key. Its holder zeroes it after use.
  std::array<std::uint32_t, 8> subkey_words() const;

 private:
  std::array<unsigned char, 32> subkey_{};
};

}  // namespace secpe
