#include "evolve/release_keys.hpp"

#include <fcntl.h>
#include <sodium.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <exception>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/secret_normal.hpp"
#include "evolve/generators/generator_kind.hpp"
#include "evolve/run_options.hpp"

namespace secpe {
namespace {

constexpr std::uint64_t kBlock = std::uint64_t{8} << 20;

void hash_block(int fd, std::uint64_t offset, std::uint64_t size, std::vector<unsigned char>& buffer, unsigned char out[32],
                const std::filesystem::path& path) {
  std::uint64_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, buffer.data() + done, size - done, static_cast<off_t>(offset + done));
    if (got <= 0) throw InputError("cannot read '" + path.string() + "' (to key the run's noise by its content)");
    done += static_cast<std::uint64_t>(got);
  }
  crypto_generichash(out, 32, buffer.data(), size, nullptr, 0);
}

std::string hex_of(const unsigned char* data, std::size_t n) {
  std::string hex(2 * n + 1, '\0');
  sodium_bin2hex(hex.data(), hex.size(), data, n);
  hex.pop_back();
  return hex;
}

std::string digest_of(const std::vector<std::string_view>& parts) {
  init_crypto();
  crypto_generichash_state state;
  crypto_generichash_init(&state, nullptr, 0, 32);
  for (const auto part : parts) {
    const std::uint64_t n = part.size();
    unsigned char length[8];
    for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(n >> (8 * i));
    crypto_generichash_update(&state, length, sizeof length);
    crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(part.data()), part.size());
  }
  unsigned char out[32];
  crypto_generichash_final(&state, out, sizeof out);
  return hex_of(out, sizeof out);
}

std::string_view bytes_of(const auto& value) { return {reinterpret_cast<const char*>(&value), sizeof value}; }

}  // namespace

nlohmann::ordered_json release_settings(const RunOptions& c) {
  // Left out, because the outputs are the same whatever they are: --out, --state-dir, --resume,
  // --kernel, --device, --threads, --shard-by, --verify (how and where the run computes), --quiet;
  // --eval-real (it only scores populations); --drop-leaking (it only leaves texts out of the
  // files written); the HTTP servers' URLs and client settings (moving a server changes no
  // result; what it returns is bound by the candidates' digest). Paths are replaced by the
  // content of their files (release_digest).
  // The generator kind's own settings; the key is named for the one kind that had any when the
  // keying was fixed (secpe release keys v1), so that the digests of earlier runs still hold.
  const nlohmann::ordered_json generator_settings = generator_kind(c.generator_kind).release_settings(c);
  return {{"keying", "secpe release keys v1"},
          {"noise_version", kSecretNoiseVersion},
          {"method", c.method},
          {"seed", c.seed},
          {"iterations", c.iterations},
          {"synthetic", c.synthetic},
          {"variations", c.variations},
          {"clusters", c.clusters},
          {"votes_per_centre", c.votes_per_centre},
          {"near_duplicate_share", c.near_duplicate_share},
          {"private_batch", c.private_batch},
          {"p", c.p},
          {"r", c.r},
          {"calibration", calibration_name(c.calibration)},
          {"max_holders_per_secret", c.max_holders_per_secret},
          {"sampling_rate", c.sampling_rate},
          {"epsilon", c.epsilon},
          {"delta", c.delta},
          {"metric", metric_name(c.metric)},
          {"clip_radius", c.clip_radius},
          {"kmeans_iterations", c.kmeans_iterations},
          {"kmeans_tolerance", c.kmeans_tolerance},
          {"kmeans_init", kmeans_init_name(c.kmeans_init)},
          {"threshold", c.augpe_threshold},
          {"augpe_voters", augpe_voters_name(c.augpe_voters)},
          {"max_words", c.generator.max_words},
          {"blank_fraction", c.generator.blank_fraction},
          {"label_weight", c.generator.label_weight},
          {"variation", variation_mode_name(c.generator.variation)},
          {"generator_labels", generator_labels_name(c.generator_labels)},
          {"generator_topics", c.generator_topics},
          {"generator_texts", c.generator_texts},
          {"http_generator", generator_settings}};
}

