#include "core/secret_rng.hpp"

#include <sodium.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

#include "core/chacha20.hpp"
#include "core/secret_normal_batch.hpp"

namespace secpe {
namespace {

void store_le64(unsigned char* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
}

// Keystream word t (bytes 8t .. 8t+7, little-endian) of block q of a chacha20::blocks batch.
std::uint64_t keystream_word(const std::uint32_t* words, std::size_t q, std::size_t t) {
  return std::uint64_t{words[q * 16 + 2 * t]} | std::uint64_t{words[q * 16 + 2 * t + 1]} << 32;
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

void SecretRng::normals(std::span<double> out) {
  const SecretZiggurat& z = secret_ziggurat();
  static const NormalPath path = fastest_normal_path();
  std::size_t k = 0;
  while (k < out.size()) {
    if (used_ == buffer_.size()) refill();
    const std::size_t n = std::min(out.size() - k, buffer_.size() - used_);
    const std::size_t inside = rectangle_normals(path, buffer_.data() + used_, n, z, out.data() + k);
    used_ += inside, k += inside;
    if (inside < n) out[k++] = normal();  // the edge: normal() reads that word again and goes on
  }
}

void SecretRng::refill() {
  static_assert(kBlocks == chacha20::kLanes, "one refill is one batch of blocks");
  std::uint64_t nonce[kBlocks], counter[kBlocks];
  std::uint32_t words[kBlocks * 16];
  for (std::size_t q = 0; q < kBlocks; ++q) nonce[q] = stream_, counter[q] = block_ + q;
  chacha20::blocks(subkey_, nonce, counter, words);
  // The blocks' keystream bytes in order: on a little-endian host, word t of block q is
  // keystream_word(words, q, t) already.
  static_assert(std::endian::native == std::endian::little, "the keystream's words are read in place");
  std::memcpy(buffer_.data(), words, sizeof words);
  block_ += kBlocks;
  used_ = 0;
}

}  // namespace secpe
