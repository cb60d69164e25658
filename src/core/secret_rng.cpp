#include "core/secret_rng.hpp"

#include <sodium.h>

#include <bit>
#include <cstring>
#include <stdexcept>

namespace secpe {
namespace {

void store_le64(unsigned char* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
}

std::uint64_t load_le64(const unsigned char* in) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | in[i];
  return v;
}

}  // namespace

SecretStreamFamily::SecretStreamFamily(const NoiseKey& key, SecretStream purpose, std::uint64_t a, std::uint64_t b) {
  init_crypto();
  if (a >> 56) throw std::logic_error("SecretStreamFamily: coordinate a must be below 2^56");
  unsigned char nonce16[16];
  store_le64(nonce16, (std::uint64_t{static_cast<std::uint8_t>(purpose)} << 56) | a);
  store_le64(nonce16 + 8, b);
  crypto_core_hchacha20(subkey_.data(), nonce16, key.bytes.data(), nullptr);
}

double SecretStreamFamily::uniform(std::uint64_t c) const {
  unsigned char nonce[8], bytes[8] = {};
  store_le64(nonce, c);
  crypto_stream_chacha20_xor_ic(bytes, bytes, sizeof bytes, nonce, 0, subkey_.data());
  return detail::uniform_of(load_le64(bytes));
}

SecretRng::SecretRng(const std::array<unsigned char, 32>& subkey, std::uint64_t stream) : subkey_(subkey) {
  store_le64(nonce_.data(), stream);
}

void SecretRng::refill() {
  // The keystream is written over zeros in place; each word is its 8 bytes read little-endian.
  buffer_.fill(0);
  auto* bytes = reinterpret_cast<unsigned char*>(buffer_.data());
  crypto_stream_chacha20_xor_ic(bytes, bytes, sizeof buffer_, nonce_.data(), block_, subkey_.data());
  block_ += kBlocks;
  if constexpr (std::endian::native != std::endian::little)
    for (auto& word : buffer_) word = load_le64(reinterpret_cast<const unsigned char*>(&word));
  used_ = 0;
}

}  // namespace secpe
