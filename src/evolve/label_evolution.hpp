#pragma once
// Protected evolution of one label (paper Algorithm 3): T iterations of candidates -> released
// votes -> rank selection -> variations. The votes come from the run's method (SecPE: noisy
// public-cluster centres; Aug-PE: every voting record; the control: at random).
#include <cstdint>
#include <functional>
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

struct LabelEvolution {
  const Communicator& comm;
  const Generator& generator;
  const Embedder& embedder;
  std::uint64_t seed;        // public: the generator's streams
  std::size_t label;
  std::string label_name;
  std::size_t synthetic;   // N_syn of the label
  int iterations;
  int variations;
  LabelVoting& voting;           // the method's (evolve/methods/method.hpp): every iteration's released votes
  const PrivacyLedger& ledger;   // its charges: the label's releases, kept in the outcome
  NearDuplicateOptions distinct;  // selection keeps no near-duplicate of a kept candidate
  bool keep_history;              // keep every iteration's selection (for --eval-real)
  int first_iteration = 0;        // > 0: continue a label from its saved progress (evolve/checkpoint.hpp)
  // Called after every iteration with the outcome so far and the iterations done (to save
  // progress, and to stop there when asked to).
  std::function<void(const LabelOutcome&, int)> after_iteration = {};
};

// Runs iterations first_iteration..T-1, appending to `outcome` (whose report the caller has
// started; when continuing, the saved outcome, whose `synthetic` is the population to vary).
void evolve_label(const LabelEvolution& job, LabelOutcome& outcome);

}  // namespace secpe
