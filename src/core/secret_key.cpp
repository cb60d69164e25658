#include "core/secret_key.hpp"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace secpe {
namespace {

std::string to_hex(const unsigned char* data, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (std::size_t i = 0; i < n; ++i) {
    s[2 * i] = digits[data[i] >> 4];
    s[2 * i + 1] = digits[data[i] & 15];
  }
  return s;
}

}  // namespace

void init_crypto() {
  static const bool ok = sodium_init() >= 0;
  if (!ok) throw std::runtime_error("libsodium failed to initialise");
}

NoiseKey noise_key_from_os() {
  init_crypto();
  NoiseKey key;
  randombytes_buf(key.bytes.data(), key.bytes.size());
  return key;
}

NoiseKey read_noise_key_file(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    throw InputError("noise key file: cannot read '" + path.string() + "' (not a regular file)");
  }
  if ((st.st_mode & 077) != 0) {
    throw InputError("noise key file: '" + path.string() + "' is readable by others; a noise key must be private (chmod 600 '" +
                     path.string() + "')");
  }
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (!in) throw InputError("noise key file: cannot read '" + path.string() + "'");
  std::string text = buffer.str();
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  NoiseKey key;
  const bool hex = text.size() == 2 * key.bytes.size() &&
                   text.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
  if (!hex) throw InputError("noise key file: '" + path.string() + "' is not a noise key (64 hexadecimal digits; make one with 'secpe keygen')");
  for (std::size_t i = 0; i < key.bytes.size(); ++i) key.bytes[i] = static_cast<unsigned char>(std::stoi(text.substr(2 * i, 2), nullptr, 16));
  return key;
}

void write_noise_key_file(const std::filesystem::path& path, const NoiseKey& key) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) throw InputError("cannot create the noise key file '" + path.string() + "' (it must be a new file)");
  const std::string line = to_hex(key.bytes.data(), key.bytes.size()) + "\n";
  const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) {
    std::filesystem::remove(path);
    throw InputError("cannot write the noise key file '" + path.string() + "'");
  }
}

std::string noise_key_check(const NoiseKey& key) {
  init_crypto();
  static constexpr unsigned char kMessage[] = "secpe noise key check v1";
  unsigned char out[16];
  crypto_generichash(out, sizeof out, kMessage, sizeof kMessage - 1, key.bytes.data(), key.bytes.size());
  return to_hex(out, sizeof out);
}

NoiseKey derive_noise_key(const NoiseKey& key, std::string_view purpose, std::string_view context) {
  init_crypto();
  crypto_generichash_state state;
  crypto_generichash_init(&state, key.bytes.data(), key.bytes.size(), 32);
  unsigned char length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(static_cast<std::uint64_t>(purpose.size()) >> (8 * i));
  crypto_generichash_update(&state, length, sizeof length);
  crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(purpose.data()), purpose.size());
  crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(context.data()), context.size());
  NoiseKey out;
  crypto_generichash_final(&state, out.bytes.data(), out.bytes.size());
  return out;
}

std::string keyed_digest_hex(const NoiseKey& key, std::string_view purpose, std::string_view data) {
  const NoiseKey mac = derive_noise_key(key, purpose, data);
  return to_hex(mac.bytes.data(), mac.bytes.size());
}

std::string NoiseNonce::hex() const { return to_hex(bytes.data(), bytes.size()); }

NoiseNonce noise_nonce_from_os() {
  init_crypto();
  NoiseNonce nonce;
  randombytes_buf(nonce.bytes.data(), nonce.bytes.size());
  return nonce;
}

std::optional<NoiseNonce> parse_noise_nonce(std::string_view hex) {
  NoiseNonce nonce;
  if (hex.size() != 2 * nonce.bytes.size() || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos) return std::nullopt;
  for (std::size_t i = 0; i < nonce.bytes.size(); ++i) {
    nonce.bytes[i] = static_cast<unsigned char>(std::stoi(std::string(hex.substr(2 * i, 2)), nullptr, 16));
  }
  return nonce;
}

}  // namespace secpe
