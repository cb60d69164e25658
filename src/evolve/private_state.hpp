#pragma once
// The run's private state folder (default OUT.state, beside the output folder; mode 0700): what
// --resume needs and nobody else may see. It holds the checkpoint and progress (MAC'd:
// evolve/checkpoint.hpp), the calibration's per-label inputs (calibration.json), the leak scan's
// exact-secret counts, the timings of private work (timings.json: evolve/run_timings.hpp), the
// noise nonces a key file has been used with (noise-nonces.json) and, when the noise key came
// from the operating system, the key itself (noise.key). Every file in it is mode 0600. The output folder is publishable; this folder never is. When a run completes, its
// OS-drawn key is deleted: nothing is left that could regenerate the noise.
#include <filesystem>
#include <optional>
#include <string>

#include "core/secret_key.hpp"

namespace secpe {

struct PrivateState {
  std::filesystem::path dir;
  NoiseKey key;
  bool key_from_file = false;  // --noise-key-file (kept by the user) or drawn from the OS (kept here)
};

std::filesystem::path default_state_dir(const std::filesystem::path& out);

// Refuses a state folder inside (or equal to) the output folder, which is publishable.
void check_state_dir(const std::filesystem::path& state_dir, const std::filesystem::path& out);

// Rank 0: creates the folder (0700; an existing one open to others is refused, with the chmod to
// run: core/atomic_file.hpp) and settles the key: from `key_file` when given; else the one kept by
// an interrupted run when resuming; else a fresh one from the OS, kept as noise.key. Without
// --resume, an earlier run's checkpoint and progress in the folder are replaced (the nonce record
// is kept: it is about the key, not the run).
PrivateState open_private_state(const std::filesystem::path& dir, bool resume,
                                const std::optional<std::filesystem::path>& key_file);

// Rank 0, after the outputs are written: deletes an OS-drawn key.
void close_private_state(const PrivateState& state);

// Rank 0, when a run fails: a kept key beside no checkpoint or progress protects nothing that
// --resume could continue, so it is deleted (and the folder, when that leaves it empty): a run
// that never released anything leaves no secret behind.
void discard_unused_private_state(const PrivateState& state);

// What run.json may say about the key: where it came from, never the key.
std::string noise_key_source(const PrivateState& state);

// The key of every MAC over the state folder's files: a subkey of the noise key (never the key).
NoiseKey state_mac_key(const NoiseKey& key);

// The nonce record of a key file (noise-nonces.json, MAC'd with the key): for each nonce used with
// the key, a keyed check of the release digest it was used for (evolve/release_keys.hpp). Returns
// false, recording nothing, when the folder shows that this key and nonce already made a run with
// another release digest (whose noise the new run would share if the digests' inputs missed
// something); else records the pair and returns true. Refuses a record that secpe did not write
// with this key (a wrong MAC) as an edited file.
bool record_noise_nonce(const std::filesystem::path& dir, const NoiseKey& key, const NoiseNonce& nonce,
                        const std::string& release_digest);
std::filesystem::path noise_nonces_path(const std::filesystem::path& dir);

// calibration.json: the calibration's per-label inputs (private counts, the batch used, whether a
// label holds private records, how its LP was solved), which privacy.json must not show.
std::filesystem::path calibration_inputs_path(const std::filesystem::path& dir);

}  // namespace secpe
