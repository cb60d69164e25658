#pragma once
// Release keys: no two different releases ever share noise, whatever the user reuses.
//
// A noise stream that depends only on (key, label, iteration, centre) lets anyone who sees two
// runs made with one key remove the noise: with the same normals scaled by sigma_1 and sigma_2
// (two budgets), M = (s2 T1 - s1 T2) / (s2 - s1) is the unnoised value; with the same sigma (other
// seed, a neighbouring dataset, other generated texts), the difference of the two releases is the
// difference of their unnoised values. So every secret stream (noise and private sampling) is keyed
// by a chain of subkeys of the noise key (core/secret_key.hpp, derive_noise_key):
//
//   run key     = KDF(noise key, "secpe release v1", D), D = BLAKE2b-256 of everything that
//                 determines the run's releases: the dataset file's bytes (private part included:
//                 D is only ever a PRF input, never written out or logged; a keyed check of it is
//                 kept in the private state folder), the content of every other input file
//                 (budgets, generator corpus, prompts), every option that changes a release or the
//                 candidates the releases are made for (release_settings lists them, and says
//                 why the others are left out), the public seed, the generator's and embedder's
//                 identity, and the run's public nonce (128 bits from the OS, or --noise-nonce to
//                 repeat a run exactly; recorded in run.json).
//   label key   = KDF(run key, "secpe label v1", label and the public inputs of its releases):
//                 SecPE: the public centres (clipped) and sizes and sigma, which with the private
//                 rows (in D) determine each iteration's release; Aug-PE: the label alone.
//   Aug-PE: each iteration's histogram is keyed by KDF(label key, "augpe candidates v1",
//                 iteration and a digest of the candidate texts and embeddings): its noise is
//                 indexed by candidate, so two runs whose generator or embedder returned other
//                 candidates (an HTTP model that does not repeat itself) would otherwise cancel.
//   SecPE's release does not depend on the candidates (only on the private rows, the public
//                 clusters, rho and sigma), so the label key covers it: two runs with the same key
//                 make the same release, which tells nothing more than one.
//
// The streams under the last key are those of core/secret_rng.hpp ((purpose, label, iteration,
// centre or record)). Identical inputs, key and nonce give the same keys on any number of ranks
// and either sharding, so outputs stay byte-identical; anything else gives unrelated noise, so one
// key may be reused across runs. The audit (`secpe audit`) keys its trials itself.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/matrix.hpp"
#include "core/secret_key.hpp"
#include "comms/communicator.hpp"

namespace secpe {

struct RunOptions;

// The options that determine a run's releases (see the header), one field each: hashed into D, and
// fields of the checkpoint's fingerprint (evolve/checkpoint.hpp), so that --resume names a setting
// that differs. Never published as such.
nlohmann::ordered_json release_settings(const RunOptions& options);

// BLAKE2b-256 (hex) of a file's bytes, hashed in 8 MiB blocks shared out over the ranks and
// `threads` threads each and combined in block order: the same for any rank and thread count.
// Collective. InputError naming the file when it cannot be read.
std::string file_digest(const Communicator& comm, const std::filesystem::path& path, int threads);

// D (hex). Collective: every rank gets the same value. Never written to an output or a log.
std::string release_digest(const Communicator& comm, const RunOptions& options, const NoiseNonce& nonce);
// The same with the dataset file's digest (file_digest of options.data) already made.
std::string release_digest(const Communicator& comm, const RunOptions& options, const NoiseNonce& nonce, const std::string& data_digest);

NoiseKey run_release_key(const NoiseKey& noise_key, const std::string& release_digest);
// SecPE: the label's public clusters (the clipped centres and sizes every release adds to) and sigma.
NoiseKey secpe_label_key(const NoiseKey& run_key, std::size_t label, const MatrixF& public_centres,
                         std::span<const std::int64_t> public_sizes, double sigma);
NoiseKey augpe_label_key(const NoiseKey& run_key, std::size_t label);
// Aug-PE: iteration `iteration`'s histogram, bound to its candidates (public).
NoiseKey candidates_key(const NoiseKey& label_key, int iteration, const std::vector<std::string>& texts, const MatrixF& embeddings);

}  // namespace secpe
