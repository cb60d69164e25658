// Release keys (evolve/release_keys.hpp): one noise key never noises two different releases alike.
// The key derivation is keyed BLAKE2b as documented (checked against libsodium directly), every
// input of D changes the run key, Aug-PE's iteration key follows its candidates, the nonce record
// refuses a second use of (key, nonce) for another D, and private files and folders are private.
#include <gtest/gtest.h>
#include <sodium.h>
#include <sys/stat.h>

#include <fstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/secret_key.hpp"
#include "comms/communicator.hpp"
#include "evolve/pipeline.hpp"
#include "evolve/private_state.hpp"
#include "evolve/release_keys.hpp"

namespace secpe {
namespace {

NoiseKey key_of(unsigned char fill) {
  NoiseKey key;
  key.bytes.fill(fill);
  return key;
}

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("secpe_release_keys_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

unsigned mode_of(const std::filesystem::path& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

// derive_noise_key is BLAKE2b-256 keyed by the key over (le64 purpose length, purpose, context).
TEST(ReleaseKeys, DerivationIsKeyedBlake2bOverLengthPurposeAndContext) {
  const NoiseKey key = key_of(3);
  const std::string message = std::string("\x05\0\0\0\0\0\0\0", 8) + "hello" + "world";
  unsigned char expected[32];
  ASSERT_EQ(sodium_init() >= 0, true);
  crypto_generichash(expected, 32, reinterpret_cast<const unsigned char*>(message.data()), message.size(), key.bytes.data(), 32);
  const NoiseKey derived = derive_noise_key(key, "hello", "world");
  EXPECT_EQ(0, std::memcmp(derived.bytes.data(), expected, 32));
  // The length prefix keeps (purpose, context) pairs apart that concatenate alike.
  EXPECT_NE(derive_noise_key(key, "hellow", "orld").bytes, derived.bytes);
  EXPECT_NE(derive_noise_key(key_of(4), "hello", "world").bytes, derived.bytes);
  EXPECT_EQ(keyed_digest_hex(key, "hello", "world").size(), 64u);
}

TEST(ReleaseKeys, NonceIs32HexDigits) {
  const NoiseNonce nonce = noise_nonce_from_os();
  EXPECT_EQ(nonce.hex().size(), 32u);
  ASSERT_TRUE(parse_noise_nonce(nonce.hex()));
  EXPECT_EQ(parse_noise_nonce(nonce.hex())->bytes, nonce.bytes);
  EXPECT_NE(noise_nonce_from_os().bytes, nonce.bytes);
  EXPECT_FALSE(parse_noise_nonce("abc"));
  EXPECT_FALSE(parse_noise_nonce(std::string(32, 'g')));
  EXPECT_FALSE(parse_noise_nonce(std::string(34, 'a')));
}

// Every input of D moves the run key: the dataset's bytes (one byte of a private record is
// enough), each release option, the seed, the nonce; a path to the same content does not.
TEST(ReleaseKeys, EveryInputOfTheDigestChangesTheRunKey) {
  const LocalCommunicator self;
  const auto dir = fresh_dir("digest");
  std::filesystem::create_directories(dir);
  std::string bytes(20 << 20, 'x');  // three blocks: the digest is made of several
  std::ofstream(dir / "a.h5") << bytes;
  bytes[17 << 20] = 'y';
  std::ofstream(dir / "b.h5") << bytes;
  std::filesystem::copy_file(dir / "a.h5", dir / "copy.h5");
  EXPECT_NE(file_digest(self, dir / "a.h5", 3), file_digest(self, dir / "b.h5", 3));
  EXPECT_EQ(file_digest(self, dir / "a.h5", 1), file_digest(self, dir / "a.h5", 4));  // any thread count
  EXPECT_EQ(file_digest(self, dir / "a.h5", 2), file_digest(self, dir / "copy.h5", 2));
  EXPECT_THROW(file_digest(self, dir / "missing.h5", 2), InputError);

  RunOptions base;
  base.data = dir / "a.h5";
  base.threads = 2;
  const NoiseNonce nonce = noise_nonce_from_os();
  const std::string d = release_digest(self, base, nonce);
  EXPECT_EQ(d.size(), 64u);
  std::vector<RunOptions> others(11, base);
  others[0].data = dir / "b.h5";
  others[1].r = 5e-3;
  others[2].seed = 1;
  others[3].method = "augpe";
  others[4].generator.variation = VariationMode::kSpan;
  others[5].private_batch = 999;
  others[6].clusters = 21;
  others[7].calibration = CalibrationMode::kPaper;
  others[8].generator_labels = GeneratorLabels::kPooled;
  others[9].generator_topics = 20;
  others[10].votes_per_centre = 4;  // post-processing, but part of what the run releases
  for (std::size_t k = 0; k < others.size(); ++k) EXPECT_NE(release_digest(self, others[k], nonce), d) << "change " << k;
  EXPECT_NE(release_digest(self, base, noise_nonce_from_os()), d);
  RunOptions same = base;
  same.data = dir / "copy.h5";
  same.threads = 1;
  same.shard_by = ShardBy::kLabel;
  same.kernel = "reference";
  same.out = dir / "elsewhere";
  EXPECT_EQ(release_digest(self, same, nonce), d);
  const NoiseKey key = key_of(1);
  EXPECT_NE(run_release_key(key, d).bytes, run_release_key(key, release_digest(self, others[1], nonce)).bytes);
  EXPECT_NE(run_release_key(key, d).bytes, key.bytes);
  std::filesystem::remove_all(dir);
}

// Aug-PE's noise is indexed by candidate: another pool (other texts or embeddings) gets another
// key; SecPE's label key follows its public clusters and sigma.
TEST(ReleaseKeys, LabelAndCandidateKeysFollowTheirPublicInputs) {
  const NoiseKey run = key_of(2);
  MatrixF embeddings = MatrixF::Zero(3, 4);
  const std::vector<std::string> texts{"one", "two", "three"};
  const NoiseKey label = augpe_label_key(run, 0);
  const NoiseKey k = candidates_key(label, 1, texts, embeddings);
  EXPECT_EQ(candidates_key(label, 1, texts, embeddings).bytes, k.bytes);
  EXPECT_NE(candidates_key(label, 2, texts, embeddings).bytes, k.bytes);
  EXPECT_NE(candidates_key(label, 1, {"one", "two", "four"}, embeddings).bytes, k.bytes);
  EXPECT_NE(candidates_key(augpe_label_key(run, 1), 1, texts, embeddings).bytes, k.bytes);
  embeddings(2, 3) = 1e-7f;
  EXPECT_NE(candidates_key(label, 1, texts, embeddings).bytes, k.bytes);
  const std::vector<std::int64_t> sizes{4, 5, 6};
  const NoiseKey s = secpe_label_key(run, 0, embeddings, sizes, 2.0);
  EXPECT_NE(secpe_label_key(run, 0, embeddings, sizes, 2.5).bytes, s.bytes);
  EXPECT_NE(secpe_label_key(run, 0, embeddings, std::vector<std::int64_t>{4, 5, 7}, 2.0).bytes, s.bytes);
  EXPECT_NE(secpe_label_key(run, 1, embeddings, sizes, 2.0).bytes, s.bytes);
}

// The nonce record: a key file's nonce may repeat its own run, never make another one.
TEST(ReleaseKeys, NonceRecordRefusesASecondDigestForOneKeyAndNonce) {
  const auto dir = fresh_dir("nonces");
  ensure_private_folder(dir, "private state folder");
  const NoiseKey key = key_of(5);
  const NoiseNonce nonce = noise_nonce_from_os();
  EXPECT_TRUE(record_noise_nonce(dir, key, nonce, "digest-a"));
  EXPECT_TRUE(record_noise_nonce(dir, key, nonce, "digest-a"));   // the same run again
  EXPECT_FALSE(record_noise_nonce(dir, key, nonce, "digest-b"));  // another run, same key and nonce
  EXPECT_TRUE(record_noise_nonce(dir, key, noise_nonce_from_os(), "digest-b"));
  EXPECT_TRUE(record_noise_nonce(dir, key_of(6), nonce, "digest-b"));  // another key
  EXPECT_EQ(mode_of(noise_nonces_path(dir)), 0600u);
  std::ifstream in(noise_nonces_path(dir));
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  EXPECT_EQ(text.find(nonce.hex()), std::string::npos) << "the record holds a nonce in clear";
  EXPECT_EQ(text.find("digest-a"), std::string::npos);
  // Removing an entry by hand breaks the MAC: refused, not silently forgotten.
  auto record = nlohmann::ordered_json::parse(text);
  auto& nonces = record["keys"][noise_key_check(key)]["nonces"];
  nonces.erase(nonces.begin());
  std::ofstream(noise_nonces_path(dir)) << record.dump();
  EXPECT_THROW(record_noise_nonce(dir, key, nonce, "digest-b"), InputError);
  std::filesystem::remove_all(dir);
}

// Issue 25, item 7: private files are 0600 whatever the umask, and a private folder open to others
// is refused (with the chmod to run), never silently changed.
TEST(ReleaseKeys, PrivateFilesAndFoldersArePrivate) {
  const auto dir = fresh_dir("modes");
  const mode_t old = ::umask(0);
  ensure_private_folder(dir / "state", "private state folder");
  EXPECT_EQ(mode_of(dir / "state"), 0700u);
  write_file_atomically(dir / "state" / "private.json", [](std::ostream& o) { o << "{}"; }, FileAccess::kPrivate);
  EXPECT_EQ(mode_of(dir / "state" / "private.json"), 0600u);
  write_file_atomically(dir / "public.json", [](std::ostream& o) { o << "{}"; });
  EXPECT_EQ(mode_of(dir / "public.json"), 0666u);  // publishable outputs follow the umask
  ::umask(old);
  ::chmod((dir / "state").c_str(), 0755);
  try {
    ensure_private_folder(dir / "state", "private state folder");
    FAIL() << "a folder open to others was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mode 0755"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("chmod 700 '" + (dir / "state").string() + "'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(mode_of(dir / "state"), 0755u);  // left as it was
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace secpe
