#pragma once
// Protected evolution of one label (paper Algorithm 3): T iterations of candidates -> released
// votes -> rank selection -> variations. SecPE votes come from noisy public-cluster centres,
// Aug-PE votes from every private record.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/secret_clustering.hpp"
#include "compute/nearest.hpp"
#include "dist/communicator.hpp"
#include "privacy/ledger.hpp"
#include "text/embedder.hpp"
#include "text/generator.hpp"
#include "text/near_duplicates.hpp"

namespace secpe {

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
  const NearestCentreKernel& kernel;
  Metric metric;
  std::uint64_t seed;        // public: the generator's streams
  const NoiseKey& noise_key; // secret: the label's release key (evolve/release_keys.hpp), never the noise key itself
  std::size_t label;
  std::string label_name;
  std::size_t synthetic;   // N_syn of the label
  int iterations;
  int variations;
  double sigma;
  // SecPE: the label's secret clustering; Aug-PE: null, and `voters` vote directly; the
  // no-private-data control (--method random): both null, and selection is uniformly random.
  const SecretClustering* clustering;
  double clip_radius;     // SecPE: R, the release's noise scale
  const MatrixF* voters;
  double augpe_threshold;
  PrivacyLedger& ledger;  // charged before every release
  int votes_per_centre;   // SecPE: each noisy centre votes for its k nearest candidates
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
