#pragma once
// The whole run's stages: load this rank's shard of the dataset and check every input, then
// calibrate noise and evolve every label with the run's method (SecPE, Aug-PE or the control), and
// assemble what rank 0 writes out. The run session (evolve/run_session.hpp) calls them in order.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "comms/communicator.hpp"
#include "eval/real_set.hpp"
#include "evolve/methods/method.hpp"
#include "evolve/run_budget.hpp"
#include "evolve/run_options.hpp"
#include "evolve/shard.hpp"
#include "privacy/budgets.hpp"

namespace secpe {

struct RunResult {
  std::vector<std::vector<std::string>> synthetic;  // per label, in selection order
  std::vector<std::vector<std::string>> initial;    // per label: the generator's output at iteration 0
  std::vector<std::int32_t> synthetic_labels;       // label of each line of synthetic.csv
  nlohmann::ordered_json privacy;                   // privacy.json
  std::vector<nlohmann::ordered_json> metrics;      // metrics.jsonl lines
  nlohmann::ordered_json summary;                   // part of run.json
  nlohmann::ordered_json timings;                   // timings.json in the private state folder (evolve/run_timings.hpp)
  std::vector<std::string> label_columns, label_prefixes;
  std::vector<int> column_order;  // synthetic.csv's columns in the input's order (io/corpus.hpp)
  std::vector<std::vector<std::string>> label_values;
};

// What a run reads and checks before it makes any secret or does any costly work: this rank's
// shard of the dataset, the per-secret budgets, N_syn per label, and the real set of --eval-real
// (read once, its labels checked against the dataset's). InputError for a run that cannot succeed:
// a dataset without public records, a budgets file that does not fit, real records whose label
// values never match, a candidate pool that does not fit in memory.
struct RunInputs {
  // The run's method (evolve/methods/method.hpp), made from RunOptions::method; run_pipeline
  // calibrates it (the pointer is const, the method is not).
  std::unique_ptr<Method> method;
  std::unique_ptr<Shard> shard;
  SecretBudgets budgets;
  std::vector<std::size_t> synthetic_per_label;
  std::optional<RealSet> eval_real;
  std::vector<int> column_order;  // the input's column order, from the dataset's provenance (io/corpus.hpp)
};
RunInputs prepare_run(const Communicator& comm, const RunOptions& options);

// The run itself, on the communicator `inputs` were prepared on, with the run's settled secrets.
// `budget` composes the calibrated run with the dataset's earlier runs before any release.
RunResult run_pipeline(const Communicator& comm, const RunOptions& options, const RunSecrets& secrets, const RunInputs& inputs,
                       RunBudget& budget);

}  // namespace secpe
