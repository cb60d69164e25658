#pragma once
// Stage "evolve" of a run: every label not finished yet, into the checkpoint; at the end every
// rank holds every outcome and every release. Rank 0 rewrites progress.json after every iteration
// and checkpoint.json after every finished label, and every rank checks for a stop request at the
// same points (Interrupted: progress kept, --resume continues).
#include <cstddef>
#include <map>
#include <vector>

#include "core/secret_key.hpp"
#include "comms/communicator.hpp"
#include "evolve/checkpoint.hpp"
#include "evolve/methods/method.hpp"
#include "evolve/run_models.hpp"
#include "evolve/run_options.hpp"
#include "evolve/shard.hpp"
#include "privacy/ledger.hpp"

namespace secpe {

struct EvolutionContext {
  const RunOptions& options;
  const RunSecrets& secrets;  // the noise key MACs the saved progress
  const Shard& shard;
  const Models& models;
  const Method& method;  // calibrated
  PrivacyLedger& ledger;
  NoiseKey run_key;  // evolve/release_keys.hpp: every label's release key derives from it
};

// `in_progress`: labels an interrupted run was in the middle of (evolve/run_resume.hpp).
void evolve_labels(const Communicator& comm, const EvolutionContext& run, const std::vector<std::size_t>& synthetic_per_label,
                   std::map<std::size_t, LabelProgress> in_progress, Checkpoint& checkpoint);

}  // namespace secpe
