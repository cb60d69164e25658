#include "core/secret_rng.hpp"

#include <sodium.h>

#include <algorithm>
#include <stdexcept>

#include "core/chacha20.hpp"

namespace secpe {
namespace {

void store_le64(unsigned char* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
}

// Keystream word t (bytes 8t .. 8t+7, little-endian) of block q of a chacha20::blocks batch.
std::uint64_t keystream_word(const std::uint32_t* words, std::size_t q, std::size_t t) {
  return std::uint64_t{words[2 * t * chacha20::kLanes + q]} | std::uint64_t{words[(2 * t + 1) * chacha20::kLanes + q]} << 32;
}

}  // namespace

SecretStreamFamily::SecretStreamFamily(const NoiseKey& key, SecretStream purpose, std::uint64_t a, std::uint64_t b) {
  init_crypto();
  chacha20::check_against_libsodium();
  if (a >> 56) throw std::logic_error("SecretStreamFamily: coordinate a must be below 2^56");
  unsigned char nonce16[16];
  store_le64(nonce16, (std::uint64_t{static_cast<std::uint8_t>(purpose)} << 56) | a);
  store_le64(nonce16 + 8, b);
  crypto_core_hchacha20(subkey_.data(), nonce16, key.bytes.data(), nullptr);
}

void SecretStreamFamily::uniforms(std::span<const std::uint64_t> streams, std::span<double> out) const {
  if (out.size() != streams.size()) throw std::logic_error("SecretStreamFamily::uniforms: one output per stream");
  constexpr std::size_t kLanes = chacha20::kLanes;
  const std::uint64_t zero[kLanes] = {};  // block 0 of every stream
  std::uint32_t words[kLanes * 16];
  for (std::size_t b = 0; b < streams.size(); b += kLanes) {
    const std::size_t n = std::min(kLanes, streams.size() - b);
    std::uint64_t nonce[kLanes] = {};
    std::copy_n(streams.begin() + static_cast<std::ptrdiff_t>(b), n, nonce);
    chacha20::blocks(subkey_, nonce, zero, words);
    for (std::size_t q = 0; q < n; ++q) out[b + q] = detail::uniform_of(keystream_word(words, q, 0));
  }
}

std::array<std::uint32_t, 8> SecretStreamFamily::subkey_words() const {
  std::array<std::uint32_t, 8> out{};
  for (std::size_t w = 0; w < out.size(); ++w)
    for (int i = 3; i >= 0; --i) out[w] = (out[w] << 8) | subkey_[4 * w + static_cast<std::size_t>(i)];
  return out;
}

SecretRng::SecretRng(const std::array<unsigned char, 32>& subkey, std::uint64_t stream) : subkey_(subkey), stream_(stream) {}

void SecretRng::refill() {
  static_assert(kBlocks == chacha20::kLanes, "one refill is one batch of blocks");
  std::uint64_t nonce[kBlocks], counter[kBlocks];
  std::uint32_t words[kBlocks * 16];
  for (std::size_t q = 0; q < kBlocks; ++q) nonce[q] = stream_, counter[q] = block_ + q;
  chacha20::blocks(subkey_, nonce, counter, words);
  for (std::size_t q = 0; q < kBlocks; ++q)
    for (std::size_t t = 0; t < 8; ++t) buffer_[q * 8 + t] = keystream_word(words, q, t);
  block_ += kBlocks;
  used_ = 0;
}

}  // namespace secpe
