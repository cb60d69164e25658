#pragma once
// Checkpoints: after each finished label, rank 0 rewrites checkpoint.json in the run's private
// state folder (evolve/private_state.hpp; atomically, mode 0600) with the finished labels'
// outcomes and a fingerprint of everything that determines them (including a keyed check of the
// noise key, so a resume with another key is refused). A run with --resume skips those labels, so
// an interrupted job loses at most one label's work and the final outputs are the same as an
// uninterrupted run's. Apart from the key check, it holds only released values and synthetic text.
#include <filesystem>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "evolve/label_evolution.hpp"

namespace secpe {

struct Checkpoint {
  nlohmann::ordered_json fingerprint;
  std::map<std::size_t, LabelOutcome> labels;
};

std::filesystem::path checkpoint_path(const std::filesystem::path& state_dir);
void save_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint);
// Reads a checkpoint; InputError naming the file when it is not one.
Checkpoint load_checkpoint(const std::filesystem::path& path);
// InputError naming the first setting that differs, with a note when more iterations are
// requested (the finished labels' budget was spent for the old T).
void check_fingerprint(const nlohmann::ordered_json& saved, const nlohmann::ordered_json& current,
                       const std::filesystem::path& path);

}  // namespace secpe
