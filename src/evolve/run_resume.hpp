#pragma once
// Stage "resume" of a run: what an interrupted run left in the private state folder (its
// checkpoint and progress, evolve/checkpoint.hpp), checked against this run's settings before
// any costly work.
#include <cstddef>
#include <map>

#include <nlohmann/json.hpp>

#include "comms/communicator.hpp"
#include "evolve/checkpoint.hpp"
#include "evolve/run_options.hpp"
#include "io/dataset.hpp"
#include "privacy/ledger.hpp"

namespace secpe {

// Everything that determines a label's outcome, for checking a checkpoint before resuming: where
// the inputs are, the keyed checks, and every setting the release keys cover (release_settings),
// one field each, so that a refusal names the setting that differs.
nlohmann::ordered_json run_fingerprint(const RunOptions& options, const RunSecrets& secrets, const DatasetInfo& info);

// Stage "resume" (before any costly work): the labels an interrupted run with the same settings
// finished, and those it was in the middle of with their complete iterations, their releases
// restored to the ledger (nothing when not resuming or no checkpoint exists). Rank 0 reads and
// checks the files and sends their content to the other ranks.
std::map<std::size_t, LabelProgress> resume_checkpoint(const Communicator& comm, const RunOptions& options, const RunSecrets& secrets,
                                                       std::size_t num_labels, Checkpoint& checkpoint, PrivacyLedger& ledger);

// --resume into an output folder that already holds a completed run (its run.json): rank 0
// compares the settings its checkpoint was made with to these; the noise key (secrets.noise_key),
// with the checkpoint's MAC and the keyed check of the release digest (secrets.release_digest),
// only when `key_known` (an OS-drawn key is deleted when its run completes), --eval-real not at
// all (nothing is evaluated again), and throws InputError naming the first that differs.
void check_completed_run(const RunOptions& options, const RunSecrets& secrets, const DatasetInfo& info, bool key_known);

}  // namespace secpe
