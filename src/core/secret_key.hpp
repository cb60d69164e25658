#pragma once
// The secret noise key: 256 bits that key every private random draw (the Gaussian noise and the
// private sampling, core/secret_rng.hpp). Whoever holds it can regenerate the noise and subtract it
// from the released values, so it never reaches a publishable output: by default rank 0 takes it
// from the operating system's CSPRNG and keeps it only in the run's private state folder (for
// --resume); `--noise-key-file` supplies one for reproducible studies and tests.
#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace secpe {

struct NoiseKey {
  std::array<unsigned char, 32> bytes{};
};

// Initialises libsodium once (thread-safe); every user of its primitives calls it first.
void init_crypto();

// 256 bits from the operating system's CSPRNG (libsodium's randombytes).
NoiseKey noise_key_from_os();

// A key file is one line of 64 hexadecimal digits. It must be a regular file readable by its
// owner only (like an ssh key): anything else is an InputError naming the file, never its content.
NoiseKey read_noise_key_file(const std::filesystem::path& path);
// Creates PATH (which must not exist) with mode 0600 and writes the key.
void write_noise_key_file(const std::filesystem::path& path, const NoiseKey& key);

// A 128-bit keyed hash (BLAKE2b) of a fixed message: tells two keys apart, for the private
// checkpoint's check that --resume uses the same key. Never written to a publishable output.
std::string noise_key_check(const NoiseKey& key);

// The one key derivation: BLAKE2b-256 keyed by `key` of (purpose's length, purpose, context), so
// that no two (purpose, context) pairs can give the same input. Used for every subkey of the
// noise key: the release keys of a run (evolve/release_keys.hpp) and the MAC key of the private
// state folder. Knowing a derived key tells nothing about the key or its other derived keys
// (BLAKE2b is a PRF under its key).
NoiseKey derive_noise_key(const NoiseKey& key, std::string_view purpose, std::string_view context);
// A MAC: derive_noise_key's 256 bits as lower-case hex.
std::string keyed_digest_hex(const NoiseKey& key, std::string_view purpose, std::string_view data);

// A run's public nonce (128 bits): an input of every release key, so that one noise key can be
// reused across runs without two runs drawing related noise. Public: run.json records it.
struct NoiseNonce {
  std::array<unsigned char, 16> bytes{};
  std::string hex() const;
};
NoiseNonce noise_nonce_from_os();
// 32 hexadecimal digits; nullopt for anything else.
std::optional<NoiseNonce> parse_noise_nonce(std::string_view hex);

}  // namespace secpe
