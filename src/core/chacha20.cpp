#include "core/chacha20.hpp"

#include <sodium.h>

#include <cstring>
#include <stdexcept>
#include <utility>

namespace secpe::chacha20 {
namespace {

using Lanes = std::uint32_t __attribute__((vector_size(64)));  // one state word of 16 blocks

// In place, by reference: no 512-bit vector crosses a function boundary (the ABI would depend on
// the clone's instructions).
[[gnu::always_inline]] inline void add_xor_rotate(Lanes& a, const Lanes& b, Lanes& d, int n) {
  a += b;
  d ^= a;
  d = (d << n) | (d >> (32 - n));
}

[[gnu::always_inline]] inline void quarter(Lanes& a, Lanes& b, Lanes& c, Lanes& d) {
  add_xor_rotate(a, b, d, 16);
  add_xor_rotate(c, d, b, 12);
  add_xor_rotate(a, b, d, 8);
  add_xor_rotate(c, d, b, 7);
}

// Swaps bit b between the row index (which register) and the lane index of the 16 x 16 matrix
// x[w][q], for every pair of rows i, i | b that differ in bit b only: row i keeps its lanes
// without bit b and takes row i | b's there, row i | b the reverse. After the four bits x[w][q]
// holds what x[q][w] held: 64 two-register shuffles in all, instead of 256 scalar stores.
template <unsigned b, std::size_t... q>
[[gnu::always_inline]] inline void swap_index_bit(Lanes* x, std::index_sequence<q...>) {
  for (unsigned i = 0; i < kLanes; ++i) {
    if (i & b) continue;
    const Lanes low = x[i], high = x[i | b];
    x[i] = __builtin_shufflevector(low, high, ((q & b) ? kLanes + q - b : q)...);
    x[i | b] = __builtin_shufflevector(low, high, ((q & b) ? kLanes + q : q + b)...);
  }
}

std::uint32_t le32(const unsigned char* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
}

}  // namespace

#if defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void blocks(const std::array<unsigned char, 32>& key, const std::uint64_t nonce[kLanes], const std::uint64_t counter[kLanes],
            std::uint32_t out[kLanes * 16]) {
  Lanes in[16];
  const std::uint32_t sigma[4] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u};  // "expand 32-byte k"
  for (int w = 0; w < 4; ++w) in[w] = Lanes{} + sigma[w];
  for (int w = 0; w < 8; ++w) in[4 + w] = Lanes{} + le32(key.data() + 4 * w);
  for (std::size_t q = 0; q < kLanes; ++q) {
    in[12][q] = static_cast<std::uint32_t>(counter[q]);
    in[13][q] = static_cast<std::uint32_t>(counter[q] >> 32);
    in[14][q] = static_cast<std::uint32_t>(nonce[q]);
    in[15][q] = static_cast<std::uint32_t>(nonce[q] >> 32);
  }
  Lanes x[16];
  for (int w = 0; w < 16; ++w) x[w] = in[w];
  for (int round = 0; round < 10; ++round) {  // 20 rounds: a column round and a diagonal round each
    quarter(x[0], x[4], x[8], x[12]);
    quarter(x[1], x[5], x[9], x[13]);
    quarter(x[2], x[6], x[10], x[14]);
    quarter(x[3], x[7], x[11], x[15]);
    quarter(x[0], x[5], x[10], x[15]);
    quarter(x[1], x[6], x[11], x[12]);
    quarter(x[2], x[7], x[8], x[13]);
    quarter(x[3], x[4], x[9], x[14]);
  }
  for (int w = 0; w < 16; ++w) x[w] += in[w];
  // x[w] holds word w of the sixteen blocks; a stream reads each block's words in order.
  constexpr auto lanes = std::make_index_sequence<kLanes>();
  swap_index_bit<1>(x, lanes), swap_index_bit<2>(x, lanes), swap_index_bit<4>(x, lanes), swap_index_bit<8>(x, lanes);
  for (std::size_t q = 0; q < kLanes; ++q) std::memcpy(out + q * 16, &x[q], sizeof x[q]);
}

void check_against_libsodium() {
  static const bool agrees = [] {
    std::array<unsigned char, 32> key{};
    for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<unsigned char>(31 * i + 7);
    std::uint64_t nonce[kLanes], counter[kLanes];
    for (std::size_t q = 0; q < kLanes; ++q) {
      nonce[q] = 0x0123456789abcdefull * (q + 1);
      counter[q] = q == 0 ? 0 : (std::uint64_t{1} << 32) - 8 + q;  // crosses the counter's low word
    }
    std::uint32_t ours[kLanes * 16];
    blocks(key, nonce, counter, ours);
    for (std::size_t q = 0; q < kLanes; ++q) {
      unsigned char n[8], theirs[64] = {};
      for (int i = 0; i < 8; ++i) n[i] = static_cast<unsigned char>(nonce[q] >> (8 * i));
      crypto_stream_chacha20_xor_ic(theirs, theirs, sizeof theirs, n, counter[q], key.data());
      for (int w = 0; w < 16; ++w)
        if (ours[q * 16 + w] != le32(theirs + 4 * w)) return false;
    }
    return true;
  }();
  if (!agrees) throw std::runtime_error("the vectorised ChaCha20 disagrees with libsodium's: this build must not draw noise");
}

}  // namespace secpe::chacha20
