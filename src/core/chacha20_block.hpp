#pragma once
// One ChaCha20 block (Bernstein's original: 64-bit block counter, 64-bit nonce), written once for
// the host and for CUDA devices: a device draws the secret streams of core/secret_rng.hpp with it
// (one thread per stream), and the host's vectorised chacha20::blocks (core/chacha20.hpp) must
// agree with it bit for bit (tests/unit/secret_normal_test.cpp). Additions, xors and rotations.
#include <cstdint>

#include "core/host_device.hpp"

namespace secpe::chacha20 {

SECPE_HOST_DEVICE inline std::uint32_t rotl(std::uint32_t v, int n) { return (v << n) | (v >> (32 - n)); }

SECPE_HOST_DEVICE inline void quarter_round(std::uint32_t& a, std::uint32_t& b, std::uint32_t& c, std::uint32_t& d) {
  a += b, d = rotl(d ^ a, 16);
  c += d, b = rotl(b ^ c, 12);
  a += b, d = rotl(d ^ a, 8);
  c += d, b = rotl(b ^ c, 7);
}

// Block `counter` of the stream with `nonce` under the key's eight little-endian words: its
// sixteen words, little-endian as in the keystream's bytes.
SECPE_HOST_DEVICE inline void block(const std::uint32_t key[8], std::uint64_t nonce, std::uint64_t counter, std::uint32_t out[16]) {
  std::uint32_t in[16] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u};  // "expand 32-byte k"
  for (int w = 0; w < 8; ++w) in[4 + w] = key[w];
  in[12] = static_cast<std::uint32_t>(counter), in[13] = static_cast<std::uint32_t>(counter >> 32);
  in[14] = static_cast<std::uint32_t>(nonce), in[15] = static_cast<std::uint32_t>(nonce >> 32);
  std::uint32_t x[16];
  for (int w = 0; w < 16; ++w) x[w] = in[w];
  for (int round = 0; round < 10; ++round) {  // a column round and a diagonal round each
    quarter_round(x[0], x[4], x[8], x[12]);
    quarter_round(x[1], x[5], x[9], x[13]);
    quarter_round(x[2], x[6], x[10], x[14]);
    quarter_round(x[3], x[7], x[11], x[15]);
    quarter_round(x[0], x[5], x[10], x[15]);
    quarter_round(x[1], x[6], x[11], x[12]);
    quarter_round(x[2], x[7], x[8], x[13]);
    quarter_round(x[3], x[4], x[9], x[14]);
  }
  for (int w = 0; w < 16; ++w) out[w] = x[w] + in[w];
}

// The 64-bit words of one stream in order (word t: keystream bytes 8t .. 8t + 7, little-endian),
// as core/secret_rng.hpp's SecretRng draws them.
class BlockStream {
 public:
  SECPE_HOST_DEVICE BlockStream(const std::uint32_t key[8], std::uint64_t nonce) : nonce_(nonce) {
    for (int w = 0; w < 8; ++w) key_[w] = key[w];
  }
  SECPE_HOST_DEVICE std::uint64_t next_u64() {
    if (used_ == 8) {
      block(key_, nonce_, counter_++, words_);
      used_ = 0;
    }
    const std::uint64_t v = std::uint64_t{words_[2 * used_]} | std::uint64_t{words_[2 * used_ + 1]} << 32;
    ++used_;
    return v;
  }

 private:
  std::uint32_t key_[8];
  std::uint64_t nonce_;
  std::uint64_t counter_ = 0;
  std::uint32_t words_[16] = {};
  int used_ = 8;
};

}  // namespace secpe::chacha20
