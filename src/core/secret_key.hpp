#pragma once
// The secret noise key: 256 bits that key every private random draw (the Gaussian noise and the
// private sampling, core/secret_rng.hpp). Whoever holds it can regenerate the noise and subtract it
// from the released values, so it never reaches a publishable output: by default rank 0 takes it
// from the operating system's CSPRNG and keeps it only in the run's private state folder (for
// --resume); `--noise-key-file` supplies one for reproducible studies and tests.
#include <array>
#include <filesystem>
#include <string>

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

}  // namespace secpe
