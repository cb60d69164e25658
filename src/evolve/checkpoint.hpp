#pragma once
// Checkpoints: after each finished label, rank 0 rewrites checkpoint.json in the run's private
// state folder (evolve/private_state.hpp; atomically, mode 0600) with the finished labels'
// outcomes and a fingerprint of everything that determines them (including a keyed check of the
// noise key, so a resume with another key is refused, the run's public nonce and a keyed check of
// its release digest, evolve/release_keys.hpp). A run with --resume skips those labels, so an
// interrupted job loses at most one label's work and the final outputs are the same as an
// uninterrupted run's. Apart from the two keyed checks, it holds only released values and
// synthetic text.
//
// Layout (one line, valid JSON; format version 4, which added the MAC; 3 added each label's
// initial population and selection history):
//   {"format":"secpe-checkpoint","format_version":4,"checksum":"blake2b-256:HEX","mac":"blake2b-256-keyed:MAC","content":CONTENT}
// where CONTENT is {"fingerprint": {...}, "labels": [...]}, HEX the BLAKE2b-256 of CONTENT's bytes
// exactly as stored (any damage is detected without re-serialising it, and without the key:
// `secpe inspect`), and MAC a keyed BLAKE2b-256 of the same bytes under the state folder's MAC key
// (state_mac_key, a subkey of the noise key) bound to the file's name. The checksum alone could be
// recomputed by anyone who edits the file; the MAC cannot, so --resume refuses a checkpoint or
// progress file that secpe did not write with this key. Loading then checks every field the
// pipeline and `secpe inspect` use.
#include <filesystem>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/secret_key.hpp"
#include "evolve/label_evolution.hpp"

namespace secpe {

struct Checkpoint {
  nlohmann::ordered_json fingerprint;
  std::map<std::size_t, LabelOutcome> labels;
};

// A label after its `iterations_done` complete iterations (1 to T - 1 in progress.json; T when
// finished): its outcome so far, whose `synthetic` is the population the next iteration varies,
// and whose releases are the ledger's entries so far. Every draw is keyed by (seed or key, label,
// iteration, ...), so a run continued from here makes exactly what the uninterrupted run would
// have made.
struct LabelProgress {
  std::size_t label = 0;
  int iterations_done = 0;
  LabelOutcome outcome;
};

std::filesystem::path checkpoint_path(const std::filesystem::path& state_dir);
// `key`: the run's noise key, from which the MAC key is derived (never stored).
void save_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint, const NoiseKey& key);
// Reads a checkpoint; InputError naming the file (and the field) when it is not one, its checksum
// does not match, or a field is missing, of the wrong type or out of range. With `num_labels`,
// every finished label must be below it. With `key`, also when it was made with another key or
// its MAC does not match (edited); without (`secpe inspect`), the MAC is not checked.
Checkpoint load_checkpoint(const std::filesystem::path& path, std::optional<std::size_t> num_labels, const NoiseKey* key);
// progress.json, beside the checkpoint: rewritten after every iteration with the labels in
// progress (one, or one per rank with --shard-by label; small: their populations), removed when
// none is left out of checkpoint.json. Same envelope and checks; loading also checks the
// fingerprint (the settings and the noise key) and the MAC.
std::filesystem::path progress_path(const std::filesystem::path& state_dir);
void save_progress(const std::filesystem::path& path, const nlohmann::ordered_json& fingerprint,
                   const std::map<std::size_t, LabelProgress>& in_progress, const NoiseKey& key);
std::map<std::size_t, LabelProgress> load_progress(const std::filesystem::path& path, std::size_t num_labels, int iterations,
                                                   const nlohmann::ordered_json& fingerprint, const NoiseKey& key);
// One label's progress as JSON and back: how ranks evolving labels apart hand each other their
// labels' state. Reading checks the fields as loading a file does, naming `source`, and allows
// iterations_done in [1, iterations].
nlohmann::ordered_json progress_json(const LabelProgress& progress);
LabelProgress progress_from_json(const nlohmann::ordered_json& json, const std::string& source, std::size_t num_labels, int iterations);
// The public seed and nonce of the run whose checkpoint or progress is in `state_dir`, so that
// --resume continues with them; nullopt when there is neither. Read before the key is settled, so
// the checksum and the fields are checked here and the MAC when the run loads the files (with the
// fingerprint, which holds both): an edited seed or nonce is refused before anything is released.
struct SavedRunInputs {
  std::uint64_t seed = 0;
  NoiseNonce nonce;
};
std::optional<SavedRunInputs> saved_run_inputs(const std::filesystem::path& state_dir);
// InputError naming the first setting that differs, with a note when more iterations are
// requested (the finished labels' budget was spent for the old T).
void check_fingerprint(const nlohmann::ordered_json& saved, const nlohmann::ordered_json& current,
                       const std::filesystem::path& path);

}  // namespace secpe