std::string file_digest(const Communicator& comm, const std::filesystem::path& path, int threads) {
  init_crypto();
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError("cannot read '" + path.string() + "' (to key the run's noise by its content)");
  const std::uint64_t blocks = (size + kBlock - 1) / kBlock;
  const auto workers = static_cast<std::size_t>(std::max(1, threads));
  const std::size_t all = workers * static_cast<std::size_t>(comm.size()), first = workers * static_cast<std::size_t>(comm.rank());
  std::vector<std::int64_t> words(blocks * 4, 0);  // each block's digest, from the one worker that hashed it
  std::vector<std::exception_ptr> failed(workers);
  run_chunks(static_cast<int>(workers), workers, [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t t = begin; t < end; ++t) {
      try {
        if (first + t >= blocks) continue;
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) throw InputError("cannot read '" + path.string() + "' (to key the run's noise by its content)");
        std::vector<unsigned char> buffer(static_cast<std::size_t>(std::min(kBlock, size)));
        try {
          for (std::uint64_t b = first + t; b < blocks; b += all) {
            hash_block(fd, b * kBlock, std::min(kBlock, size - b * kBlock), buffer, reinterpret_cast<unsigned char*>(&words[4 * b]), path);
          }
        } catch (...) {
          ::close(fd);
          throw;
        }
        ::close(fd);
      } catch (...) {
        failed[t] = std::current_exception();
      }
    }
  });
  const bool ok = std::none_of(failed.begin(), failed.end(), [](const auto& e) { return bool(e); });
  if (comm.allreduce_max(ok ? 0.0 : 1.0) > 0) {
    for (const auto& e : failed)
      if (e) std::rethrow_exception(e);
    throw InputError("cannot read '" + path.string() + "' on another rank (to key the run's noise by its content)");
  }
  comm.allreduce_sum(std::span<std::int64_t>(words));  // one nonzero contribution per word: exact
  return digest_of({"secpe file digest v1", bytes_of(size),
                    std::string_view(reinterpret_cast<const char*>(words.data()), words.size() * sizeof(std::int64_t))});
}

std::string release_digest(const Communicator& comm, const RunOptions& options, const NoiseNonce& nonce, const std::string& data_digest) {
  const int threads = options.threads > 0 ? options.threads : default_threads();
  const auto digest_or_none = [&](const std::filesystem::path& path) { return path.empty() ? std::string("none") : file_digest(comm, path, threads); };
  const std::string settings = release_settings(options).dump();
  const std::string budgets = digest_or_none(options.budgets_file), corpus = digest_or_none(options.generator_corpus),
                    prompts = digest_or_none(options.prompts);
  return digest_of({"secpe release digest v1", settings, data_digest, budgets, corpus, prompts,
                    std::string_view(reinterpret_cast<const char*>(nonce.bytes.data()), nonce.bytes.size())});
}

std::string release_digest(const Communicator& comm, const RunOptions& options, const NoiseNonce& nonce) {
  return release_digest(comm, options, nonce, file_digest(comm, options.data, options.threads > 0 ? options.threads : default_threads()));
}

NoiseKey run_release_key(const NoiseKey& noise_key, const std::string& release_digest) {
  return derive_noise_key(noise_key, "secpe release v1", release_digest);
}

NoiseKey secpe_label_key(const NoiseKey& run_key, std::size_t label, const MatrixF& public_centres,
                         std::span<const std::int64_t> public_sizes, double sigma) {
  const std::uint64_t l = label, rows = static_cast<std::uint64_t>(public_centres.rows()), cols = static_cast<std::uint64_t>(public_centres.cols());
  const std::string context = digest_of({"secpe", bytes_of(l), bytes_of(rows), bytes_of(cols), bytes_of(sigma),
                                         std::string_view(reinterpret_cast<const char*>(public_centres.data()), rows * cols * sizeof(float)),
                                         std::string_view(reinterpret_cast<const char*>(public_sizes.data()), public_sizes.size_bytes())});
  return derive_noise_key(run_key, "secpe label v1", context);
}

NoiseKey augpe_label_key(const NoiseKey& run_key, std::size_t label) {
  const std::uint64_t l = label;
  return derive_noise_key(run_key, "secpe label v1", digest_of({"augpe", bytes_of(l)}));
}

NoiseKey candidates_key(const NoiseKey& label_key, int iteration, const std::vector<std::string>& texts, const MatrixF& embeddings) {
  const std::int64_t t = iteration;
  const std::uint64_t rows = static_cast<std::uint64_t>(embeddings.rows()), cols = static_cast<std::uint64_t>(embeddings.cols());
  std::vector<std::string_view> parts{bytes_of(t), bytes_of(rows), bytes_of(cols),
                                      std::string_view(reinterpret_cast<const char*>(embeddings.data()), rows * cols * sizeof(float))};
  for (const auto& text : texts) parts.push_back(text);
  return derive_noise_key(label_key, "augpe candidates v1", digest_of(parts));
}

}  // namespace secpe
