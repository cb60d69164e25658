#include "core/rng.hpp"

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

double keyed_uniform(std::uint64_t seed, Stream purpose, std::uint64_t a, std::uint64_t b,
                     std::uint64_t c) {
  return CounterRng(seed, purpose, a, b, c).uniform();
}

std::uint64_t os_seed() {
  std::random_device rd;
  return (std::uint64_t{rd()} << 32) ^ rd();
}

}  // namespace secpe
