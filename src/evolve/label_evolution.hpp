#pragma once
// Protected evolution of a label (paper Algorithm 3): T iterations of candidates -> released
// votes -> rank selection -> variations, several labels side by side (evolve/label_windows.hpp).
// The votes come from the run's method (SecPE: noisy public-cluster centres; Aug-PE: every voting
// record; the control: at random).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "comms/communicator.hpp"
#include "privacy/ledger.hpp"
#include "text/embedder.hpp"
#include "text/generator.hpp"
#include "text/near_duplicates.hpp"

namespace secpe {

class LabelVoting;  // evolve/methods/method.hpp

// What one label contributes to the outputs; also what a checkpoint stores per finished label.
struct LabelOutcome {
  std::vector<std::string> synthetic;          // final selection, in rank order
  std::vector<std::string> initial;            // iteration 0's first N_syn candidates: the generator alone
  std::vector<std::vector<std::string>> history;  // the selection after each iteration (when kept)
  nlohmann::ordered_json report;               // privacy.json "labels" entry
  nlohmann::ordered_json releases;             // the label's ledger entries (array)
  std::vector<nlohmann::ordered_json> metrics; // metrics.jsonl lines
};

// What every label of a run evolves with.
struct LabelEvolution {
  const Communicator& comm;  // the labels' communicator: all ranks (by record) or this one (by label)
  const Generator& generator;
  const Embedder& embedder;
  std::uint64_t seed;        // public: the generator's streams
  int iterations;
  int variations;
  const PrivacyLedger& ledger;    // its charges: each label's releases, kept in its outcome
  NearDuplicateOptions distinct;  // selection keeps no near-duplicate of a kept candidate
  bool keep_history;              // keep every iteration's selection (for --eval-real)
};

// A label being evolved: its voting (set up by the run's method, evolve/methods/method.hpp: every
// iteration's released votes), its outcome so far (whose `synthetic` is the population to vary)
// and its iterations done (> 0: continued from its saved progress, evolve/checkpoint.hpp).
struct LabelInFlight {
  std::size_t label;
  std::string label_name;
  std::size_t synthetic;  // N_syn of the label
  std::unique_ptr<LabelVoting> voting;
  LabelOutcome outcome;
  int done = 0;
};

// One round: every label of `flight` with iterations left evolves one iteration, their
// candidates made together (evolve/candidates.hpp), appending to its outcome.
void evolve_round(const LabelEvolution& job, std::vector<LabelInFlight>& flight);

}  // namespace secpe
