#pragma once
// The run's private state folder (default OUT.state, beside the output folder; mode 0700): what
// --resume needs and nobody else may see. It holds the checkpoint and, when the noise key came
// from the operating system, the key itself (noise.key, mode 0600). The output folder is
// publishable; this folder never is. When a run completes, its OS-drawn key is deleted: nothing
// is left that could regenerate the noise.
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

// Rank 0: creates the folder (0700) and settles the key: from `key_file` when given; else the one
// kept by an interrupted run when resuming; else a fresh one from the OS, kept as noise.key.
// Without --resume, an earlier run's state in the folder is replaced.
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

}  // namespace secpe
