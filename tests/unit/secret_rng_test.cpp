// The secret-keyed random streams: XChaCha20's keystream (libsodium's, bit for bit), split into a
// subkey per family so that streams are cheap; exact normals; key files that stay private.
#include <gtest/gtest.h>
#include <sodium.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <cstring>
#include <fstream>
#include <limits>

#include "core/chacha20.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "core/secret_rng.hpp"
#include "privacy/gaussian.hpp"
#include "privacy/noisy_release.hpp"
#include "secret_test_util.hpp"

namespace secpe {
namespace {

using test::counting_key;

std::uint64_t le64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Stream (purpose, a, b, c) is exactly XChaCha20 under the key with nonce (purpose << 56 | a, b, c):
// the family's precomputed subkey changes nothing but the cost.
TEST(SecretRng, IsXChaCha20WithTheDocumentedNonce) {
  const NoiseKey key = counting_key(3);
  const std::uint64_t a = 42, b = 7, c = 123456789;
  unsigned char nonce[24];
  const std::uint64_t words[3] = {(std::uint64_t{2} << 56) | a, b, c};
  for (int w = 0; w < 3; ++w)
    for (int i = 0; i < 8; ++i) nonce[8 * w + i] = static_cast<unsigned char>(words[w] >> (8 * i));
  std::vector<unsigned char> expected(64 * 20, 0);
  crypto_stream_xchacha20(expected.data(), expected.size(), nonce, key.bytes.data());
  SecretRng rng = SecretStreamFamily(key, SecretStream::kNoise, a, b).stream(c);
  for (std::size_t i = 0; i < expected.size() / 8; ++i) ASSERT_EQ(rng.next_u64(), le64(expected.data() + 8 * i)) << i;
  // The sampling uniform of record c is the first word of stream c of the sampling family.
  const SecretStreamFamily sampling(key, SecretStream::kSampling, a, b);
  double u;
  sampling.uniforms(std::span<const std::uint64_t>(&c, 1), std::span<double>(&u, 1));
  EXPECT_EQ(u, sampling.stream(c).uniform());
}

// The sampling uniforms, sixteen records per ChaCha20 batch: each is the first word of its record's
// XChaCha20 stream (libsodium's), whatever the batch size and the record's place in it.
TEST(SecretRng, BatchedUniformsAreEachRecordsFirstWord) {
  const NoiseKey key = counting_key(5);
  const std::uint64_t a = 3, b = 11;
  std::vector<std::uint64_t> records;
  for (std::uint64_t c : {0ull, 1ull, 17ull, 0xFFFFFFFFull, 0x100000000ull, ~0ull}) records.push_back(c);
  for (std::uint64_t c = 0; c < 37; ++c) records.push_back(1000003 * c + 12345);
  for (std::size_t n : {std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{17}, records.size()}) {
    std::vector<double> batched(n);
    const SecretStreamFamily sampling(key, SecretStream::kSampling, a, b);
    sampling.uniforms(std::span<const std::uint64_t>(records).first(n), batched);
    for (std::size_t i = 0; i < n; ++i) {
      unsigned char nonce[24], first[8] = {};
      const std::uint64_t words[3] = {(std::uint64_t{1} << 56) | a, b, records[i]};
      for (int w = 0; w < 3; ++w)
        for (int j = 0; j < 8; ++j) nonce[8 * w + j] = static_cast<unsigned char>(words[w] >> (8 * j));
      crypto_stream_xchacha20(first, sizeof first, nonce, key.bytes.data());
      ASSERT_EQ(batched[i], static_cast<double>(le64(first) >> 11) * 0x1.0p-53) << n << " " << i;
      ASSERT_EQ(batched[i], sampling.stream(records[i]).uniform());
    }
  }
  EXPECT_NO_THROW(chacha20::check_against_libsodium());
}

TEST(SecretRng, DifferentKeysPurposesAndCoordinatesGiveDifferentStreams) {
  const auto first = [](const NoiseKey& k, SecretStream p, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    return SecretStreamFamily(k, p, a, b).stream(c).next_u64();
  };
  const NoiseKey k1 = counting_key(1), k2 = counting_key(2);
  const auto base = first(k1, SecretStream::kNoise, 1, 2, 3);
  EXPECT_EQ(base, first(k1, SecretStream::kNoise, 1, 2, 3));
  EXPECT_NE(base, first(k2, SecretStream::kNoise, 1, 2, 3));
  EXPECT_NE(base, first(k1, SecretStream::kSampling, 1, 2, 3));
  EXPECT_NE(base, first(k1, SecretStream::kNoise, 2, 2, 3));
  EXPECT_NE(base, first(k1, SecretStream::kNoise, 1, 3, 3));
  EXPECT_NE(base, first(k1, SecretStream::kNoise, 1, 2, 4));
}

// The noise is the privacy guarantee: the secret sampler must be exactly N(0, 1), tails included.
TEST(SecretRng, NormalMatchesPhiIncludingTheTails) {
  const int n = 2000000;
  std::vector<double> x(n);
  const SecretStreamFamily family(counting_key(9), SecretStream::kNoise, 1, 1);
  for (int s = 0; s < 20; ++s) {
    SecretRng rng = family.stream(static_cast<std::uint64_t>(s));
    for (int i = 0; i < n / 20; ++i) x[static_cast<std::size_t>(s * (n / 20) + i)] = rng.normal();
  }
  std::sort(x.begin(), x.end());
  double ks = 0.0;
  for (int i = 0; i < n; ++i) {
    const double cdf = normal_cdf(x[static_cast<std::size_t>(i)]);
    ks = std::max({ks, std::fabs(cdf - double(i) / n), std::fabs(cdf - double(i + 1) / n)});
  }
  EXPECT_LT(ks, 1.63 / std::sqrt(double(n)));
  for (double t : {3.0, 3.442619855899, 4.0}) {
    const double expected = n * normal_sf(t), tol = 4.0 * std::sqrt(expected);
    EXPECT_NEAR(double(x.end() - std::upper_bound(x.begin(), x.end(), t)), expected, tol) << t;
    EXPECT_NEAR(double(std::lower_bound(x.begin(), x.end(), -t) - x.begin()), expected, tol) << -t;
  }
}

TEST(NoiseKeyFile, RoundTripsAndIsPrivate) {
  const auto dir = std::filesystem::temp_directory_path() / ("secpe_key_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "k.key";
  const NoiseKey key = noise_key_from_os();
  write_noise_key_file(path, key);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(read_noise_key_file(path).bytes, key.bytes);
  EXPECT_THROW(write_noise_key_file(path, key), InputError);  // never overwrites
  EXPECT_NE(noise_key_check(key), noise_key_check(counting_key(1)));
  EXPECT_EQ(noise_key_check(key).size(), 32u);
  ::chmod(path.c_str(), 0644);
  EXPECT_THROW(read_noise_key_file(path), InputError);  // readable by others: refused
  std::ofstream(dir / "bad.key") << "0123\n";
  ::chmod((dir / "bad.key").c_str(), 0600);
  try {
    read_noise_key_file(dir / "bad.key");
    FAIL() << "a short key was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find("0123"), std::string::npos) << "the error quotes the file's content";
  }
  EXPECT_THROW(read_noise_key_file(dir), InputError);
  std::filesystem::remove_all(dir);
}

TEST(ReleaseGrid, PowerOfTwoBelowAFourThousandthOfTheNoise) {
  EXPECT_EQ(release_grid(0.0), 0.0);
  EXPECT_EQ(release_grid(4096.0), 1.0);
  EXPECT_EQ(release_grid(4095.0), 0.5);
  EXPECT_EQ(release_grid(1.0), std::ldexp(1.0, -12));
  for (double s : {1e-6, 0.013, 0.7, 3.0, 250.0}) {
    const double g = release_grid(s);
    EXPECT_LE(g, s / 4096);
    EXPECT_GT(2 * g, s / 4096);
    const double v = snap_to_release_grid(12.3456789, s);
    EXPECT_EQ(std::fmod(v, g), 0.0);
    EXPECT_LE(std::fabs(v - 12.3456789), g / 2);
  }
  EXPECT_EQ(snap_to_release_grid(1.2345, 0.0), 1.2345);
}

// The library-free rounding is std::nearbyint bit for bit (the sign of zero included), so the
// snapped releases are those of nearbyint(noisy / grid) * grid.
TEST(ReleaseGrid, RoundHalfEvenIsNearbyintBitForBit) {
  const auto same_bits = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  std::vector<double> xs = {0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.3, -0.3, 0.7, -0.7, 0x1p51 - 0.5, -(0x1p51 - 0.5), 0x1p52 - 0.5, -(0x1p52 - 0.5), 0x1p51 + 0.5, 0x1p51 + 1.5,
                            0x1p51, 0x1p52 + 1, 0x1p60, -0x1p60, 4.9e-324, -4.9e-324, std::numeric_limits<double>::infinity()};
  CounterRng rng(7, Stream::kGeneration, 0, 0, 0);
  for (int i = 0; i < 100000; ++i) xs.push_back(std::ldexp(rng.normal(), static_cast<int>(rng.below(130)) - 70));
  for (const double x : xs) EXPECT_TRUE(same_bits(round_half_even(x), std::nearbyint(x))) << std::hexfloat << x;
  EXPECT_TRUE(std::isnan(round_half_even(std::numeric_limits<double>::quiet_NaN())));
  for (const double s : {1e-307, 1e-300, 1e-6, 0.013, 3.0, 250.0, 1e300}) {  // subnormal and huge grids too
    const double g = release_grid(s);
    for (int i = 0; i < 1000; ++i) {
      const double noisy = 40.0 * s * rng.normal();
      EXPECT_TRUE(same_bits(snap_to_release_grid(noisy, s), std::nearbyint(noisy / g) * g)) << std::hexfloat << noisy;
    }
  }
}

}  // namespace
}  // namespace secpe
