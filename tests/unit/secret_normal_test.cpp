// The secret noise as a GPU draws it, run on the CPU: ChaCha20's scalar block (the device's)
// against the vectorised one (the host's), the device's word streams and normals against
// SecretRng's, and a whole release of SecPE's centres by the device's code
// (compute/impl/noisy_means_label.hpp) against the host's release (its normals drawn in batches),
// bit for bit; the host's vector paths of the normal against its scalar one. Also what version 2
// of the noise (correctly rounded exp and log) changed against version 1 (the C library's).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "compute/cpu/centre_lanes.hpp"
#include "compute/nearest.hpp"
#include "compute/impl/noisy_means_label.hpp"
#include "core/chacha20.hpp"
#include "core/random_draws.hpp"
#include "core/secret_normal_batch.hpp"
#include "core/secret_rng.hpp"
#include "secret_test_util.hpp"

namespace secpe {
namespace {

NoiseKey counting_key(unsigned char first) { return test::counting_key(first, 13); }

TEST(SecretNormal, ScalarChaCha20BlockIsTheVectorisedOne) {
  std::array<unsigned char, 32> key{};
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<unsigned char>(5 * i + 1);
  std::uint32_t words[8];
  for (int w = 0; w < 8; ++w) std::memcpy(&words[w], key.data() + 4 * w, 4);  // little-endian host
  std::uint64_t nonce[chacha20::kLanes], counter[chacha20::kLanes];
  for (std::size_t q = 0; q < chacha20::kLanes; ++q) nonce[q] = 0x9e3779b97f4a7c15ull * (q + 3), counter[q] = (std::uint64_t{1} << 32) - 5 + q;
  std::uint32_t lanes[chacha20::kLanes * 16];
  chacha20::blocks(key, nonce, counter, lanes);
  for (std::size_t q = 0; q < chacha20::kLanes; ++q) {
    std::uint32_t one[16];
    chacha20::block(words, nonce[q], counter[q], one);
    for (int w = 0; w < 16; ++w) ASSERT_EQ(one[w], lanes[q * 16 + w]) << q << " " << w;
  }
}

TEST(SecretNormal, DeviceStreamsAndNormalsAreSecretRngs) {
  const SecretStreamFamily family(counting_key(3), SecretStream::kNoise, 17, 4);
  const std::array<std::uint32_t, 8> key = family.subkey_words();
  for (const std::uint64_t c : {0ull, 1ull, 599ull, 123456789ull}) {
    SecretRng host = family.stream(c);
    chacha20::BlockStream device(key.data(), c);
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(host.next_u64(), device.next_u64()) << c << " " << i;
    host = family.stream(c);
    StreamNormals normals{chacha20::BlockStream(key.data(), c), &secret_ziggurat()};
    for (int i = 0; i < 200000; ++i) {
      const double a = host.normal(), b = normals.normal();
      ASSERT_EQ(std::memcmp(&a, &b, sizeof a), 0) << c << " " << i;
    }
  }
}

// Every vector path of the rectangle test that this CPU runs against the scalar one: the same
// normals and the same first draw outside, wherever in a register that draw falls.
TEST(SecretNormal, EveryRectanglePathIsTheScalarOne) {
  const SecretStreamFamily family(counting_key(6), SecretStream::kNoise, 1, 2);
  SecretRng rng = family.stream(7);
  std::vector<std::uint64_t> words(300);
  for (std::uint64_t& w : words) w = rng.next_u64();
  const SecretZiggurat& z = secret_ziggurat();
  int paths = 0;
  for (const NormalPath path : {NormalPath::kAvx2, NormalPath::kAvx512}) {
    if (!runs_here(path)) continue;
    ++paths;
    for (std::size_t outside = 0; outside <= 40; ++outside) {  // a draw outside at every position, or none (40)
      std::vector<std::uint64_t> w = words;
      if (outside < 40) w[outside] = ~std::uint64_t{0} - 127 + outside % 128;  // u = 1 - 2^-52: outside every layer
      for (std::size_t n : {outside, outside + 1, outside + 9, std::size_t{300}}) {
        std::vector<double> fast(n + 1, -7.0), plain(n + 1, -7.0);  // never empty: memcmp wants real pointers
        const std::size_t a = rectangle_normals(path, w.data(), n, z, fast.data());
        const std::size_t b = rectangle_normals(NormalPath::kScalar, w.data(), n, z, plain.data());
        ASSERT_EQ(a, b) << static_cast<int>(path) << " " << outside << " " << n;
        ASSERT_EQ(std::memcmp(fast.data(), plain.data(), sizeof(double) * a), 0) << static_cast<int>(path) << " " << outside;
      }
    }
  }
  std::printf("rectangle paths compared with the scalar one here: %d\n", paths);
}

// SecretRng::normals is normal() called as often, whatever the lengths asked for and however the
// calls alternate with single draws.
TEST(SecretNormal, BatchedNormalsAreOneAtATime) {
  const SecretStreamFamily family(counting_key(9), SecretStream::kNoise, 4, 5);
  SecretRng batched = family.stream(11), single = family.stream(11);
  for (const std::size_t n : {1, 7, 8, 9, 127, 128, 129, 769, 5000, 0, 3}) {
    std::vector<double> out(n);
    batched.normals(out);
    for (std::size_t i = 0; i < n; ++i) {
      const double x = single.normal();
      ASSERT_EQ(std::memcmp(&x, &out[i], sizeof x), 0) << n << " " << i;
    }
    const double a = batched.normal(), b = single.normal();
    ASSERT_EQ(std::memcmp(&a, &b, sizeof a), 0) << n;
  }
}

// A centre's release eight coordinates at a time (where this CPU runs AVX-512) against
// release_centre one at a time: every value bit for bit, with and without noise, a subnormal
// grid, sums beyond 2^53 (rounded when converted) and noisy values beyond 2^52 (not rounded).
TEST(SecretNormal, CentreLanesAreReleaseCentre) {
  const SecretStreamFamily family(counting_key(2), SecretStream::kNoise, 8, 1);
  for (const long long d : {5LL, 37LL, 768LL}) {
    std::vector<double> normals(static_cast<std::size_t>(d) + 1);
    std::vector<std::int64_t> sum(static_cast<std::size_t>(d));
    std::vector<float> pub(static_cast<std::size_t>(d)), fast(pub.size()), plain(pub.size());
    for (std::uint64_t c = 0; c < 40; ++c) {
      SecretRng rng = family.stream(c);
      rng.normals(normals);
      for (std::size_t j = 0; j < sum.size(); ++j) {
        sum[j] = static_cast<std::int64_t>(rng.next_u64() >> (c % 3 == 0 ? 1 : 20)) * (j % 2 ? -1 : 1);
        pub[j] = static_cast<float>(rng.uniform() - 0.5);
      }
      if (c % 4 == 1) normals[3] = 1e60, normals[4] = -1e60;  // noisy values beyond 2^52
      const double sigma = c % 5 == 0 ? 0.0 : c % 5 == 1 ? 1e-310 : 0.3 * static_cast<double>(c % 7 + 1);
      const double n_pub = static_cast<double>(c % 6), m_pri = static_cast<double>(c % 4);
      const double a = release_centre_drawn(normals.data(), sum.data(), pub.data(), d, n_pub, m_pri, sigma, 0.9, fast.data());
      const double b = release_centre_drawn_reference(normals.data(), sum.data(), pub.data(), d, n_pub, m_pri, sigma, 0.9, plain.data());
      ASSERT_EQ(std::memcmp(&a, &b, sizeof a), 0) << d << " " << c;
      ASSERT_EQ(std::memcmp(fast.data(), plain.data(), sizeof(float) * pub.size()), 0) << d << " " << c << " sigma " << sigma;
    }
  }
}

// Version 2 of the noise differs from version 1 only where the C library's exp or log is not
// correctly rounded: the tables are the same, and a tiny share of draws (if any) changes.
TEST(SecretNormal, VersionTwoChangesAlmostNothing) {
  const detail::ZigguratTables& v1 = detail::ziggurat_tables();
  const SecretZiggurat& v2 = secret_ziggurat();
  for (int i = 0; i <= SecretZiggurat::kLayers; ++i) EXPECT_LE(std::fabs(v1.x[i] - v2.x[i]), std::fabs(v1.x[i]) * 0x1p-51) << i;
  const SecretStreamFamily family(counting_key(8), SecretStream::kNoise, 2, 9);
  SecretRng a = family.stream(5), b = family.stream(5);
  int differ = 0;
  const int n = 1000000;
  for (int i = 0; i < n; ++i) differ += a.normal() != b.RandomDraws<SecretRng>::normal() ? 1 : 0;
  EXPECT_LE(differ, n / 10000) << differ << " of " << n << " normals differ between the versions";
}

// A release of two labels (one with rows sent by another rank) by the device's code, run on the
// CPU, against the host's noisy_centre_means: every centre and size bit for bit.
TEST(SecretNormal, DeviceReleaseCodeIsTheHostsRelease) {
  const Eigen::Index d = 37, k = 9, n_rows = 60;
  MatrixF rows = MatrixF::Random(n_rows, d) * 0.2f, arrived = MatrixF::Random(3, d) * 0.2f, pub = MatrixF::Random(k, d) * 0.1f;
  const std::vector<std::int64_t> public_sizes{0, 1, 2, 3, 50, 7, 9, 1000, 4};
  // Centres 2 .. 8 are this rank's (first = 2): members by centre, arrived rows as -1 - v.
  const std::vector<std::int64_t> members{0, 5, -1, 7, 7, 12, -3, -2, 40, 41, 42, 43, 59};
  const std::vector<std::size_t> start{0, 3, 3, 5, 6, 9, 12, 13};
  const KeptRows kept_rows(rows), kept_pub(pub);
  const SecretStreamFamily noise(counting_key(4), SecretStream::kNoise, 6, 2);
  MatrixF host_centres(7, d), device_centres(7, d);
  std::vector<double> host_sizes(7), device_sizes(7);
  for (const double sigma : {0.0, 0.7, 3.5}) {
    const NoisyMeansTask task{.rows = &kept_rows, .arrived = &arrived, .members = members, .start = start, .public_part = &kept_pub,
                                 .public_sizes = public_sizes, .first = 2, .noise = &noise, .sigma = sigma, .clip_radius = 0.9,
                                 .centres = &host_centres, .sizes = host_sizes};
    noisy_means_on_host(task, 0, 7, 2);
    NoisyMeansLabel label{{}, rows.data(), arrived.data(), members.data(), nullptr, pub.data(), public_sizes.data(), 2, 7, 0, d, sigma, 0.9,
                       device_centres.data(), device_sizes.data()};
    const std::vector<std::int64_t> start64(start.begin(), start.end());
    label.start = start64.data();
    const std::array<std::uint32_t, 8> key = noise.subkey_words();
    std::copy(key.begin(), key.end(), label.key);
    for (std::int64_t g = 0; g < 7; ++g) noisy_means_of_centre(label, g, &secret_ziggurat());
    EXPECT_EQ(std::memcmp(host_centres.data(), device_centres.data(), sizeof(float) * 7 * d), 0) << sigma;
    EXPECT_EQ(std::memcmp(host_sizes.data(), device_sizes.data(), sizeof(double) * 7), 0) << sigma;
  }
  const NoisyMeansLabel labels[3] = {{.centre0 = 0}, {.centre0 = 7}, {.centre0 = 7}};
  EXPECT_EQ(label_of(labels, 3, 0), 0);
  EXPECT_EQ(label_of(labels, 3, 6), 0);
  EXPECT_EQ(label_of(labels, 3, 7), 2);  // an empty label (no centre) is skipped
}

}  // namespace
}  // namespace secpe
