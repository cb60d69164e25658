#pragma once
// A noise key for the tests of the secret streams: bytes first, first + step, first + 2 step, ...
#include "core/secret_key.hpp"

namespace secpe::test {

inline NoiseKey counting_key(unsigned char first, unsigned step = 7) {
  NoiseKey key;
  for (std::size_t i = 0; i < key.bytes.size(); ++i) key.bytes[i] = static_cast<unsigned char>(first + step * i);
  return key;
}

}  // namespace secpe::test
