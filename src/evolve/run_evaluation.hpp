#pragma once
// Stage "evaluate" (--eval-real): the real file is read once before the run (so that a bad file
// or real labels that never match fail before any work); after the run, the initial population
// and the selection after every iteration, over all labels, are scored as `secpe eval` would, one
// metrics.jsonl line each. Label prefixes are removed from the real values as secpe eval does:
// the dataset's and Aug-PE's.
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "comms/communicator.hpp"
#include "eval/real_set.hpp"
#include "evolve/checkpoint.hpp"
#include "evolve/run_options.hpp"
#include "io/dataset.hpp"

namespace secpe {

// Before the run: the real set, or none without --eval-real; InputError for a file whose label
// values never match the dataset's.
std::optional<RealSet> prepare_eval(const Communicator& comm, const RunOptions& options, const DatasetInfo& info,
                                    const std::vector<std::size_t>& synthetic_per_label);
// After the run: one metrics.jsonl line per population (the initial one, then every iteration's).
std::vector<nlohmann::ordered_json> evaluate_populations(const Communicator& comm, const RunOptions& options, const DatasetInfo& info,
                                                         const Checkpoint& checkpoint, const RealSet& real);

}  // namespace secpe
