#include "core/digest.hpp"

#include <sodium.h>

#include <mutex>
#include <stdexcept>

namespace secpe {

std::string blake2b_256_hex(std::string_view data) {
  static std::once_flag once;
  std::call_once(once, [] {
    if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
  });
  unsigned char digest[32];
  crypto_generichash(digest, sizeof digest, reinterpret_cast<const unsigned char*>(data.data()), data.size(), nullptr, 0);
  char hex[2 * sizeof digest + 1];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  return hex;
}

}  // namespace secpe
